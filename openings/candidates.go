package openings

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/rules"
)

// CandidateConfig says where an opening suite's candidate positions come
// from (GatherCandidates): human game prefixes, a suite's positions and
// random openings, in that order.
type CandidateConfig struct {
	// Variant is the suite's rule set: every candidate is a position of it.
	Variant *rules.Variant
	// Records is a game-record file (the archive CSV) whose prefixes are
	// candidates, "" for none, played under RecordsVariant (nil: Variant),
	// which must start where Variant does. Each prefix is replayed under
	// Variant from its start; one that is illegal there, or where the game
	// is already over there, is skipped with the rest of its game.
	Records        string
	RecordsVariant *rules.Variant
	// Winner takes only the records that side won; rules.NoWinner (the
	// zero value) takes any.
	Winner rules.Winner
	// PlyLo and PlyHi (plies, default 8 and 40) bound the prefixes taken:
	// the position after k moves for k from PlyLo to PlyHi, every Every
	// plies (default 4) from PlyLo.
	PlyLo, PlyHi, Every int
	// Suite is an opening-suite file whose positions are candidates again,
	// "" for none.
	Suite string
	// Random is the number of random openings (default 100) of RandomPlies
	// random legal moves each (default 6), drawn from Seed (default 1).
	Random, RandomPlies int
	Seed                uint64
}

// DefaultCandidateConfig returns the defaults: 100 random openings of 6
// plies from seed 1, and the prefix range a Records file would use. Set
// Variant.
func DefaultCandidateConfig() CandidateConfig {
	return CandidateConfig{PlyLo: 8, PlyHi: 40, Every: 4, Random: 100, RandomPlies: 6, Seed: 1}
}

// Validate checks the settings.
func (c CandidateConfig) Validate() error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, errctx.Errorf("openings", format, a...)) }
	if c.Variant == nil {
		add("candidates: no rule set")
	}
	if c.PlyLo < 0 || c.PlyHi < c.PlyLo || c.Every < 1 {
		add("prefixes after %d to %d plies every %d: want 0 <= PlyLo <= PlyHi and Every >= 1", c.PlyLo, c.PlyHi, c.Every)
	}
	if c.Random < 0 || c.RandomPlies < 1 {
		add("%d random openings of %d plies: want 0 or more of at least 1 ply", c.Random, c.RandomPlies)
	}
	if c.Variant != nil && c.Records != "" && c.recordsVariant().Start() != c.Variant.Start() {
		add("records of %s start where %s does not: their prefixes would all be illegal", c.recordsVariant().Name(), c.Variant.Name())
	}
	return errors.Join(errs...)
}

func (c CandidateConfig) recordsVariant() *rules.Variant {
	if c.RecordsVariant == nil {
		return c.Variant
	}
	return c.RecordsVariant
}

// Candidates are the gathered candidates of a suite, with what its header
// says of them.
type Candidates struct {
	List []SuiteCandidate
	// Kind is, per candidate, its kind of source: "human ply 8", "from
	// FILE", "random 6 plies".
	Kind []string
	// HumanGames counts the records read (of Winner); Illegal and Finished
	// the prefixes skipped because their moves are illegal under Variant or
	// the game is over there.
	HumanGames, Illegal, Finished int
}

// CandidateError is a source of candidates that failed: its Key is the
// source, "records", "suite" or "random", and its Error "openings: SOURCE:
// MESSAGE" (errctx.KeyError's). A type of its own, so that errors.As tells
// a source's failure from any other key's error.
type CandidateError struct{ errctx.KeyError }

// Package is "openings", for errctx.MessageOf.
func (e *CandidateError) Package() string { return e.Pkg }

// candidateError returns err as source's failure.
func candidateError(source string, err error) error {
	return &CandidateError{errctx.KeyError{Pkg: "openings", Key: source, Err: err}}
}

// GatherCandidates reads the human prefixes, the suite's positions and
// draws the random openings of cfg, in that order; stopped by ctx it
// returns ctx's error. A source that fails returns a *CandidateError.
// Duplicates are left for BuildSuite to drop.
func GatherCandidates(ctx context.Context, cfg CandidateConfig) (Candidates, error) {
	if err := cfg.Validate(); err != nil {
		return Candidates{}, err
	}
	var c Candidates
	if cfg.Records != "" {
		if err := c.addRecords(ctx, cfg); err != nil {
			return Candidates{}, err
		}
	}
	if cfg.Suite != "" {
		entries, err := LoadSuite(cfg.Suite, cfg.Variant)
		if err != nil {
			return Candidates{}, candidateError("suite", err)
		}
		for _, e := range entries {
			source := "suite " + filepath.Base(cfg.Suite)
			if from, _, ok := strings.Cut(e.Comment, ";"); ok && from != "" {
				source = from // the position's first source, without its old measure
			}
			c.List = append(c.List, SuiteCandidate{Position: e.Position, Source: source})
			c.Kind = append(c.Kind, "from "+filepath.Base(cfg.Suite))
		}
	}
	starts, err := NewRandomStarts(ctx, cfg.Variant, cfg.Random, cfg.RandomPlies, cfg.Seed)
	if err != nil {
		return Candidates{}, candidateError("random", err)
	}
	for _, r := range starts {
		c.List = append(c.List, r)
		c.Kind = append(c.Kind, fmt.Sprintf("random %d plies", cfg.RandomPlies))
	}
	return c, nil
}

// addRecords adds the human prefixes of cfg.Records.
func (c *Candidates) addRecords(ctx context.Context, cfg CandidateConfig) error {
	games, err := datasets.ReadRecordGamesCtx(ctx, cfg.Records, cfg.recordsVariant())
	if err != nil {
		return candidateError("records", err)
	}
	g := rules.NewGame(cfg.Variant)
	for _, rg := range games {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if cfg.Winner != rules.NoWinner && rg.Winner != cfg.Winner {
			continue
		}
		c.HumanGames++
		if len(rg.Positions) == 0 {
			continue
		}
		if err := g.ResetTo(rg.Positions[0]); err != nil { // a record's own start
			c.Illegal += cfg.skipped(0, len(rg.Moves))
			continue
		}
		for k := 0; k <= cfg.PlyHi && k <= len(rg.Moves); k++ {
			if k >= cfg.PlyLo && (k-cfg.PlyLo)%cfg.Every == 0 {
				c.List = append(c.List, SuiteCandidate{Position: g.Position(),
					Source: fmt.Sprintf("human line %d, ply %d", rg.Line, k)})
				c.Kind = append(c.Kind, fmt.Sprintf("human ply %d", k))
			}
			if k == len(rg.Moves) || k == cfg.PlyHi {
				break
			}
			if err := g.Play(rg.Moves[k].Move); err != nil {
				c.Illegal += cfg.skipped(k+1, len(rg.Moves))
				break
			}
			if g.Outcome().Over() {
				c.Finished += cfg.skipped(k+1, len(rg.Moves))
				break
			}
		}
	}
	return nil
}

// skipped counts the prefixes from ply k to the game's last (moves) that
// the range would have taken.
func (c CandidateConfig) skipped(k, moves int) int {
	n := 0
	for j := max(k, c.PlyLo); j <= min(c.PlyHi, moves); j++ {
		if (j-c.PlyLo)%c.Every == 0 {
			n++
		}
	}
	return n
}

// count counts the candidates whose kind starts with prefix.
func (c Candidates) count(prefix string) int {
	n := 0
	for _, k := range c.Kind {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}
