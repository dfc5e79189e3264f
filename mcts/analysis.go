package mcts

import (
	"slices"

	"taflab/rules"
)

// This file holds what an analysis of one position asks of the search and
// its evaluator (package analysis): not a hot path.

// EvaluatePosition asks e for the priors of pos's legal moves (moves, in
// that order) and its value for the side to move, in a batch of one.
// The priors come sorted, highest first (ties in moves' order), at most
// top of them; the evaluator's other outputs for the position (a network's
// WDL) stay readable from e at index 0 until its next call.
func EvaluatePosition(e Evaluator, v *rules.Variant, pos rules.Position, moves []rules.Move, top int) ([]rules.MoveProb, float32, error) {
	batch := &Batch{Variants: []*rules.Variant{v}, Positions: []rules.Position{pos}, Moves: [][]rules.Move{moves},
		Priors: [][]float32{make([]float32, len(moves))}, Values: []float32{0}}
	if err := e.Evaluate(batch); err != nil {
		return nil, 0, err
	}
	out := make([]rules.MoveProb, len(moves))
	for i, m := range moves {
		out[i] = rules.MoveProb{Move: m, Prob: batch.Priors[0][i]}
	}
	rules.SortByProb(out)
	return out[:min(top, len(out))], batch.Values[0], nil
}

// TopStats returns the root's moves after a search, most visited first
// (ties in Stats' order), at most top of them.
func (s *Search) TopStats(top int) []MoveStat {
	stats := s.Stats(nil)
	slices.SortStableFunc(stats, func(a, b MoveStat) int { return b.Visits - a.Visits })
	return stats[:min(top, len(stats))]
}

// Proven reports whether the search has proven the root's value (a won,
// lost or drawn position, whatever the evaluator says): RootValue is then
// exact.
func (s *Search) Proven() bool { return s.tree.at(0).proof != unproven }

// PV appends the search's principal variation to dst: its best move
// (BestMove), then at each position the move the search would choose
// there, the same way (a proven win, else the most visited move that is
// not a proven loss, ties to the higher prior), while the tree has visited
// it, at most max moves. Every move is legal in turn from the root: the
// tree holds only legal moves. It appends nothing before a search.
func (s *Search) PV(dst []rules.Move, max int) []rules.Move {
	root := s.tree.at(0)
	if max < 1 || !root.expanded() {
		return dst
	}
	first := s.BestMove()
	n := (*node)(nil)
	for i, c := range s.tree.children(root) {
		if c.move == first {
			n = s.tree.at(root.firstChild + int32(i))
			break
		}
	}
	dst = append(dst, first)
	for k := 1; k < max && n != nil && n.expanded() && !n.terminal; k++ {
		n = s.bestChild(n)
		if n == nil {
			break
		}
		dst = append(dst, n.move)
	}
	return dst
}

// bestChild returns the child of n that ChooseMove(0) would take under
// PUCT, or nil when no child has been visited or proven.
func (s *Search) bestChild(n *node) *node {
	children := s.tree.children(n)
	win, allLost := provenChoice(children)
	if win >= 0 {
		return &children[win]
	}
	if best := mostVisited(children, allLost, true); best >= 0 {
		return &children[best]
	}
	return nil
}
