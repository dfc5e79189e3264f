package analysis

import (
	"math"

	"taflab/internal/errctx"
)

// This file holds the arithmetic of a review: win chances, labels and
// accuracy. Nothing here searches; every function is pure.

// WDL is win, draw and loss probabilities from one side's view, summing
// to 1.
type WDL struct {
	Win  float64 `json:"win"`
	Draw float64 `json:"draw"`
	Loss float64 `json:"loss"`
}

// Flip returns the other side's view.
func (w WDL) Flip() WDL { return WDL{Win: w.Loss, Draw: w.Draw, Loss: w.Win} }

// WinChance returns the side's win chance in points from 0 to 100: its
// expected score, 100 × (win + draw/2) = 50 + 50 × (win − loss). This is
// lichess's "Win%" with the search's value (win − loss, from −1 to +1) in
// the place of lichess's "winning chances", which lichess reads off an
// engine's centipawns.
func (w WDL) WinChance() float64 { return 100 * (w.Win + w.Draw/2) }

// rounded returns w with each probability to 4 decimals, as reports give
// them.
func (w WDL) rounded() WDL { return WDL{round(w.Win, 4), round(w.Draw, 4), round(w.Loss, 4)} }

// searchWDL splits a search's value q (win − loss for the side to move,
// from −1 to +1) into win, draw and loss with d, the evaluator's draw
// probability of the position (0 for an evaluator without one): the search
// backs up one value, not three, so the draw share is the network's,
// capped at what q leaves (1 − |q|), and win − loss is the search's
// exactly. A proven value is exact: a win, a loss, or for q = 0 a draw.
func searchWDL(q, d float64, proven bool) WDL {
	q = math.Max(-1, math.Min(1, q))
	if proven {
		switch {
		case q > 0:
			return WDL{Win: 1}
		case q < 0:
			return WDL{Loss: 1}
		}
		return WDL{Draw: 1}
	}
	d = math.Max(0, math.Min(d, 1-math.Abs(q)))
	return WDL{Win: (1 + q - d) / 2, Draw: d, Loss: (1 - q - d) / 2}
}

// Label is what a move's loss of win chance makes it.
type Label string

// The labels, from the least loss to the most; "" for a move that loses
// less than Thresholds.Inaccuracy.
const (
	Good       Label = ""
	Inaccuracy Label = "inaccuracy"
	Mistake    Label = "mistake"
	Blunder    Label = "blunder"
)

// Thresholds are the losses of win chance, in points from 0 to 100
// (WDL.WinChance), from which a move is an inaccuracy, a mistake and a
// blunder: a move whose loss is at least Blunder is a blunder, else at
// least Mistake a mistake, else at least Inaccuracy an inaccuracy.
//
// The defaults are lichess's (lila's Advice.scala): a drop of 0.1, 0.2 and
// 0.3 in the mover's "winning chances", which run from −1 to +1, that is 5,
// 10 and 15 points of win chance from 0 to 100.
type Thresholds struct {
	Inaccuracy float64 `json:"inaccuracy"` // points; default 5
	Mistake    float64 `json:"mistake"`    // points; default 10
	Blunder    float64 `json:"blunder"`    // points; default 15
}

// DefaultThresholds returns lichess's thresholds: 5, 10 and 15 points.
func DefaultThresholds() Thresholds { return Thresholds{Inaccuracy: 5, Mistake: 10, Blunder: 15} }

// Validate reports thresholds out of order or out of (0, 100].
func (t Thresholds) Validate() error {
	if !(t.Inaccuracy > 0 && t.Inaccuracy <= t.Mistake && t.Mistake <= t.Blunder && t.Blunder <= 100) {
		return errctx.Errorf("analysis", "thresholds %g, %g, %g points: want 0 < inaccuracy <= mistake <= blunder <= 100", t.Inaccuracy, t.Mistake, t.Blunder)
	}
	return nil
}

// Label returns the label of a move that lost loss points of win chance.
func (t Thresholds) Label(loss float64) Label {
	switch {
	case loss >= t.Blunder:
		return Blunder
	case loss >= t.Mistake:
		return Mistake
	case loss >= t.Inaccuracy:
		return Inaccuracy
	}
	return Good
}

// MoveAccuracy returns a move's accuracy in percent from the mover's win
// chance before and after it (points, 0 to 100), by lichess's published
// formula (lichess.org/page/accuracy): 100 when the move lost nothing,
// else 103.1668 × exp(−0.04354 × loss) − 3.1669, plus 1 for the
// uncertainty of the analysis, within 0 to 100.
func MoveAccuracy(before, after float64) float64 {
	if after >= before {
		return 100
	}
	a := 103.1668100711649*math.Exp(-0.04354415386753951*(before-after)) - 3.166924740191411 + 1
	return math.Max(0, math.Min(100, a))
}

// GameAccuracy returns the accuracy of the side that moved first and of
// the other side over a game, by lichess's published formula: x holds the
// first mover's win chance (points) before the first move and after each
// move, so a game of n moves has n + 1 of them. Move i's accuracy is
// MoveAccuracy of its mover's win chance before and after it; each move
// is weighted by the volatility of the game around it, the standard
// deviation of x over a window of max(2, min(8, n/10)) values (the first
// windows repeat the opening one so that every move has one), within 0.5
// to 12. A side's accuracy is the mean of its moves' weighted mean and
// their harmonic mean (each accuracy taken as at least 1 there): a
// single bad move pulls it down more than an average would. ok is false
// for a side with no move.
func GameAccuracy(x []float64) (first, second float64, firstOK, secondOK bool) {
	n := len(x) - 1
	if n < 1 {
		return 0, 0, false, false
	}
	size := max(2, min(8, n/10))
	size = min(size, len(x))
	weights := make([]float64, 0, n)
	for range max(0, size-2) {
		weights = append(weights, volatility(x[:size]))
	}
	for i := 0; i+size <= len(x); i++ {
		weights = append(weights, volatility(x[i:i+size]))
	}
	var sum, weight, inverse [2]float64
	var count [2]int
	for i := 1; i <= n && i-1 < len(weights); i++ {
		side := (i - 1) % 2
		before, after := x[i-1], x[i]
		if side == 1 { // the second mover's win chance
			before, after = 100-before, 100-after
		}
		a := MoveAccuracy(before, after)
		w := weights[i-1]
		sum[side] += a * w
		weight[side] += w
		inverse[side] += 1 / math.Max(1, a)
		count[side]++
	}
	acc := func(s int) float64 {
		return (sum[s]/weight[s] + float64(count[s])/inverse[s]) / 2
	}
	if count[0] > 0 {
		first, firstOK = acc(0), true
	}
	if count[1] > 0 {
		second, secondOK = acc(1), true
	}
	return first, second, firstOK, secondOK
}

// volatility is the population standard deviation of xs within 0.5 to 12.
func volatility(xs []float64) float64 {
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return math.Max(0.5, math.Min(12, math.Sqrt(v/float64(len(xs)))))
}

// round rounds x to digits decimals.
func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
