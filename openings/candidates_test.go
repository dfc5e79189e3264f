package openings

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/internal/varianttest"
	"taflab/match"
	"taflab/rules"
)

func TestGatherCandidates(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	dir := t.TempDir()
	records := varianttest.WriteFile(t, dir, "games.csv", "d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8xb7,1,0,Black\n"+
		"h1-h3 f8-i8 f10-i10 d6-d3,0,0,White\n")
	start := v.Start()
	suite := varianttest.WriteFile(t, dir, "suite.txt", string(FormatSuite([]string{"a suite"},
		[]SuiteEntry{{Position: start, Comment: "human line 3, ply 0; defenders 1/2"}})))
	base := CandidateConfig{Variant: v, RecordsVariant: variants.MustLoad("copenhagen-classic"), PlyLo: 2, PlyHi: 6, Every: 2, RandomPlies: 3, Seed: 1}
	with := func(f func(c *CandidateConfig)) CandidateConfig {
		c := base
		f(&c)
		return c
	}
	cases := []struct {
		name       string
		cfg        CandidateConfig
		kinds      string // the kinds, space-joined
		sources    string // the first candidate's source
		humanGames int
		source     string // the *CandidateError's source, "" for none
		err        string // an error's text, "" for none
	}{
		{"human prefixes", with(func(c *CandidateConfig) { c.Records = records }),
			"human ply 2,human ply 4,human ply 6,human ply 2,human ply 4", "human line 1, ply 2", 2, "", ""},
		{"the attackers' wins", with(func(c *CandidateConfig) { c.Records, c.Winner = records, rules.AttackersWin }),
			"human ply 2,human ply 4,human ply 6", "human line 1, ply 2", 1, "", ""},
		{"one ply", with(func(c *CandidateConfig) { c.Records, c.PlyLo, c.PlyHi = records, 5, 5 }),
			"human ply 5", "human line 1, ply 5", 2, "", ""},
		{"a suite", with(func(c *CandidateConfig) { c.Suite = suite }), "from suite.txt", "human line 3, ply 0", 0, "", ""},
		{"random", with(func(c *CandidateConfig) { c.Random = 2 }), "random 3 plies,random 3 plies", "", 0, "", ""},
		{"every source", with(func(c *CandidateConfig) { c.Records, c.Suite, c.Random, c.PlyLo, c.PlyHi = records, suite, 1, 0, 0 }),
			"human ply 0,human ply 0,from suite.txt,random 3 plies", "human line 1, ply 0", 2, "", ""},
		{"missing records", with(func(c *CandidateConfig) { c.Records = filepath.Join(dir, "none.csv") }), "", "", 0, "records", "none.csv"},
		{"missing suite", with(func(c *CandidateConfig) { c.Suite = filepath.Join(dir, "none.txt") }), "", "", 0, "suite", "none.txt"},
		{"no rule set", with(func(c *CandidateConfig) { c.Variant = nil }), "", "", 0, "", "no rule set"},
		{"bad range", with(func(c *CandidateConfig) { c.PlyLo, c.PlyHi = 6, 2 }), "", "", 0, "", "PlyLo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := GatherCandidates(context.Background(), c.cfg)
			var ce *CandidateError
			if errors.As(err, &ce) != (c.source != "") || c.source != "" && ce.Key != c.source {
				t.Errorf("got error %v, want a *CandidateError of %q (none for \"\")", err, c.source)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "openings: ") ||
					strings.Count(err.Error(), "openings: ") > 1 || strings.Contains(err.Error(), "datasets: ") {
					t.Errorf("got error %v, want one with %q and one package prefix", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if kinds := strings.Join(got.Kind, ","); kinds != c.kinds || len(got.List) != len(got.Kind) || got.HumanGames != c.humanGames {
				t.Errorf("got kinds %q of %d candidates and %d human games, want %q and %d", kinds, len(got.List), got.HumanGames, c.kinds, c.humanGames)
			}
			if c.sources != "" && got.List[0].Source != c.sources {
				t.Errorf("got first source %q, want %q", got.List[0].Source, c.sources)
			}
		})
	}
}

func TestSuiteHeader(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cands := CandidateConfig{Variant: v, Random: 2, RandomPlies: 3, Seed: 1, PlyLo: 8, PlyHi: 40, Every: 4}
	got, err := GatherCandidates(context.Background(), cands)
	if err != nil {
		t.Fatal(err)
	}
	b := SuiteBuild{Program: "eval suite", Args: []string{"-variant", "copenhagen", "-out", "my suite.txt"}, Candidates: cands, Gathered: got,
		Config: SuiteConfig{Variant: v, Reference: match.Player{Name: "builtin-8", Playouts: 8}, Games: 4, MinDefenderRate: 0.25, MaxDefenderRate: 0.75, Size: 2, Seed: 1},
		Stats: SuiteStats{Tried: 2, Kept: 1, Games: 8, Before: []int{0, 0, 1, 0, 1}, After: []int{0, 0, 1, 0, 0}, MeanBefore: 0.75, MeanAfter: 0.5,
			Results: []SuiteResult{{Candidate: 0, Tally: match.Tally{Games: 4, DefenderWins: 2, AttackerWins: 2}, Kept: true}, {Candidate: 1, Tally: match.Tally{Games: 4, DefenderWins: 4}}}}}
	h := b.Header()
	for i, want := range []string{
		"copenhagen: opening suite built by eval suite",
		"command: eval suite -variant copenhagen -out 'my suite.txt'",
		"reference: builtin-8 against itself, 4 games a position; every move a full search of 8 playouts",
		"filter: defender rate within [0.25, 0.75] (1 to 3 wins of 4); candidates in an order shuffled by the seed, the first 2 that passed",
		"candidates: 2 random openings of 3 plies; 0 duplicates and 0 unplayable dropped",
		"measured: 2 candidates (8 games), 1 kept; mean defender rate 0.750 measured, 0.500 kept",
		"defender wins (of 4): measured 0:0 1:0 2:1 3:0 4:1; kept 0:0 1:0 2:1 3:0 4:0",
		"by source: offered, measured, kept (kept/measured), mean defender rate measured",
		"  random 3 plies        2      2      1 (50%) 0.750",
	} {
		if i >= len(h) || !strings.HasPrefix(h[i], want) {
			t.Errorf("line %d: got %q, want it to start %q", i, h, want)
		}
	}
}

// TestCandidateErrorOwnType: errors.As finds a *CandidateError in a
// source's failure only, not in another key's error, and the error reads
// as a key error of this package.
func TestCandidateErrorOwnType(t *testing.T) {
	var ce *CandidateError
	if other := errctx.Key("openings", "suite", errors.New("x")); errors.As(other, &ce) {
		t.Errorf("errors.As(%v, *CandidateError): got true, want false for a key error that is no source's", other)
	}
	err := candidateError("suite", errctx.Errorf("datasets", "s.txt: line 2: bad"))
	if !errors.As(err, &ce) || ce.Key != "suite" {
		t.Fatalf("errors.As(%v, *CandidateError): got false or key %q, want the suite's", err, ce.Key)
	}
	if got, want := err.Error(), "openings: suite: s.txt: line 2: bad"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := errctx.MessageOf("openings", err), "suite: s.txt: line 2: bad"; got != want {
		t.Errorf("MessageOf: got %q, want %q", got, want)
	}
}
