package stats

import (
	"fmt"
	"math"
)

// pseudoCount replaces each empty pentanomial cell before the likelihood is
// computed, as fishtest's LLRcalc.regularize does (epsilon = 1e-3): every
// outcome then has positive probability, so the constrained maximum
// likelihood distributions exist and their logarithms are finite. Non-empty
// cells are left alone, and the total N includes the pseudo-counts.
const pseudoCount = 1e-3

// pairPoints are the pentanomial outcomes normalized to [0, 1] per pair
// (pair score / 2), so that a pair's mean equals the per-game expected score.
var pairPoints = [5]float64{0, 0.25, 0.5, 0.75, 1}

// empirical returns the total N and the empirical distribution p̂ of the
// counts regularized as fishtest's LLRcalc.regularize does: each empty cell
// counts as pseudoCount pairs, the others as they are. It panics on a
// negative count.
func empirical(counts [5]int) (n float64, p [5]float64) {
	return regularize(counts, func(k int) float64 {
		if k == 0 {
			return pseudoCount
		}
		return float64(k)
	})
}

// regularize returns the total weight n and the distribution p of the
// counts after the pseudo-count rule weight has replaced each count k by
// weight(k) (empirical's and regularizedCounts' rules). It panics on a
// negative count.
func regularize(counts [5]int, weight func(k int) float64) (n float64, p [5]float64) {
	var c [5]float64
	for i, k := range counts {
		if k < 0 {
			panic(fmt.Sprintf("stats: negative pentanomial count %d in %v", k, counts))
		}
		c[i] = weight(k)
		n += c[i]
	}
	for i := range p {
		p[i] = c[i] / n
	}
	return n, p
}

// moments returns the mean and variance of the distribution p over values a.
func moments(a, p [5]float64) (mean, variance float64) {
	for i := range a {
		mean += p[i] * a[i]
	}
	for i := range a {
		d := a[i] - mean
		variance += p[i] * d * d
	}
	return mean, variance
}

// secular solves Σ p_j v_j / (1 + λ v_j) = 0 for λ, where min v < 0 < max v
// and every p_j > 0. The left side decreases strictly from +∞ to -∞ on
// (-1/max v, -1/min v), so the root is unique; it is found by Newton's
// method safeguarded with bisection. A Newton step is tiny not only at the
// root but also just beside a pole, where each step only halves the
// distance to it (counts {0, 0, 5, 2, 3} plus ⅕ each at s = ½ would stop at
// λ = 2 − 4e-16, the root being near 1.82), so a step must also be tiny
// against the distance to the poles. ok is false when the values do not
// straddle 0 (then no root exists).
func secular(v, p [5]float64) (lambda float64, ok bool) {
	vmin, vmax := v[0], v[0]
	for _, x := range v[1:] {
		if x < vmin {
			vmin = x
		}
		if x > vmax {
			vmax = x
		}
	}
	if !(vmin < 0 && vmax > 0) {
		return math.NaN(), false
	}
	poleLo, poleHi := -1/vmax, -1/vmin
	lo, hi := poleLo, poleHi // open bracket: f(lo+) = +∞, f(hi-) = -∞
	for iter := 0; iter < 300; iter++ {
		fv, df := 0.0, 0.0
		for j := range v {
			q := v[j] / (1 + lambda*v[j])
			fv += p[j] * q
			df -= p[j] * q * q
		}
		if fv == 0 {
			return lambda, true
		}
		if fv > 0 {
			lo = lambda
		} else {
			hi = lambda
		}
		next := lambda - fv/df
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		step := math.Abs(next - lambda)
		if next == lo || next == hi ||
			step <= 1e-15*math.Max(1, math.Abs(lambda)) && step <= 1e-6*math.Min(next-poleLo, poleHi-next) {
			return next, true
		}
		lambda = next
	}
	return lambda, true
}

// mleExpected returns the maximum-likelihood distribution, given the
// empirical distribution p over the points a, among the distributions on a
// with expectation s: q_j = p_j / (1 + λ (a_j - s)) where λ solves the
// secular equation (a Lagrange multiplier; see fishtest's
// LLRcalc.MLE_expected, which cites M. Van den Bergh's note
// support_MLE_multinomial.pdf, Proposition 1.1).
// It returns the denominators 1 + λ (a_j - s) = p_j / q_j and λ.
func mleExpected(a, p [5]float64, s float64) (den [5]float64, lambda float64, ok bool) {
	var v [5]float64
	for j := range a {
		v[j] = a[j] - s
	}
	lambda, ok = secular(v, p)
	if !ok {
		return den, lambda, false
	}
	for j := range a {
		den[j] = 1 + lambda*v[j]
	}
	return den, lambda, true
}

// mleTValue returns, as mleExpected does, the denominators p_j / q_j of the
// maximum-likelihood distribution q with normalized t-value
// (mean - ref)/sd equal to t, by fishtest's fixed-point iteration
// (LLRcalc.MLE_t_value, after Van den Bergh's note
// normalized_elo_practical.pdf, section 4.1):
// starting from the uniform distribution it at most 10 times linearizes the
// constraint around the current q and solves the secular equation.
func mleTValue(a, p [5]float64, ref, t float64) (den [5]float64, ok bool) {
	var q [5]float64
	for j := range q {
		q[j] = 1.0 / 5
	}
	var lambda float64
	var v [5]float64
	for iter := 0; iter < 10; iter++ {
		mu, variance := moments(a, q)
		sigma := math.Sqrt(variance)
		for j := range a {
			d := (mu - a[j]) / sigma
			v[j] = a[j] - ref - t*sigma*(1+d*d)/2
		}
		lambda, ok = secular(v, p)
		if !ok {
			return den, false
		}
		change := 0.0
		for j := range q {
			next := p[j] / (1 + lambda*v[j])
			change = math.Max(change, math.Abs(next-q[j]))
			q[j] = next
		}
		if change < 1e-9 {
			break
		}
	}
	for j := range a {
		den[j] = 1 + lambda*v[j]
	}
	return den, true
}
