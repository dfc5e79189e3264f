package mcts

import (
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// TestAnalysis: a position's priors come highest first and cut at top, and
// a search's moves most visited first, each list a prefix of the full one.
func TestAnalysis(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	g := rules.NewGame(v)
	moves := g.GenerateMoves(nil)
	for _, top := range []int{1, 5, len(moves), len(moves) + 10} {
		t.Run("priors", func(t *testing.T) {
			got, _, err := EvaluatePosition(NewHeuristic(), v, g.Position(), moves, top)
			if err != nil {
				t.Fatal(err)
			}
			if want := min(top, len(moves)); len(got) != want {
				t.Fatalf("top %d: got %d moves, want %d", top, len(got), want)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Prob > got[i-1].Prob {
					t.Errorf("top %d: got prior %v after %v, want highest first", top, got[i].Prob, got[i-1].Prob)
				}
			}
		})
	}
	cfg := DefaultConfig()
	s := NewSearch(&cfg, g, 1)
	if err := NewRunner(NewHeuristic()).Search(s, 200); err != nil {
		t.Fatal(err)
	}
	all := s.TopStats(1 << 20)
	if len(all) != len(moves) {
		t.Fatalf("got %d root moves, want %d", len(all), len(moves))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Visits > all[i-1].Visits {
			t.Errorf("got %d visits after %d, want most visited first", all[i].Visits, all[i-1].Visits)
		}
	}
	if best := s.TopStats(1); len(best) != 1 || best[0].Move != s.BestMove() {
		t.Errorf("got %v first, want the best move %v", best, s.BestMove())
	}
}

// TestPV: a principal variation starts with the best move, is legal move
// after move from the root, follows the most visited replies, and stops
// within its bound; a proven root says so.
func TestPV(t *testing.T) {
	cases := []struct {
		name     string
		position string // "" for the start
		playouts int
		max      int
	}{
		{"start", "", 400, 8},
		{"start, one move", "", 100, 1},
		{"king escapes", "11/11/11/7a3/11/4d6/1a9/11/2k8/11/1a9 d", 200, 6},
	}
	v := variants.MustLoad("copenhagen")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := rules.NewGame(v)
			if c.position != "" {
				p, err := rules.ParsePosition(c.position)
				if err != nil {
					t.Fatal(err)
				}
				if g, err = rules.NewGameFrom(v, p); err != nil {
					t.Fatal(err)
				}
			}
			cfg := DefaultConfig()
			s := NewSearch(&cfg, g, 1)
			if got := s.PV(nil, c.max); len(got) != 0 {
				t.Fatalf("before a search: got %v, want nothing", got)
			}
			if err := NewRunner(NewHeuristic()).Search(s, c.playouts); err != nil {
				t.Fatal(err)
			}
			pv := s.PV(nil, c.max)
			if len(pv) == 0 || len(pv) > c.max || pv[0] != s.BestMove() {
				t.Fatalf("got %v, want 1 to %d moves starting with the best move %v", pv, c.max, s.BestMove())
			}
			replay, err := rules.NewGameFrom(v, g.Position())
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range pv {
				if err := replay.Play(m); err != nil {
					t.Fatalf("move %d of %v: %v", i+1, pv, err)
				}
			}
			if c.max > 1 && len(pv) < 2 && !s.Proven() {
				t.Errorf("got %v after %d playouts, want more than the best move of a root not proven", pv, c.playouts)
			}
		})
	}
	t.Run("proven", func(t *testing.T) {
		p, err := rules.ParsePosition("11/11/11/7a3/11/4d6/1a9/11/2k8/11/1a9 d")
		if err != nil {
			t.Fatal(err)
		}
		g, err := rules.NewGameFrom(v, p)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		s := NewSearch(&cfg, g, 1)
		if err := NewRunner(NewHeuristic()).Search(s, 200); err != nil {
			t.Fatal(err)
		}
		if !s.Proven() || s.RootValue() != 1 {
			t.Errorf("the king's fork: proven %v, value %v; want a proven win (1)", s.Proven(), s.RootValue())
		}
	})
}

// TestChoiceAmongChildren checks the rule BestMove and PV share: a proven
// win first, else the most visited child (ties: the higher prior) that is
// not a proven loss unless all are, and for PV only one that was visited
// or proven.
func TestChoiceAmongChildren(t *testing.T) {
	type c struct {
		visits int32
		prior  float32
		proof  proof
	}
	cases := []struct {
		name             string
		children         []c
		wantWin          int
		wantAllLost      bool
		wantAny, wantPVs int // mostVisited with visited false, true
	}{
		{"most visited", []c{{3, 0.1, unproven}, {9, 0.2, unproven}, {5, 0.7, unproven}}, -1, false, 1, 1},
		{"tie to prior", []c{{4, 0.1, unproven}, {4, 0.6, unproven}, {2, 0.3, unproven}}, -1, false, 1, 1},
		{"proven win first", []c{{9, 0.5, unproven}, {1, 0.1, provenWin}, {0, 0.4, provenWin}}, 1, false, 0, 0},
		{"loss passed over", []c{{9, 0.5, provenLoss}, {2, 0.1, unproven}}, -1, false, 1, 1},
		{"all lost", []c{{2, 0.5, provenLoss}, {7, 0.1, provenLoss}}, -1, true, 1, 1},
		{"unvisited", []c{{0, 0.5, unproven}, {0, 0.3, unproven}}, -1, false, 0, -1},
		{"unvisited draw", []c{{0, 0.1, provenDraw}, {0, 0.3, unproven}}, -1, false, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			children := make([]node, len(tc.children))
			for i, ch := range tc.children {
				children[i] = node{visits: ch.visits, prior: ch.prior, proof: ch.proof}
			}
			win, allLost := provenChoice(children)
			if win != tc.wantWin || (win < 0 && allLost != tc.wantAllLost) {
				t.Errorf("provenChoice: got %d, %v, want %d, %v", win, allLost, tc.wantWin, tc.wantAllLost)
			}
			if win >= 0 {
				return
			}
			if got := mostVisited(children, allLost, false); got != tc.wantAny {
				t.Errorf("mostVisited(visited false): got %d, want %d", got, tc.wantAny)
			}
			if got := mostVisited(children, allLost, true); got != tc.wantPVs {
				t.Errorf("mostVisited(visited true): got %d, want %d", got, tc.wantPVs)
			}
		})
	}
}
