package mcts

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"taflab/configs/variants"
)

// failing is an evaluator that fails after a number of batches.
type failing struct {
	Heuristic
	left int
}

func (f *failing) Evaluate(b *Batch) error {
	if f.left--; f.left < 0 {
		return errors.New("out of order")
	}
	return f.Heuristic.Evaluate(b)
}

func TestPlayAll(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Playouts, cfg.CheapPlayouts = 8, 4
	v := variants.MustLoad("copenhagen")
	source := func(n int) GameSource {
		var next atomic.Int64
		return func() (GameSpec, bool) {
			i := next.Add(1) - 1
			if i >= int64(n) {
				return GameSpec{}, false
			}
			return GameSpec{Index: int(i), Seed: uint64(i) + 1}, true
		}
	}
	players := func(evals ...Evaluator) []*SelfPlayer {
		var out []*SelfPlayer
		for _, e := range evals {
			p, err := NewSelfPlayer(cfg, v, e, 2)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	t.Run("every game once", func(t *testing.T) {
		games, wait := PlayAll(context.Background(), players(NewHeuristic(), NewHeuristic()), source(9), 1)
		seen := map[int]bool{}
		for g := range games {
			if seen[g.Index] {
				t.Errorf("game %d came twice", g.Index)
			}
			seen[g.Index] = true
		}
		if err := wait(); err != nil || len(seen) != 9 {
			t.Errorf("got %d games and error %v, want 9 and none", len(seen), err)
		}
	})
	t.Run("a failing player stops the others", func(t *testing.T) {
		games, wait := PlayAll(context.Background(), players(NewHeuristic(), &failing{left: 3}), source(1000), 1)
		n := 0
		for range games {
			n++
		}
		if err := wait(); err == nil || n >= 1000 {
			t.Errorf("got %d games and error %v, want fewer than 1000 and the evaluator's error", n, err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		games, wait := PlayAll(ctx, players(NewHeuristic(), NewHeuristic()), source(1000), 1)
		n := 0
		for range games {
			if n++; n == 3 {
				cancel()
			}
		}
		if err := wait(); err != nil || n >= 1000 {
			t.Errorf("got %d games and error %v after cancelling, want fewer than 1000 and no error", n, err)
		}
	})
}
