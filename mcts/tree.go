package mcts

import (
	"math"
	"unsafe"

	"taflab/rules"
)

// This file is the hot path of the search: selection, expansion and backup
// run for every playout. Nodes are compact and live in an arena of chunks
// per tree (arena.go; children of a node are contiguous), so a playout
// allocates nothing once the arena has grown; measure with BenchmarkPlayouts before and after any
// change here.

// proof is a node's exact value when the search has proven it, from the
// view of the side that made the node's move.
type proof int8

const (
	unproven proof = iota
	provenWin
	provenLoss
	provenDraw
)

// value returns the exact value of a proof, for the side that made the move.
func (p proof) value() float32 {
	switch p {
	case provenWin:
		return 1
	case provenLoss:
		return -1
	}
	return 0
}

// node is one position of a tree. Values are from the view of the side
// that made move (the parent's side to move), so a parent picks the child
// with the highest value.
//
// A node is nodeBytes (28) bytes, and a tree holds one for every legal move
// of every position it has expanded: memory goes to the children, about 100
// nodes a playout in a middle game (TestTreeBytesPerPlayout). (A 16-bit
// inFlight makes it 24 bytes but selection 5 to 10% slower.)
type node struct {
	valueSum    float32 // the sum of the values backed up through the node
	prior       float32 // the policy's probability of move at the parent
	visits      int32   // playouts backed up through the node
	inFlight    int32   // playouts selected through it that wait for evaluation
	firstChild  int32   // index of the first child, noChildren until expanded
	numChildren uint16
	move        rules.Move // the move from the parent that leads here
	proof       proof
	terminal    bool // the game ended with move
	// tactic is the implicit minimax value (Config.TacticalWeight > 0,
	// tactics.go) in fixed point, value*tacticScale: the heuristic's value
	// of the position after move until the node is expanded, then minus the
	// best of its children's. It fills the node's 2 bytes of padding.
	tactic int16
}

// nodeBytes is the size of a node.
const nodeBytes = int(unsafe.Sizeof(node{}))

const noChildren = -1

// expanded reports whether the node's children exist.
func (n *node) expanded() bool { return n.firstChild != noChildren }

// proofOf turns a finished game's outcome into a proof for the side that
// made the last move.
func proofOf(o rules.Outcome, mover rules.Side) proof {
	switch o.Winner {
	case rules.Draw:
		return provenDraw
	case rules.AttackersWin:
		if mover == rules.Attackers {
			return provenWin
		}
	case rules.DefendersWin:
		if mover == rules.Defenders {
			return provenWin
		}
	}
	return provenLoss
}

// selectChild returns the index (in s.tree) of the child of p that PUCT
// prefers, and the child: a proven win at once; never a proven loss while
// another child is not one. With Config.TacticalWeight alpha > 0 a child's
// value is (1 - alpha) times its mean (or the first play urgency) plus
// alpha times its minimax value (tactics.go).
func (s *Search) selectChild(p *node, isRoot bool) (int32, *node) {
	first := p.firstChild
	children := s.tree.children(p)
	cfg := s.cfg

	var visitedMass float32
	for i := range children {
		c := &children[i]
		if c.proof == provenWin {
			return first + int32(i), c
		}
		if c.visits+c.inFlight > 0 {
			visitedMass += c.prior
		}
	}
	if isRoot && s.forced {
		if i := forcedChild(children, s.cfg.ForcedPlayouts, p.visits); i >= 0 {
			return first + int32(i), &children[i]
		}
	}
	var parentQ float32
	if p.visits > 0 {
		parentQ = -p.valueSum / float32(p.visits) // the parent's value is its mover's; we want its side to move's
	}
	reduction := float32(cfg.FPUReduction)
	if isRoot {
		reduction = float32(cfg.RootFPUReduction)
	}
	fpu := parentQ - reduction*float32(math.Sqrt(float64(visitedMass)))
	sqrtN := float32(math.Sqrt(float64(max(p.visits+p.inFlight, 1))))
	explore := float32(cfg.CPuct) * sqrtN
	virtualLoss := float32(cfg.VirtualLoss)

	best, bestScore := int32(-1), float32(math.Inf(-1))
	if alpha := float32(cfg.TacticalWeight); alpha > 0 {
		// A loop of its own: a test of alpha in this one costs 4 to 5% of
		// the playouts without it (BenchmarkPlayouts).
		best = selectTactical(children, fpu, explore, virtualLoss, alpha)
	} else {
		for i := range children {
			c := &children[i]
			if c.proof == provenLoss {
				continue
			}
			visits := c.visits + c.inFlight
			q := fpu
			if visits > 0 {
				q = (c.valueSum - virtualLoss*float32(c.inFlight)) / float32(visits)
			}
			if score := q + explore*c.prior/float32(1+visits); score > bestScore {
				best, bestScore = int32(i), score
			}
		}
	}
	if best < 0 {
		best = 0 // every child is a proven loss: the node is proven and never selected
	}
	return first + best, &children[best]
}

// expand creates the children of leaf, one per legal move, with their
// priors.
func (s *Search) expand(leaf int32, moves []rules.Move, priors []float32) {
	first := s.tree.alloc(int32(len(moves)), s.limit())
	n := s.tree.at(leaf)
	n.firstChild, n.numChildren = first, uint16(len(moves))
	children := s.tree.children(n)
	priors = priors[:len(children)]
	for i, m := range moves[:len(children)] {
		children[i] = node{move: m, prior: priors[i], firstChild: noChildren}
	}
}

// backup adds value (for the side that made the leaf's move) to every node
// of path, alternating sides, and takes back one virtual loss from each.
func (s *Search) backup(path []int32, value float32) {
	for i := len(path) - 1; i >= 0; i-- {
		n := s.tree.at(path[i])
		n.visits++
		n.valueSum += value
		n.inFlight--
		value = -value
	}
}

// cancel takes back the virtual losses of a path whose playout was given up.
func (s *Search) cancel(path []int32) {
	for _, i := range path {
		s.tree.at(i).inFlight--
	}
}

// prove records that the node at path[len(path)-1] is proven, and carries
// the proof up: a child proven a win for the parent's side to move proves the
// parent a loss for its mover; children all proven losses prove it a win; all
// proven with the best a draw prove it a draw.
func (s *Search) prove(path []int32, p proof) {
	s.tree.at(path[len(path)-1]).proof = p
	for i := len(path) - 2; i >= 0; i-- {
		parent := s.tree.at(path[i])
		if parent.proof != unproven {
			return
		}
		var result proof
		if p == provenWin {
			result = provenLoss
		} else {
			allLost, allProven := true, true
			for _, c := range s.tree.children(parent) {
				switch c.proof {
				case unproven:
					allProven, allLost = false, false
				case provenDraw:
					allLost = false
				case provenWin:
					allLost = false // cannot happen: the parent would be proven already
				}
			}
			switch {
			case allLost:
				result = provenWin
			case allProven:
				result = provenDraw
			default:
				return
			}
		}
		parent.proof = result
		p = result
	}
}
