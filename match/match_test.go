package match

import (
	"context"
	"fmt"
	"testing"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/rules"
	"taflab/stats"
)

func builtin(name string, playouts int) Player {
	return Player{Name: name, Playouts: playouts, NewEvaluator: func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }}
}

func TestFindsTheStrongerPlayer(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cases := []struct {
		name   string
		a, b   Player
		accept bool
	}{
		{"800 against 50 playouts", builtin("strong", 800), builtin("weak", 50), true},
		{"a player against itself", builtin("same", 200), builtin("same", 200), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Variant: v, A: c.a, B: c.b, Search: mcts.DefaultConfig(), Openings: Book(v, 64, 8, 1), MaxPairs: 64}
			res, err := RunSPRT(context.Background(), cfg, stats.SPRT{Elo0: 0, Elo1: 20, Alpha: 0.05, Beta: 0.05}, nil)
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

func TestBook(t *testing.T) {
	v := variants.MustLoad("fetlar")
	a, b := Book(v, 10, 6, 3), Book(v, 10, 6, 3)
	if len(a) != 10 {
		t.Fatalf("got %d openings, want 10", len(a))
	}
	distinct := map[string]bool{}
	for i := range a {
		g := rules.NewGame(v)
		key := ""
		if !a[i].StartsAtStart() {
			t.Errorf("opening %d starts at %v, want the rule set's start", i, a[i].Start)
		}
		for j, m := range a[i].Moves {
			if m != b[i].Moves[j] {
				t.Fatalf("opening %d differs between two books of one seed", i)
			}
			if err := g.Play(m); err != nil {
				t.Fatalf("opening %d, ply %d: %v", i, j+1, err)
			}
			key += m.String()
		}
		if g.Outcome().Over() {
			t.Errorf("opening %d ends the game", i)
		}
		distinct[key] = true
	}
	if len(distinct) < 9 {
		t.Errorf("got %d distinct openings of 10, want them to differ", len(distinct))
	}
}

func TestValidate(t *testing.T) {
	v := variants.MustLoad("fetlar")
	cfg := Config{Variant: v, A: builtin("a", 0), B: Player{Name: "b", Playouts: 10}, Search: mcts.DefaultConfig(), MaxPairs: 0}
	err := cfg.Validate()
	for _, want := range []string{"player a: playouts", "player b: no evaluator", "max pairs"} {
		if err == nil || !contains(err.Error(), want) {
			t.Errorf("got %v, want an error naming %q", err, want)
		}
	}
	if _, err := RunSPRT(context.Background(), Config{Variant: v, A: builtin("a", 1), B: builtin("b", 1), Search: mcts.DefaultConfig(), MaxPairs: 1},
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
	cfg := Config{Variant: v, A: builtin("a", 20), B: builtin("b", 10), Search: mcts.DefaultConfig(), Openings: Book(v, 6, 4, 2), MaxPairs: 6, Workers: 1}
	full, err := RunSPRT(context.Background(), cfg, test, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, kept := range []int{0, 2, 6} {
		t.Run(fmt.Sprintf("%d kept", kept), func(t *testing.T) {
			resumed := cfg
			resumed.Played = full.Pairs[:kept]
			var replayed []int
			res, err := RunSPRT(context.Background(), resumed, test, func(p Pair, _ stats.Report) { replayed = append(replayed, p.Index) })
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
	bad.Played = []Pair{full.Pairs[0], full.Pairs[0]}
	if err := bad.Validate(); err == nil || !contains(err.Error(), "played pair") {
		t.Errorf("got %v for a pair played twice, want an error naming the played pair", err)
	}
}
