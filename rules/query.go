package rules

import (
	"errors"
	"fmt"
)

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

// HasMove reports whether the side to move has a legal move, whatever the
// outcome (a finished game has none to play: IsLegal). Without one a game
// in progress is over, since every move's position is judged; only a
// position no move brought about (NewGameFrom's) can have none and go on.
func (g *Game) HasMove() bool { return g.hasMove() }

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

// ErrOver is wrapped by the error of a start position where the game is
// over (CheckStart).
var ErrOver = errors.New("the game is over")

// CheckStart reports why a game cannot start from position p under v, or
// nil. p must be a position of v (one king, right size, no soldier on a
// restricted square), and not a finished game. The rules judge only the
// positions that moves bring about (NewGameFrom does not judge its
// position), so CheckStart judges p as though the opponent's move had just
// brought it about, and refuses it when that move would have ended the
// game:
//   - the king on a corner (he escaped);
//   - no attacker on the board (nothing can ever take the king: the
//     defenders have won);
//   - under the taflab referee, an edge fort with the attackers to move, or
//     the defenders encircled with the defenders to move, where the rule set
//     has those endings;
//   - under the OpenTafl referee, every end check its referee runs on any
//     position: no defender beside an empty square, an edge fort, an
//     encirclement (where the rule set has them);
//   - no legal move for the side to move.
//
// A finished game's error wraps ErrOver.
//
// A captured king has left the board, and ParsePosition refuses a position
// without one. A king walled in on four sides is not judged: the rules take
// the king only by the move that closes the last side, and a position with
// him walled in can arise without one (he steps off the throne).
// Repetition and the no-progress count need a history and are not judged.
//
// Rule sets (Compile: their start), opening suites, match openings and
// self-play starts are checked with it; so must every start position a user
// supplies (a -start flag, an engine's position command, a web request)
// before anything plays it.
func (v *Variant) CheckStart(p Position) error {
	if err := v.checkPosition(p); err != nil {
		return err
	}
	if why := v.finished(p); why != "" {
		return errorf("position %s: %s: %w", p, why, ErrOver)
	}
	return nil
}

// finished says why position p of v is a finished game (CheckStart), or "".
func (v *Variant) finished(p Position) string {
	if v.corners.Has(p.King) {
		return "the king is on a corner"
	}
	if p.Attackers.Empty() {
		return "no attacker is left"
	}
	g := Game{v: v}
	g.reset(p)
	def := &v.def
	if def.Referee == RefereeOpenTafl {
		empty := v.board.AndNot(p.Occupied())
		switch {
		case !p.Defenders.With(p.King).neighbours().Intersects(empty):
			return "no defender has an empty square beside it"
		case def.EdgeFort && g.otEdgeFort():
			return "the defenders hold an edge fort"
		case def.Encirclement && g.encircled():
			return "the attackers encircle the defenders"
		}
	} else {
		switch {
		case p.ToMove == Attackers && def.EdgeFort && v.edge.Has(p.King) && g.edgeFort():
			return "the defenders hold an edge fort"
		case p.ToMove == Defenders && def.Encirclement && g.encircled():
			return "the attackers encircle the defenders"
		}
	}
	if !g.hasMove() {
		return fmt.Sprintf("the %v have no legal move", p.ToMove)
	}
	return ""
}

// NewGameFromStart starts a game from a start position a user supplies:
// CheckStart, then NewGameFrom. Use it (or CheckStart) for every position
// that does not come from a game in progress.
func NewGameFromStart(v *Variant, p Position) (*Game, error) {
	if err := v.CheckStart(p); err != nil {
		return nil, err
	}
	return NewGameFrom(v, p)
}
