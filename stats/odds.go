package stats

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"taflab/internal/errctx"
)

// LadderPoint is one rung of a playout ladder: the baseline at Multiplier
// times its playouts, scored against itself at 1x.
type LadderPoint struct {
	Multiplier  float64 // > 0 and not 1; the 1x rung is implied (Elo 0)
	Elo, Lo, Hi float64 // its Elo against the 1x baseline with a 95% interval
}

// Side says where a multiplier read off a ladder falls.
type Side int8

const (
	// OnLadder means the value was interpolated between rungs.
	OnLadder Side = iota
	// BelowLadder means the Elo is below the lowest rung's (0 at 1x for an
	// ordinary ladder); the multiplier given is that rung's and reads as
	// "< x".
	BelowLadder
	// AboveLadder means the Elo is beyond the last rung's; the multiplier
	// given is that rung's and reads as "> x".
	AboveLadder
)

// Odds is the candidate's strength as a playout multiplier of the baseline:
// the baseline needs Multiplier times its playouts to score level with it.
type Odds struct {
	Multiplier float64 // the multiplier at which the baseline scores level
	Lo, Hi     float64 // the multipliers of the interval's ends; Lo ≤ Multiplier ≤ Hi
	// Where each of the three falls; off the ladder the value is the end
	// it passed, an open bound.
	Side, LoSide, HiSide Side
}

// String formats the odds as e.g. "2.6x [1.7x, 4.1x]", with values off the
// ladder as "< 1x" or "> 8x".
func (o Odds) String() string {
	return fmt.Sprintf("%s [%s, %s]", formatMultiple(o.Multiplier, o.Side), formatMultiple(o.Lo, o.LoSide), formatMultiple(o.Hi, o.HiSide))
}

// formatMultiple writes a multiplier with two significant digits below 10
// (2.6x, 0.71x) and as a whole number above (16x), marked as a bound when
// it is off the ladder.
func formatMultiple(m float64, side Side) string {
	var s string
	if m >= 10 {
		s = strconv.FormatFloat(m, 'f', 0, 64)
	} else {
		s = strconv.FormatFloat(m, 'g', 2, 64)
	}
	switch side {
	case BelowLadder:
		return "< " + s + "x"
	case AboveLadder:
		return "> " + s + "x"
	}
	return s + "x"
}

// PlayoutOdds places a candidate's Elo against the baseline at 1x, with its
// 95% interval lo, hi, on a playout ladder: the baseline at several
// multiples of its playouts measured against itself at 1x. It says what
// the candidate's gain is worth in search, "as strong as the baseline with
// 2.6 times the playouts", which an Elo against one opponent does not.
//
// The ladder is the curve through (1x, 0 Elo) and its rungs sorted by
// multiplier, linear in log2(multiplier) between them: doubling playouts is
// worth roughly a constant Elo, so interpolating in log2 keeps the
// in-between values sensible. A measured ladder can dip by noise (4x
// scoring below 2x), which would make its inverse ambiguous, so the curve
// is first made non-decreasing by isotonic regression (pool adjacent
// violators, rungs weighted equally, the 1x point held at exactly 0): a
// dip is replaced by the average of the rungs involved rather than by the
// higher one, as a running maximum would, which biases the curve upwards.
// Where the curve is then flat, an Elo on the flat maps to the flat's
// middle (in log2) for the estimate and to its far ends for the interval.
//
// The estimate maps elo through the rungs' Elo. The interval also carries
// the ladder's own uncertainty, conservatively: lo maps through the rungs'
// Hi ends and hi through their Lo ends, so Lo is where the strongest
// reading of the ladder reaches the candidate's lowest plausible Elo, and
// Hi where the weakest reading reaches its highest. The result is wider
// than a joint 95% interval, which is meant: a ladder measured on few
// pairs should not make the odds look precise.
//
// Past either end of the ladder nothing is extrapolated: the value is that
// end's multiplier and its Side says it is a bound. An error reports an
// empty ladder, a multiplier that is not positive and finite, is 1 (the
// implied rung) or repeats, an Elo that is not finite or not ordered
// Lo ≤ Elo ≤ Hi, and likewise for elo, lo, hi.
func PlayoutOdds(ladder []LadderPoint, elo, lo, hi float64) (Odds, error) {
	if len(ladder) == 0 {
		return Odds{}, errctx.Errorf("stats", "playout ladder has no rungs")
	}
	if !orderedFinite(lo, elo, hi) {
		return Odds{}, errctx.Errorf("stats", "candidate Elo %v [%v, %v] not finite and ordered", elo, lo, hi)
	}
	rungs := make([]LadderPoint, 0, len(ladder)+1)
	for i, r := range ladder {
		if !(r.Multiplier > 0) || math.IsInf(r.Multiplier, 0) {
			return Odds{}, errctx.Errorf("stats", "ladder rung %d multiplier %v not positive and finite", i, r.Multiplier)
		}
		if r.Multiplier == 1 {
			return Odds{}, errctx.Errorf("stats", "ladder rung %d at multiplier 1 repeats the implied 1x rung", i)
		}
		if !orderedFinite(r.Lo, r.Elo, r.Hi) {
			return Odds{}, errctx.Errorf("stats", "ladder rung %d (%vx) Elo %v [%v, %v] not finite and ordered", i, r.Multiplier, r.Elo, r.Lo, r.Hi)
		}
		rungs = append(rungs, r)
	}
	rungs = append(rungs, LadderPoint{Multiplier: 1})
	sort.SliceStable(rungs, func(i, j int) bool { return rungs[i].Multiplier < rungs[j].Multiplier })
	anchor := 0
	x := make([]float64, len(rungs))
	yElo := make([]float64, len(rungs))
	yLo := make([]float64, len(rungs))
	yHi := make([]float64, len(rungs))
	for i, r := range rungs {
		if i > 0 && r.Multiplier == rungs[i-1].Multiplier {
			return Odds{}, errctx.Errorf("stats", "ladder has two rungs at multiplier %v", r.Multiplier)
		}
		if r.Multiplier == 1 {
			anchor = i
		}
		x[i] = math.Log2(r.Multiplier)
		yElo[i], yLo[i], yHi[i] = r.Elo, r.Lo, r.Hi
	}
	eloCurve := isotonic(yElo, anchor)
	loCurve := isotonic(yLo, anchor)
	hiCurve := isotonic(yHi, anchor)

	var o Odds
	var a, b float64
	a, b, o.Side = inverse(x, eloCurve, elo)
	o.Multiplier = math.Exp2((a + b) / 2)
	a, _, o.LoSide = inverse(x, hiCurve, lo)
	o.Lo = math.Exp2(a)
	_, b, o.HiSide = inverse(x, loCurve, hi)
	o.Hi = math.Exp2(b)
	return o, nil
}

// orderedFinite reports whether lo ≤ v ≤ hi and all three are finite.
func orderedFinite(lo, v, hi float64) bool {
	return lo <= v && v <= hi && !math.IsInf(lo, 0) && !math.IsInf(hi, 0)
}

// isotonic returns the non-decreasing sequence closest to y in least
// squares with y[fixed] held at its value, by pool adjacent violators: a
// block that pools a violating run takes the run's mean, or the fixed
// value if the run contains it (the limit of giving that point infinite
// weight).
func isotonic(y []float64, fixed int) []float64 {
	type block struct {
		sum, n     float64
		start, end int
		fixed      bool
	}
	value := func(b block) float64 {
		if b.fixed {
			return y[fixed]
		}
		return b.sum / b.n
	}
	var stack []block
	for i, v := range y {
		b := block{sum: v, n: 1, start: i, end: i + 1, fixed: i == fixed}
		for len(stack) > 0 && value(stack[len(stack)-1]) > value(b) {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			b = block{sum: top.sum + b.sum, n: top.n + b.n, start: top.start, end: b.end, fixed: top.fixed || b.fixed}
		}
		stack = append(stack, b)
	}
	out := make([]float64, len(y))
	for _, b := range stack {
		for i := b.start; i < b.end; i++ {
			out[i] = value(b)
		}
	}
	return out
}

// inverse returns the range [a, b] of x at which the non-decreasing
// piecewise linear curve through (x_i, y_i) equals e (a = b unless the
// curve is flat there), or, with e off the curve's range, the end it
// passed twice and the side.
func inverse(x, y []float64, e float64) (a, b float64, side Side) {
	last := len(x) - 1
	switch {
	case e < y[0]:
		return x[0], x[0], BelowLadder
	case e > y[last]:
		return x[last], x[last], AboveLadder
	}
	// a: the least x with curve(x) ≥ e.
	i := 0
	for y[i] < e {
		i++
	}
	a = x[i]
	if i > 0 {
		a = x[i-1] + (e-y[i-1])/(y[i]-y[i-1])*(x[i]-x[i-1])
	}
	// b: the greatest x with curve(x) ≤ e.
	j := last
	for y[j] > e {
		j--
	}
	b = x[j]
	if j < last {
		b = x[j] + (e-y[j])/(y[j+1]-y[j])*(x[j+1]-x[j])
	}
	return a, b, OnLadder
}
