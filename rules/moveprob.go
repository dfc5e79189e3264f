package rules

import "slices"

// MoveProb is a move with a probability: an evaluator's prior, a search's
// share of the visits, a training target's weight. It is the one type for
// that across the module (the search, the network, datasets, analysis).
type MoveProb struct {
	Move Move
	Prob float32 // from 0 to 1
}

// SortByProb sorts moves by probability, highest first, keeping the order
// of moves of equal probability.
func SortByProb(moves []MoveProb) {
	slices.SortStableFunc(moves, func(a, b MoveProb) int {
		switch {
		case a.Prob > b.Prob:
			return -1
		case a.Prob < b.Prob:
			return 1
		}
		return 0
	})
}
