package rules

// This file is the OpenTafl referee (RefereeOpenTafl): captures and endings
// as jslater89/OpenTafl judges them, so that taflab inside OpenTafl agrees
// with its host. The facts come from OpenTafl's sources (GameState.java,
// BoardImpl.java, Taflman.java, read for their behaviour; nothing is
// copied); the comments name the method each rule comes from. Rule sets of
// the taflab referee never reach this code, so it costs them nothing.

// otList is one of the Java lists of detectShieldwallPositionsForSide. The
// detector stores a list in a row it found and may go on appending to the
// same list (it does not always start new ones, even on a new edge), so
// rows refer to lists by index in a pool and appends are seen by every row
// holding the list.
type otList struct {
	sq [4 * MaxSize]Square
	n  int
}

func (l *otList) add(s Square) {
	if l.n < len(l.sq) {
		l.sq[l.n] = s
		l.n++
	}
}

func (l *otList) has(s Square) bool {
	for _, x := range l.sq[:l.n] {
		if x == s {
			return true
		}
	}
	return false
}

// otRow is a row the detector found: the list of squares it encloses and
// the list of the squares of the pieces that enclose it (OpenTafl's
// ShieldwallPosition.surroundedSpaces and surroundingTaflmen; a piece is
// named by its square, which is the same thing on one board).
type otRow struct{ enclosed, enclosing int }

// otScratch is the detector's memory, kept by the Game so that the OpenTafl
// referee allocates nothing per move once it has run.
type otScratch struct {
	lists []otList
	rows  []otRow
}

func (sc *otScratch) newList() int {
	sc.lists = append(sc.lists, otList{})
	return len(sc.lists) - 1
}

// otBoard is the board as the detector sees it, after the move and its
// custodial captures.
type otBoard struct {
	att, def Bitboard // soldiers
	king     Square
	kingOn   bool // false once a shieldwall took him
}

func (b *otBoard) side(s Square) (Side, bool) {
	switch {
	case b.att.Has(s):
		return Attackers, true
	case b.def.Has(s) || b.kingOn && s == b.king:
		return Defenders, true
	}
	return 0, false
}

func (b *otBoard) own(s Square, side Side) bool {
	got, ok := b.side(s)
	return ok && got == side
}

func (b *otBoard) count(side Side) int {
	if side == Attackers {
		return b.att.Count()
	}
	n := b.def.Count()
	if b.kingOn {
		n++
	}
	return n
}

// otShieldwallRows fills sc.rows with the rows that side encloses on the
// edges, as detectShieldwallPositionsForSide(side, other) finds them
// (OpenTafl's shieldwalls are strong, sw:s: a corner may close a row).
func (g *Game) otShieldwallRows(b *otBoard, side Side, sc *otScratch) {
	v := g.v
	sc.lists, sc.rows = sc.lists[:0], sc.rows[:0]
	// Its short cut: at least two of each side's pieces on the edge.
	if b.count(side) == 0 || b.count(side.Opponent()) == 0 {
		return
	}
	onEdge := func(s Side) int {
		n := 0
		if s == Attackers {
			n = b.att.And(v.edge).Count()
		} else {
			n = b.def.And(v.edge).Count()
			if b.kingOn && v.edge.Has(b.king) {
				n++
			}
		}
		return n
	}
	if onEdge(side) < 2 || onEdge(side.Opponent()) < 2 {
		return
	}
	size := v.def.Size
	last := size - 1
	enclosed, enclosing := sc.newList(), sc.newList()
	// OpenTafl's x is the file and its y the rank (rank = y+1); its edges,
	// in order: y = 0, y = last, x = 0, x = last, each from 0 up.
	for e := range 4 {
		square := func(i int) Square {
			switch e {
			case 0:
				return NewSquare(i, 0)
			case 1:
				return NewSquare(i, last)
			case 2:
				return NewSquare(0, i)
			}
			return NewSquare(last, i)
		}
		inward := func(s Square) Square {
			switch e {
			case 0:
				return s + MaxSize
			case 1:
				return s - MaxSize
			case 2:
				return s + 1
			}
			return s - 1
		}
		started := false
		index := 0 // OpenTafl's index: it skips the squares left by continue
		for i := range size {
			s := square(i)
			if !started && v.corners.Has(s) {
				started = true
				continue
			}
			if !started && b.own(s, side) {
				started = true
				sc.lists[enclosing].add(s)
				continue
			}
			if started {
				if v.corners.Has(s) {
					if sc.lists[enclosed].n > 1 {
						sc.rows = append(sc.rows, otRow{enclosed, enclosing})
					}
					break
				}
				in := inward(s)
				if b.own(s, side) {
					if b.own(square(index+1), side) && b.own(in, side) ||
						b.kingOn && s == b.king && b.own(in, side) {
						sc.lists[enclosing].add(in)
						sc.lists[enclosed].add(s)
						continue
					}
					if sc.lists[enclosed].n > 1 {
						sc.lists[enclosing].add(s)
						sc.rows = append(sc.rows, otRow{enclosed, enclosing})
					}
					enclosed, enclosing = sc.newList(), sc.newList()
					continue // s starts the next run
				}
				if b.own(in, side) {
					sc.lists[enclosing].add(in)
					sc.lists[enclosed].add(s)
				} else {
					started = false
					enclosed, enclosing = sc.newList(), sc.newList()
				}
			}
			index++
		}
	}
}

// otShieldwalls applies OpenTafl's shieldwall captures (GameState's
// moveTaflman and checkShieldwallPositionForCaptures, flanking rows only,
// swf:y) to the move of mover's piece to t: the rows of the attackers,
// then of the defenders, each taken when the moved piece is one of its
// enclosing pieces and every square of it holds a piece of the other side,
// in order, on the board as the earlier rows left it. It returns the
// soldiers taken and whether the king was.
func (g *Game) otShieldwalls(t Square, mover Side, custodial Bitboard) (taken Bitboard, king bool) {
	v := g.v
	if !v.edge.Has(t) || v.def.Shieldwall == ShieldwallAttackers && mover == Defenders {
		return Bitboard{}, false
	}
	b := otBoard{att: g.attackers, def: g.defenders, king: g.king, kingOn: true}
	if mover == Attackers {
		b.def = b.def.AndNot(custodial)
	} else {
		b.att = b.att.AndNot(custodial)
	}
	sc := g.ot()
	for _, side := range [2]Side{Attackers, Defenders} {
		if side != mover {
			// The moved piece encloses only its own side's rows; the
			// detector's rows of the other side never take anything.
			continue
		}
		g.otShieldwallRows(&b, side, sc)
		for _, r := range sc.rows {
			if !sc.lists[r.enclosing].has(t) {
				continue
			}
			row := &sc.lists[r.enclosed]
			whole := true
			for _, s := range row.sq[:row.n] {
				if got, ok := b.side(s); !ok || got == mover {
					whole = false
				}
			}
			if !whole {
				continue
			}
			for _, s := range row.sq[:row.n] {
				switch {
				case b.kingOn && s == b.king:
					b.kingOn, king = false, true
				case mover == Attackers:
					b.def = b.def.Without(s)
					taken = taken.With(s)
				default:
					b.att = b.att.Without(s)
					taken = taken.With(s)
				}
			}
		}
	}
	return taken, king
}

// ot returns the Game's detector memory, made on first use.
func (g *Game) ot() *otScratch {
	if g.otMem == nil {
		g.otMem = &otScratch{lists: make([]otList, 0, 4*MaxSize+2), rows: make([]otRow, 0, 2*MaxSize)}
	}
	return g.otMem
}

// otEdgeFort reports OpenTafl's edge fort (checkVictoryInternal's "edge
// fort escapes"): the king, able to move, inside a row of the defenders'
// shieldwall shape; or checkEdgeFortEscape's test.
func (g *Game) otEdgeFort() bool {
	v := g.v
	empty := v.board.AndNot(g.occupied())
	kingFree := v.Neighbours(g.king).Intersects(empty)
	b := otBoard{att: g.attackers, def: g.defenders, king: g.king, kingOn: true}
	sc := g.ot()
	g.otShieldwallRows(&b, Defenders, sc)
	if kingFree {
		for _, r := range sc.rows {
			if sc.lists[r.enclosed].has(g.king) {
				return true
			}
		}
	}
	// checkEdgeFortEscape: the fort is every square the king reaches
	// (his own too).
	fort := bit(g.king)
	for {
		next := v.dilate(fort).And(empty).With(g.king)
		if next == fort {
			break
		}
		fort = next
	}
	if v.edge.Has(g.king) {
		if !kingFree {
			return false
		}
	} else if !fort.Intersects(v.edge) {
		return false
	}
	beside := fort.neighbours().And(v.board)
	if beside.Intersects(g.attackers) {
		return false
	}
	// Every piece beside the fort (the king is one, being beside the
	// squares next to him) falls if three or more of its neighbours
	// outside the fort are empty or hold attackers.
	friends := g.defenders.With(g.king)
	for wall := beside.And(friends).With(g.king); wall.Any(); {
		s := wall.PopFirst()
		if v.Neighbours(s).AndNot(fort).AndNot(friends).Count() >= 3 {
			return false
		}
	}
	return true
}

// judgeOpenTafl decides whether the move of mover to t ended the game as
// OpenTafl's checkVictoryInternal does, after every move whichever side
// made it; kingTaken says a shieldwall took the king.
func (g *Game) judgeOpenTafl(t Square, mover Side, kingMoved, swept, kingTaken bool) Outcome {
	v := g.v
	ply := int32(len(g.stack))
	win := func(s Side, r Reason) Outcome { return Outcome{Winner: winnerOf(s), Reason: r, Ply: ply} }
	if g.attackers.Empty() {
		return win(Defenders, NoMoves)
	}
	if o := g.judgeRepetition(mover, ply); o.Over() {
		return o
	}
	if kingMoved && v.corners.Has(t) {
		return win(Defenders, KingEscaped)
	}
	if kingTaken || mover == Attackers && g.kingCapturedBy(t) {
		return win(Attackers, KingCaptured)
	}
	if swept && v.def.ShieldwallWins {
		return win(mover, Shieldwall)
	}
	empty := v.board.AndNot(g.occupied())
	if !g.defenders.With(g.king).neighbours().Intersects(empty) {
		return win(Attackers, NoMoves)
	}
	if v.def.EdgeFort && g.otEdgeFort() {
		return win(Defenders, EdgeFort)
	}
	if v.def.Encirclement && g.encircled() {
		return win(Attackers, Encirclement)
	}
	if !g.hasMove() {
		return win(mover, NoMoves)
	}
	if v.def.NoProgressMoves > 0 && int(g.sinceCapture) >= v.def.NoProgressMoves {
		return Outcome{Winner: Draw, Reason: NoProgress, Ply: ply}
	}
	return Outcome{}
}
