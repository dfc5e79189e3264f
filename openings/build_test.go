package openings

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
	"taflab/rules"
)

// The rule set's start with the king moved from the throne to b1, one move
// from the corner a1, and the defenders to move: they win at once.
const kingNextToCorner = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1dd1dd1aa/a3ddd3a/a4d4a/11/5a5/1k1aaaaa3 d"

// kingCapturedNext: the attackers to move capture the king at f9 by a8-f8.
const kingCapturedNext = "11/5a5/4aka4/a10/11/11/11/11/11/5d5/11 a"

// kingOnCorner is over before it starts: the king stands on a1.
const kingOnCorner = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1dd1dd1aa/a3ddd3a/a4d4a/11/5a5/k2aaaaa3 d"

// suiteTestConfig is a fast build: 8 playouts, 4 games a candidate.
func suiteTestConfig(v *rules.Variant) SuiteConfig {
	return SuiteConfig{Variant: v, Reference: builtin("ref", 8), Games: 4, MinDefenderRate: 0, MaxDefenderRate: 1,
		Seed: 7, Workers: 2, GamesPerWorker: 4}
}

func mustPosition(t *testing.T, s string) rules.Position {
	t.Helper()
	p, err := rules.ParsePosition(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// commentWins reads "defenders k/n" from a kept entry's comment.
func commentWins(t *testing.T, comment string) (wins, games int) {
	t.Helper()
	_, result, ok := strings.Cut(comment, "; defenders ")
	if !ok {
		t.Fatalf("comment %q: want it to hold \"; defenders k/n\"", comment)
	}
	if _, err := fmt.Sscanf(result, "%d/%d", &wins, &games); err != nil {
		t.Fatalf("comment %q: %v", comment, err)
	}
	return wins, games
}

func TestBuildSuiteDeterministic(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	// Random starts, whose results vary, beside one position each side
	// wins at once, so that a filter keeps some and drops some.
	cands := append(RandomStarts(v, 8, 4, 3),
		SuiteCandidate{Position: mustPosition(t, kingNextToCorner), Source: "defenders win"},
		SuiteCandidate{Position: mustPosition(t, kingCapturedNext), Source: "attackers win"})
	cases := []struct {
		name     string
		min, max float64
		size     int
		builds   []int // the workers of each build
	}{
		{"every candidate, two builds", 0, 1, 0, []int{2, 2}},
		{"every candidate, 1 and 2 workers", 0, 1, 0, []int{2, 1}},
		{"filtered, 1 and 2 workers", 0.5, 1, 0, []int{2, 1}},
		{"the first one that passes, 1 and 2 workers", 0.5, 1, 1, []int{2, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got [2][]SuiteEntry
			var stats [2]SuiteStats
			for i, workers := range c.builds {
				cfg := suiteTestConfig(v)
				cfg.Games, cfg.MinDefenderRate, cfg.MaxDefenderRate, cfg.Size = 2, c.min, c.max, c.size
				cfg.Workers, cfg.GamesPerWorker = workers, 3+2*i
				entries, st, err := BuildSuite(context.Background(), cfg, cands)
				if err != nil {
					t.Fatal(err)
				}
				got[i], stats[i] = entries, st
			}
			if !reflect.DeepEqual(got[0], got[1]) || !reflect.DeepEqual(stats[0], stats[1]) {
				t.Errorf("%d workers: got %v (%+v), want %d workers' %v (%+v)", c.builds[1], got[1], stats[1], c.builds[0], got[0], stats[0])
			}
			if len(got[0]) == 0 || (c.size > 0 && len(got[0]) != c.size) {
				t.Errorf("got %d entries, want some, and %d if that is more than 0", len(got[0]), c.size)
			}
			if c.min > 0 && c.size == 0 {
				for _, e := range got[0] {
					if e.Comment == "attackers win" || strings.HasPrefix(e.Comment, "attackers win;") {
						t.Errorf("kept %q, want the position the attackers win at once dropped", e.Comment)
					}
				}
				if stats[0].Kept == stats[0].Tried {
					t.Errorf("kept all %d tried, want the filter to drop some", stats[0].Tried)
				}
			}
			t.Logf("%d kept of %d tried: %v", stats[0].Kept, stats[0].Tried, stats[0].Before)
		})
	}
}

func TestBuildSuiteKeptPositions(t *testing.T) {
	for _, name := range []string{"copenhagen", "hnefatafl11"} {
		t.Run(name, func(t *testing.T) {
			v := variants.MustLoad(name)
			cfg := suiteTestConfig(v)
			var last SuiteProgress
			cfg.Progress = func(p SuiteProgress) { last = p }
			entries, st, err := BuildSuite(context.Background(), cfg, RandomStarts(v, 6, 5, 1))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 6 || st.Kept != 6 {
				t.Fatalf("got %d entries (%d kept), want all 6", len(entries), st.Kept)
			}
			if want := (SuiteProgress{Games: 24, TotalGames: 24, Tried: 6, Kept: 6}); last != want {
				t.Errorf("last progress: got %+v, want %+v", last, want)
			}
			back, err := ParseSuite("built", FormatSuite([]string{"test"}, entries), v)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, entries) {
				t.Errorf("read back: got %v, want %v", back, entries)
			}
			for i, e := range entries {
				if err := v.CheckStart(e.Position); err != nil {
					t.Errorf("entry %d: got %v, want a playable position", i, err)
				}
				if !strings.HasPrefix(e.Comment, "random opening ") {
					t.Errorf("entry %d: got comment %q, want it to name its source", i, e.Comment)
				}
				if _, games := commentWins(t, e.Comment); games != cfg.Games {
					t.Errorf("entry %d: got %d games in %q, want %d", i, games, e.Comment, cfg.Games)
				}
			}
		})
	}
}

func TestBuildSuiteFilter(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	random := RandomStarts(v, 6, 4, 5)
	near := SuiteCandidate{Position: mustPosition(t, kingNextToCorner), Source: "king next to a corner"}
	withBad := append([]SuiteCandidate{
		random[0], // a duplicate below
		{Position: mustPosition(t, kingOnCorner), Source: "king on a corner"},
		{Position: mustPosition(t, "2aaa2/3a3/3d3/aadkdaa/3d3/3a3/2aaa2 a"), Source: "a 7x7 board"},
	}, random...)
	cases := []struct {
		name                 string
		cands                []SuiteCandidate
		games                int
		min, max             float64
		kept, dups, unplayed int
	}{
		{"bounds [0, 1] keep every playable position", withBad, 4, 0, 1, 6, 1, 2},
		{"bounds no rate of 8 games meets keep none", random[:3], 8, 0.3, 0.32, 0, 0, 0},
		{"a won position under [0, 0.9]", []SuiteCandidate{near}, 4, 0, 0.9, 0, 0, 0},
		{"a won position under [0.2, 0.8]", []SuiteCandidate{near}, 4, 0.2, 0.8, 0, 0, 0},
		{"a won position under [0, 1]", []SuiteCandidate{near}, 4, 0, 1, 1, 0, 0},
		{"a won position under [1, 1]", []SuiteCandidate{near}, 4, 1, 1, 1, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := suiteTestConfig(v)
			cfg.Games, cfg.MinDefenderRate, cfg.MaxDefenderRate = c.games, c.min, c.max
			entries, st, err := BuildSuite(context.Background(), cfg, c.cands)
			if err != nil {
				t.Fatal(err)
			}
			if got := [3]int{len(entries), st.Duplicates, st.Unplayable}; got != [3]int{c.kept, c.dups, c.unplayed} {
				t.Errorf("got %v kept, duplicates, unplayable, want %v", got, [3]int{c.kept, c.dups, c.unplayed})
			}
			if want := len(c.cands) - c.dups - c.unplayed; st.Tried != want || st.Games != want*c.games || len(st.Results) != want {
				t.Errorf("got %d tried, %d games, %d results, want %d, %d, %d", st.Tried, st.Games, len(st.Results), want, want*c.games, want)
			}
			for _, e := range entries {
				wins, games := commentWins(t, e.Comment)
				if r := float64(wins) / float64(games); games != c.games || r < c.min || r > c.max {
					t.Errorf("comment %q: got rate %v of %d games, want %d games within [%v, %v]", e.Comment, r, games, c.games, c.min, c.max)
				}
			}
			for _, r := range st.Results {
				if c.cands[r.Candidate].Position == near.Position && (r.DefenderWins != c.games || r.Games != c.games) {
					t.Errorf("king next to a corner: got defenders %d/%d, want %d/%d", r.DefenderWins, r.Games, c.games, c.games)
				}
			}
			kept := 0
			for k, n := range st.After {
				kept += n
				if r := float64(k) / float64(c.games); n > 0 && (r < c.min || r > c.max) {
					t.Errorf("histogram of the kept: got %d at rate %v, want none outside [%v, %v]", n, r, c.min, c.max)
				}
			}
			if kept != st.Kept {
				t.Errorf("histogram of the kept: got %d in all, want %d", kept, st.Kept)
			}
		})
	}
}

func TestBuildSuiteStopped(t *testing.T) {
	v := variants.MustLoad("fetlar")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	entries, _, err := BuildSuite(ctx, suiteTestConfig(v), RandomStarts(v, 4, 4, 1))
	if !errors.Is(err, context.Canceled) || entries != nil {
		t.Errorf("got %v and %d entries, want context.Canceled and none", err, len(entries))
	}
}

func TestBuildSuiteBadConfig(t *testing.T) {
	v := variants.MustLoad("fetlar")
	cases := []struct {
		name   string
		change func(*SuiteConfig)
		want   string
	}{
		{"no rule set", func(c *SuiteConfig) { c.Variant = nil }, "rule set"},
		{"no playouts", func(c *SuiteConfig) { c.Reference.Playouts = 0 }, "playouts"},
		{"no evaluator", func(c *SuiteConfig) { c.Reference.NewEvaluator = nil }, "evaluator"},
		{"negative games", func(c *SuiteConfig) { c.Games = -1 }, "games"},
		{"min above max", func(c *SuiteConfig) { c.MinDefenderRate, c.MaxDefenderRate = 0.8, 0.2 }, "bounds"},
		{"max above 1", func(c *SuiteConfig) { c.MaxDefenderRate = 1.5 }, "bounds"},
		{"negative size", func(c *SuiteConfig) { c.Size = -1 }, "size"},
		{"negative workers", func(c *SuiteConfig) { c.Workers = -1 }, "workers"},
		{"bad search", func(c *SuiteConfig) { c.Search = mcts.DefaultConfig(); c.Search.CPuct = -1 }, "cpuct"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := suiteTestConfig(v)
			c.change(&cfg)
			_, _, err := BuildSuite(context.Background(), cfg, RandomStarts(v, 1, 2, 1))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error naming %q", err, c.want)
			}
		})
	}
}

// TestSuiteReferencePlayouts: a suite's reference player with playouts
// past mcts.MaxPlayouts (2^32+1, wrapped to 1 in 32 bits) is refused,
// naming the range.
func TestSuiteReferencePlayouts(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	suite := SuiteConfig{Variant: v, Reference: builtin("ref", 1<<32+1)}
	if err := suite.Validate(); err == nil || !strings.Contains(err.Error(), "want from 1 to 16777216") {
		t.Errorf("suite reference with 2^32+1 playouts: got %v, want the range", err)
	}
}

func TestRandomStarts(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cases := []struct {
		n, plies int
		toMove   rules.Side
	}{
		{5, 6, rules.Attackers},
		{3, 5, rules.Defenders},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d of %d plies", c.n, c.plies), func(t *testing.T) {
			a, b := RandomStarts(v, c.n, c.plies, 9), RandomStarts(v, c.n, c.plies, 9)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("two calls of one seed: got %v, want %v", b, a)
			}
			if len(a) != c.n {
				t.Fatalf("got %d starts, want %d", len(a), c.n)
			}
			for i, s := range a {
				if err := v.CheckStart(s.Position); err != nil || s.Position.ToMove != c.toMove || s.Position == v.Start() {
					t.Errorf("start %d (%s): got %v, %v to move, want a playable position after %d plies, %v to move",
						i, s.Source, err, s.Position.ToMove, c.plies, c.toMove)
				}
				if want := fmt.Sprintf("random opening %d of seed 9, %d plies", i, c.plies); s.Source != want {
					t.Errorf("start %d: got source %q, want %q", i, s.Source, want)
				}
			}
		})
	}
}

func builtin(name string, playouts int) match.Player {
	return match.Player{Name: name, Playouts: playouts, NewEvaluator: func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }}
}
