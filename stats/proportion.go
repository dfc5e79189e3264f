package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"taflab/internal/errctx"
)

// zForConfidence returns the two-sided standard normal quantile for a
// confidence level: 1.959963984540054 for 0.95. It panics unless confidence
// lies in (0, 1).
func zForConfidence(confidence float64) float64 {
	if !(confidence > 0 && confidence < 1) {
		panic(fmt.Sprintf("stats: confidence %v outside (0, 1)", confidence))
	}
	return distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
}

// checkCount panics unless 0 <= x <= n.
func checkCount(x, n int) {
	if n < 0 || x < 0 || x > n {
		panic(fmt.Sprintf("stats: count %d of %d outside [0, n]", x, n))
	}
}

// Wilson returns the Wilson score interval for a binomial proportion with
// successes out of n trials at the given two-sided confidence level (0.95
// for a 95% interval). With n = 0 it returns the whole range 0, 1.
//
// It panics if n < 0, successes is outside [0, n], or confidence is outside
// (0, 1): these are programmer errors.
func Wilson(successes, n int, confidence float64) (lo, hi float64) {
	checkCount(successes, n)
	return WilsonZ(successes, n, zForConfidence(confidence))
}

// WilsonZ is Wilson with the normal quantile z given directly (1.96 is the
// textbook value for 95%). It panics on the count errors Wilson panics on
// and unless z is finite and positive.
func WilsonZ(successes, n int, z float64) (lo, hi float64) {
	checkCount(successes, n)
	if !(z > 0) || math.IsInf(z, 0) {
		panic(fmt.Sprintf("stats: normal quantile %v not finite and positive", z))
	}
	if n == 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(successes) / nf
	z2 := z * z
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = center-half, center+half
	// The exact interval ends at 0 (1) when there are no successes
	// (failures); rounding may leave a tiny residue.
	if successes == 0 || lo < 0 {
		lo = 0
	}
	if successes == n || hi > 1 {
		hi = 1
	}
	return lo, hi
}

// Proportion is an observed binomial proportion with its Wilson interval.
type Proportion struct {
	Successes, N int     // the counts
	P            float64 // Successes/N, or 0 when N is 0
	Lo, Hi       float64 // the Wilson interval at the confidence it was made with
}

// NewProportion returns successes/n with its Wilson interval at the given
// confidence. It panics where Wilson panics.
func NewProportion(successes, n int, confidence float64) Proportion {
	lo, hi := Wilson(successes, n, confidence)
	p := 0.0
	if n > 0 {
		p = float64(successes) / float64(n)
	}
	return Proportion{Successes: successes, N: n, P: p, Lo: lo, Hi: hi}
}

// Width is the width of the interval, Hi - Lo (1 with no trials).
func (p Proportion) Width() float64 { return p.Hi - p.Lo }

// String formats the proportion as "0.412 [0.371, 0.455] (412/1000)".
func (p Proportion) String() string {
	return fmt.Sprintf("%.3f [%.3f, %.3f] (%d/%d)", p.P, p.Lo, p.Hi, p.Successes, p.N)
}

// TwoProportion is the pooled two-sided z-test of H0: p1 = p2 for x1
// successes out of n1 against x2 out of n2. z is positive when x1/n1 >
// x2/n2; p is the two-sided p-value 2·Φ(-|z|). The test is identical to
// Pearson's chi-squared test on the 2×2 table without continuity
// correction (z² = X²).
//
// When either sample is empty, or the pooled proportion is 0 or 1 (all
// trials failed, or all succeeded, so the samples cannot differ), there is
// no evidence of a difference: it returns z = 0, p = 1.
//
// It panics if a count is negative or x exceeds its n (programmer errors).
func TwoProportion(x1, n1, x2, n2 int) (z, p float64) {
	checkCount(x1, n1)
	checkCount(x2, n2)
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	pooled := float64(x1+x2) / float64(n1+n2)
	if pooled == 0 || pooled == 1 {
		return 0, 1
	}
	p1 := float64(x1) / float64(n1)
	p2 := float64(x2) / float64(n2)
	se := math.Sqrt(pooled * (1 - pooled) * (1/float64(n1) + 1/float64(n2)))
	z = (p1 - p2) / se
	return z, 2 * distuv.UnitNormal.CDF(-math.Abs(z))
}

// Holm returns Holm's step-down adjustment of the p-values p (the family-wise
// error rate over all of them stays at the nominal level): the i-th smallest
// is multiplied by len(p)-i+1, made monotone and capped at 1. The result is
// in the order of p, which is not changed.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		v := math.Min(1, float64(m-rank)*p[i])
		running = math.Max(running, v)
		adj[i] = running
	}
	return adj
}

// Outcomes counts the finished games of one rule set by their result.
type Outcomes struct {
	AttackerWins, DefenderWins, Draws int
}

// Games is the number of games counted.
func (o Outcomes) Games() int { return o.AttackerWins + o.DefenderWins + o.Draws }

// Validate reports a negative count.
func (o Outcomes) Validate() error {
	if o.AttackerWins < 0 || o.DefenderWins < 0 || o.Draws < 0 {
		return errctx.Errorf("stats", "negative outcome count %+v", o)
	}
	return nil
}

// OutcomeRates are the attacker-win, defender-win and draw rates of a rule
// set, each with its Wilson interval.
type OutcomeRates struct {
	Attacker, Defender, Draw Proportion
}

// Rates returns the three rates with Wilson intervals at the given
// confidence. It panics on negative counts or a confidence outside (0, 1).
func (o Outcomes) Rates(confidence float64) OutcomeRates {
	n := o.Games()
	return OutcomeRates{
		Attacker: NewProportion(o.AttackerWins, n, confidence),
		Defender: NewProportion(o.DefenderWins, n, confidence),
		Draw:     NewProportion(o.Draws, n, confidence),
	}
}

// MaxWidth is the widest of the three intervals.
func (r OutcomeRates) MaxWidth() float64 {
	return math.Max(r.Attacker.Width(), math.Max(r.Defender.Width(), r.Draw.Width()))
}

// PrecisionStop is the stopping rule of a rule-set balance run: play on
// until every rate of every rule set has a Wilson interval at most Width
// wide.
type PrecisionStop struct {
	Width      float64 // the widest interval accepted, in (0, 1]
	Confidence float64 // of the intervals, in (0, 1); 0.95 for 95%
	MinGames   int     // games each rule set needs before it may stop (>= 0)
}

// Validate checks the fields' ranges.
func (s PrecisionStop) Validate() error {
	var errs []error
	if !(s.Width > 0 && s.Width <= 1) {
		errs = append(errs, errctx.Errorf("stats", "interval width %v outside (0, 1]", s.Width))
	}
	if !(s.Confidence > 0 && s.Confidence < 1) {
		errs = append(errs, errctx.Errorf("stats", "confidence %v outside (0, 1)", s.Confidence))
	}
	if s.MinGames < 0 {
		errs = append(errs, errctx.Errorf("stats", "negative minimum games %d", s.MinGames))
	}
	return errors.Join(errs...)
}

// Done reports whether every rule set has at least MinGames games and all
// its interval widths are at most Width. It is false for no rule sets, and
// panics if Validate fails.
func (s PrecisionStop) Done(sets []Outcomes) bool {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	if len(sets) == 0 {
		return false
	}
	for _, o := range sets {
		if o.Games() < s.MinGames || o.Games() == 0 || o.Rates(s.Confidence).MaxWidth() > s.Width {
			return false
		}
	}
	return true
}

// Comparison is the two-proportion test of the defender-win rates of two
// rule sets, given by their indices A < B.
type Comparison struct {
	A, B  int
	Diff  float64 // defender rate of A minus that of B
	Z, P  float64 // TwoProportion's z and two-sided p-value
	PHolm float64 // P after Holm's adjustment over all the pairs
}

// CompareDefenderRates tests, for every pair of rule sets, whether their
// defender-win rates differ, with TwoProportion (draws count as games not
// won by the defender). Pairs come in order (0,1), (0,2), ..., (1,2), ....
// PHolm controls the family-wise error over all pairs. It panics on
// negative counts.
func CompareDefenderRates(sets []Outcomes) []Comparison {
	var out []Comparison
	for a := 0; a < len(sets); a++ {
		for b := a + 1; b < len(sets); b++ {
			xa, na := sets[a].DefenderWins, sets[a].Games()
			xb, nb := sets[b].DefenderWins, sets[b].Games()
			z, p := TwoProportion(xa, na, xb, nb)
			diff := 0.0
			if na > 0 && nb > 0 {
				diff = float64(xa)/float64(na) - float64(xb)/float64(nb)
			}
			out = append(out, Comparison{A: a, B: b, Diff: diff, Z: z, P: p})
		}
	}
	ps := make([]float64, len(out))
	for i, c := range out {
		ps[i] = c.P
	}
	for i, q := range Holm(ps) {
		out[i].PHolm = q
	}
	return out
}
