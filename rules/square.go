package rules

import (
	"fmt"
	"strconv"
)

// MaxSize is the largest board side this build supports, and the stride of
// the square layout: square index = rank*MaxSize + file on every board, so a
// smaller board uses the lower-left corner of the same layout and square names
// never depend on the board's size. Going to 13x13 means raising MaxSize and
// widening Bitboard to three words; nothing else assumes 11.
const MaxSize = 11

// MinSize is the smallest board side a rule set may use.
const MinSize = 7

// numSquares is the number of square indices of the layout.
const numSquares = MaxSize * MaxSize

// Square is a square of the board.
//
// Layout: index = rank*MaxSize + file, with file 0 = a and rank 0 = 1, so a1 is
// 0, b1 is 1, a2 is MaxSize and k11 is 120. NoSquare marks "none".
type Square uint8

// NoSquare is a Square value that names no square.
const NoSquare Square = 255

// squareFile and squareRank avoid a division on hot paths.
var squareFile, squareRank [numSquares]uint8

func init() {
	for s := range numSquares {
		squareFile[s] = uint8(s % MaxSize)
		squareRank[s] = uint8(s / MaxSize)
	}
}

// NewSquare returns the square on the given file and rank, both from 0.
// It panics if either is outside 0..MaxSize-1 (a programmer error).
func NewSquare(file, rank int) Square {
	if file < 0 || file >= MaxSize || rank < 0 || rank >= MaxSize {
		panic(fmt.Sprintf("rules: NewSquare(%d, %d) off the board", file, rank))
	}
	return Square(rank*MaxSize + file)
}

// File returns the square's file, 0 for a.
func (s Square) File() int { return int(squareFile[s]) }

// Rank returns the square's rank, 0 for rank 1.
func (s Square) Rank() int { return int(squareRank[s]) }

// String returns the square's name, such as "f6".
func (s Square) String() string { return string(s.appendName(nil)) }

// appendName appends the square's name, or "-" for an index off the layout
// (such as NoSquare), so that printing a bad move never panics.
func (s Square) appendName(dst []byte) []byte {
	if int(s) >= numSquares {
		return append(dst, '-')
	}
	dst = append(dst, byte('a'+s.File()))
	return strconv.AppendInt(dst, int64(s.Rank()+1), 10)
}

// ParseSquare reads a square name such as "f6". It checks the name against
// the largest board; whether the square is on a given board is the caller's
// question (Variant.OnBoard).
func ParseSquare(name string) (Square, error) {
	if len(name) < 2 || len(name) > 3 {
		return NoSquare, errorf("bad square %q: want a file letter and a rank number, such as f6", name)
	}
	file := int(name[0]) - 'a'
	if file < 0 || file >= MaxSize {
		return NoSquare, errorf("bad square %q: file %q is not a to %c", name, name[0], 'a'+MaxSize-1)
	}
	rank := 0
	for i := 1; i < len(name); i++ {
		c := name[i]
		if c < '0' || c > '9' || (i == 1 && c == '0') {
			return NoSquare, errorf("bad square %q: rank %q is not a number from 1 to %d", name, name[1:], MaxSize)
		}
		rank = rank*10 + int(c-'0')
	}
	if rank < 1 || rank > MaxSize {
		return NoSquare, errorf("bad square %q: rank %d is not from 1 to %d", name, rank, MaxSize)
	}
	return NewSquare(file, rank-1), nil
}

// Side is one of the two players.
type Side uint8

const (
	// Attackers move first and win by capturing the king.
	Attackers Side = 0
	// Defenders are the king's side; the king belongs to them.
	Defenders Side = 1
)

// Opponent returns the other side.
func (s Side) Opponent() Side { return s ^ 1 }

// String returns "attackers" or "defenders".
func (s Side) String() string {
	if s == Attackers {
		return "attackers"
	}
	return "defenders"
}

// Move is a piece's move from one square to another.
//
// Layout: bits 0-7 the from-square, bits 8-15 the to-square. The zero Move
// (a1-a1) is never legal and serves as "no move". Captures are not part of a
// Move: the rules work them out when the move is made.
type Move uint16

// NoMove is the zero Move.
const NoMove Move = 0

// NewMove returns the move from one square to another.
func NewMove(from, to Square) Move { return Move(from) | Move(to)<<8 }

// From returns the square the piece leaves.
func (m Move) From() Square { return Square(m & 0xff) }

// To returns the square the piece stops on.
func (m Move) To() Square { return Square(m >> 8) }

// String returns the move as "from-to", such as "d1-d3".
func (m Move) String() string { return string(AppendMove(nil, m, Bitboard{})) }

// AppendMove appends the move in notation, with its captures as "x" and the
// square, sorted a1, a2, ..., a11, b1, ... (file, then rank): "g3-e3xe2".
func AppendMove(dst []byte, m Move, captures Bitboard) []byte {
	dst = m.From().appendName(dst)
	dst = append(dst, '-')
	dst = m.To().appendName(dst)
	for captures.Any() {
		s := captures.lowestFileMajor()
		captures = captures.Without(s)
		dst = append(dst, 'x')
		dst = s.appendName(dst)
	}
	return dst
}

// lowestFileMajor returns the square of b that comes first in the order
// a1, a2, ..., a11, b1, ...; b must not be empty. Notation only: not fast.
func (b Bitboard) lowestFileMajor() Square {
	for f := range MaxSize {
		for r := range MaxSize {
			if s := NewSquare(f, r); b.Has(s) {
				return s
			}
		}
	}
	panic("rules: lowestFileMajor of an empty set")
}

// ParseMove reads a move in notation, "from-to" followed by any number of
// "x" and a captured square, and returns the move and the set of captured
// squares written (a square written twice counts once). Errors say which part
// of the text is wrong.
func ParseMove(text string) (Move, Bitboard, error) {
	dash := -1
	for i := 0; i < len(text); i++ {
		if text[i] == '-' {
			dash = i
			break
		}
	}
	if dash < 0 {
		return NoMove, Bitboard{}, errorf("bad move %q: want from-to, such as d1-d3", text)
	}
	from, err := ParseSquare(text[:dash])
	if err != nil {
		return NoMove, Bitboard{}, errorf("bad move %q: from-square: %w", text, unwrapPrefix(err))
	}
	rest := text[dash+1:]
	end := len(rest)
	for i := 0; i < len(rest); i++ {
		if rest[i] == 'x' {
			end = i
			break
		}
	}
	to, err := ParseSquare(rest[:end])
	if err != nil {
		return NoMove, Bitboard{}, errorf("bad move %q: to-square: %w", text, unwrapPrefix(err))
	}
	var captures Bitboard
	for rest = rest[end:]; len(rest) > 0; {
		// rest starts with 'x'.
		next := len(rest)
		for i := 1; i < len(rest); i++ {
			if rest[i] == 'x' {
				next = i
				break
			}
		}
		c, err := ParseSquare(rest[1:next])
		if err != nil {
			return NoMove, Bitboard{}, errorf("bad move %q: captured square: %w", text, unwrapPrefix(err))
		}
		captures = captures.With(c)
		rest = rest[next:]
	}
	return NewMove(from, to), captures, nil
}

// Error is an error of this package whose package's name is held apart
// from what is wrong: its text is "rules: MESSAGE".
type Error struct {
	Err error // what is wrong, without the package's name
}

// errorf returns an *Error, its message formatted as fmt.Errorf formats it.
func errorf(format string, a ...any) error { return &Error{fmt.Errorf(format, a...)} }

func (e *Error) Error() string { return "rules: " + e.Err.Error() }

// Message is the error's text without the package's name.
func (e *Error) Message() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// unwrapPrefix returns what is wrong of an error of this package, without
// its name, so that a wrapped message names the package once.
func unwrapPrefix(err error) error {
	switch e := err.(type) {
	case *Error:
		return e.Err
	case *FieldError:
		return fmt.Errorf("%s", e.Message())
	}
	return err
}
