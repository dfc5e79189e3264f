package mcts

import (
	"math"
)

// Forced playouts and policy target pruning (KataGo, Wu 2019, section 3.2;
// Config.ForcedPlayouts): in a search with root noise, every root move
// that has had a playout gets at least n_forced = sqrt(k * P * N) of them,
// P its (noised) prior and N the root's visits, so that moves the noise
// favours are looked at enough to be found good; and the training target
// then takes back the playouts that were only forced. Selection at the
// root runs forcedChild once a playout (a loop over the root's children,
// no allocation); the pruning runs once a search, in Policy.

// forcedPlayouts returns n_forced of a root child of prior p when the root
// has total visits.
func forcedPlayouts(k float64, p float32, total int32) float64 {
	return math.Sqrt(k * float64(p) * float64(total))
}

// forcedChild returns the index among children of the first root child
// that has had a playout, is no proven loss, and has fewer visits (those
// in flight counted) than its forced playouts; -1 if none.
func forcedChild(children []node, k float64, total int32) int {
	for i := range children {
		c := &children[i]
		if c.visits > 0 && c.proof != provenLoss && float64(c.visits+c.inFlight) < forcedPlayouts(k, c.prior, total) {
			return i
		}
	}
	return -1
}

// prunedVisits writes into dst (one entry per child) the root children's
// visits with the forced ones taken back: for every child but the most
// visited, c*, as many visits as it would have needed forcing (n_forced),
// but never so many that PUCT would have preferred it to c* with the
// visits left; a child so reduced to a single visit gets none. c*'s are
// kept.
// cpuct is PUCT's constant, total the root's visits, k the forced
// playouts' constant. It returns the sum of dst.
func prunedVisits(children []node, k, cpuct float64, total int32, dst []float64) float64 {
	best := -1
	for i := range children {
		if best < 0 || children[i].visits > children[best].visits {
			best = i
		}
	}
	sqrtN := math.Sqrt(float64(max(total, 1)))
	explore := func(c *node, visits float64) float64 { return cpuct * float64(c.prior) * sqrtN / (1 + visits) }
	q := func(c *node) float64 {
		if c.proof != unproven {
			return float64(c.proof.value())
		}
		return float64(c.valueSum) / float64(c.visits)
	}
	cb := &children[best]
	bestPUCT := q(cb) + explore(cb, float64(cb.visits))
	sum := 0.0
	for i := range children {
		c := &children[i]
		n := float64(c.visits)
		if i != best && c.visits > 0 {
			// The fewest visits that keep c's PUCT value at or below c*'s:
			// below it, PUCT alone would have chosen c again.
			floor := n
			if gap := bestPUCT - q(c); gap > 0 {
				floor = math.Max(0, math.Ceil(cpuct*float64(c.prior)*sqrtN/gap-1))
			}
			reduced := math.Max(n-forcedPlayouts(k, c.prior, total), math.Min(floor, n))
			if reduced < n && reduced <= 1 {
				reduced = 0 // KataGo prunes a child reduced to one playout
			}
			n = reduced
		}
		dst[i] = n
		sum += n
	}
	return sum
}
