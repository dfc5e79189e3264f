package match_test

import (
	"context"
	"errors"
	"testing"

	"taflab/match"
	"taflab/stats"
)

// TestRun plays a tiny match of builtin-8 against builtin-4 with and
// without B's ladder: the file names both players and holds every game,
// the ladder's odds when asked; a ladder that cannot be climbed is a
// *LadderError before any game; and a stopped match keeps its file.
func TestRun(t *testing.T) {
	base := ladderConfig(builtin("builtin-4", 4), nil, 1).Match
	base.A, base.B, base.MaxPairs = builtin("builtin-8", 8), builtin("builtin-4", 4), 2
	test := stats.SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name     string
		ctx      context.Context
		odds     []int
		games    int  // in the file
		withOdds bool // File.Odds set
		ladder   int  // OnLadder calls
		refused  bool // a *LadderError
		canceled bool
	}{
		{"no ladder", context.Background(), nil, 4, false, 0, false, false},
		{"a ladder", context.Background(), []int{2}, 4, true, 1, false, false},
		{"a ladder that cannot be climbed", context.Background(), []int{1}, 0, false, 0, true, false},
		{"stopped", stopped, []int{2}, 0, false, 0, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ladders := 0
			f, res, err := match.Run(c.ctx, match.RunConfig{Match: base, Test: test, Openings: "a book", Odds: c.odds, OddsPairs: 1,
				OnLadder: func(match.Result) { ladders++ }})
			var le *match.LadderError
			if got := errors.As(err, &le); got != c.refused || errors.Is(err, context.Canceled) != c.canceled ||
				err != nil && !c.refused && !c.canceled {
				t.Fatalf("got error %v, want a *LadderError %v and stopped %v", err, c.refused, c.canceled)
			}
			if c.refused {
				if len(f.Games) != 0 || res.Report.Pairs != 0 {
					t.Errorf("got %d games and %d pairs, want none played", len(f.Games), res.Report.Pairs)
				}
				return
			}
			if len(f.Games) != c.games || (f.Odds != nil) != c.withOdds || ladders != c.ladder {
				t.Errorf("got %d games, odds %v and %d ladders, want %d, %v and %d", len(f.Games), f.Odds, ladders, c.games, c.withOdds, c.ladder)
			}
			if f.A.Name != "builtin-8" || f.B.Name != "builtin-4" || f.Openings != "a book" || f.Report.Pairs != res.Report.Pairs {
				t.Errorf("got players %q and %q, openings %q and %d pairs, want builtin-8, builtin-4, a book and %d",
					f.A.Name, f.B.Name, f.Openings, f.Report.Pairs, res.Report.Pairs)
			}
		})
	}
}
