package match_test

import (
	"context"
	"fmt"
	"testing"

	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/stats"
)

func builtin(name string, playouts int) match.Player {
	return match.Player{Name: name, Playouts: playouts, NewEvaluator: func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }}
}

func TestFindsTheStrongerPlayer(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cases := []struct {
		name   string
		a, b   match.Player
		accept bool
	}{
		{"800 against 50 playouts", builtin("strong", 800), builtin("weak", 50), true},
		{"a player against itself", builtin("same", 200), builtin("same", 200), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := match.Config{Variant: v, A: c.a, B: c.b, Search: mcts.DefaultConfig(), Openings: openings.Book(v, 64, 8, 1), MaxPairs: 64}
			res, err := match.RunSPRT(context.Background(), cfg, stats.SPRT{Elo0: 0, Elo1: 20, Alpha: 0.05, Beta: 0.05}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v (%s)", c.name, res.Report, res.Stopped)
			if accepted := res.Report.Decision == stats.AcceptH1; accepted != c.accept {
				t.Errorf("got decision %v, want H1 accepted = %v", res.Report.Decision, c.accept)
			}
			if len(res.Pairs) != res.Report.Pairs {
				t.Errorf("got %d pairs kept, want %d", len(res.Pairs), res.Report.Pairs)
			}
			for _, p := range res.Pairs {
				if !p.Games[0].AAttacks || p.Games[1].AAttacks {
					t.Fatalf("pair %d: got sides %v/%v, want A attacking first, then defending", p.Index, p.Games[0].AAttacks, p.Games[1].AAttacks)
				}
				for _, g := range p.Games {
					if !g.Outcome.Over() {
						t.Fatalf("pair %d: a game that did not end", p.Index)
					}
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	v := variants.MustLoad("fetlar")
	cfg := match.Config{Variant: v, A: builtin("a", 0), B: match.Player{Name: "b", Playouts: 10}, Search: mcts.DefaultConfig(), MaxPairs: 0}
	err := cfg.Validate()
	for _, want := range []string{"player a: playouts", "player b: no evaluator", "max pairs"} {
		if err == nil || !contains(err.Error(), want) {
			t.Errorf("got %v, want an error naming %q", err, want)
		}
	}
	if _, err := match.RunSPRT(context.Background(), match.Config{Variant: v, A: builtin("a", 1), B: builtin("b", 1), Search: mcts.DefaultConfig(), MaxPairs: 1},
		stats.SPRT{Elo0: 10, Elo1: 0, Alpha: 0.05, Beta: 0.05}, nil); err == nil {
		t.Errorf("got no error for elo0 > elo1, want one before any game")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestPlayedPairsCountAndAreNotReplayed resumes a match from some of its
// finished pairs: the resumed match counts them, plays only the other
// indices, and a match whose pairs are all played plays nothing.
func TestPlayedPairsCountAndAreNotReplayed(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	test := stats.SPRT{Elo0: 0, Elo1: 1, Alpha: 1e-9, Beta: 1e-9} // never decides in 6 pairs
	cfg := match.Config{Variant: v, A: builtin("a", 20), B: builtin("b", 10), Search: mcts.DefaultConfig(), Openings: openings.Book(v, 6, 4, 2), MaxPairs: 6, Workers: 1}
	full, err := match.RunSPRT(context.Background(), cfg, test, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, kept := range []int{0, 2, 6} {
		t.Run(fmt.Sprintf("%d kept", kept), func(t *testing.T) {
			resumed := cfg
			resumed.Played = full.Pairs[:kept]
			var replayed []int
			res, err := match.RunSPRT(context.Background(), resumed, test, func(p match.Pair, _ stats.Report) { replayed = append(replayed, p.Index) })
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(res.Pairs), 6; got != want || res.Report.Pairs != want {
				t.Errorf("got %d pairs (report %d), want %d", got, res.Report.Pairs, want)
			}
			if len(replayed) != 6-kept {
				t.Errorf("got %d pairs played, want %d", len(replayed), 6-kept)
			}
			for _, i := range replayed {
				for _, p := range resumed.Played {
					if p.Index == i {
						t.Errorf("got pair %d played again, want it kept", i)
					}
				}
			}
		})
	}
	bad := cfg
	bad.Played = []match.Pair{full.Pairs[0], full.Pairs[0]}
	if err := bad.Validate(); err == nil || !contains(err.Error(), "played pair") {
		t.Errorf("got %v for a pair played twice, want an error naming the played pair", err)
	}
}

// TestSameResultAnyWorkers plays one match on one worker and on three: the
// test decides after the same pairs, with the same games, either way.
func TestSameResultAnyWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("plays two matches")
	}
	v := variants.MustLoad("copenhagen")
	test := stats.SPRT{Elo0: 0, Elo1: 100, Alpha: 0.1, Beta: 0.1}
	cfg := match.Config{Variant: v, A: builtin("a", 200), B: builtin("b", 25), Search: mcts.DefaultConfig(),
		Openings: openings.Book(v, 40, 8, 1), MaxPairs: 40, GamesPerWorker: 2}
	var results []match.Result
	for _, workers := range []int{1, 3} {
		cfg.Workers = workers
		res, err := match.RunSPRT(context.Background(), cfg, test, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d workers: %v (%s)", workers, res.Report, res.Stopped)
		results = append(results, res)
	}
	one, three := results[0], results[1]
	if one.Report != three.Report || one.Stopped != three.Stopped {
		t.Errorf("got %v (%s) on three workers, want %v (%s) as on one", three.Report, three.Stopped, one.Report, one.Stopped)
	}
	if len(one.Pairs) != len(three.Pairs) {
		t.Fatalf("got %d pairs on three workers, want %d as on one", len(three.Pairs), len(one.Pairs))
	}
	for i := range one.Pairs {
		for half := range 2 {
			a, b := one.Pairs[i].Games[half], three.Pairs[i].Games[half]
			if a.Pair != b.Pair || a.Outcome != b.Outcome || len(a.Moves) != len(b.Moves) {
				t.Fatalf("pair %d, game %d: got pair %d, %v in %d moves on three workers, want pair %d, %v in %d moves", i, half, b.Pair, b.Outcome, len(b.Moves), a.Pair, a.Outcome, len(a.Moves))
			}
		}
	}
}
