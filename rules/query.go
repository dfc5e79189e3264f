package rules

import "fmt"

// Queries that search and evaluation code asks of a game or a position
// besides move generation. They are cheap but not tuned like movegen.go.

// ResetTo starts the game again from position p, keeping the memory it has,
// as NewGameFrom does: p counts once toward repetition, the no-progress
// count starts at zero, and p itself is not judged.
func (g *Game) ResetTo(p Position) error {
	if err := g.v.checkPosition(p); err != nil {
		return err
	}
	g.reset(p)
	return nil
}

// Reach returns the squares the piece on s could move to in position p
// under v's rules, whoever is to move: the empty squares along its rank and
// file up to the first piece, without the throne and corners for a soldier.
// An empty s reaches nothing.
func (v *Variant) Reach(p *Position, s Square) Bitboard {
	occupied := p.Occupied()
	if !occupied.Has(s) {
		return Bitboard{}
	}
	var reach Bitboard
	nb := &v.neighbour
	for d := range 4 {
		for n := nb[s][d]; n != NoSquare && !occupied.Has(n); n = nb[n][d] {
			reach = reach.With(n)
		}
	}
	if s != p.King {
		reach = reach.AndNot(v.restricted)
	}
	return reach
}

// Neighbours returns the on-board squares next to s.
func (v *Variant) Neighbours(s Square) Bitboard {
	var b Bitboard
	for _, n := range v.neighbour[s] {
		if n != NoSquare {
			b = b.With(n)
		}
	}
	return b
}

// Edge returns the squares on the board's edge.
func (v *Variant) Edge() Bitboard { return v.edge }

// CheckStart reports why a game cannot start from position p under v, or
// nil: p must be a position of v (checkPosition), and since the rules judge
// only the positions moves bring about, also not one that is already over:
// the king on a corner, or no move for the side to move. Opening suites,
// match openings and self-play starts are checked with it.
func (v *Variant) CheckStart(p Position) error {
	if err := v.checkPosition(p); err != nil {
		return err
	}
	if v.Corners().Has(p.King) {
		return fmt.Errorf("rules: position %s: the king is on a corner: the game is over", p)
	}
	g := Game{v: v}
	g.reset(p)
	if !g.hasMove() {
		return fmt.Errorf("rules: position %s: the %v have no move: the game is over", p, p.ToMove)
	}
	return nil
}
