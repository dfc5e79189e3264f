package match

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
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

// pairScoring returns a finished pair in which A scores a (as attacker) and
// d (as defender), each 0, 0.5 or 1.
func pairScoring(index int, a, d float64) Pair {
	outcome := func(score float64, aAttacks bool) rules.Outcome {
		switch {
		case score == 0.5:
			return rules.Outcome{Winner: rules.Draw}
		case (score == 1) == aAttacks:
			return rules.Outcome{Winner: rules.AttackersWin}
		default:
			return rules.Outcome{Winner: rules.DefendersWin}
		}
	}
	return Pair{Index: index, Games: [2]Game{
		{Pair: index, AAttacks: true, Outcome: outcome(a, true)},
		{Pair: index, AAttacks: false, Outcome: outcome(d, false)},
	}}
}

// TestInOrderCountsByIndex feeds the test the same pairs in several
// orders: it counts them in index order and decides after the same pairs
// whatever the order they come in.
func TestInOrderCountsByIndex(t *testing.T) {
	test := stats.SPRT{Elo0: 0, Elo1: 100, Alpha: 0.1, Beta: 0.1}
	rng := rand.New(rand.NewPCG(4, 4))
	scores := []float64{0, 0.5, 1}
	pairs := make([]Pair, 60)
	for i := range pairs {
		pairs[i] = pairScoring(i, scores[rng.IntN(3)], scores[rng.IntN(3)])
	}
	// A run of wins for A from pair 20 on decides the test there, so
	// that pairs finishing early past the decision must not count.
	for i := 20; i < len(pairs); i++ {
		pairs[i] = pairScoring(i, 1, 1)
	}
	want := newInOrder(test)
	for _, p := range pairs {
		want.add(p)
	}
	if want.report.Decision == stats.Continue || len(want.counted) == len(pairs) {
		t.Fatalf("got %d pairs counted, decision %v: want the test to decide before pair %d", len(want.counted), want.report.Decision, len(pairs))
	}
	for trial := range 5 {
		t.Run(fmt.Sprintf("order %d", trial), func(t *testing.T) {
			shuffled := append([]Pair(nil), pairs...)
			rng := rand.New(rand.NewPCG(uint64(trial), 9))
			// Shuffle within windows of 8, as workers finish pairs a few
			// places out of order.
			for lo := 0; lo < len(shuffled); lo += 8 {
				hi := min(lo+8, len(shuffled))
				rng.Shuffle(hi-lo, func(i, j int) { shuffled[lo+i], shuffled[lo+j] = shuffled[lo+j], shuffled[lo+i] })
			}
			got := newInOrder(test)
			for _, p := range shuffled {
				got.add(p)
			}
			if got.report != want.report {
				t.Errorf("got report %v, want %v", got.report, want.report)
			}
			if len(got.counted) != len(want.counted) {
				t.Fatalf("got %d pairs counted, want %d", len(got.counted), len(want.counted))
			}
			for i, p := range got.counted {
				if p.Index != i {
					t.Fatalf("got pair %d counted %dth, want pair %d", p.Index, i, i)
				}
			}
		})
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
	cfg := Config{Variant: v, A: builtin("a", 200), B: builtin("b", 25), Search: mcts.DefaultConfig(),
		Openings: Book(v, 40, 8, 1), MaxPairs: 40, GamesPerWorker: 2}
	var results []Result
	for _, workers := range []int{1, 3} {
		cfg.Workers = workers
		res, err := RunSPRT(context.Background(), cfg, test, nil)
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

// TestInOrderFlush: a match interrupted with a pair missing counts the
// pairs past it too, in index order.
func TestInOrderFlush(t *testing.T) {
	o := newInOrder(stats.SPRT{Elo0: 0, Elo1: 1, Alpha: 1e-9, Beta: 1e-9}) // never decides here
	for _, i := range []int{4, 0, 3, 1} {
		o.add(pairScoring(i, 1, 0))
	}
	if got := len(o.counted); got != 2 {
		t.Fatalf("got %d pairs counted before the flush, want 2 (pairs 0 and 1)", got)
	}
	o.flush()
	var got []int
	for _, p := range o.counted {
		got = append(got, p.Index)
	}
	if want := []int{0, 1, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("got pairs %v counted, want %v", got, want)
	}
	if o.report.Pairs != 4 {
		t.Errorf("got a report on %d pairs, want 4", o.report.Pairs)
	}
}
