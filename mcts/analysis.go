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
