package match_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/rules"
	"taflab/stats"
)

// countingPlayer is the builtin player whose evaluators count the
// positions they evaluate, each evaluator in the order made: a Ladder with
// one worker makes the multiplied player's evaluator (A) first, then the
// base's (B), for each rung.
type countingPlayer struct {
	mu     sync.Mutex
	counts []*int
}

type countingEvaluator struct {
	mcts.Evaluator
	n *int
}

func (e countingEvaluator) Evaluate(b *mcts.Batch) error {
	*e.n += b.Len()
	return e.Evaluator.Evaluate(b)
}

func (c *countingPlayer) player(name string, playouts int) match.Player {
	return match.Player{Name: name, Playouts: playouts, NewEvaluator: func() (mcts.Evaluator, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		n := new(int)
		c.counts = append(c.counts, n)
		return countingEvaluator{mcts.NewHeuristic(), n}, nil
	}}
}

// ladderConfig is a tiny ladder of builtin-4 on fetlar: 2 pairs a rung
// from random openings, one worker.
func ladderConfig(base match.Player, multipliers []int, pairs int) match.LadderConfig {
	v := variants.MustLoad("fetlar")
	return match.LadderConfig{
		Match:       match.Config{Variant: v, Search: mcts.DefaultConfig(), Openings: openings.Book(v, 4, 4, 7), Workers: 1, GamesPerWorker: 4},
		Base:        base,
		Multipliers: multipliers,
		Pairs:       pairs,
	}
}

// TestLadderClimbs climbs builtin-4 at 2x and 8x: one rung a multiplier,
// in order, each named NAME-xK with its pairs counted, seen by onRung as
// returned, and the multiplied player really searching more.
func TestLadderClimbs(t *testing.T) {
	counter := &countingPlayer{}
	cfg := ladderConfig(counter.player("tiny", 4), []int{2, 8}, 2)
	var seen []match.Rung
	rungs, err := match.Ladder(context.Background(), cfg, func(r match.Rung) { seen = append(seen, r) })
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	want := []struct {
		multiplier int
		player     string
	}{{2, "tiny-x2"}, {8, "tiny-x8"}}
	if len(rungs) != len(want) {
		t.Fatalf("got %d rungs, want %d", len(rungs), len(want))
	}
	if len(seen) != len(rungs) {
		t.Fatalf("onRung saw %d rungs, want %d", len(seen), len(rungs))
	}
	if len(counter.counts) != 2*len(want) {
		t.Fatalf("got %d evaluators made, want 2 a rung (one worker): %d", len(counter.counts), 2*len(want))
	}
	for i, w := range want {
		t.Run(w.player, func(t *testing.T) {
			r := rungs[i]
			if r.Multiplier != w.multiplier {
				t.Errorf("got multiplier %v, want %v", r.Multiplier, w.multiplier)
			}
			if r.Player != w.player {
				t.Errorf("got player %q, want %q", r.Player, w.player)
			}
			if r.Report.Pairs != 2 || r.Report.Games != 4 {
				t.Errorf("got %v pairs and %v games, want %v and %v", r.Report.Pairs, r.Report.Games, 2, 4)
			}
			total := 0
			for _, c := range r.Report.Counts {
				total += c
			}
			if total != 2 {
				t.Errorf("got pentanomial counts %v (%d pairs), want %v pairs", r.Report.Counts, total, 2)
			}
			if seen[i].Multiplier != r.Multiplier || seen[i].Player != r.Player || seen[i].Report.Counts != r.Report.Counts {
				t.Errorf("onRung got %v %q %v, want the rung returned: %v %q %v",
					seen[i].Multiplier, seen[i].Player, seen[i].Report.Counts, r.Multiplier, r.Player, r.Report.Counts)
			}
			if p := r.Point(); p.Multiplier != float64(w.multiplier) || p.Elo != r.Report.Elo || p.Lo != r.Report.EloLo || p.Hi != r.Report.EloHi {
				t.Errorf("got point %+v, want multiplier %v and the report's Elo %v [%v, %v]", p, w.multiplier, r.Report.Elo, r.Report.EloLo, r.Report.EloHi)
			}
			// Both players move about as often; A searches k times the
			// playouts (less what tree reuse and finished games save), so
			// well above the 1 of a ladder that forgot to multiply.
			a, b := *counter.counts[2*i], *counter.counts[2*i+1]
			ratio := float64(a) / float64(b)
			t.Logf("%s: %d evaluations against %d (%.2f)", w.player, a, b, ratio)
			if lo := 0.75 * float64(w.multiplier); !(ratio > lo) {
				t.Errorf("got %d evaluations for %s against %d for the base (ratio %.2f), want a ratio above %v", a, w.player, b, ratio, lo)
			}
		})
	}
	if cfg.Base.Name != "tiny" || cfg.Base.Playouts != 4 {
		t.Errorf("got base %q at %d playouts after the climb, want it unchanged (tiny, 4)", cfg.Base.Name, cfg.Base.Playouts)
	}
}

// TestLadderRefuses: a multiplier below 2 or past the most playouts,
// fewer than 1 pair a rung and an engine program as the base are
// *LadderErrors, before any rung is played.
func TestLadderRefuses(t *testing.T) {
	engine := builtin("engine", 0)
	engine.NewProgram = func() (match.Program, error) { return nil, errors.New("not started") }
	tests := []struct {
		name        string
		base        match.Player
		multipliers []int
		pairs       int
		want        string
	}{
		{"multiplier 1", builtin("tiny", 4), []int{1}, 2, "multiplier 1"},
		{"multiplier 0", builtin("tiny", 4), []int{0, 2}, 2, "multiplier 0"},
		{"negative multiplier", builtin("tiny", 4), []int{-4}, 2, "multiplier -4"},
		{"past the most playouts", builtin("tiny", mcts.MaxPlayouts/4), []int{2, 8}, 2, "multiplier 8 times 4194304 playouts"},
		{"no pairs", builtin("tiny", 4), []int{2}, 0, "0 pairs"},
		{"negative pairs", builtin("tiny", 4), []int{2}, -1, "-1 pairs"},
		{"an engine", engine, []int{2}, 2, "engine program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := 0
			rungs, err := match.Ladder(context.Background(), ladderConfig(tt.base, tt.multipliers, tt.pairs), func(match.Rung) { called++ })
			var le *match.LadderError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tt.want) || strings.Count(err.Error(), "match: ") != 1 {
				t.Errorf("got error %v, want a *LadderError naming %q", err, tt.want)
			}
			if len(rungs) != 0 || called != 0 {
				t.Errorf("got %d rungs (%d seen), want none", len(rungs), called)
			}
		})
	}
}

// TestLadderStops: a cancelled context stops the climb with its error and
// the rungs climbed so far.
func TestLadderStops(t *testing.T) {
	tests := []struct {
		name      string
		cancelAt  int // cancel before the climb (0) or after this many rungs
		wantRungs int
	}{
		{"cancelled before", 0, 0},
		{"cancelled after the first rung", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelAt == 0 {
				cancel()
			}
			seen := 0
			rungs, err := match.Ladder(ctx, ladderConfig(builtin("tiny", 4), []int{2, 4, 8}, 1), func(match.Rung) {
				seen++
				if seen == tt.cancelAt {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("got error %v, want %v", err, context.Canceled)
			}
			if len(rungs) != tt.wantRungs || seen != tt.wantRungs {
				t.Errorf("got %d rungs (%d seen), want %d", len(rungs), seen, tt.wantRungs)
			}
			if len(rungs) > 0 && rungs[0].Multiplier != 2 {
				t.Errorf("got first rung at %vx, want 2x", rungs[0].Multiplier)
			}
		})
	}
}

// TestOdds places candidates on a hand-made ladder: Odds gives what
// stats.PlayoutOdds gives for the rungs' points, and values worked out by
// hand.
func TestOdds(t *testing.T) {
	rung := func(k int, elo, lo, hi float64) match.Rung {
		return match.Rung{Multiplier: k, Player: "base", Report: stats.Report{Pairs: 10, Elo: elo, EloLo: lo, EloHi: hi}}
	}
	// Given out of order: Odds must not depend on it. In log2(k) the
	// curves run through (0, 0) and
	//   Elo: (1, 100), (2, 200), (3, 280)
	//   Lo:  (1, 60),  (2, 150), (3, 220)
	//   Hi:  (1, 140), (2, 250), (3, 340)
	rungs := []match.Rung{rung(8, 280, 220, 340), rung(2, 100, 60, 140), rung(4, 200, 150, 250)}
	tests := []struct {
		name          string
		elo, lo, hi   float64
		want          stats.Odds
		wantSide      stats.Side
		wantString    string
		wantMultiples [3]float64
	}{
		// 150 is halfway from 100 to 200: log2 1.5. lo 100 on the Hi
		// curve: 100/140 of the way to 1. hi 200 on the Lo curve: 50/70 of
		// the way from 2 to 3.
		{name: "between rungs", elo: 150, lo: 100, hi: 200,
			wantMultiples: [3]float64{math.Exp2(1.5), math.Exp2(100.0 / 140), math.Exp2(2 + 50.0/70)},
			wantSide:      stats.OnLadder, wantString: "2.8x [1.6x, 6.6x]"},
		{name: "on a rung", elo: 200, lo: 140, hi: 220,
			wantMultiples: [3]float64{4, 2, 8}, wantSide: stats.OnLadder, wantString: "4x [2x, 8x]"},
		{name: "above the ladder", elo: 400, lo: 350, hi: 450,
			wantMultiples: [3]float64{8, 8, 8}, wantSide: stats.AboveLadder, wantString: "> 8x [> 8x, > 8x]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand := stats.Report{Pairs: 50, Elo: tt.elo, EloLo: tt.lo, EloHi: tt.hi}
			got, err := match.Odds(rungs, cand)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			points := make([]stats.LadderPoint, len(rungs))
			for i, r := range rungs {
				points[i] = stats.LadderPoint{Multiplier: float64(r.Multiplier), Elo: r.Report.Elo, Lo: r.Report.EloLo, Hi: r.Report.EloHi}
			}
			want, err := stats.PlayoutOdds(points, tt.elo, tt.lo, tt.hi)
			if err != nil {
				t.Fatalf("stats.PlayoutOdds: got error %v, want none", err)
			}
			if got != want {
				t.Errorf("got %+v, want stats.PlayoutOdds's %+v", got, want)
			}
			for i, v := range []float64{got.Multiplier, got.Lo, got.Hi} {
				if math.Abs(v-tt.wantMultiples[i]) > 1e-9 {
					t.Errorf("got multiples %v %v %v, want %v (by hand)", got.Multiplier, got.Lo, got.Hi, tt.wantMultiples)
					break
				}
			}
			if got.Side != tt.wantSide {
				t.Errorf("got side %v, want %v", got.Side, tt.wantSide)
			}
			if s := got.String(); s != tt.wantString {
				t.Errorf("got %q, want %q", s, tt.wantString)
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		cand := stats.Report{Elo: 100, EloLo: 50, EloHi: 150}
		if _, err := match.Odds(nil, cand); err == nil {
			t.Errorf("no rungs: got no error, want one")
		}
		if _, err := match.Odds([]match.Rung{rung(2, 100, 60, 140), rung(2, 90, 50, 130)}, cand); err == nil {
			t.Errorf("two rungs at 2x: got no error, want one")
		}
		if _, err := match.Odds(rungs, stats.Report{Elo: 100, EloLo: 150, EloHi: 50}); err == nil {
			t.Errorf("an unordered interval: got no error, want one")
		}
	})
}

// TestLadderIsItsOwnMatch: a ladder does not carry the match's run with
// it: its games are not the match's unfinished games, nor told to the
// match's OnMove and OnGameEnd.
func TestLadderIsItsOwnMatch(t *testing.T) {
	cfg := ladderConfig(builtin("tiny", 4), []int{2}, 1)
	told := 0
	cfg.Match.OnMove = func(int, int, []rules.Move) { told++ }
	cfg.Match.OnGameEnd = func(match.Game) { told++ }
	cfg.Match.MaxPairs = 1
	cfg.Match.Unfinished = []match.Unfinished{{Pair: 0, Moves: cfg.Match.Openings[0].Moves}}
	rungs, err := match.Ladder(context.Background(), cfg, nil)
	if err != nil || len(rungs) != 1 {
		t.Fatalf("got %d rungs, %v; want 1", len(rungs), err)
	}
	if told != 0 {
		t.Errorf("the match's callbacks were told %d times of the ladder's games, want 0", told)
	}
}
