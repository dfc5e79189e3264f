package mcts

import (
	"context"
	"fmt"

	"taflab/internal/errctx"
	"taflab/rules"
)

// This file is a hot path with tree.go: every playout is selected, batched
// and backed up here. It allocates nothing once its buffers have grown.

// Runner runs the playouts of many searches in rounds: each round selects up
// to Config.LeavesPerGame leaves from every search that wants more, evaluates
// all of them in one call, then expands and backs them up. A Runner is used
// by one goroutine at a time; each worker has its own, with its own
// Evaluator.
type Runner struct {
	eval    Evaluator
	batch   Batch
	pending []pendingLeaf
	moves   []rules.Move // the legal moves of the batch's leaves, back to back
	priors  []float32    // the evaluator's priors, same layout as moves
	paths   []int32      // the selection paths of the batch's leaves, back to back
	tactics []int16      // the heuristic values of the moves (Config.TacticalWeight > 0), same layout as moves
	escape  *escapeSolver
}

// pendingLeaf is a leaf waiting for its evaluation.
type pendingLeaf struct {
	search           *Search
	node             int32
	pathStart, pathN int32
	movesStart       int32
	winning          int32 // index of a move that wins at once, or -1
	forking          int32 // index of a king move that wins by force (escapeSolver), or -1
	lost             bool  // the side to move loses by force (escapeSolver)
}

// NewRunner returns a runner that asks eval.
func NewRunner(eval Evaluator) *Runner {
	return &Runner{eval: eval, escape: newEscapeSolver()}
}

// Evaluator returns the runner's evaluator.
func (r *Runner) Evaluator() Evaluator { return r.eval }

// Search runs one search to playouts root visits (no noise) and returns
// when it is done: a convenience for analysis and tests. playouts out of
// [1, MaxPlayouts] is an error (CheckPlayouts), and so is a position where
// the side to move has no legal move though the game is not over (see
// Step).
func (r *Runner) Search(s *Search, playouts int) error {
	return r.SearchContext(context.Background(), s, playouts)
}

// SearchContext is Search stopped by ctx: it checks ctx between rounds (a
// round is at most Config.LeavesPerGame leaves) and returns ctx's error,
// the search left as far as it got.
func (r *Runner) SearchContext(ctx context.Context, s *Search, playouts int) error {
	if err := CheckPlayouts(playouts); err != nil {
		return err
	}
	s.Start(playouts, false)
	one := []*Search{s}
	for !s.Done() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.Step(one); err != nil {
			return err
		}
	}
	return nil
}

// Step runs one round over the searches that are not done. It returns the
// error of a search whose Start refused its playouts, and an error for a
// search whose root has no legal move though its game is not over (a start
// position rules.Variant.CheckStart refuses; a game judges every position
// a move brings about, so only a root can be one).
func (r *Runner) Step(searches []*Search) error {
	r.batch.reset()
	r.pending, r.moves, r.priors, r.paths = r.pending[:0], r.moves[:0], r.priors[:0], r.paths[:0]
	r.tactics = r.tactics[:0]
	for _, s := range searches {
		if s.err != nil {
			return s.err
		}
		if s.game.Outcome().Over() {
			continue
		}
		if !s.tree.at(0).expanded() && !s.game.HasMove() {
			return fmt.Errorf("mcts: position %s: the %v have no legal move and the game is not over: nothing to search", s.game.Position(), s.game.ToMove())
		}
		if !s.wantsMore() || !s.roomForRound() {
			continue // done, or its share of the budget is full
		}
		for k := 0; k < s.cfg.LeavesPerGame && s.wantsMore(); k++ {
			if !r.selectLeaf(s) {
				break
			}
		}
	}
	if len(r.pending) == 0 {
		return nil
	}
	// The move lists were appended into r.moves, which may have moved as it
	// grew: build the batch's views now.
	if cap(r.priors) < len(r.moves) {
		r.priors = make([]float32, len(r.moves), 2*len(r.moves))
	}
	r.priors = r.priors[:len(r.moves)]
	for i := range r.pending {
		start := r.pending[i].movesStart
		end := int32(len(r.moves))
		if i+1 < len(r.pending) {
			end = r.pending[i+1].movesStart
		}
		r.batch.Moves = append(r.batch.Moves, r.moves[start:end])
		r.batch.Priors = append(r.batch.Priors, r.priors[start:end])
	}
	if err := r.eval.Evaluate(&r.batch); err != nil {
		for _, leaf := range r.pending {
			leaf.search.cancel(r.paths[leaf.pathStart : leaf.pathStart+leaf.pathN])
		}
		return errctx.Key("mcts", "evaluator "+r.eval.ID(), err)
	}
	for i, leaf := range r.pending {
		s := leaf.search
		path := r.paths[leaf.pathStart : leaf.pathStart+leaf.pathN]
		s.expand(leaf.node, r.batch.Moves[i], r.batch.Priors[i])
		if s.cfg.TacticalWeight > 0 {
			start := leaf.movesStart
			s.setTactics(path, r.tactics[start:start+int32(len(r.batch.Moves[i]))])
		}
		value := r.batch.Values[i] // for the side to move at the leaf
		switch {
		case leaf.winning >= 0:
			// The side to move at the leaf wins at once: the leaf is a
			// proven loss for the side that moved into it.
			n := s.tree.at(leaf.node)
			win := s.tree.at(n.firstChild + leaf.winning)
			win.terminal, win.proof = true, provenWin
			s.prove(path, provenLoss)
			value = 1
		case leaf.forking >= 0:
			// A king move after which the attackers lose by force
			// (escapeSolver): the child is a proven win (not a terminal
			// one: the game goes on) and the leaf a proven loss for the
			// side that moved in.
			n := s.tree.at(leaf.node)
			s.tree.at(n.firstChild + leaf.forking).proof = provenWin
			s.prove(path, provenLoss)
			value = 1
		case leaf.lost:
			// Whatever the attackers play, the king walks to a corner
			// (escapeSolver): a proven win for the side that moved in.
			s.prove(path, provenWin)
			value = -1
		}
		if leaf.node == 0 {
			s.rootExpanded(value)
		}
		s.backup(path, -value)
		s.playouts++
	}
	return nil
}

// selectLeaf walks from s's root to a leaf by PUCT, with a virtual loss on
// every node of the way (at the root by the sequential-halving schedule
// instead under Gumbel root search). A terminal or proven leaf is backed up
// at once; a new leaf joins the batch. It returns false when the walk ends on
// a leaf already waiting for evaluation (a collision), or when the schedule
// waits for this round's values before halving: the search has given all it
// can this round.
func (r *Runner) selectLeaf(s *Search) bool {
	g := s.game
	path := s.path[:0]
	path = append(path, 0)
	// n is node cur: nodes do not move while a leaf is selected (only
	// expand grows the arena).
	cur, n := int32(0), s.tree.at(0)
	n.inFlight++
	for {
		if n.proof != unproven && cur != 0 {
			s.backup(path, n.proof.value())
			s.playouts++
			r.unwind(g, len(path)-1)
			s.path = path
			return true
		}
		if !n.expanded() {
			break
		}
		if cur == 0 && s.gumbel.active {
			if cur = s.gumbelSelect(); cur < 0 {
				s.cancel(path) // path is the root alone
				s.path = path
				return false
			}
			n = s.tree.at(cur)
		} else {
			cur, n = s.selectChild(n, cur == 0)
		}
		mover := g.ToMove()
		g.Make(n.move)
		n.inFlight++
		path = append(path, cur)
		if !n.terminal && g.Outcome().Over() {
			n.terminal = true
			s.prove(path, proofOf(g.Outcome(), mover))
		}
	}
	s.path = path
	if n.inFlight > 1 {
		s.cancel(path)
		r.unwind(g, len(path)-1)
		return false
	}
	start := int32(len(r.moves))
	r.moves = g.GenerateMoves(r.moves)
	moves := r.moves[start:]
	var winning int32
	if s.cfg.TacticalWeight > 0 {
		// The implicit minimax values of the leaf's children: every move
		// made once, which finds every win in one on the way. r.tactics
		// follows r.moves; the entries of leaves of searches without it
		// are left as they are and never read.
		if cap(r.tactics) < len(r.moves) {
			grown := make([]int16, len(r.moves), 2*len(r.moves))
			copy(grown, r.tactics)
			r.tactics = grown
		}
		r.tactics = r.tactics[:len(r.moves)]
		winning = scanTactics(g, moves, r.tactics[start:])
	} else {
		winning = immediateWin(g, moves)
	}
	forking, lost := int32(-1), false
	if winning < 0 {
		if m, ok := r.escape.defendersWin(g, s.cfg.EscapeDepth); ok {
			forking = indexOf(moves, m)
		} else {
			lost = r.escape.attackersLose(g, s.cfg.EscapeDepth)
		}
	}
	r.pending = append(r.pending, pendingLeaf{
		search: s, node: cur,
		pathStart: int32(len(r.paths)), pathN: int32(len(path)),
		movesStart: start, winning: winning, forking: forking, lost: lost,
	})
	r.paths = append(r.paths, path...)
	r.batch.Variants = append(r.batch.Variants, g.Variant())
	r.batch.Positions = append(r.batch.Positions, g.Position())
	r.batch.Values = append(r.batch.Values, 0)
	r.unwind(g, len(path)-1)
	return true
}

// rootExpanded records the root's evaluation, value for its side to move,
// and does what waited for the root's children: Dirichlet noise, Gumbel
// root search's draws.
func (s *Search) rootExpanded(value float32) {
	s.rootValue = value
	if s.noisePended {
		s.addNoise()
		s.noisePended = false
	}
	if s.gumbel.pended {
		s.gumbelStart()
	}
}

// indexOf returns the index of m in moves; m is one of them.
func indexOf(moves []rules.Move, m rules.Move) int32 {
	for i, x := range moves {
		if x == m {
			return int32(i)
		}
	}
	panic("mcts: a proven move that is not legal: " + m.String())
}

// unwind takes back the last n moves of g.
func (r *Runner) unwind(g *rules.Game, n int) {
	for range n {
		g.Unmake()
	}
}

// immediateWin returns the index of a move of moves that wins the game at
// once for the side to move, or -1. It looks only where a win in one is
// cheap to see and common: the king stepping onto a corner, and an attacker
// moving next to the king (which may capture him). Other wins in one (a fort,
// an encirclement, a shieldwall) are found when the search visits them, or
// at expansion by scanTactics when Config.TacticalWeight > 0.
func immediateWin(g *rules.Game, moves []rules.Move) int32 {
	pos := g.Position()
	v := g.Variant()
	if pos.ToMove == rules.Defenders {
		corners := v.Corners()
		for i, m := range moves {
			if m.From() == pos.King && corners.Has(m.To()) {
				return int32(i)
			}
		}
		return -1
	}
	near := v.Neighbours(pos.King)
	for i, m := range moves {
		if !near.Has(m.To()) {
			continue
		}
		g.Make(m)
		won := g.Outcome().Winner == rules.AttackersWin
		g.Unmake()
		if won {
			return int32(i)
		}
	}
	return -1
}
