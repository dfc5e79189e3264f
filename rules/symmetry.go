package rules

// Symmetry is one of the 8 symmetries of the square board (the dihedral
// group): every rule set here looks the same in all of them, so tests check
// each rule in all 8 and training multiplies its data by them.
//
// Layout: bit 0 mirrors files (a<->k), bit 1 mirrors ranks (1<->11), bit 2
// swaps files and ranks (transposes), applied in that order; Identity is 0.
type Symmetry uint8

// Identity leaves the board as it is.
const Identity Symmetry = 0

// NumSymmetries is the number of symmetries of the board.
const NumSymmetries = 8

// Square maps a square of a board of the given size.
func (y Symmetry) Square(s Square, size int) Square {
	f, r := s.File(), s.Rank()
	if y&1 != 0 {
		f = size - 1 - f
	}
	if y&2 != 0 {
		r = size - 1 - r
	}
	if y&4 != 0 {
		f, r = r, f
	}
	return NewSquare(f, r)
}

// Inverse returns the symmetry that undoes y.
func (y Symmetry) Inverse() Symmetry {
	if y&4 != 0 && y&3 != 0 && y&3 != 3 {
		return y ^ 3 // a mirror then a transpose: the mirrors swap axes
	}
	return y
}

// Move maps a move.
func (y Symmetry) Move(m Move, size int) Move {
	return NewMove(y.Square(m.From(), size), y.Square(m.To(), size))
}

// Bitboard maps a set of squares.
func (y Symmetry) Bitboard(b Bitboard, size int) Bitboard {
	var out Bitboard
	for b.Any() {
		out = out.With(y.Square(b.PopFirst(), size))
	}
	return out
}

// Position maps a position; the side to move stays.
func (y Symmetry) Position(p Position) Position {
	size := int(p.Size)
	p.Attackers = y.Bitboard(p.Attackers, size)
	p.Defenders = y.Bitboard(p.Defenders, size)
	p.King = y.Square(p.King, size)
	return p
}
