package mcts

import (
	"math"

	"taflab/rules"
)

// This file is a hot path with runner.go and tree.go when
// Config.TacticalWeight > 0: every expansion scans the leaf's moves here and
// carries the result up the selection path. It allocates nothing.
//
// Implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant, "Monte
// Carlo Tree Search with Heuristic Evaluations using Implicit Minimax
// Backups", 2014): besides the mean of the evaluator's values, every node
// keeps a minimax value over the tree as it stands, with a cheap heuristic
// at its unexpanded leaves, and selection mixes the two (selectChild). A
// weak evaluator averages a lost piece away among many playouts; the
// minimax value sees it from the first expansion on, and so does the first
// play urgency of an unvisited capture. The heuristic here is material and
// the game's end (tacticValue).

// tacticScale is node.tactic's fixed point: a value v in [-1, 1] is stored
// as round(v * tacticScale), which keeps the node at 28 bytes.
const tacticScale = 32767

// materialScale is the material difference at which the heuristic's value
// is tanh(1) (0.76): eight attackers, or four defenders.
const materialScale = 8

// materialSpan bounds the material difference the table holds: from 48 on
// tanh(d/8) rounds to 1 in fixed point, so every larger one reads the
// table's end.
const materialSpan = 64

// materialTactic[d + materialSpan] is the defenders' value of a material
// difference d from the start, tanh(d / materialScale), in fixed point: a
// table, since the difference is a small integer and math.Tanh would cost
// more than the look-up at every move of every expansion.
var materialTactic = func() (t [2*materialSpan + 1]int16) {
	for i := range t {
		t[i] = int16(math.Round(math.Tanh(float64(i-materialSpan)/materialScale) * tacticScale))
	}
	return t
}()

// material returns the defenders' material of p in attackers: a defender
// is worth two (12 defenders face 24 attackers at the start), the king
// nothing (his capture ends the game).
func material(p *rules.Position) int { return 2*p.Defenders.Count() - p.Attackers.Count() }

// tacticValue returns the heuristic value, in fixed point, of the position
// a move of mover's brought about, for mover: +1, -1 or 0 when the move
// ended the game (o: a win, a loss or a draw for mover), else the material
// balance d, the defenders' material less the start's, through
// materialTactic.
func tacticValue(o rules.Outcome, mover rules.Side, d int) int16 {
	if o.Over() {
		switch proofOf(o, mover) {
		case provenWin:
			return tacticScale
		case provenLoss:
			return -tacticScale
		}
		return 0
	}
	v := materialTactic[min(max(d, -materialSpan), materialSpan)+materialSpan]
	if mover == rules.Attackers {
		return -v
	}
	return v
}

// scanTactics makes and unmakes each of moves on g, which stands at the
// leaf, writes each move's tacticValue into dst (as long as moves), and
// returns the index of the first move that wins at once for the side to
// move, or -1. It sees every kind of win in one (a fort, an encirclement, a
// shieldwall), where immediateWin looks only at the king's.
func scanTactics(g *rules.Game, moves []rules.Move, dst []int16) int32 {
	mover := g.ToMove()
	// The material after a move is the leaf's and what the move captured:
	// read from the captures rather than from the position after the move
	// (Game.Position), which cost more than the rest of the value together.
	leaf, start := g.Position(), g.Variant().Start()
	d := material(&leaf) - material(&start)
	perCapture := 1 // a defenders' capture takes attackers
	if mover == rules.Attackers {
		perCapture = -2
	}
	dst = dst[:len(moves)]
	winning := int32(-1)
	for i, m := range moves {
		g.Make(m)
		_, captured := g.LastMove()
		o := g.Outcome()
		dst[i] = tacticValue(o, mover, d+perCapture*captured.Count())
		if winning < 0 && o.Over() && proofOf(o, mover) == provenWin {
			winning = int32(i)
		}
		g.Unmake()
	}
	return winning
}

// tacticQ returns the node's minimax value as a float, for the side that
// made its move.
func (n *node) tacticQ() float32 { return float32(n.tactic) * (1.0 / tacticScale) }

// selectTactical is selectChild's choice among children, which are not a
// proven win, with implicit minimax backups: PUCT's score with each
// child's value (its mean, or fpu when unvisited, so that an unvisited
// capture is tried early) mixed with its minimax value by alpha. It returns
// the index of the best child that is not a proven loss, or -1.
func selectTactical(children []node, fpu, explore, virtualLoss, alpha float32) int32 {
	best, bestScore := int32(-1), float32(math.Inf(-1))
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
		q = (1-alpha)*q + alpha*c.tacticQ()
		if score := q + explore*c.prior/float32(1+visits); score > bestScore {
			best, bestScore = int32(i), score
		}
	}
	return best
}

// setTactics writes the heuristic values of the children of the leaf at
// path[len(path)-1], just expanded, sets the leaf's minimax value to minus
// the best of them (they are for the side to move at the leaf, it is for
// the side that moved into it), and carries the change up the path.
func (s *Search) setTactics(path []int32, values []int16) {
	leaf := s.tree.at(path[len(path)-1])
	children := s.tree.children(leaf)
	values = values[:len(children)]
	best := int16(-tacticScale)
	for i := range children {
		children[i].tactic = values[i]
		best = max(best, values[i])
	}
	old := leaf.tactic
	leaf.tactic = -best
	s.backupTactics(path, old)
}

// backupTactics carries a change of the minimax value of the node at
// path[len(path)-1], which was old, up the path: each ancestor's value is
// minus the best of its children's. Every expanded node keeps that
// invariant, so a child's rise past the best needs no scan, a fall needs
// one only when the child was the best, and the walk stops at the first
// ancestor that does not change.
func (s *Search) backupTactics(path []int32, old int16) {
	for i := len(path) - 2; i >= 0; i-- {
		child := s.tree.at(path[i+1]).tactic
		if child == old {
			return
		}
		parent := s.tree.at(path[i])
		was := parent.tactic
		switch {
		case child >= -was:
			parent.tactic = -child
		case old == -was:
			best := int16(-tacticScale)
			for _, c := range s.tree.children(parent) {
				best = max(best, c.tactic)
			}
			parent.tactic = -best
		default:
			return
		}
		old = was
	}
}
