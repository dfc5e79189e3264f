package mcts

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"taflab/rules"
)

// This file is Gumbel root search (Config.RootSearch = "gumbel"), after
// Danihelka et al., "Policy improvement by planning with Gumbel" (ICLR 2022)
// and DeepMind's mctx. PUCT spends a small budget poorly at the root: it
// needs many visits before the visit counts say anything, and the visit
// distribution it trains on is not an improvement of the prior when few
// moves are visited. Gumbel root search instead
//
//   - samples m moves without replacement by Gumbel-top-k: the top m of
//     g(a) + logits(a), g drawn from Gumbel(0, 1) when the search has noise
//     (every self-play search, cheap ones too, since without the draws
//     the cheap searches would all play the prior's top moves) and 0
//     otherwise (the top m by prior);
//   - shares the playouts among them by sequential halving: in each phase
//     every remaining move is brought up to a visit target, then the better
//     half by g + logits + sigma(q) stays; the move left is played;
//   - trains on the improved policy softmax(logits + sigma(completed Q)),
//     which needs no visit counts, with the mixed value v_mix standing in for
//     the Q of unvisited moves.
//
// logits(a) is log prior(a): the priors are a softmax over the legal moves,
// so their logs are the network's logits up to a constant, which neither the
// argmax nor the softmax sees.
//
// Deviations from the paper, all kept simple on purpose:
//
//   - Interior nodes keep PUCT (with FPU and virtual loss) rather than the
//     paper's deterministic interior selection by the improved policy
//     (Gumbel MuZero's argmax of pi'(a) - N(a)/(1 + sum N)). Only the root's
//     choice and target are Gumbel's.
//   - The schedule is mctx's get_sequence_of_considered_visits, written as
//     phase targets: with L = ceil(log2 m') phases and n the visits the
//     sampled moves will have between them, each phase adds max(1, floor(n /
//     (L * r))) visits to each of r remaining moves, then r halves down to
//     2, and the last phase repeats until the budget is spent (mctx's
//     num_considered = max(2, r/2)). n is the root target less the root's own
//     visit (a playout here, not in mctx) and less the visits kept on moves
//     not sampled, so that a fresh search of n+1 playouts gives exactly
//     mctx's visit counts. Moves are halved at phase boundaries by their
//     scores then, where mctx picks among the moves at the current visit
//     count by score at each simulation; the counts agree.
//   - Tree reuse: visits kept from the previous move count toward the phase
//     targets (a kept move above a target gets nothing until the others catch
//     up, and the phase ends when all have it), and toward the root budget as
//     under PUCT, so a reused search runs fewer new playouts. The root's
//     value v̂, which the tree does not store, is worked out from its sums
//     (Search.rootValueOf).
//   - Several leaves per round (LeavesPerGame): each goes to the remaining
//     move with the fewest visits plus visits in flight, so they spread over
//     the moves, kept apart below the root by virtual loss as before. When
//     every remaining move has its phase's visits, some still in flight, the
//     round ends for that search (gumbelSelect returns -1): the halving waits
//     for their values. The final visit counts are then those of one leaf per
//     round; the cost is a batch less full at phase boundaries.
//   - Proofs: a proven-win move is played at once (the root is then proven
//     and the search done); a proven-loss move is dropped from the remaining
//     moves, and if every remaining move is lost the best others by g +
//     logits take their place. A proven move's Q is its exact value.
//   - The final move is the best of the remaining moves by g + logits +
//     sigma(q); mctx restricts it to those with the most visits, which
//     differs only when the budget ends inside a phase.

// gumbelRoot is the state of Gumbel root search at the root, drawn again by
// every Start (or when the root is first expanded) and dropped by Advance.
// Its slices keep their memory from search to search.
type gumbelRoot struct {
	active bool // drawn: the Runner selects root children by the schedule
	noise  bool // draw g from Gumbel(0, 1); without noise g = 0
	pended bool // the root is not expanded yet: draw after its expansion

	gl         []float64 // per root child: g(a) + logits(a)
	considered []int32   // the remaining moves, as offsets among the root's children; best first as of the last halving
	keep       int       // r: the moves the current phase keeps (mctx's num_considered), m' and then halved down to 2
	phases     int       // L = ceil(log2 m'), at least 1
	budget     int       // n: the visits the sampled moves have between them when the search ends
	target     int32     // the visits every remaining move reaches in this phase, cumulative
	scratch    []float64 // per root child: sigma(completed Q)
}

// reset forgets the draws, keeping the memory.
func (gs *gumbelRoot) reset() {
	gs.active, gs.noise, gs.pended = false, false, false
	gs.considered = gs.considered[:0]
}

// minPrior keeps log prior finite for a prior that underflowed to 0.
const minPrior = math.SmallestNonzeroFloat32

// logit returns log prior: the network's logit up to a constant.
func logit(prior float32) float64 { return math.Log(max(float64(prior), minPrior)) }

// grow returns buf with length n, reusing its memory.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n, max(n, 2*cap(buf)))
	}
	return buf[:n]
}

// rootChildren returns the root's children; the root must be expanded.
func (s *Search) rootChildren() []node {
	return s.tree.children(s.tree.at(0))
}

// gumbelStart draws g for every legal move of the expanded root, samples the
// top m by g + logits (proven losses left out) and sets up the first phase.
func (s *Search) gumbelStart() {
	gs := &s.gumbel
	gs.pended = false
	children := s.rootChildren()
	gs.gl = grow(gs.gl, len(children))
	for i := range children {
		g := 0.0
		if gs.noise {
			g = -math.Log(s.rng.ExpFloat64()) // -log of an Exp(1) draw is Gumbel(0, 1)
		}
		gs.gl[i] = g + logit(children[i].prior)
	}
	gs.considered = s.topByGL(children, gs.considered[:0], s.cfg.GumbelActions, false)
	if len(gs.considered) == 0 {
		// Every move is a proven loss (the root is proven and not searched):
		// keep the moves to choose from.
		gs.considered = s.topByGL(children, gs.considered, s.cfg.GumbelActions, true)
	}
	m := len(gs.considered)
	if m == 0 {
		return // no legal move: the game is over and never searched
	}
	gs.keep = m
	gs.phases = max(1, bits.Len(uint(m-1))) // ceil(log2 m)
	var outside int32
	for i := range children {
		outside += children[i].visits
	}
	for _, off := range gs.considered {
		outside -= children[off].visits
	}
	gs.budget = max(0, int(s.target)-1-int(outside))
	gs.target = gs.phaseVisits()
	gs.active = true
}

// phaseVisits returns the visits a phase adds to each remaining move.
func (gs *gumbelRoot) phaseVisits() int32 {
	return int32(max(1, gs.budget/(gs.phases*gs.keep)))
}

// topByGL appends to dst the offsets of the k best root children by g +
// logits, best first (ties: move-generation order), proven losses left out
// unless lost is set.
func (s *Search) topByGL(children []node, dst []int32, k int, lost bool) []int32 {
	start := len(dst)
	for i := range children {
		if lost || children[i].proof != provenLoss {
			dst = append(dst, int32(i))
		}
	}
	gl := s.gumbel.gl
	slices.SortStableFunc(dst[start:], func(a, b int32) int { return cmp.Compare(gl[b], gl[a]) })
	return dst[:start+min(k, len(dst)-start)]
}

// gumbelSettle ends every phase whose targets the remaining moves have
// reached, halving them. Kept visits may end several phases at once.
func (s *Search) gumbelSettle(children []node) {
	gs := &s.gumbel
	for {
		usable, reached := 0, true
		for _, off := range gs.considered {
			c := &children[off]
			if c.proof == provenLoss {
				continue
			}
			usable++
			if c.visits < gs.target {
				reached = false
			}
		}
		if usable == 0 {
			// Every remaining move is lost: the best others take their
			// place, if any is not lost (else the root is proven).
			if refill := s.topByGL(children, gs.considered[:0], gs.keep, false); len(refill) > 0 {
				gs.considered = refill
				continue
			}
			return
		}
		if !reached {
			return
		}
		s.gumbelHalve(children)
	}
}

// gumbelHalve ends a phase: it drops the proven losses, keeps the better
// half of the remaining moves by g + logits + sigma(q) (at least 2), best
// first, and sets the next phase's target.
func (s *Search) gumbelHalve(children []node) {
	gs := &s.gumbel
	if gs.keep > 1 {
		gs.keep = max(2, gs.keep/2)
	}
	kept := gs.considered[:0]
	for _, off := range gs.considered {
		if children[off].proof != provenLoss {
			kept = append(kept, off)
		}
	}
	sigma := s.gumbelSigma(children)
	gl := gs.gl
	slices.SortStableFunc(kept, func(a, b int32) int { return cmp.Compare(gl[b]+sigma[b], gl[a]+sigma[a]) })
	gs.considered = kept[:min(gs.keep, len(kept))]
	gs.target += gs.phaseVisits()
}

// gumbelSelect returns the index (in s.tree) of the root child the schedule
// visits next: a proven win at once, else the remaining move with the fewest
// visits plus visits in flight below the phase's target (ties: the better
// as of the last halving). It returns -1 when every remaining move has the
// target counting those in flight: the phase ends when their values are
// back.
func (s *Search) gumbelSelect() int32 {
	first := s.tree.at(0).firstChild
	children := s.rootChildren()
	gs := &s.gumbel
	s.gumbelSettle(children)
	best, fewest := int32(-1), gs.target
	for _, off := range gs.considered {
		c := &children[off]
		switch c.proof {
		case provenWin:
			return first + off
		case provenLoss:
			continue
		}
		if n := c.visits + c.inFlight; n < fewest {
			best, fewest = off, n
		}
	}
	if best < 0 {
		return -1
	}
	return first + best
}

// childQ returns a root child's Q for the side to move at the root: its
// exact value when proven, else its mean value; it must have visits or a
// proof.
func childQ(c *node) float64 {
	if c.proof != unproven {
		return float64(c.proof.value())
	}
	return float64(c.valueSum) / float64(c.visits)
}

// gumbelSigma returns, per root child, sigma(completed Q): the Q of a visited
// move, the mixed value v_mix for the others (the paper's eq. 33, as
// mctx's qtransform_completed_by_mix_value):
//
//	v_mix = (v̂ + sum_b N(b) / sum_{b visited} pi(b) * sum_{b visited} pi(b) q(b)) / (1 + sum_b N(b))
//
// with v̂ the evaluator's value of the root and pi the priors; rescaled to
// [0, 1] by the min and max over the children (epsilon 1e-8 when all are
// equal), times (GumbelCVisit + max_b N(b)) * GumbelCScale. The slice is the
// search's scratch, overwritten by the next call.
func (s *Search) gumbelSigma(children []node) []float64 {
	sigma := grow(s.gumbel.scratch, len(children))
	s.gumbel.scratch = sigma
	var sumN, sumP, sumPQ float64
	maxN := int32(0)
	for i := range children {
		c := &children[i]
		if c.visits == 0 {
			continue
		}
		maxN = max(maxN, c.visits)
		sumN += float64(c.visits)
		p := max(float64(c.prior), minPrior)
		sumP += p
		sumPQ += p * childQ(c)
	}
	vMix := float64(s.rootValue)
	if sumN > 0 {
		vMix = (vMix + sumN/sumP*sumPQ) / (1 + sumN)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range children {
		q := vMix
		if children[i].visits > 0 {
			q = childQ(&children[i])
		}
		sigma[i] = q
		lo, hi = min(lo, q), max(hi, q)
	}
	scale := (s.cfg.GumbelCVisit + float64(maxN)) * s.cfg.GumbelCScale / max(hi-lo, 1e-8)
	for i := range sigma {
		sigma[i] = (sigma[i] - lo) * scale
	}
	return sigma
}

// gumbelChoose returns the move Gumbel root search plays: the best
// remaining move by g + logits + sigma(q) once the phases the visits have
// reached are halved, never a proven loss unless allLost. The caller has
// taken a proven win already.
func (s *Search) gumbelChoose(children []node, allLost bool) rules.Move {
	gs := &s.gumbel
	if !gs.active {
		s.gumbelStart() // no Start since the root changed: the top moves by prior, no noise
	}
	s.gumbelSettle(children)
	sigma := s.gumbelSigma(children)
	best := int32(-1)
	for _, off := range gs.considered {
		if children[off].proof == provenLoss && !allLost {
			continue
		}
		if best < 0 || gs.gl[off]+sigma[off] > gs.gl[best]+sigma[best] {
			best = off
		}
	}
	if best < 0 {
		best = 0 // unreachable: gumbelSettle keeps a move that is not lost when there is one
	}
	return children[best].move
}

// gumbelPolicy appends the improved policy softmax(logits + sigma(completed
// Q)) over the root's children to dst.
func (s *Search) gumbelPolicy(dst []rules.MoveProb, children []node) []rules.MoveProb {
	z := s.gumbelSigma(children)
	hi := math.Inf(-1)
	for i := range children {
		z[i] += logit(children[i].prior)
		hi = max(hi, z[i])
	}
	sum := 0.0
	for i := range z {
		z[i] = math.Exp(z[i] - hi)
		sum += z[i]
	}
	for i := range children {
		dst = append(dst, rules.MoveProb{Move: children[i].move, Prob: float32(z[i] / sum)})
	}
	return dst
}
