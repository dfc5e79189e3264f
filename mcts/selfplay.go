package mcts

import (
	"context"
	"fmt"
	"unsafe"

	"taflab/internal/errctx"
	"taflab/rules"
)

// GameRecord is one finished self-play game: its moves, every searched
// position with the search's result, and the outcome.
type GameRecord struct {
	GameSpec  // how the game was set up
	Variant   *rules.Variant
	Evaluator string // the evaluator's ID
	// Playouts are the full-search budgets the two sides had, indexed by
	// rules.Side: equal unless the game gave one side odds (their cheap
	// budgets are in the same ratio).
	Playouts [2]int
	Moves    []rules.Move
	Captures []rules.Bitboard // the soldiers each move captured
	Samples  []Sample         // one per move, before the move
	Outcome  rules.Outcome
	// CutShort counts the moves whose search a shared Budget ended early
	// (SelfPlayer.ShareBudget), with fewer playouts than it asked for.
	CutShort int
}

// Sample is one searched position of a game.
type Sample struct {
	Ply       int // moves made before the position
	Position  rules.Position
	Policy    []rules.MoveProb // the search's policy over the legal moves (Search.Policy)
	Full      bool             // a full search: noise, and a policy fit for training
	RootValue float32          // the search's value for the side to move
	Playouts  int              // the playouts the search ran (kept visits not counted)
	// Surprise is the policy's KL divergence from the evaluator's prior at
	// the root (Search.Surprise), for a full search; 0 for a cheap one.
	Surprise float32
}

// GameSpec is one game a GameSource hands out.
type GameSpec struct {
	Index int    // the game's number in its run, from 0
	Seed  uint64 // the seed of every random choice of the game
	// Start is the position the game starts from (an opening suite's);
	// the zero Position (Size 0) means the rule set's start.
	Start rules.Position
	// Odds > 1 gives the Favoured side Odds times the playouts of the
	// other (KataGo's asymmetric playouts): games the side that loses most
	// self-play games can win. Both sides draw full or cheap searches
	// alike, the weaker side's budgets divided by Odds; its searches start
	// from an empty tree (a kept subtree would hold the stronger side's
	// visits) and are never training targets. 0 or 1: both sides search
	// alike.
	Odds     int
	Favoured rules.Side
}

// StartsAtStart reports whether the game starts from the rule set's start.
func (g GameSpec) StartsAtStart() bool { return g.Start.Size == 0 }

// GameSource hands out the games of a run, or ok = false when there are no
// more. It must be safe for concurrent use when several workers share it.
type GameSource func() (game GameSpec, ok bool)

// SelfPlayer plays games against itself, several at once, batching their
// evaluations. A SelfPlayer is one worker: used by one goroutine, with its
// own evaluator; run one per core for parallel self-play.
type SelfPlayer struct {
	cfg      Config // immutable
	variant  *rules.Variant
	runner   *Runner
	parallel int
	shared   *Budget // shared with other workers' games (ShareBudget); nil for none
}

// ShareBudget makes the worker's games share b (Budget) with every other
// game that does: their search trees, and their recorded positions until
// the caller releases them (GameRecord.Bytes). Call it before Play.
func (p *SelfPlayer) ShareBudget(b *Budget) { p.shared = b }

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
	var made []*Search // every search made, for the budget at the end
	defer func() {
		if p.shared == nil {
			return
		}
		for _, s := range made {
			s.releaseBudget()
		}
		for _, sl := range slots {
			if sl.record != nil { // a game unfinished, dropped
				p.shared.Release(sl.record.Bytes())
			}
		}
	}()
	newGame := func(reuse *slot) (*slot, error) {
		sl, err := p.newGame(next, reuse)
		if sl != nil && sl != reuse {
			made = append(made, sl.search)
		}
		return sl, err
	}
	for range p.parallel {
		sl, err := newGame(nil)
		if err != nil {
			return err
		}
		if sl != nil {
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
			sl.record = nil // the reader's, which releases its bytes
			fresh, err := newGame(sl)
			if err != nil {
				return err
			}
			if fresh != nil {
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
// slot if there is one, or returns nil. A game whose start position cannot
// be played (not a position of the rule set, or already over) is an error.
func (p *SelfPlayer) newGame(next GameSource, reuse *slot) (*slot, error) {
	spec, ok := next()
	if !ok {
		return nil, nil
	}
	sl := reuse
	if sl == nil {
		sl = &slot{search: NewSearch(&p.cfg, rules.NewGame(p.variant), spec.Seed)}
		sl.search.shareBudget(p.shared)
	}
	g := sl.search.game
	if spec.StartsAtStart() {
		g.Reset()
	} else {
		if err := p.variant.CheckStart(spec.Start); err != nil {
			return nil, errctx.Key("mcts", fmt.Sprintf("game %d", spec.Index), err)
		}
		if err := g.ResetTo(spec.Start); err != nil {
			return nil, errctx.Key("mcts", fmt.Sprintf("game %d", spec.Index), err) // CheckStart passed
		}
	}
	sl.search.Reset(g, spec.Seed)
	rec := &GameRecord{GameSpec: spec, Variant: p.variant, Evaluator: p.runner.eval.ID()}
	for side := range rec.Playouts {
		rec.Playouts[side] = p.budget(rec, rules.Side(side), true)
	}
	sl.record = rec
	p.startSearch(sl)
	return sl, nil
}

// budget returns a side's playouts for a full or cheap search in a game:
// the config's, divided by the odds for the side they do not favour.
func (p *SelfPlayer) budget(rec *GameRecord, side rules.Side, full bool) int {
	n := p.cfg.CheapPlayouts
	if full {
		n = p.cfg.Playouts
	}
	if rec.Odds > 1 && side != rec.Favoured {
		n = max(n/rec.Odds, 1)
	}
	return n
}

// startSearch draws full or cheap (playout-cap randomization) and starts
// the slot's search. In a game with odds the weaker side's search starts
// from an empty tree and is no training target (sl.full stays false).
func (p *SelfPlayer) startSearch(sl *slot) {
	s, rec := sl.search, sl.record
	side := s.game.ToMove()
	weak := rec.Odds > 1 && side != rec.Favoured
	full := p.cfg.FullSearchProb >= 1 || s.rng.Float64() < p.cfg.FullSearchProb
	sl.full = full && !weak
	if weak {
		s.DropTree()
	}
	// Gumbel root search samples the move it plays by its noise, so every
	// self-play search has it; PUCT's cheap searches play their most
	// visited move by temperature and keep their noise-free visits.
	noise := sl.full || p.cfg.RootSearch == RootGumbel
	s.Start(p.budget(rec, side, full), noise)
}

// move records the slot's search and plays the chosen move.
func (p *SelfPlayer) move(sl *slot) {
	s, rec := sl.search, sl.record
	g := s.game
	if s.starved {
		rec.CutShort++
	}
	sample := Sample{
		Ply:       g.Ply(),
		Position:  g.Position(),
		Policy:    s.Policy(nil),
		Full:      sl.full,
		RootValue: s.RootValue(),
		Playouts:  s.Playouts(),
	}
	if sl.full {
		sample.Surprise = s.Surprise(sample.Policy)
	}
	rec.Samples = append(rec.Samples, sample)
	m := s.ChooseMove(p.cfg.Temperature(g.Ply()))
	if err := s.Advance(m); err != nil {
		panic(err) // ChooseMove returns a legal move
	}
	_, captured := g.LastMove()
	rec.Moves = append(rec.Moves, m)
	rec.Captures = append(rec.Captures, captured)
	if p.shared != nil {
		p.shared.Charge(plyBytes(&rec.Samples[len(rec.Samples)-1]))
	}
}

// plyBytes is what a ply takes of a game's record: its sample, with its
// policy, its move and its captures.
func plyBytes(s *Sample) int64 {
	return int64(unsafe.Sizeof(*s)) + int64(len(s.Policy))*int64(unsafe.Sizeof(rules.MoveProb{})) +
		int64(unsafe.Sizeof(rules.Move(0))) + int64(unsafe.Sizeof(rules.Bitboard{}))
}

// Bytes returns what the game's record takes, as a SelfPlayer that shares
// a Budget charges it (its positions, policies, moves and captures): the
// caller releases it from the budget once the record is written.
func (r *GameRecord) Bytes() int64 {
	var n int64
	for i := range r.Samples {
		n += plyBytes(&r.Samples[i])
	}
	return n
}
