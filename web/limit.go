package web

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"taflab/mcts"
)

// limiter bounds how many requests do one kind of heavy work at once (a
// search, or reading whole files). A request that finds every slot taken
// waits for one at most wait, behind at most queue others; past either it is
// answered 503 with a message that the server is busy.
type limiter struct {
	what  string        // "searches" or "file reads", for messages; immutable
	slots chan struct{} // one token per running request, capacity the limit; a channel is safe for concurrent use
	queue int64         // immutable
	wait  time.Duration // immutable

	waiting atomic.Int64 // requests waiting for a slot; atomic
}

func newLimiter(what string, n, queue int, wait time.Duration) *limiter {
	return &limiter{what: what, slots: make(chan struct{}, n), queue: int64(queue), wait: wait}
}

// acquire takes a slot, waiting for one within the limiter's bounds or until
// ctx is done; the caller calls release once its work is done (a second call
// does nothing).
func (l *limiter) acquire(ctx context.Context) (release func(), err error) {
	release = sync.OnceFunc(func() { <-l.slots })
	select {
	case l.slots <- struct{}{}:
		return release, nil
	default:
	}
	if l.waiting.Add(1) > l.queue {
		l.waiting.Add(-1)
		return nil, l.busy()
	}
	defer l.waiting.Add(-1)
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, canceled(ctx)
	case <-t.C:
		return nil, l.busy()
	}
}

func (l *limiter) busy() error {
	return &httpError{status: http.StatusServiceUnavailable, retryAfter: max(1, int(l.wait/time.Second)),
		msg: fmt.Sprintf("the server is busy: %d %s are running (its limit) and %d waiting; try again in a moment", len(l.slots), l.what, l.waiting.Load())}
}

// running and queued report the limiter's load, for /api/info.
func (l *limiter) running() int { return len(l.slots) }
func (l *limiter) queued() int  { return int(l.waiting.Load()) }

// canceled is the answer to a request whose context ended: its client went
// away (nobody reads the answer) or the server is shutting down.
func canceled(ctx context.Context) error {
	return errorf(http.StatusServiceUnavailable, "the request was cancelled (%v): the search stopped", context.Cause(ctx))
}

// runSearch runs s to playouts root visits, stopped by ctx between rounds
// (mcts.Runner.SearchContext): a search whose client went away stops at
// once instead of running to its end.
func runSearch(ctx context.Context, r *mcts.Runner, s *mcts.Search, playouts int) error {
	if err := r.SearchContext(ctx, s, playouts); err != nil {
		if ctx.Err() != nil {
			return canceled(ctx)
		}
		return err
	}
	if s.Visits() == 0 {
		return fmt.Errorf("the search ran no playout (no legal move?)")
	}
	return nil
}

// noDeadline lifts the server's write timeout while a request searches (a
// search of many playouts with a network may take longer than it), and
// returns the function that sets it again from the moment the answer is
// ready. A ResponseWriter that cannot (a test's recorder) is left as it is.
func (s *Server) noDeadline(w http.ResponseWriter) (answer func()) {
	rc := http.NewResponseController(w)
	if rc.SetWriteDeadline(time.Time{}) != nil || s.cfg.WriteTimeout <= 0 {
		return func() {}
	}
	return func() { rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout)) }
}
