package mcts

import (
	"math"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// child is a hand-made root child: its prior, visits and value sum (for the
// root's side to move).
func child(prior float32, visits int32, valueSum float32) node {
	return node{prior: prior, visits: visits, valueSum: valueSum, firstChild: noChildren}
}

func TestForcedChild(t *testing.T) {
	cases := []struct {
		name     string
		children []node
		total    int32
		want     int
	}{
		// n_forced = sqrt(2 * 0.3 * 11) = 2.57 for the second: it has 1.
		{"under its forced playouts", []node{child(0.5, 10, 0), child(0.3, 1, 0), child(0.2, 0, 0)}, 11, 1},
		// A move no playout has reached is not forced (PUCT chooses it).
		{"unvisited", []node{child(0.5, 10, 0), child(0.5, 0, 0)}, 11, -1},
		{"every one has its playouts", []node{child(0.5, 10, 0), child(0.3, 4, 0), child(0.2, 4, 0)}, 18, -1},
		{"a proven loss is never forced", []node{child(0.5, 10, 0), {prior: 0.5, visits: 1, proof: provenLoss, firstChild: noChildren}}, 11, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := forcedChild(c.children, 2, c.total); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}

// TestPrunedVisits checks the pruned target against counts worked out by
// hand. Root visits 125, k 2, cpuct 1.25, so sqrt(N) = 11.18; the most
// visited move (prior 0.5, 100 visits, Q 0.2) has PUCT value 0.2 + 1.25 *
// 0.5 * 11.18 / 101 = 0.269. The second (prior 0.3, 20 visits, Q 0) had
// n_forced = sqrt(2 * 0.3 * 125) = 8.66 forced, but at fewer than
// ceil(1.25 * 0.3 * 11.18 / 0.269 - 1) = 15 visits PUCT would have chosen it
// over the first: it keeps 15. The third (prior 0.05, 4 visits, Q -0.5)
// loses its n_forced = 3.54 and is left with 0.46, under one: pruned. The
// unvisited fourth stays at 0.
func TestPrunedVisits(t *testing.T) {
	children := []node{child(0.5, 100, 20), child(0.3, 20, 0), child(0.05, 4, -2), child(0.15, 0, 0)}
	got := make([]float64, len(children))
	sum := prunedVisits(children, 2, 1.25, 125, got)
	want := []float64{100, 15, 0, 0}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("child %d: got %v visits, want %v", i, got[i], want[i])
		}
	}
	if sum != 115 {
		t.Errorf("sum: got %v, want 115", sum)
	}
	t.Run("a move as good as the best keeps its visits", func(t *testing.T) {
		children := []node{child(0.5, 50, 10), child(0.5, 49, 9.8)}
		got := make([]float64, 2)
		prunedVisits(children, 2, 1.25, 100, got)
		if got[0] != 50 || got[1] != 49 {
			t.Errorf("got %v, want [50 49]", got)
		}
	})
}

// TestForcedSelection: at a hand-made root where PUCT prefers the move with
// the better value (0.5 + 1.25 * 0.6 * sqrt(101) / 96 = 0.58 against -0.9 +
// 1.25 * 0.4 * sqrt(101) / 6 = -0.06), a search with forced playouts picks
// the other, which has 5 visits of its sqrt(2 * 0.4 * 101) = 9 forced; one
// without noise, or without the setting, picks PUCT's.
func TestForcedSelection(t *testing.T) {
	for _, c := range []struct {
		name   string
		forced float64
		noise  bool
		want   int32
	}{{"forced", 2, true, 1}, {"no noise", 2, false, 0}, {"off", 0, true, 0}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.ForcedPlayouts = c.forced
			s := NewSearch(&cfg, rules.NewGame(variants.MustLoad("copenhagen")), 1)
			s.forced = c.noise && c.forced > 0 // as Start sets it
			first := s.tree.alloc(2, s.limit())
			root := s.tree.at(0)
			root.firstChild, root.numChildren, root.visits, root.valueSum = first, 2, 101, 0
			*s.tree.at(first) = child(0.6, 95, 47.5)
			*s.tree.at(first + 1) = child(0.4, 5, -4.5)
			if got, _ := s.selectChild(s.tree.at(0), true); got-first != c.want {
				t.Errorf("got child %d, want %d", got-first, c.want)
			}
			if got, _ := s.selectChild(s.tree.at(0), false); got-first != 0 {
				t.Errorf("below the root: got child %d, want PUCT's 0", got-first)
			}
		})
	}
}

// TestForcedPlayoutsSearch: a search with noise and forced playouts gives
// a target that sums to 1 and puts more on the best move than the raw
// visits do; without noise (match play) the setting changes nothing.
func TestForcedPlayoutsSearch(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	start := rules.NewGame(v).Position()
	eval := &tableEvaluator{root: start, rootPriors: []float32{0.5, 0.2, 0.1}}
	search := func(forced float64, noise bool) *Search {
		cfg := DefaultConfig()
		cfg.ForcedPlayouts = forced
		s := NewSearch(&cfg, rules.NewGame(v), 3)
		s.Start(400, noise)
		r := NewRunner(eval)
		for !s.Done() {
			if err := r.Step([]*Search{s}); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	s := search(2, true)
	children := s.tree.children(s.tree.at(0))
	policy := s.Policy(nil)
	best, sum := 0, float32(0)
	for i := range children {
		if children[i].visits > children[best].visits {
			best = i
		}
		sum += policy[i].Prob
	}
	if math.Abs(float64(sum)-1) > 1e-5 {
		t.Errorf("the target sums to %v, want 1", sum)
	}
	total := float32(0)
	for _, c := range children {
		total += float32(c.visits)
	}
	if raw := float32(children[best].visits) / total; !(policy[best].Prob > raw) {
		t.Errorf("the best move's target: got %v, want more than its share of the visits, %v", policy[best].Prob, raw)
	}
	plain, withSetting := search(0, false), search(2, false)
	for i, c := range plain.tree.children(plain.tree.at(0)) {
		if d := withSetting.tree.children(withSetting.tree.at(0))[i].visits; d != c.visits {
			t.Fatalf("move %d without noise: %d visits with forced playouts set, %d without; want the same", i, d, c.visits)
		}
	}
}
