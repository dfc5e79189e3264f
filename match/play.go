package match

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// Play plays game pairs until MaxPairs are done, ctx is done, or onPair
// returns false (the sequential test has decided). onPair sees the pairs in
// the order they finish, from one goroutine. Pairs unfinished when the match
// stops are dropped: a pair counts whole or not at all.
func Play(ctx context.Context, cfg Config, onPair func(Pair) bool) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	workers, perWorker := cfg.workers()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	deal := newDealer(&cfg)
	pairs := make(chan Pair)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wk, err := newWorker(&cfg, perWorker, deal.take)
		if err != nil {
			cancel()
			wg.Wait()
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := wk.run(ctx, pairs); err != nil && !errors.Is(err, context.Canceled) {
				errs[w] = err
				cancel()
			}
		}()
	}
	go func() {
		wg.Wait()
		close(pairs)
	}()
	stopped := false
	for p := range pairs {
		if !stopped && !onPair(p) {
			stopped = true
			cancel()
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if !stopped && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// workers returns the number of workers and of games each plays at once:
// Workers and GamesPerWorker, or their defaults.
func (c *Config) workers() (workers, perWorker int) {
	engines := c.A.NewProgram != nil || c.B.NewProgram != nil
	workers = c.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
		if engines {
			workers = 1 // engine programs bring their own threads
		}
	}
	perWorker = c.GamesPerWorker
	if perWorker == 0 {
		perWorker = 8
		if engines {
			// Each game in play holds a program: one pair at a time.
			perWorker = 2
		}
	}
	return workers, perWorker
}

// dealer hands out a match's pairs to its workers in index order, those
// played before skipped. Safe for concurrent use.
type dealer struct {
	max    int
	played map[int]bool // immutable after newDealer
	mu     sync.Mutex   // guards next
	next   int
}

func newDealer(cfg *Config) *dealer {
	d := &dealer{max: cfg.MaxPairs, played: make(map[int]bool, len(cfg.Played))}
	for _, p := range cfg.Played {
		d.played[p.Index] = true
	}
	return d
}

// take returns the next pair to play, or false when there are no more.
func (d *dealer) take() (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.next < d.max && d.played[d.next] {
		d.next++
	}
	if d.next >= d.max {
		return 0, false
	}
	d.next++
	return d.next - 1, true
}
