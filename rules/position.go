package rules

import (
	"strconv"
	"strings"
)

// Position is what stands on the board and whose turn it is: the part of a
// game that repetition compares and that position notation writes.
type Position struct {
	Attackers Bitboard // attacker soldiers
	Defenders Bitboard // defender soldiers, not the king
	King      Square
	ToMove    Side
	Size      uint8 // the board's side
}

// Occupied returns every square holding a piece.
func (p Position) Occupied() Bitboard { return p.Attackers.Or(p.Defenders).With(p.King) }

// ParsePosition reads position notation: rows from the last rank down to
// rank 1 separated by '/', 'a' attacker, 'd' defender, 'k' king, a number for
// a run of empty squares, then a space and the side to move ('a' or 'd').
// The board's size is the number of rows. It refuses a position that no game
// can reach a start from: not exactly one king, a soldier on the throne or a
// corner, a size this build cannot play.
func ParsePosition(text string) (Position, error) {
	board, side, ok := strings.Cut(text, " ")
	if !ok {
		return Position{}, errorf("position %q: missing the side to move (a space, then a or d)", text)
	}
	var p Position
	switch side {
	case "a":
		p.ToMove = Attackers
	case "d":
		p.ToMove = Defenders
	default:
		return Position{}, errorf("position %q: side to move %q: want a or d", text, side)
	}
	rows := strings.Split(board, "/")
	size := len(rows)
	if size < MinSize || size > MaxSize || size%2 == 0 {
		return Position{}, errorf("position %q: %d rows: want an odd number from %d to %d", text, size, MinSize, MaxSize)
	}
	p.Size = uint8(size)
	kings := 0
	for i, row := range rows {
		rank := size - 1 - i
		file := 0
		for j := 0; j < len(row); j++ {
			c := row[j]
			if c >= '1' && c <= '9' {
				n := int(c - '0')
				if j+1 < len(row) && row[j+1] >= '0' && row[j+1] <= '9' {
					n = n*10 + int(row[j+1]-'0')
					j++
				}
				file += n
				if file > size {
					break
				}
				continue
			}
			if file >= size {
				file++
				break
			}
			s := NewSquare(file, rank)
			switch c {
			case 'a':
				p.Attackers = p.Attackers.With(s)
			case 'd':
				p.Defenders = p.Defenders.With(s)
			case 'k':
				kings++
				p.King = s
			default:
				return Position{}, errorf("position %q: rank %d, column %d: unexpected %q (want a, d, k or a number)", text, rank+1, j+1, c)
			}
			file++
		}
		if file != size {
			return Position{}, errorf("position %q: rank %d %q holds %d squares, want %d", text, rank+1, row, file, size)
		}
	}
	if kings != 1 {
		return Position{}, errorf("position %q: %d kings, want exactly 1", text, kings)
	}
	if err := p.check(); err != nil {
		return Position{}, errorf("position %q: %w", text, unwrapPrefix(err))
	}
	return p, nil
}

// check reports a soldier on the throne or a corner, two pieces on a square
// or a piece off the board.
func (p Position) check() error {
	g := newGeometryCached(int(p.Size))
	if p.Attackers.Intersects(p.Defenders) || p.Attackers.Or(p.Defenders).Has(p.King) {
		return errorf("two pieces on one square")
	}
	if !p.Occupied().SubsetOf(g.board) || int(p.King) >= numSquares {
		return errorf("a piece off the %dx%d board", p.Size, p.Size)
	}
	if bad := p.Attackers.Or(p.Defenders).And(g.restricted); bad.Any() {
		return errorf("soldier on %s: only the king may stand on the throne or a corner", bad.First())
	}
	return nil
}

// String writes the position in notation.
func (p Position) String() string { return string(p.AppendText(nil)) }

// AppendText appends the position in notation to b: String without the
// allocation, for readers and writers of many positions.
func (p Position) AppendText(b []byte) []byte {
	size := int(p.Size)
	for rank := size - 1; rank >= 0; rank-- {
		empty := 0
		for file := range size {
			s := NewSquare(file, rank)
			var c byte
			switch {
			case p.Attackers.Has(s):
				c = 'a'
			case p.Defenders.Has(s):
				c = 'd'
			case p.King == s:
				c = 'k'
			default:
				empty++
				continue
			}
			if empty > 0 {
				b = strconv.AppendInt(b, int64(empty), 10)
				empty = 0
			}
			b = append(b, c)
		}
		if empty > 0 {
			b = strconv.AppendInt(b, int64(empty), 10)
		}
		if rank > 0 {
			b = append(b, '/')
		}
	}
	if p.ToMove == Attackers {
		return append(b, " a"...)
	}
	return append(b, " d"...)
}

// geometries holds one geometry per supported size, for code that has a
// Position but no Variant.
var geometries [MaxSize + 1]*geometry

func init() {
	for size := MinSize; size <= MaxSize; size += 2 {
		g := newGeometry(size)
		geometries[size] = &g
	}
}

func newGeometryCached(size int) *geometry { return geometries[size] }
