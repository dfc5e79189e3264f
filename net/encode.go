package net

import (
	"taflab/internal/errctx"
	"taflab/rules"
)

// The network plays 11x11 boards: its policy has one logit per (from-square,
// direction, distance) of that board.
const (
	// BoardSize is the side of the boards the network plays.
	BoardSize = 11
	// Squares is the number of squares of the board.
	Squares = BoardSize * BoardSize
	// Directions and MaxDistance span a move: up to 10 squares in one of
	// four directions.
	Directions  = 4
	MaxDistance = BoardSize - 1
	// MovesPerSquare is the number of policy entries per from-square.
	MovesPerSquare = Directions * MaxDistance
	// PolicySize is the number of policy logits: 4,840.
	PolicySize = Squares * MovesPerSquare
)

// InputEncoding names the input planes; a network file records it, and a
// file with another encoding is refused.
const InputEncoding = "taflab-planes-v1"

// InputPlanes is the number of input planes of InputEncoding.
//
// Planes, each 11x11 (1 where the statement holds): 0 attackers, 1
// defenders, 2 the king, 3 the defenders are to move (whole plane), 4 the
// throne, 5 the corners, 6 every square (so that zero padding marks the
// edge); then the rule set's switches as whole planes, so that one network
// can learn several rule sets: 7 king captured on the edge, 8 shieldwall by
// the attackers, 9 shieldwall by both sides, 10 a sweep wins, 11 edge fort,
// 12 encirclement, 13 repetition loses for the mover, 14 repetition loses
// for the defenders only. A draw by repetition (repetition = "draw", which
// none of the four rule sets has) sets neither: the network sees such a
// rule set as one whose repetitions are not judged.
const InputPlanes = 15

// Encode writes the input planes of position p under v into dst, in the
// network's layout: square-major, InputPlanes values per square (dst has
// Squares*InputPlanes entries). The board must be 11x11.
func Encode(dst []float32, v *rules.Variant, p *rules.Position) error {
	if int(p.Size) != BoardSize || v.Size() != BoardSize {
		size := int(p.Size)
		if size == BoardSize {
			size = v.Size()
		}
		return errctx.Errorf("net", "the network plays %dx%d boards, not %dx%d", BoardSize, BoardSize, size, size)
	}
	def := v.Definition()
	var consts [InputPlanes]float32
	set := func(plane int, on bool) {
		if on {
			consts[plane] = 1
		}
	}
	set(3, p.ToMove == rules.Defenders)
	set(6, true)
	set(7, def.KingCapturedOnEdge)
	set(8, def.Shieldwall != rules.ShieldwallNone)
	set(9, def.Shieldwall == rules.ShieldwallBoth)
	set(10, def.ShieldwallWins)
	set(11, def.EdgeFort)
	set(12, def.Encirclement)
	set(13, def.Repetition == rules.RepetitionMoverLoses)
	set(14, def.Repetition == rules.RepetitionDefendersLose)
	throne, corners := v.Throne(), v.Corners()
	for s := range rules.Square(Squares) {
		row := dst[int(s)*InputPlanes : (int(s)+1)*InputPlanes]
		copy(row, consts[:])
		if p.Attackers.Has(s) {
			row[0] = 1
		}
		if p.Defenders.Has(s) {
			row[1] = 1
		}
		if p.King == s {
			row[2] = 1
		}
		if s == throne {
			row[4] = 1
		}
		if corners.Has(s) {
			row[5] = 1
		}
	}
	return nil
}

// Direction order of the policy: north, south, east, west.
var directionSteps = [Directions][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}}

// MoveIndex returns the policy index of a move on the 11x11 board:
// from-square*40 + direction*10 + distance-1, directions north, south, east,
// west. It returns -1 for a move that is not along a line.
func MoveIndex(m rules.Move) int {
	from, to := m.From(), m.To()
	df, dr := to.File()-from.File(), to.Rank()-from.Rank()
	var dir, dist int
	switch {
	case df == 0 && dr > 0:
		dir, dist = 0, dr
	case df == 0 && dr < 0:
		dir, dist = 1, -dr
	case dr == 0 && df > 0:
		dir, dist = 2, df
	case dr == 0 && df < 0:
		dir, dist = 3, -df
	default:
		return -1
	}
	return int(from)*MovesPerSquare + dir*MaxDistance + dist - 1
}

// IndexMove returns the move of a policy index, and false for an index whose
// move leaves the board.
func IndexMove(index int) (rules.Move, bool) {
	if index < 0 || index >= PolicySize {
		return rules.NoMove, false
	}
	from := rules.Square(index / MovesPerSquare)
	dir, dist := index%MovesPerSquare/MaxDistance, index%MaxDistance+1
	f := from.File() + directionSteps[dir][0]*dist
	r := from.Rank() + directionSteps[dir][1]*dist
	if f < 0 || f >= BoardSize || r < 0 || r >= BoardSize {
		return rules.NoMove, false
	}
	return rules.NewMove(from, rules.NewSquare(f, r)), true
}

// policyPermutation[y][i] is the policy index that index i becomes under
// symmetry y (-1 for indices whose move leaves the board).
var policyPermutation [rules.NumSymmetries][PolicySize]int32

func init() {
	for y := range rules.Symmetry(rules.NumSymmetries) {
		for i := range PolicySize {
			m, ok := IndexMove(i)
			if !ok {
				policyPermutation[y][i] = -1
				continue
			}
			policyPermutation[y][i] = int32(MoveIndex(y.Move(m, BoardSize)))
		}
	}
}

// SymmetricIndex returns the policy index that index i becomes under y, or -1
// if i names no move on the board.
func SymmetricIndex(y rules.Symmetry, i int) int { return int(policyPermutation[y][i]) }
