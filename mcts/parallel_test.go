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

// TestNewPlayers: a player per worker, each with its own evaluator, made
// in order; an evaluator's or a setting's error is returned.
func TestNewPlayers(t *testing.T) {
	cfg := DefaultConfig()
	v := variants.MustLoad("copenhagen")
	var made []Evaluator
	newEval := func() (Evaluator, error) {
		e := NewHeuristic()
		made = append(made, e)
		return e, nil
	}
	players, err := NewPlayers(cfg, v, 3, 2, newEval)
	if err != nil || len(players) != 3 || len(made) != 3 {
		t.Fatalf("got %d players, %d evaluators, %v; want 3 and 3", len(players), len(made), err)
	}
	for i, p := range players {
		if p.runner.eval != made[i] || p.parallel != 2 {
			t.Errorf("player %d: got evaluator %p, %d games at once; want the %d-th made and 2", i, p.runner.eval, p.parallel, i)
		}
	}
	boom := errors.New("no network")
	if _, err := NewPlayers(cfg, v, 2, 2, func() (Evaluator, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing evaluator: got %v, want its error", err)
	}
	if _, err := NewPlayers(cfg, v, 2, 0, newEval); err == nil {
		t.Errorf("0 games at once: got no error, want one")
	}
}
