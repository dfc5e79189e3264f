package rules

// This file is a hot path: every move of self-play, search and perft goes
// through Make and Unmake. They must not allocate (the undo stack grows only
// past its capacity), and the end checks run in the order the spec fixes,
// each as cheap as its rule allows; measure with BenchmarkMakeUnmake and
// BenchmarkRandomGame before and after any change here.

// Make plays m, which must be legal (from GenerateMoves, or checked with
// IsLegal): making an illegal move is a programmer error that corrupts the
// game. It removes the captured soldiers, passes the turn and judges the new
// position (Outcome).
func (g *Game) Make(m Move) {
	v := g.v
	from, to := m.From(), m.To()
	mover := g.toMove
	g.stack = append(g.stack, undo{hashBefore: g.hash, move: m, sinceCapture: g.sinceCapture})

	kingMoved := from == g.king
	switch {
	case kingMoved:
		g.king = to
		g.hash ^= zobristKing[from] ^ zobristKing[to]
	case mover == Attackers:
		g.attackers = g.attackers.Xor(bit(from).Or(bit(to)))
		g.hash ^= zobristAttacker[from] ^ zobristAttacker[to]
	default:
		g.defenders = g.defenders.Xor(bit(from).Or(bit(to)))
		g.hash ^= zobristDefender[from] ^ zobristDefender[to]
	}
	g.toggleLines(from)
	g.toggleLines(to)

	captured := g.custodialCaptures(to, mover)
	swept, kingTaken := false, false
	if v.def.Referee == RefereeOpenTafl {
		if v.def.Shieldwall != ShieldwallNone {
			var row Bitboard
			row, kingTaken = g.otShieldwalls(to, mover, captured)
			swept = row.Any() || kingTaken
			captured = captured.Or(row)
		}
	} else if v.def.Shieldwall == ShieldwallBoth || v.def.Shieldwall == ShieldwallAttackers && mover == Attackers {
		if v.edge.Has(to) {
			row := g.shieldwallSweep(to, mover)
			swept = row.Any()
			captured = captured.Or(row)
		}
	}
	if captured.Any() {
		g.stack[len(g.stack)-1].captured = captured
		g.removeCaptured(captured, mover.Opponent())
		g.sinceCapture = 0
	} else {
		g.sinceCapture++
	}

	g.toMove = mover.Opponent()
	g.hash ^= zobristDefendersToMove
	if v.def.Referee == RefereeOpenTafl {
		g.outcome = g.judgeOpenTafl(to, mover, kingMoved, swept, kingTaken)
		return
	}
	g.outcome = g.judge(to, mover, kingMoved, swept)
}

// Unmake takes back the last move. It panics if no move was made (a
// programmer error).
func (g *Game) Unmake() {
	u := g.stack[len(g.stack)-1]
	g.stack = g.stack[:len(g.stack)-1]
	mover := g.toMove.Opponent()
	from, to := u.move.From(), u.move.To()

	if u.captured.Any() {
		if mover == Attackers {
			g.defenders = g.defenders.Or(u.captured)
		} else {
			g.attackers = g.attackers.Or(u.captured)
		}
		for c := u.captured; c.Any(); {
			g.toggleLines(c.PopFirst())
		}
	}
	switch {
	case to == g.king:
		g.king = from
	case mover == Attackers:
		g.attackers = g.attackers.Xor(bit(from).Or(bit(to)))
	default:
		g.defenders = g.defenders.Xor(bit(from).Or(bit(to)))
	}
	g.toggleLines(from)
	g.toggleLines(to)

	g.toMove = mover
	g.hash = u.hashBefore
	g.sinceCapture = u.sinceCapture
	g.outcome = Outcome{}
}

// removeCaptured takes the captured soldiers of side victim off the board.
func (g *Game) removeCaptured(captured Bitboard, victim Side) {
	if victim == Attackers {
		g.attackers = g.attackers.AndNot(captured)
	} else {
		g.defenders = g.defenders.AndNot(captured)
	}
	for c := captured; c.Any(); {
		s := c.PopFirst()
		g.toggleLines(s)
		if victim == Attackers {
			g.hash ^= zobristAttacker[s]
		} else {
			g.hash ^= zobristDefender[s]
		}
	}
}

// custodialCaptures returns the enemy soldiers that the move of mover's piece
// to t traps: for each neighbour n of t holding an enemy soldier, the square
// beyond n holds a piece of the mover's side (the king is armed) or is
// hostile. Hostile to soldiers: a corner (always empty here: a king there has
// ended the game) and the throne while it is empty. While the king sits on
// the throne it is hostile to attackers only, which the "king is armed" rule
// already covers: he is the defenders' piece on that square.
func (g *Game) custodialCaptures(t Square, mover Side) Bitboard {
	v := g.v
	var enemies, anvils Bitboard
	if mover == Attackers {
		enemies, anvils = g.defenders, g.attackers
	} else {
		enemies, anvils = g.attackers, g.defenders.With(g.king)
	}
	anvils = anvils.Or(v.corners)
	if g.king != v.throne {
		anvils = anvils.Or(v.throneBB)
	}
	var captured Bitboard
	nb := &v.neighbour
	for d := range 4 {
		n := nb[t][d]
		if n == NoSquare || !enemies.Has(n) {
			continue
		}
		if beyond := nb[n][d]; beyond != NoSquare && anvils.Has(beyond) {
			captured = captured.With(n)
		}
	}
	return captured
}

// shieldwallSweep returns the soldiers of the rows that mover's move to the
// edge square t sweeps (spec, "Shieldwall, exactly"): along the edge from t,
// a run of two or more enemy pieces, closed at the far end by a piece of the
// mover's or a corner, each with a piece of the mover's directly inward. The
// enemy king may stand in the row and is never captured; the mover's king
// may close the row or stand in front. Only a move onto an end square
// sweeps: completing the front last does not (ruling from 001).
func (g *Game) shieldwallSweep(t Square, mover Side) Bitboard {
	v := g.v
	var enemies, own Bitboard
	if mover == Attackers {
		enemies, own = g.defenders.With(g.king), g.attackers
	} else {
		enemies, own = g.attackers, g.defenders.With(g.king)
	}
	// Each edge t lies on gives the two directions along it and the inward
	// one. A corner lies on two edges, and the king's move into it is a move
	// onto the end square of a row on either (spec: "the enemy moves a piece
	// onto the square at one end of the row"); checking only one of them made
	// the sweep depend on the board's orientation.
	edges := [4]struct {
		on     Bitboard
		along  [2]int
		inward int
	}{
		{v.rankFirst, [2]int{dirEast, dirWest}, dirNorth},
		{v.rankLast, [2]int{dirEast, dirWest}, dirSouth},
		{v.fileFirst, [2]int{dirNorth, dirSouth}, dirEast},
		{v.fileLast, [2]int{dirNorth, dirSouth}, dirWest},
	}
	nb := &v.neighbour
	var swept Bitboard
	for _, e := range edges {
		if !e.on.Has(t) {
			continue
		}
		for _, d := range e.along {
			var row Bitboard
			n, length := nb[t][d], 0
			for ; n != NoSquare && enemies.Has(n); n = nb[n][d] {
				if !own.Has(nb[n][e.inward]) {
					break
				}
				row = row.With(n)
				length++
			}
			// n is the square after the fronted run: it must close the row.
			if length >= 2 && n != NoSquare && (own.Has(n) || v.corners.Has(n)) {
				swept = swept.Or(row)
			}
		}
	}
	return swept.Without(g.king)
}

// judge decides whether the move of mover to t ended the game, in the order
// the spec fixes: king escaped or captured, shieldwall, edge fort or
// encirclement, repetition, no moves for the opponent, no progress.
func (g *Game) judge(t Square, mover Side, kingMoved, swept bool) Outcome {
	v := g.v
	ply := int32(len(g.stack))
	win := func(s Side, r Reason) Outcome { return Outcome{Winner: winnerOf(s), Reason: r, Ply: ply} }
	if mover == Defenders {
		if kingMoved && v.corners.Has(t) {
			return win(Defenders, KingEscaped)
		}
	} else if g.kingCapturedBy(t) {
		return win(Attackers, KingCaptured)
	}
	if swept && v.def.ShieldwallWins {
		return win(mover, Shieldwall)
	}
	if mover == Defenders {
		if v.def.EdgeFort && v.edge.Has(g.king) && g.edgeFort() {
			return win(Defenders, EdgeFort)
		}
	} else if v.def.Encirclement && g.encircled() {
		return win(Attackers, Encirclement)
	}
	if o := g.judgeRepetition(mover, ply); o.Over() {
		return o
	}
	if !g.hasMove() {
		return win(mover, NoMoves)
	}
	if v.def.NoProgressMoves > 0 && int(g.sinceCapture) >= v.def.NoProgressMoves {
		return Outcome{Winner: Draw, Reason: NoProgress, Ply: ply}
	}
	return Outcome{}
}

// kingCapturedBy reports whether the attackers' move to t captured the king:
// t is next to him, and each of his four sides holds an attacker or is
// hostile (the empty throne, and with KingCapturedOnEdge a corner or the
// board's edge). Without KingCapturedOnEdge a king on the edge is safe.
func (g *Game) kingCapturedBy(t Square) bool {
	v := g.v
	k := g.king
	nb := &v.neighbour[k]
	if nb[dirNorth] != t && nb[dirSouth] != t && nb[dirEast] != t && nb[dirWest] != t {
		return false
	}
	onEdge := v.edge.Has(k)
	if onEdge && !v.def.KingCapturedOnEdge {
		return false
	}
	hostile := g.attackers.Or(v.throneBB).Or(v.corners) // the throne is empty: the king is beside it
	for _, n := range nb {
		if n == NoSquare {
			continue // off the board: only reached with KingCapturedOnEdge
		}
		if !hostile.Has(n) {
			return false
		}
	}
	return true
}

// edgeFort reports whether the king, on the edge, stands in a fort the
// attackers can never break (spec, "Edge fort, exactly"): R, the squares he
// reaches through empty squares, holds an empty square; every occupied square
// next to R is a defender (the wall W); and every defender of W is safe on
// both lines through it: on each line one of its two neighbours is off the
// board, in W, or in R and neither the throne nor a corner.
func (g *Game) edgeFort() bool {
	v := g.v
	kingBB := bit(g.king)
	occupied := g.attackers.Or(g.defenders)
	open := v.board.AndNot(occupied) // empty squares and the king's
	reach := kingBB
	for {
		next := v.dilate(reach).And(open)
		if next == reach {
			break
		}
		reach = next
	}
	if reach == kingBB {
		return false // the king has no room to move
	}
	wall := v.dilate(reach).AndNot(reach).And(occupied)
	if wall.Intersects(g.attackers) {
		return false
	}
	safe := wall.Or(reach.AndNot(v.restricted))
	alongRank := v.fileFirst.Or(v.fileLast).Or(safe.east()).Or(safe.west())
	alongFile := v.rankFirst.Or(v.rankLast).Or(safe.north()).Or(safe.south())
	return wall.SubsetOf(alongRank.And(alongFile))
}

// encircled reports whether no defender, king included, can reach the edge
// through squares free of attackers (spec, "Encirclement, exactly").
func (g *Game) encircled() bool {
	v := g.v
	flood := g.defenders.With(g.king)
	passable := v.board.AndNot(g.attackers)
	for !flood.Intersects(v.edge) {
		next := v.dilate(flood).And(passable)
		if next == flood {
			return true
		}
		flood = next
	}
	return false
}

// judgeRepetition returns the outcome of the repetition rule for a move of
// mover that made ply, or no outcome: the same under both referees.
func (g *Game) judgeRepetition(mover Side, ply int32) Outcome {
	var winner Winner
	switch g.v.def.Repetition {
	case RepetitionMoverLoses:
		winner = winnerOf(mover.Opponent())
	case RepetitionDefendersLose:
		if mover != Defenders {
			return Outcome{}
		}
		winner = AttackersWin
	case RepetitionDraw:
		winner = Draw
	default:
		return Outcome{}
	}
	if g.occurrencesBefore() < 2 {
		return Outcome{}
	}
	return Outcome{Winner: winner, Reason: Repetition, Ply: ply}
}
