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
