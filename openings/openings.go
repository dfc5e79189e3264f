package openings

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/rules"
)

// LoadSuite reads an opening suite for v: the file's, or v's own embedded
// suite (configs/openings/NAME.txt) when file is "". Errors name the file
// and line.
func LoadSuite(file string, v *rules.Variant) ([]SuiteEntry, error) {
	if file == "" {
		// A suite belongs to its rule set's rules, not its name: a copy of
		// an embedded rule set with a switch changed has none.
		if !variants.IsShipped(v) {
			return nil, errctx.Errorf("openings", "rule set %s has no opening suite of its own (only the shipped rule sets have): name a suite file (eval suite builds one), or suite:NAME for shipped rule set NAME's suite played under it", v.Name())
		}
		return embeddedSuite(v.Name(), v)
	}
	data, err := fileio.ReadFileLimit(file, fileio.MaxConfigBytes, "an opening suite")
	if err != nil {
		return nil, errctx.Errorf("openings", "opening suite: %w", err)
	}
	return ParseSuite(file, data, v)
}

// embeddedSuite reads the embedded opening suite of the shipped rule set
// name as positions of v: that rule set, or another reading of its rules
// (OpenTafl's rules string of it, say) whose board and start its positions
// fit.
func embeddedSuite(name string, v *rules.Variant) ([]SuiteEntry, error) {
	data, ok := configs.OpeningSuite(name)
	if !ok {
		return nil, errctx.Errorf("openings", "suite:%s: want a shipped rule set's suite (%s)", name, strings.Join(variants.Names(), ", "))
	}
	return ParseSuite("configs/openings/"+name+".txt (embedded)", data, v)
}

// Openings returns the openings of a match under v: "suite" for v's own
// opening suite, "suite:NAME" for the shipped rule set NAME's suite played
// under v (another program's reading of NAME's rules), "random" for a book of pairs random openings of plies
// moves from the start (Book), or an opening-suite file. A suite's
// positions come in an order shuffled by seed, so that matches of fewer
// pairs than the suite has positions play different parts of it. desc
// says which, for reports.
func Openings(spec string, v *rules.Variant, pairs, plies int, seed uint64) (openings []match.Opening, desc string, err error) {
	return OpeningsCtx(context.Background(), spec, v, pairs, plies, seed)
}

// OpeningsCtx is Openings stopped by ctx while it draws random openings
// (its error is then ctx's).
func OpeningsCtx(ctx context.Context, spec string, v *rules.Variant, pairs, plies int, seed uint64) (openings []match.Opening, desc string, err error) {
	var entries []SuiteEntry
	switch spec {
	case "random":
		if plies < 0 || plies > configs.MaxOpeningPlies {
			return nil, "", errctx.Errorf("openings", "random openings of %d plies: want 0 to %d", plies, configs.MaxOpeningPlies)
		}
		book, err := NewBook(ctx, v, pairs, plies, seed)
		if err != nil {
			return nil, "", err
		}
		return book, fmt.Sprintf("random openings of %d plies (seed %d)", plies, seed), nil
	case "":
		return nil, "", errctx.Errorf("openings", "no openings: want suite, random or a suite file")
	case "suite":
		entries, err = LoadSuite("", v)
		desc = fmt.Sprintf("the opening suite of %s", v.Name())
	default:
		if name, ok := strings.CutPrefix(spec, "suite:"); ok {
			entries, err = embeddedSuite(name, v)
			desc = fmt.Sprintf("the opening suite of %s", name)
			break
		}
		entries, err = LoadSuite(spec, v)
		desc = fmt.Sprintf("the opening suite %s", spec)
	}
	if err != nil {
		return nil, "", err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5017e))
	rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	return SuiteOpenings(entries), fmt.Sprintf("%s (%d positions, shuffled by seed %d)", desc, len(entries), seed), nil
}
