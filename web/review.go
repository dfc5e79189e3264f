package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"taflab/analysis"
	"taflab/datasets"
	"taflab/mcts"
	"taflab/rules"
)

// A review streams: its answer is one JSON object a line (ReviewEvent), a
// line a ply as the plies are reviewed, so that the page shows its
// progress and the graph fills in. Each step of the review (a position of
// each of its stretches) takes one of the server's search slots and frees
// it, so that a long review does not hold a slot others wait for; the
// review stops when its client goes away (its request's context). At most
// Config.MaxSearches reviews run at once (their trees live between
// steps), each tree within Config.TreeBytes over all its stretches.

// reviewStretches is the stretches of a game a review on the page searches
// side by side (analysis.Config.Parallel): two, one batch of leaves for
// the network and the tree's budget split in two.
const reviewStretches = 2

func (s *Server) handleReview(w http.ResponseWriter, r *http.Request) {
	var req ReviewRequest
	if err := s.readJSON(r, &req); err != nil {
		writeError(w, err)
		return
	}
	ctx := r.Context()
	game, rg, err := s.reviewGame(ctx, req)
	if err != nil {
		writeError(w, err)
		return
	}
	v := game.Variant
	if _, err := s.checkEngine(req.Network, v); err != nil {
		writeError(w, err)
		return
	}
	release, err := s.reviews.acquire(ctx)
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	eval, err := s.evaluator(req.Network, v)
	if err != nil {
		writeError(w, err)
		return
	}
	cfg := analysis.DefaultConfig()
	cfg.Playouts, cfg.Parallel = req.Playouts, reviewStretches
	cfg.Search.TreeBytes = max(s.cfg.TreeBytes/reviewStretches, mcts.MinTreeBytes)
	rv, err := analysis.NewReviewer(&cfg, eval, game)
	if err != nil {
		writeError(w, errorf(http.StatusUnprocessableEntity, "%v", err))
		return
	}
	answer := s.noDeadline(w)
	defer answer()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	send := newEventWriter(w)
	send(ReviewEvent{Game: rg, Total: rv.Plies()})
	if err := s.runReview(ctx, rv, send); err != nil {
		send(ReviewEvent{Error: err.Error()})
		return
	}
	done := rv.Review()
	done.Plies = []analysis.Ply{} // sent one by one already
	send(ReviewEvent{Review: done})
}

// runReview steps rv to its end, a search slot a step, sending each ply
// as it is reviewed.
func (s *Server) runReview(ctx context.Context, rv *analysis.Reviewer, send func(ReviewEvent)) (err error) {
	defer func() {
		if p := recover(); p != nil { // a bug, not the input: say so, and free the slot
			err = fmt.Errorf("the review failed: %v", p)
		}
	}()
	for !rv.Done() {
		release, err := s.searches.acquire(ctx)
		if err != nil {
			return err
		}
		plies, err := rv.Step(ctx)
		release()
		if err != nil {
			if ctx.Err() != nil {
				return canceled(ctx)
			}
			return err
		}
		for i := range plies {
			send(ReviewEvent{Ply: &plies[i]})
		}
	}
	return nil
}

// newEventWriter returns a function that writes an event as a line and
// flushes it to the client.
func newEventWriter(w http.ResponseWriter) func(ReviewEvent) {
	enc := json.NewEncoder(w)
	rc := http.NewResponseController(w)
	return func(e ReviewEvent) {
		if enc.Encode(e) == nil {
			rc.Flush()
		}
	}
}

// reviewGame finds the game a review request names (a file's, or one
// played on the page), checks the request's other fields, and returns the
// game (its moves after its end left out) and the game replayed.
func (s *Server) reviewGame(ctx context.Context, req ReviewRequest) (*datasets.Game, *ReplayedGame, error) {
	if req.Playouts < 1 || req.Playouts > s.cfg.MaxPlayouts {
		return nil, nil, errorf(http.StatusBadRequest, "playouts %d: want 1 to %d", req.Playouts, s.cfg.MaxPlayouts)
	}
	if req.Network == "" {
		req.Network = builtinID
	}
	var fg datasets.Game
	switch {
	case req.GameID != "":
		s.gamesMu.Lock()
		gm, ok := s.games[req.GameID]
		s.gamesMu.Unlock()
		if !ok {
			return nil, nil, errorf(http.StatusNotFound, "game %q: no such game (the server keeps the %d played most recently)", req.GameID, s.cfg.MaxGames)
		}
		gm.mu.Lock()
		fg = datasets.Game{Variant: gm.v, Start: gm.start, Moves: append([]rules.RecordedMove(nil), gm.moves...), Recorded: gm.g.Outcome().Winner.String()}
		gm.mu.Unlock()
	case req.Path != "":
		if req.Game < 0 {
			return nil, nil, errorf(http.StatusBadRequest, "game %d: want a game's index from 0", req.Game)
		}
		release, games, total, err := s.readGames(ctx, req.Src, req.Path, req.Variant, datasets.GameOptions{From: req.Game, Max: 1})
		if err != nil {
			return nil, nil, err
		}
		release()
		if len(games) == 0 {
			return nil, nil, errorf(http.StatusNotFound, "game %d: the file has %d games", req.Game, total)
		}
		fg = games[0]
	default:
		return nil, nil, errorf(http.StatusBadRequest, "no game: give game_id (a game played here), or src, path and game (a file's)")
	}
	if n := len(fg.Moves); n > MaxPlies {
		return nil, nil, errorf(http.StatusUnprocessableEntity, "%d plies, more than the %d the page reviews a game of", n, MaxPlies)
	}
	rg := replay(&fg, true)
	if rg.Error != "" {
		return nil, nil, errorf(http.StatusUnprocessableEntity, "the game cannot be reviewed: %s", rg.Error)
	}
	fg.Moves = fg.Moves[:len(rg.Moves)]
	return &fg, &rg, nil
}
