package mcts

import (
	"context"
	"fmt"

	"taflab/rules"
)

// GameRecord is one finished self-play game: its moves, every searched
// position with the search's result, and the outcome.
type GameRecord struct {
	Index     int    // the game's number in its run, from 0
	Seed      uint64 // the seed of every random choice of the game
	Variant   *rules.Variant
	Evaluator string // the evaluator's ID
	Moves     []rules.Move
	Captures  []rules.Bitboard // the soldiers each move captured
	Samples   []Sample         // one per move, before the move
	Outcome   rules.Outcome
}

// Sample is one searched position of a game.
type Sample struct {
	Ply       int // moves made before the position
	Position  rules.Position
	Policy    []MoveProb // the root's visit distribution over the legal moves
	Full      bool       // a full search: noise, and a policy fit for training
	RootValue float32    // the search's value for the side to move
}

// GameSource hands out the games of a run: the next game's index and seed,
// or ok = false when there are no more. It must be safe for concurrent use
// when several workers share it.
type GameSource func() (index int, seed uint64, ok bool)

// SelfPlayer plays games against itself, several at once, batching their
// evaluations. A SelfPlayer is one worker: used by one goroutine, with its
// own evaluator; run one per core for parallel self-play.
type SelfPlayer struct {
	cfg      Config // immutable
	variant  *rules.Variant
	runner   *Runner
	parallel int
}

// NewSelfPlayer returns a worker that plays parallel games at once under
// variant, evaluating with eval.
func NewSelfPlayer(cfg Config, variant *rules.Variant, eval Evaluator, parallel int) (*SelfPlayer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if parallel < 1 {
		return nil, fmt.Errorf("mcts: %d games at once: want at least 1", parallel)
	}
	return &SelfPlayer{cfg: cfg, variant: variant, runner: NewRunner(eval), parallel: parallel}, nil
}

// slot is one game in progress.
type slot struct {
	search *Search
	record *GameRecord
	full   bool // the current search is a full one
}

// Play plays the games that next hands out until it has none or ctx is
// done, and calls done with each finished game, in the order they finish.
// Games unfinished when ctx is done are dropped. It returns ctx's error if
// stopped, the first error of done or the evaluator otherwise.
//
// Every random choice of a game comes from its seed, so with a
// deterministic evaluator a game's moves depend only on its seed, whatever
// the number of workers or games at once.
func (p *SelfPlayer) Play(ctx context.Context, next GameSource, done func(*GameRecord) error) error {
	slots := make([]*slot, 0, p.parallel)
	searches := make([]*Search, 0, p.parallel)
	for range p.parallel {
		if sl := p.newGame(next, nil); sl != nil {
			slots = append(slots, sl)
		}
	}
	for len(slots) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		searches = searches[:0]
		for _, sl := range slots {
			searches = append(searches, sl.search)
		}
		if err := p.runner.Step(searches); err != nil {
			return err
		}
		for i := 0; i < len(slots); i++ {
			sl := slots[i]
			if !sl.search.Done() {
				continue
			}
			p.move(sl)
			if !sl.search.game.Outcome().Over() {
				p.startSearch(sl)
				continue
			}
			sl.record.Outcome = sl.search.game.Outcome()
			if err := done(sl.record); err != nil {
				return err
			}
			if fresh := p.newGame(next, sl); fresh != nil {
				slots[i] = fresh
			} else {
				slots = append(slots[:i], slots[i+1:]...)
				i--
			}
		}
	}
	return nil
}

// newGame starts the next game of the source, in the memory of a finished
// slot if there is one, or returns nil.
func (p *SelfPlayer) newGame(next GameSource, reuse *slot) *slot {
	index, seed, ok := next()
	if !ok {
		return nil
	}
	sl := reuse
	if sl == nil {
		g := rules.NewGame(p.variant)
		sl = &slot{search: NewSearch(&p.cfg, g, seed)}
	} else {
		sl.search.game.Reset()
		sl.search.Reset(sl.search.game, seed)
	}
	sl.record = &GameRecord{Index: index, Seed: seed, Variant: p.variant, Evaluator: p.runner.eval.ID()}
	p.startSearch(sl)
	return sl
}

// startSearch draws full or cheap (playout-cap randomization) and starts
// the slot's search.
func (p *SelfPlayer) startSearch(sl *slot) {
	s := sl.search
	sl.full = p.cfg.FullSearchProb >= 1 || s.rng.Float64() < p.cfg.FullSearchProb
	playouts := p.cfg.CheapPlayouts
	if sl.full {
		playouts = p.cfg.Playouts
	}
	s.Start(playouts, sl.full)
}

// move records the slot's search and plays the chosen move.
func (p *SelfPlayer) move(sl *slot) {
	s, rec := sl.search, sl.record
	g := s.game
	rec.Samples = append(rec.Samples, Sample{
		Ply:       g.Ply(),
		Position:  g.Position(),
		Policy:    s.Policy(nil),
		Full:      sl.full,
		RootValue: s.RootValue(),
	})
	m := s.ChooseMove(p.cfg.Temperature(g.Ply()))
	if err := s.Advance(m); err != nil {
		panic(err) // ChooseMove returns a legal move
	}
	_, captured := g.LastMove()
	rec.Moves = append(rec.Moves, m)
	rec.Captures = append(rec.Captures, captured)
}
