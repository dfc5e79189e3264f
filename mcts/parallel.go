package mcts

import (
	"context"
	"errors"
	"sync"

	"taflab/rules"
)

// NewPlayers makes the players of PlayAll: workers self-players of cfg on
// variant, each with an evaluator of its own from newEval (called once a
// player, in order, on the caller's goroutine) and parallel games at once.
//
//	players, err := mcts.NewPlayers(cfg, variant, 4, 8, newEval)
//	games, wait := mcts.PlayAll(ctx, players, source, 4*8)
func NewPlayers(cfg Config, variant *rules.Variant, workers, parallel int, newEval func() (Evaluator, error)) ([]*SelfPlayer, error) {
	players := make([]*SelfPlayer, workers)
	for w := range players {
		eval, err := newEval()
		if err != nil {
			return nil, err
		}
		if players[w], err = NewSelfPlayer(cfg, variant, eval, parallel); err != nil {
			return nil, err
		}
	}
	return players, nil
}

// PlayAll plays the games of source on all the players at once, each on a
// goroutine of its own (a player is one worker: its own evaluator and
// batch), and sends every finished game on the returned channel, which is
// closed once every player has stopped. Read the channel to its end, then
// call wait: it returns the players' errors, joined (not ctx's cancellation,
// which is how callers stop the players early: cancel ctx and keep reading
// until the channel closes). buffer sizes the channel.
//
// Self-play runs, balance runs and suite building all play this way.
func PlayAll(ctx context.Context, players []*SelfPlayer, source GameSource, buffer int) (games <-chan *GameRecord, wait func() error) {
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan *GameRecord, buffer)
	errs := make([]error, len(players)) // each written by its player's goroutine before wg.Done
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.Play(ctx, source, func(r *GameRecord) error {
				select {
				case out <- r:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			if err != nil && !errors.Is(err, context.Canceled) {
				errs[i] = err
				cancel() // one player's failure stops the others
			}
		}()
	}
	go func() {
		wg.Wait()
		cancel()
		close(out)
	}()
	return out, func() error {
		wg.Wait()
		return errors.Join(errs...)
	}
}
