package rules

import (
	"errors"
	"fmt"
)

// Winner is who won a finished game, or NoWinner while it goes on.
type Winner uint8

const (
	NoWinner     Winner = iota // the game goes on
	AttackersWin               // the attackers won
	DefendersWin               // the defenders won
	Draw                       // nobody won
)

var winnerNames = []string{"none", "attackers", "defenders", "draw"}

// String returns "none", "attackers", "defenders" or "draw".
func (w Winner) String() string { return enumName(winnerNames, uint8(w)) }

// winnerOf returns the win of a side.
func winnerOf(s Side) Winner { return AttackersWin + Winner(s) }

// Reason is why a game ended.
type Reason uint8

const (
	NotOver      Reason = iota
	KingEscaped         // the king reached a corner
	KingCaptured        // the attackers took the king
	Shieldwall          // a shieldwall sweep won the game (where sweeps win)
	EdgeFort            // the defenders built an unbreakable fort on the edge
	Encirclement        // the attackers sealed every defender off from the edge
	Repetition          // a move brought about a position for the third time
	NoMoves             // the side to move had no legal move
	NoProgress          // too many moves without a capture: a draw
)

var reasonNames = []string{"", "king-escaped", "king-captured", "shieldwall", "edge-fort", "encirclement", "repetition", "no-moves", "no-progress"}

// String returns the reason's name, such as "edge-fort".
func (r Reason) String() string { return enumName(reasonNames, uint8(r)) }

// Outcome is how a game ended: who won, why, and on which ply (1 is the
// first move). The zero Outcome means the game goes on.
type Outcome struct {
	Winner Winner
	Reason Reason
	Ply    int32
}

// Over reports whether the game has ended.
func (o Outcome) Over() bool { return o.Winner != NoWinner }

func (o Outcome) String() string {
	if !o.Over() {
		return "ongoing"
	}
	return fmt.Sprintf("%s (%s, ply %d)", o.Winner, o.Reason, o.Ply)
}

// MaxMoves bounds the number of legal moves in any position: a move ends on
// an empty square, and each empty square can be reached from at most four
// directions. A move list with this capacity never grows.
const MaxMoves = 4 * numSquares

// undo is what Unmake needs to take a move back. The stack of them is also
// the game's history of positions (through hashBefore) for repetition.
type undo struct {
	captured     Bitboard // soldiers the move captured
	hashBefore   uint64   // the hash of the position the move was made in
	move         Move
	sinceCapture int32 // the no-progress count before the move
}

// Game is one game in progress under a Variant: the position, its history
// for repetition and unmake, and the outcome once the rules end the game.
//
// A Game is not safe for concurrent use; the Variant it plays may be shared.
type Game struct {
	v *Variant // immutable

	attackers Bitboard // attacker soldiers
	defenders Bitboard // defender soldiers, not the king
	king      Square
	toMove    Side
	// rows[r] and cols[f] hold the occupancy of rank r and file f, bit i for
	// file (or rank) i: the index of the sliding tables.
	rows, cols [MaxSize]uint16

	hash         uint64
	sinceCapture int32 // moves since the last capture or the start
	outcome      Outcome

	stack   []undo     // one per move made, oldest first
	scratch []Move     // for Play's legality check
	otMem   *otScratch // the OpenTafl referee's memory, made on first use
}

// NewGame starts a game from the rule set's start position.
func NewGame(v *Variant) *Game {
	g := &Game{v: v, stack: make([]undo, 0, 256)}
	g.reset(v.start)
	return g
}

// NewGameFrom starts a game from the given position. The position counts
// once toward repetition, the no-progress count starts at zero and the
// position itself is not judged (a king already in a corner does not end
// the game): the rules judge the positions that moves bring about.
func NewGameFrom(v *Variant, p Position) (*Game, error) {
	if err := v.checkPosition(p); err != nil {
		return nil, err
	}
	g := &Game{v: v, stack: make([]undo, 0, 256)}
	g.reset(p)
	return g, nil
}

// Reset starts the game again from the rule set's start position, keeping
// the memory it has.
func (g *Game) Reset() { g.reset(g.v.start) }

func (g *Game) reset(p Position) {
	g.attackers, g.defenders, g.king, g.toMove = p.Attackers, p.Defenders, p.King, p.ToMove
	g.rows, g.cols = [MaxSize]uint16{}, [MaxSize]uint16{}
	for occ := p.Occupied(); occ.Any(); {
		g.toggleLines(occ.PopFirst())
	}
	g.hash = hashPosition(p)
	g.sinceCapture, g.outcome = 0, Outcome{}
	g.stack = g.stack[:0]
}

// Variant returns the rule set the game is played under.
func (g *Game) Variant() *Variant { return g.v }

// Position returns the current position.
func (g *Game) Position() Position {
	return Position{Attackers: g.attackers, Defenders: g.defenders, King: g.king, ToMove: g.toMove, Size: uint8(g.v.def.Size)}
}

// ToMove returns the side whose turn it is (after the end: the side that
// would have moved next).
func (g *Game) ToMove() Side { return g.toMove }

// Hash returns the Zobrist hash of the current position (board and side to
// move). Hashes are the same in every run and on every machine.
func (g *Game) Hash() uint64 { return g.hash }

// Outcome returns how the game ended, or the zero Outcome while it goes on.
func (g *Game) Outcome() Outcome { return g.outcome }

// Ply returns the number of moves made since the start.
func (g *Game) Ply() int { return len(g.stack) }

// SinceCapture returns the number of moves made since the last capture (or
// the start): the no-progress count.
func (g *Game) SinceCapture() int { return int(g.sinceCapture) }

// LastMove returns the last move made and the soldiers it captured; NoMove
// at the start.
func (g *Game) LastMove() (Move, Bitboard) {
	if len(g.stack) == 0 {
		return NoMove, Bitboard{}
	}
	u := &g.stack[len(g.stack)-1]
	return u.move, u.captured
}

// Moves appends the moves made since the start, oldest first.
func (g *Game) Moves(dst []Move) []Move {
	for i := range g.stack {
		dst = append(dst, g.stack[i].move)
	}
	return dst
}

// Repetitions returns how many times the current position has stood in this
// game, counting now (1 for a position new to the game).
func (g *Game) Repetitions() int { return g.occurrencesBefore() + 1 }

// IsLegal reports whether m is a legal move now; a finished game has none.
// It is cheap (a table look-up, no allocation): search may call it freely.
func (g *Game) IsLegal(m Move) bool {
	from, to := m.From(), m.To()
	if g.outcome.Over() || int(from) >= numSquares || int(to) >= numSquares || !g.own(g.toMove).Has(from) {
		return false
	}
	f, r := squareFile[from], squareRank[from]
	tf, tr := squareFile[to], squareRank[to]
	switch {
	case from == to:
		return false
	case r == tr:
		stops := g.v.soldierStops[r]
		if from == g.king {
			stops = g.v.lineMask
		}
		return slide[f][g.rows[r]]&stops>>tf&1 != 0
	case f == tf:
		stops := g.v.soldierStops[f]
		if from == g.king {
			stops = g.v.lineMask
		}
		return slide[r][g.cols[f]]&stops>>tr&1 != 0
	}
	return false
}

// Play makes m if it is legal and returns an error saying why it is not
// otherwise: the game is over, no piece of the side to move stands on the
// from-square, the path is blocked, and so on.
func (g *Game) Play(m Move) error {
	if !g.IsLegal(m) {
		return errorf("move %s: %w", m, g.whyIllegal(m))
	}
	g.Make(m)
	return nil
}

// whyIllegal says why IsLegal refuses m.
func (g *Game) whyIllegal(m Move) error {
	if g.outcome.Over() {
		return fmt.Errorf("the game is over (%s)", g.outcome)
	}
	from, to := m.From(), m.To()
	if !g.v.OnBoard(from) || !g.v.OnBoard(to) {
		return fmt.Errorf("off the %dx%d board", g.v.def.Size, g.v.def.Size)
	}
	own := g.own(g.toMove)
	if !own.Has(from) {
		what := "no piece"
		switch {
		case g.attackers.Has(from):
			what = "an attacker"
		case g.defenders.Has(from):
			what = "a defender"
		case g.king == from:
			what = "the king"
		}
		return fmt.Errorf("%s to move, but %s stands on %s", g.toMove, what, from)
	}
	if from.File() != to.File() && from.Rank() != to.Rank() || from == to {
		return errors.New("not a move along one rank or file")
	}
	step := 1
	if from.File() == to.File() {
		step = MaxSize
	}
	if to < from {
		step = -step
	}
	occ := g.occupied()
	for s := int(from) + step; ; s += step {
		if occ.Has(Square(s)) {
			return fmt.Errorf("%s is occupied", Square(s))
		}
		if s == int(to) {
			break
		}
	}
	if from != g.king && g.v.restricted.Has(to) {
		return fmt.Errorf("only the king may stop on %s", to)
	}
	return errors.New("illegal") // IsLegal and this disagree: a bug
}

// own returns the pieces of side s, the king included for the defenders.
func (g *Game) own(s Side) Bitboard {
	if s == Attackers {
		return g.attackers
	}
	return g.defenders.With(g.king)
}

func (g *Game) occupied() Bitboard { return g.attackers.Or(g.defenders).With(g.king) }

// toggleLines flips square s in the rank and file occupancy.
func (g *Game) toggleLines(s Square) {
	f, r := squareFile[s], squareRank[s]
	g.rows[r] ^= 1 << f
	g.cols[f] ^= 1 << r
}

// occurrencesBefore counts the earlier occurrences of the current position.
// Only positions since the last capture can equal it (a capture removes a
// piece for good), and only every second one has the same side to move.
func (g *Game) occurrencesBefore() int {
	n := len(g.stack)
	oldest := n - int(g.sinceCapture)
	count := 0
	for i := n - 2; i >= oldest; i -= 2 {
		if g.stack[i].hashBefore == g.hash {
			count++
		}
	}
	return count
}

// Zobrist keys: fixed, generated by splitmix64 from a fixed seed, so that
// hashes are the same in every run.
var (
	zobristAttacker, zobristDefender, zobristKing [numSquares]uint64
	zobristDefendersToMove                        uint64
)

func init() {
	state := uint64(0x7af1ab5eed)
	next := func() uint64 { // splitmix64
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for s := range numSquares {
		zobristAttacker[s] = next()
		zobristDefender[s] = next()
		zobristKing[s] = next()
	}
	zobristDefendersToMove = next()
}

func hashPosition(p Position) uint64 {
	var h uint64
	for b := p.Attackers; b.Any(); {
		h ^= zobristAttacker[b.PopFirst()]
	}
	for b := p.Defenders; b.Any(); {
		h ^= zobristDefender[b.PopFirst()]
	}
	h ^= zobristKing[p.King]
	if p.ToMove == Defenders {
		h ^= zobristDefendersToMove
	}
	return h
}

// HashPosition returns the Zobrist hash a Game has in position p.
func HashPosition(p Position) uint64 { return hashPosition(p) }
