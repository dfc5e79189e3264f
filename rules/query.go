package rules

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
