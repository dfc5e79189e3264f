package rules

import "math/bits"

// Bitboard is a set of squares.
//
// Layout: 128 bits, Lo holding bits 0-63 and Hi bits 64-127; bit i is the
// Square with index i (rank*MaxSize + file). Bits 121-127 and, on boards
// smaller than MaxSize, the squares off the board are always clear in the
// sets a Game keeps.
//
// Methods take and return values, so a Bitboard never escapes to the heap.
type Bitboard struct{ Lo, Hi uint64 }

// SquareSet returns the set holding the given squares.
func SquareSet(squares ...Square) Bitboard {
	var b Bitboard
	for _, s := range squares {
		b = b.With(s)
	}
	return b
}

func bit(s Square) Bitboard {
	if s < 64 {
		return Bitboard{Lo: 1 << s}
	}
	return Bitboard{Hi: 1 << (s - 64)}
}

// Has reports whether s is in the set.
func (b Bitboard) Has(s Square) bool {
	if s < 64 {
		return b.Lo>>s&1 != 0
	}
	return b.Hi>>(s-64)&1 != 0
}

// With returns the set with s added.
func (b Bitboard) With(s Square) Bitboard { return b.Or(bit(s)) }

// Without returns the set with s removed.
func (b Bitboard) Without(s Square) Bitboard { return b.AndNot(bit(s)) }

// And returns the intersection.
func (b Bitboard) And(o Bitboard) Bitboard { return Bitboard{b.Lo & o.Lo, b.Hi & o.Hi} }

// Or returns the union.
func (b Bitboard) Or(o Bitboard) Bitboard { return Bitboard{b.Lo | o.Lo, b.Hi | o.Hi} }

// AndNot returns the squares of b that are not in o.
func (b Bitboard) AndNot(o Bitboard) Bitboard { return Bitboard{b.Lo &^ o.Lo, b.Hi &^ o.Hi} }

// Xor returns the symmetric difference.
func (b Bitboard) Xor(o Bitboard) Bitboard { return Bitboard{b.Lo ^ o.Lo, b.Hi ^ o.Hi} }

// Any reports whether the set is not empty.
func (b Bitboard) Any() bool { return b.Lo|b.Hi != 0 }

// Empty reports whether the set is empty.
func (b Bitboard) Empty() bool { return b.Lo|b.Hi == 0 }

// Intersects reports whether the sets share a square.
func (b Bitboard) Intersects(o Bitboard) bool { return b.Lo&o.Lo|b.Hi&o.Hi != 0 }

// SubsetOf reports whether every square of b is in o.
func (b Bitboard) SubsetOf(o Bitboard) bool { return b.Lo&^o.Lo|b.Hi&^o.Hi == 0 }

// Count returns the number of squares in the set.
func (b Bitboard) Count() int { return bits.OnesCount64(b.Lo) + bits.OnesCount64(b.Hi) }

// First returns the lowest square of the set, or NoSquare if it is empty.
func (b Bitboard) First() Square {
	if b.Lo != 0 {
		return Square(bits.TrailingZeros64(b.Lo))
	}
	if b.Hi != 0 {
		return Square(64 + bits.TrailingZeros64(b.Hi))
	}
	return NoSquare
}

// PopFirst removes the lowest square of a set that is not empty and returns it.
func (b *Bitboard) PopFirst() Square {
	if b.Lo != 0 {
		s := Square(bits.TrailingZeros64(b.Lo))
		b.Lo &= b.Lo - 1
		return s
	}
	s := Square(64 + bits.TrailingZeros64(b.Hi))
	b.Hi &= b.Hi - 1
	return s
}

// Squares appends the squares of the set in index order.
func (b Bitboard) Squares(dst []Square) []Square {
	for b.Any() {
		dst = append(dst, b.PopFirst())
	}
	return dst
}

// shl and shr shift by 0 < n < 64 bit positions.
func (b Bitboard) shl(n uint) Bitboard {
	return Bitboard{b.Lo << n, b.Hi<<n | b.Lo>>(64-n)}
}

func (b Bitboard) shr(n uint) Bitboard {
	return Bitboard{b.Lo>>n | b.Hi<<(64-n), b.Hi >> n}
}

// The layout's file masks stop east-west shifts from wrapping to the next rank.
var (
	layoutFileA    Bitboard // file a on every rank of the layout
	layoutFileLast Bitboard // file MaxSize-1 on every rank of the layout
	layoutAll      Bitboard // every square of the layout
)

func init() {
	for r := range MaxSize {
		layoutFileA = layoutFileA.With(NewSquare(0, r))
		layoutFileLast = layoutFileLast.With(NewSquare(MaxSize-1, r))
		for f := range MaxSize {
			layoutAll = layoutAll.With(NewSquare(f, r))
		}
	}
}

// The shifts move every square one step; squares that would leave the
// layout are dropped. On boards smaller than MaxSize the caller masks the
// result with the board.
func (b Bitboard) north() Bitboard { return b.shl(MaxSize).And(layoutAll) }
func (b Bitboard) south() Bitboard { return b.shr(MaxSize) }
func (b Bitboard) east() Bitboard  { return b.AndNot(layoutFileLast).shl(1) }
func (b Bitboard) west() Bitboard  { return b.AndNot(layoutFileA).shr(1) }

// neighbours returns the squares next to some square of b (not b itself,
// unless a square of b is next to another), within the layout.
func (b Bitboard) neighbours() Bitboard {
	return b.north().Or(b.south()).Or(b.east()).Or(b.west())
}
