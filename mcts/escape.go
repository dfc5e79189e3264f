package mcts

import "taflab/rules"

// This file is a hot path: the search asks it at every leaf it expands.
// It allocates nothing (each level of the proof has its reply buffer,
// grown once) and, for the common leaf whose king sees no edge square,
// costs one reach computation.

// maxEscapeDepth is the most king moves of the defenders' forcing line the
// leaf proofs look through (Config.EscapeDepth), the step onto the corner
// included. At 1 they see an open corner line nobody can close; at 2 a king
// move to a square with two open lines (a fork); at 3 a king move that
// threatens a corner and, whichever way the attackers close it, leaves the
// king a fork. Most games between engines are decided by such a walk, and
// a search of a few hundred playouts cannot prove one: every attacker reply
// to every threat would need visiting.
const maxEscapeDepth = 3

// escapeSolver proves the king's forced walk to a corner: the defenders
// play king moves only, each one onto an open line to a corner (a threat),
// and the attackers answer with every move that closes the line. Whatever
// it proves is a real win, since every other attacker move leaves the line
// open and is checked not to end the game first; it misses walks that need
// other defender moves, or a quiet king move, which the search finds.
type escapeSolver struct {
	replies [maxEscapeDepth][]rules.Move // the attackers' moves at each level of the proof
}

func newEscapeSolver() *escapeSolver {
	var e escapeSolver
	for i := range e.replies {
		e.replies[i] = make([]rules.Move, 0, rules.MaxMoves)
	}
	return &e
}

// defendersWin reports whether the defenders, to move in g, win within
// depth king moves, and the first of them. g is left as it was.
func (e *escapeSolver) defendersWin(g *rules.Game, depth int) (rules.Move, bool) {
	pos := g.Position()
	if pos.ToMove != rules.Defenders || depth < 1 {
		return 0, false
	}
	v := g.Variant()
	reach := v.Reach(&pos, pos.King)
	if c := reach.And(v.Corners()); c.Any() {
		return rules.NewMove(pos.King, c.First()), true
	}
	if depth < 2 {
		return 0, false
	}
	// Only from the edge does the king see a corner, and only a square
	// that may see one is worth the move.
	for targets := reach.And(v.Edge()); targets.Any(); {
		t := targets.PopFirst()
		if !maySeeCorner(v, &pos, t) {
			continue
		}
		m := rules.NewMove(pos.King, t)
		g.Make(m)
		var won bool
		if o := g.Outcome(); o.Over() {
			won = o.Winner == rules.DefendersWin
		} else {
			won = e.attackersLose(g, depth-1)
		}
		g.Unmake()
		if won {
			return m, true
		}
	}
	return 0, false
}

// attackersLose reports whether the attackers, to move in g, lose within
// depth king moves of the defenders: the king sees a corner now, no
// attacker move ends the game in the attackers' favour or as a draw, and
// after every move that closes the king's line the defenders win within
// depth king moves again. g is left as it was.
func (e *escapeSolver) attackersLose(g *rules.Game, depth int) bool {
	pos := g.Position()
	if pos.ToMove != rules.Attackers || depth < 1 || depth > maxEscapeDepth {
		return false
	}
	v := g.Variant()
	if !v.Edge().Has(pos.King) {
		return false
	}
	reach := v.Reach(&pos, pos.King)
	open := reach.And(v.Corners())
	if open.Empty() {
		return false
	}
	def := v.Definition()
	if def.NoProgressMoves > 0 && g.SinceCapture()+1 >= def.NoProgressMoves {
		return false // a quiet move would draw; not worth the proof
	}
	var lines rules.Bitboard
	for c := open; c.Any(); {
		lines = lines.Or(between(pos.King, c.PopFirst()))
	}
	// What an attacker move can end the game by while the king stands on
	// the edge: his capture, by a move next to him, and a shieldwall that
	// wins, by a move onto the edge next to a row of defenders there (the
	// king may stand in it), and where repetition draws or OpenTafl's
	// shieldwall scan may take the king, any move. An
	// encirclement, or the defenders left without a move, cannot happen
	// with the king on the edge and free to move.
	rescue := v.Neighbours(pos.King)
	if def.Repetition == rules.RepetitionDraw {
		// Any move into a third occurrence draws: every one is played.
		rescue = v.Board()
	} else if def.Referee == rules.RefereeOpenTafl && def.Shieldwall != rules.ShieldwallNone {
		// OpenTafl's shieldwall scan can take the king, through rows that
		// run on from another edge: no local set of squares bounds the
		// moves that do it, so every one is played.
		rescue = v.Board()
	} else if def.ShieldwallWins && def.Shieldwall != rules.ShieldwallNone {
		edge := v.Edge()
		for row := pos.Defenders.And(edge); row.Any(); {
			rescue = rescue.Or(v.Neighbours(row.PopFirst()).And(edge))
		}
	}
	var replies []rules.Move
	if rescue == v.Board() {
		replies = g.GenerateMoves(e.replies[depth-1][:0])
	} else {
		replies = appendMovesOnto(e.replies[depth-1][:0], v, &pos, lines.Or(rescue))
	}
	e.replies[depth-1] = replies
	for _, m := range replies {
		if !rescue.Has(m.To()) || lines.Has(m.To()) {
			continue // closing moves are played out below
		}
		g.Make(m)
		o := g.Outcome()
		g.Unmake()
		if o.Over() && o.Winner != rules.DefendersWin {
			return false
		}
	}
	for _, m := range replies {
		if !lines.Has(m.To()) {
			continue
		}
		g.Make(m)
		var lost bool
		if o := g.Outcome(); o.Over() {
			lost = o.Winner == rules.DefendersWin
		} else {
			_, lost = e.defendersWin(g, depth)
		}
		g.Unmake()
		if !lost {
			return false
		}
	}
	return true
}

// appendMovesOnto appends to dst the attackers' moves in pos onto the
// squares of targets: the moves of GenerateMoves that end there, found
// from the targets outward along the four lines (a soldier reaches an
// empty square if every square between is empty; it may pass the empty
// throne but not stop on it or on a corner), which costs a few steps a
// target instead of every attacker's moves.
func appendMovesOnto(dst []rules.Move, v *rules.Variant, pos *rules.Position, targets rules.Bitboard) []rules.Move {
	occupied := pos.Occupied()
	size := v.Size()
	targets = targets.AndNot(occupied).AndNot(v.Corners()).Without(v.Throne())
	for targets.Any() {
		t := targets.PopFirst()
		for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			for f, r := t.File()+d[0], t.Rank()+d[1]; f >= 0 && f < size && r >= 0 && r < size; f, r = f+d[0], r+d[1] {
				if q := rules.NewSquare(f, r); occupied.Has(q) {
					if pos.Attackers.Has(q) {
						dst = append(dst, rules.NewMove(q, t))
					}
					break
				}
			}
		}
	}
	return dst
}

// maySeeCorner reports whether the king of pos, moved to the edge square t,
// might see a corner from there: a line along the edge to a corner that is
// empty but for his old square or one attacker next to t, whom his move
// may capture. It is cheap and lets through every square that does see
// one; the move is played to be sure.
func maySeeCorner(v *rules.Variant, pos *rules.Position, t rules.Square) bool {
	occupied := pos.Occupied().Without(pos.King)
	capturable := v.Neighbours(t).And(pos.Attackers)
	for c := v.Corners(); c.Any(); {
		corner := c.PopFirst()
		if corner.File() != t.File() && corner.Rank() != t.Rank() {
			continue
		}
		blockers := between(t, corner).And(occupied)
		if blockers.Empty() || blockers.Count() == 1 && capturable.Has(blockers.First()) {
			return true
		}
	}
	return false
}

// between returns the squares strictly between two squares of one rank or
// file.
func between(a, b rules.Square) rules.Bitboard {
	var squares rules.Bitboard
	df, dr := sign(b.File()-a.File()), sign(b.Rank()-a.Rank())
	for f, r := a.File()+df, a.Rank()+dr; f != b.File() || r != b.Rank(); f, r = f+df, r+dr {
		squares = squares.With(rules.NewSquare(f, r))
	}
	return squares
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
