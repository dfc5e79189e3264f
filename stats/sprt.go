package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"taflab/internal/errctx"
)

// maxElo bounds the Elo values an SPRT accepts: past it the expected score
// rounds to 0 or 1 in float64 arithmetic.
const maxElo = 4000

// eloClampScore is the score clamp of fishtest's stat_util.elo: scores are
// kept in [0.001, 0.999] before conversion, so Elo estimates stay within
// ±1199.83.
const eloClampScore = 1e-3

// ExpectedScore is the logistic expected score per game of a player elo
// Elo stronger than its opponent: 1/(1+10^(-elo/400)).
func ExpectedScore(elo float64) float64 {
	return 1 / (1 + math.Pow(10, -elo/400))
}

// EloFromScore is the inverse of ExpectedScore: -400·log10(1/score - 1).
// It is -Inf at 0, +Inf at 1 and NaN outside [0, 1].
func EloFromScore(score float64) float64 {
	return -400 * math.Log10(1/score-1)
}

// Decision is the state of a sequential test.
type Decision int

const (
	// Continue means the log-likelihood ratio is between the bounds: play
	// more pairs.
	Continue Decision = iota
	// AcceptH0 means the LLR fell below the lower bound: the Elo difference
	// is (at most) Elo0; the candidate fails.
	AcceptH0
	// AcceptH1 means the LLR rose above the upper bound: the Elo difference
	// is (at least) Elo1; the candidate passes.
	AcceptH1
)

// String names the decision: "continue", "H0" or "H1".
func (d Decision) String() string {
	switch d {
	case Continue:
		return "continue"
	case AcceptH0:
		return "H0"
	case AcceptH1:
		return "H1"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Verdict is the decision as a match file writes it: "H1", "H0", or
// "none" for a test that did not decide. ParseVerdict reads it back.
func (d Decision) Verdict() string {
	switch d {
	case AcceptH1:
		return "H1"
	case AcceptH0:
		return "H0"
	}
	return "none"
}

// ParseVerdict reads a Verdict: its decision and true, or Continue and
// false for another word.
func ParseVerdict(s string) (Decision, bool) {
	switch s {
	case "H1":
		return AcceptH1, true
	case "H0":
		return AcceptH0, true
	case "none":
		return Continue, true
	}
	return Continue, false
}

// Text says what the decision means for a match of a candidate A against
// B: "H1 accepted: A is stronger", "H0 accepted: A is not stronger" or
// "no decision".
func (d Decision) Text() string {
	switch d {
	case AcceptH1:
		return "H1 accepted: A is stronger"
	case AcceptH0:
		return "H0 accepted: A is not stronger"
	}
	return "no decision"
}

// SPRT is a generalized sequential probability ratio test over game pairs
// as fishtest runs it with logistic Elo bounds: H0 says the candidate is
// Elo0 stronger than its opponent, H1 that it is Elo1 stronger; Alpha is the
// probability of accepting H1 when H0 holds (a false pass), Beta that of
// accepting H0 when H1 holds.
//
// The statistic is the pentanomial generalized log-likelihood ratio
// (fishtest's LLRcalc.LLR_logistic): the counts [5]int of pairs that scored
// 0, ½, 1, 1½ and 2 for the candidate (one opening played twice, sides
// swapped), compared under the most likely pentanomial distribution whose
// mean per-game score is ExpectedScore(Elo1) against the most likely one
// whose mean is ExpectedScore(Elo0). Modelling the pair rather than the
// single game keeps the correlation between the two games of a pair (the
// shared opening, and in tafl the very different attacker and defender
// roles) out of the variance.
//
// fishtest's dynamic overshoot correction of the bounds is not applied, so
// the realized error rates come out a little below Alpha and Beta.
type SPRT struct {
	Elo0, Elo1  float64 // the hypotheses, logistic Elo; Elo0 < Elo1
	Alpha, Beta float64 // the error probabilities, each in (0, 0.5)
}

// Validate checks that the Elo bounds are finite, within ±4000 and
// ordered, and that Alpha and Beta lie in (0, 0.5).
func (s SPRT) Validate() error {
	var errs []error
	for _, e := range []struct {
		name string
		v    float64
	}{{"elo0", s.Elo0}, {"elo1", s.Elo1}} {
		if math.IsNaN(e.v) || math.Abs(e.v) >= maxElo {
			errs = append(errs, errctx.Errorf("stats", "SPRT %s %v not a finite Elo within ±%d", e.name, e.v, maxElo))
		}
	}
	if !(s.Elo0 < s.Elo1) {
		errs = append(errs, errctx.Errorf("stats", "SPRT needs elo0 < elo1, have %v, %v", s.Elo0, s.Elo1))
	}
	if !(s.Alpha > 0 && s.Alpha < 0.5) {
		errs = append(errs, errctx.Errorf("stats", "SPRT alpha %v outside (0, 0.5)", s.Alpha))
	}
	if !(s.Beta > 0 && s.Beta < 0.5) {
		errs = append(errs, errctx.Errorf("stats", "SPRT beta %v outside (0, 0.5)", s.Beta))
	}
	return errors.Join(errs...)
}

// mustValid panics with Validate's error: calling a method on an invalid
// SPRT is a programmer error.
func (s SPRT) mustValid() {
	if err := s.Validate(); err != nil {
		panic(err)
	}
}

// Bounds are Wald's stopping bounds on the LLR: log(β/(1-α)) and
// log((1-β)/α), ±2.944 for α = β = 0.05. It panics if Validate fails.
func (s SPRT) Bounds() (lower, upper float64) {
	s.mustValid()
	return math.Log(s.Beta / (1 - s.Alpha)), math.Log((1 - s.Beta) / s.Alpha)
}

// LLR is the generalized log-likelihood ratio of H1 against H0 for the
// pentanomial counts, computed as fishtest's LLR_logistic does:
//
//	LLR = N · Σ_j p̂_j · (log p1_j − log p0_j)
//
// where p̂ is the empirical distribution of the counts over the pair points
// a_j = 0, ¼, ½, ¾, 1 (pair score / 2), and p_i is the maximum-likelihood
// distribution with mean s_i = ExpectedScore(Elo_i):
// p_i,j = p̂_j / (1 + λ_i (a_j − s_i)), λ_i the root of
// Σ_j p̂_j (a_j − s_i)/(1 + λ_i (a_j − s_i)) = 0 (a Lagrange multiplier).
// Empty cells count as 0.001 pairs (fishtest's regularization) and N
// includes these pseudo-counts; with no pairs at all the LLR is therefore
// a negligible number near 0 rather than exactly 0.
//
// It panics if Validate fails or a count is negative.
func (s SPRT) LLR(counts [5]int) float64 {
	s.mustValid()
	n, p := empirical(counts)
	d0, _, ok0 := mleExpected(pairPoints, p, ExpectedScore(s.Elo0))
	d1, _, ok1 := mleExpected(pairPoints, p, ExpectedScore(s.Elo1))
	if !ok0 || !ok1 {
		// Unreachable: the a_j - s straddle 0 for every s in (0, 1).
		panic("stats: pentanomial MLE has no solution")
	}
	return n * logRatioMean(p, d0, d1)
}

// LLRApprox is the normal (Brownian) approximation of LLR that fishtest
// keeps as LLR_alt2: N·(s1−s0)·(2x̄−s0−s1)/(2σ²), with x̄ and σ² the mean and
// variance of the regularized pair points (pair score / 2). It agrees with
// LLR when the Elo bounds are close together and the sample is large.
func (s SPRT) LLRApprox(counts [5]int) float64 {
	s.mustValid()
	n, p := empirical(counts)
	mean, variance := moments(pairPoints, p)
	s0, s1 := ExpectedScore(s.Elo0), ExpectedScore(s.Elo1)
	return n * (s1 - s0) * (2*mean - s0 - s1) / (2 * variance)
}

// Decide compares LLR with the bounds: AcceptH1 when it is above the upper
// bound, AcceptH0 when below the lower bound, else Continue (fishtest's
// strict comparisons). It panics if Validate fails.
func (s SPRT) Decide(counts [5]int) Decision {
	lower, upper := s.Bounds()
	llr := s.LLR(counts)
	switch {
	case llr > upper:
		return AcceptH1
	case llr < lower:
		return AcceptH0
	}
	return Continue
}

// normalizedEloPerT converts a normalized t-value to normalized Elo:
// 800/ln 10 (fishtest's nelo_divided_by_nt).
const normalizedEloPerT = 800 / math.Ln10

// LLRNormalized is the pentanomial generalized log-likelihood ratio for
// bounds in normalized Elo, the kind modern fishtest runs quote as
// "<0.00,2.00>" (fishtest's LLRcalc.LLR_normalized): the hypotheses fix the
// t-value (mean pair score − ½)/(pair standard deviation) at
// √2·nelo/(800/ln 10), and the maximum-likelihood distributions under each
// are found by fishtest's fixed-point iteration. Zero counts are
// regularized as in SPRT.LLR. It is provided alongside the logistic test
// so that published fishtest results can be checked; the result is NaN if
// the iteration finds no distribution (degenerate counts). It panics on a
// negative count.
func LLRNormalized(nelo0, nelo1 float64, counts [5]int) float64 {
	n, p := empirical(counts)
	t0 := nelo0 / normalizedEloPerT * math.Sqrt2
	t1 := nelo1 / normalizedEloPerT * math.Sqrt2
	d0, ok0 := mleTValue(pairPoints, p, 0.5, t0)
	d1, ok1 := mleTValue(pairPoints, p, 0.5, t1)
	if !ok0 || !ok1 {
		return math.NaN()
	}
	return n * logRatioMean(p, d0, d1)
}

// logRatioMean is Σ_j p_j (log q1_j − log q0_j) for q_i,j = p_j / d_i,j.
func logRatioMean(p, d0, d1 [5]float64) float64 {
	sum := 0.0
	for j := range p {
		sum += p[j] * math.Log(d0[j]/d1[j])
	}
	return sum
}

// clampedElo is fishtest's stat_util.elo: the Elo of a score kept within
// [0.001, 0.999].
func clampedElo(score float64) float64 {
	return EloFromScore(math.Min(math.Max(score, eloClampScore), 1-eloClampScore))
}

// intervalPseudoCount is the pseudo-count EloEstimate and LOS add to every
// pentanomial cell: Perks' prior Dir(1/5, …, 1/5), one pair of evidence in
// all, spread evenly over the five outcomes. See EloEstimate for why.
const intervalPseudoCount = 1.0 / 5

// regularizedCounts returns the total weight n and the distribution p of
// the counts with intervalPseudoCount added to every cell. It panics on a
// negative count.
func regularizedCounts(counts [5]int) (n float64, p [5]float64) {
	return regularize(counts, func(k int) float64 { return float64(k) + intervalPseudoCount })
}

// profileLLR is the log-likelihood ratio n·Σ_j p_j·log(p_j/q_j) of the
// distribution p, weighing n pairs, against the most likely distribution q
// whose mean per-game score is s (the statistic of SPRT.LLR), and its
// derivative in s, −n·λ with λ the Lagrange multiplier of mleExpected (the
// terms in dλ/ds cancel because q sums to 1 and has mean s). The ratio is 0
// at p's mean and grows, convex, on either side of it; it is +Inf for s
// outside (0, 1), where q would have to drop outcomes p has.
func profileLLR(n float64, p [5]float64, s float64) (llr, slope float64) {
	if !(s > 0 && s < 1) {
		return math.Inf(1), math.NaN()
	}
	den, lambda, _ := mleExpected(pairPoints, p, s) // the a_j − s straddle 0: s is inside (0, 1)
	sum := 0.0
	for j := range p {
		sum += p[j] * math.Log(den[j])
	}
	// Rounding can leave a −1e-17 where the ratio is 0.
	return math.Max(0, n*sum), -n * lambda
}

// llrRoot finds the end of the likelihood-ratio interval, where
// profileLLR = crit, between in, where it is at most crit, and out, where
// it is above, by Newton's method safeguarded with bisection (the ratio is
// +Inf past 0 and 1, and flat at the mean).
func llrRoot(n float64, p [5]float64, crit, in, out float64) float64 {
	x := in + (out-in)/2
	for iter := 0; iter < 200; iter++ {
		llr, slope := profileLLR(n, p, x)
		if llr <= crit {
			in = x
		} else {
			out = x
		}
		next := x - (llr-crit)/slope
		if !(next > math.Min(in, out) && next < math.Max(in, out)) {
			next = in + (out-in)/2
		}
		if next == in || next == out || math.Abs(next-x) <= 1e-15 {
			return next
		}
		x = next
	}
	return in
}

// eloZ is the two-sided 95% standard normal quantile.
var eloZ = distuv.UnitNormal.Quantile(0.975)

// EloEstimate returns the candidate's logistic Elo advantage with a 95%
// interval lo, hi from pentanomial counts. It panics on a negative count.
//
// fishtest's stat_util.get_elo, used here before, takes the interval
// x̄ ± 1.96σ from the observed spread of the pair scores. After a few pairs
// that spread can be all but zero: four pairs each won 1½–½ gave
// 190.6 [176.7, 204.4] Elo. When most pairs split 1–1, as in tafl where
// each side usually wins as defender, the interval covered the true Elo in
// only 59% of 4-pair matches and 89% of 16-pair ones. Two changes keep it
// honest on few pairs and leave it as it was on many:
//
//   - Every cell gets a pseudo-count of 1/5 pair: Perks' prior
//     Dir(1/5, …, 1/5), one pair of prior evidence spread evenly over the
//     five outcomes. It asserts only that every outcome is possible, so
//     outcomes not yet seen keep the spread from collapsing; against
//     thousands of pairs it is negligible. Jeffreys' heavier Dir(½, …)
//     (2.5 pairs) pulls a strong candidate's estimate so far towards 0 that
//     the interval misses its true Elo too often (80% coverage at 330 Elo
//     after 4 pairs, against 94% with Perks').
//   - The interval is the likelihood-ratio interval of the mean score: the
//     scores s at which the profile log-likelihood ratio of the regularized
//     counts against the best distribution with mean s (the statistic
//     SPRT.LLR compares its hypotheses with) is at most 1.96²/2, twice the
//     ratio being asymptotically χ² with one degree of freedom (Wilks).
//     Unlike x̄ ± 1.96σ it follows the skew of a score near 0 or 1 and stays
//     inside (0, 1), so all wins or all losses give a finite, lopsided
//     interval rather than one centred on the clamp.
//
// Its coverage of the true Elo is then at least 93% from 4 pairs on for
// every distribution TestEloEstimateCoverage tries. The point estimate elo
// is the Elo of the regularized mean score, where the regularized
// likelihood peaks, so it always lies in [lo, hi]; the prior pulls it
// towards 0 on few pairs (four 1½–½ pairs give 147.2 Elo, not 190.6).
// Scores are clamped to [0.001, 0.999] as fishtest's are, so every value
// lies within ±1199.83 Elo. With many pairs the prior's weight and the
// interval's skew vanish and the result converges to get_elo's.
//
// fishtest's SPRT run pages show a different estimate that corrects for the
// bias the stopping rule introduces; this is a fixed-sample one.
func EloEstimate(counts [5]int) (elo, lo, hi float64) {
	n, p := regularizedCounts(counts)
	mean := regularizedMean(counts, n)
	crit := eloZ * eloZ / 2
	elo = clampedElo(mean)
	if elo == 0 {
		elo = 0 // not -0, which would print as "-0.0"
	}
	return elo, clampedElo(llrRoot(n, p, crit, mean, 0)), clampedElo(llrRoot(n, p, crit, mean, 1))
}

// regularizedMean is the mean per-game score of the regularized counts,
// whose total weight is n, summed as ½ plus the imbalance so that it is
// exactly ½ for symmetric counts.
func regularizedMean(counts [5]int, n float64) float64 {
	return 0.5 + (0.5*float64(counts[4]-counts[0])+0.25*float64(counts[3]-counts[1]))/n
}

// LOS is the likelihood of superiority, the probability that the
// candidate's true score is above ½, from the same regularized likelihood
// as EloEstimate: Φ(±sqrt(2·LLR)), the signed root of the profile
// log-likelihood ratio at a score of ½, positive when the regularized mean
// is above ½. It is therefore above 97.5% exactly when EloEstimate's lower
// end is above 0. It panics on a negative count.
func LOS(counts [5]int) float64 {
	n, p := regularizedCounts(counts)
	llr, _ := profileLLR(n, p, 0.5)
	r := math.Sqrt(2 * llr)
	if regularizedMean(counts, n) < 0.5 {
		r = -r
	}
	return distuv.UnitNormal.CDF(r)
}

// WDL counts one side's games from the candidate's point of view.
type WDL struct {
	Wins, Draws, Losses int
}

// Games is the number of games counted.
func (w WDL) Games() int { return w.Wins + w.Draws + w.Losses }

// Score is the mean score per game (wins + draws/2)/games, or NaN with no
// games.
func (w WDL) Score() float64 {
	return (float64(w.Wins) + float64(w.Draws)/2) / float64(w.Games())
}

// add counts one game with the candidate's score 0, 0.5 or 1.
func (w *WDL) add(score float64) {
	switch score {
	case 1:
		w.Wins++
	case 0.5:
		w.Draws++
	default:
		w.Losses++
	}
}

// PairTally accumulates game pairs for an SPRT: the pentanomial counts and
// the results split by the side the candidate played. The zero value is an
// empty tally.
type PairTally struct {
	// Counts[k] is the number of pairs the candidate scored k/2 in.
	Counts [5]int
	// AsAttacker and AsDefender are the candidate's games on each side.
	AsAttacker, AsDefender WDL
}

// Add counts one pair: the candidate's score (0, 0.5 or 1) in the game it
// played as attacker and in the one it played as defender. Any other score
// is an error and leaves the tally unchanged.
func (t *PairTally) Add(asAttacker, asDefender float64) error {
	for _, s := range []float64{asAttacker, asDefender} {
		if s != 0 && s != 0.5 && s != 1 {
			return errctx.Errorf("stats", "game score %v is not 0, 0.5 or 1", s)
		}
	}
	t.Counts[int(2*(asAttacker+asDefender))]++
	t.AsAttacker.add(asAttacker)
	t.AsDefender.add(asDefender)
	return nil
}

// Pairs is the number of pairs counted.
func (t PairTally) Pairs() int {
	n := 0
	for _, c := range t.Counts {
		n += c
	}
	return n
}

// Report summarizes an SPRT for the match log.
type Report struct {
	Pairs, Games int
	Counts       [5]int   // pentanomial counts, "Ptnml(0-2)"
	LLR          float64  // SPRT.LLR
	Lower, Upper float64  // SPRT.Bounds
	Decision     Decision // SPRT.Decide
	Elo          float64  // EloEstimate
	EloLo, EloHi float64  // its 95% interval
	LOS          float64  // likelihood of superiority
	// The candidate's results as attacker and as defender.
	AsAttacker, AsDefender WDL
}

// String formats the report on one line in fishtest's style, e.g.
// "LLR: 2.95 (-2.94,2.94) H1 Pairs: 600 Ptnml(0-2): 1, 2, 3, 4, 5 Elo: 4.1 [1.2, 7.0] LOS: 99.7% Attacker W/D/L: ... Defender W/D/L: ...".
func (r Report) String() string {
	return fmt.Sprintf("LLR: %.2f (%.2f,%.2f) %v Pairs: %d Ptnml(0-2): %d, %d, %d, %d, %d Elo: %.1f [%.1f, %.1f] LOS: %.1f%% Attacker W/D/L: %d/%d/%d Defender W/D/L: %d/%d/%d",
		r.LLR, r.Lower, r.Upper, r.Decision, r.Pairs,
		r.Counts[0], r.Counts[1], r.Counts[2], r.Counts[3], r.Counts[4],
		r.Elo, r.EloLo, r.EloHi, 100*r.LOS,
		r.AsAttacker.Wins, r.AsAttacker.Draws, r.AsAttacker.Losses,
		r.AsDefender.Wins, r.AsDefender.Draws, r.AsDefender.Losses)
}

// Report computes the test's state for the tally. It panics if Validate
// fails.
func (s SPRT) Report(t PairTally) Report {
	lower, upper := s.Bounds()
	llr := s.LLR(t.Counts)
	d := Continue
	switch {
	case llr > upper:
		d = AcceptH1
	case llr < lower:
		d = AcceptH0
	}
	elo, lo, hi := EloEstimate(t.Counts)
	return Report{
		Pairs: t.Pairs(), Games: 2 * t.Pairs(), Counts: t.Counts,
		LLR: llr, Lower: lower, Upper: upper, Decision: d,
		Elo: elo, EloLo: lo, EloHi: hi, LOS: LOS(t.Counts),
		AsAttacker: t.AsAttacker, AsDefender: t.AsDefender,
	}
}
