package rules_test

// Rule points: one table-driven test per topic of ../shared/spec/variants.md,
// the authority. Every case is played under each rule set it names, with the
// result that rule set must give, and in all 8 symmetries of the board: the
// position, the moves and the expected captures are mapped together.
//
// A case gives the pieces as square lists, the moves in notation and, per rule
// set, the captures of the last move and the outcome. The harness also checks
// that no earlier move ended the game, that the captured squares are empty
// afterwards and held enemy soldiers before, and that a finished game has no
// legal move while a game that goes on has one.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// Rule-set names. rpNoRep is copenhagen with repetition turned off, built by
// editing its Definition, for a no-progress case that a short shuttle can
// reach without a repetition ending the game first. rpRepDraw is copenhagen
// with repetition = "draw", a switch none of the four rule sets uses (it is
// there for rule sets of one's own and OpenTafl's tfr:d).
const (
	rpCop     = "copenhagen"
	rpFet     = "fetlar"
	rpCC      = "copenhagen-classic"
	rpH11     = "hnefatafl11"
	rpNoRep   = "copenhagen-norep"
	rpRepDraw = "copenhagen-repdraw"
)

var rpFour = []string{rpCop, rpFet, rpCC, rpH11}

// rpEdited are the rule sets made by editing copenhagen's repetition switch.
var rpEdited = map[string]rules.RepetitionRule{rpNoRep: rules.RepetitionNone, rpRepDraw: rules.RepetitionDraw}

var rpVariantCache = map[string]*rules.Variant{}

func rpVariant(t *testing.T, name string) *rules.Variant {
	t.Helper()
	if v, ok := rpVariantCache[name]; ok {
		return v
	}
	var v *rules.Variant
	if rep, ok := rpEdited[name]; ok {
		def := variants.MustLoad(rpCop).Definition()
		def.Name = name
		def.Repetition = rep
		var err error
		if v, err = rules.Compile(def); err != nil {
			t.Fatalf("compile %s: got %v, want no error", name, err)
		}
	} else {
		v = variants.MustLoad(name)
	}
	rpVariantCache[name] = v
	return v
}

// rpNotation writes position notation for the given pieces (space-separated
// square names) and side to move ("a" or "d"). It panics on a typo, such as a
// square named twice, so that a broken table never passes silently.
func rpNotation(att, def, king, side string) string {
	var grid [rules.MaxSize][rules.MaxSize]byte
	put := func(list string, c byte) {
		for _, name := range strings.Fields(list) {
			s, err := rules.ParseSquare(name)
			if err != nil {
				panic(err)
			}
			if grid[s.Rank()][s.File()] != 0 {
				panic("rulepoints: square " + name + " named twice")
			}
			grid[s.Rank()][s.File()] = c
		}
	}
	put(att, 'a')
	put(def, 'd')
	put(king, 'k')
	var b strings.Builder
	for r := rules.MaxSize - 1; r >= 0; r-- {
		empty := 0
		for f := range rules.MaxSize {
			if grid[r][f] == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteString(strconv.Itoa(empty))
				empty = 0
			}
			b.WriteByte(grid[r][f])
		}
		if empty > 0 {
			b.WriteString(strconv.Itoa(empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	b.WriteString(" " + side)
	return b.String()
}

// rpPosition parses the notation of the pieces and maps it by sym.
func rpPosition(t *testing.T, att, def, king, side string, sym rules.Symmetry) rules.Position {
	t.Helper()
	text := rpNotation(att, def, king, side)
	p, err := rules.ParsePosition(text)
	if err != nil {
		t.Fatalf("ParsePosition(%q): got %v, want no error", text, err)
	}
	return sym.Position(p)
}

// rpSide infers the side to move from the piece on the first move's square.
func rpSide(att string, moves []string) string {
	if len(moves) == 0 {
		return "a"
	}
	from, _, _ := strings.Cut(moves[0], "-")
	if slices.Contains(strings.Fields(att), from) {
		return "a"
	}
	return "d"
}

func rpSquares(t *testing.T, list string, sym rules.Symmetry) rules.Bitboard {
	t.Helper()
	var b rules.Bitboard
	for _, name := range strings.Fields(list) {
		s, err := rules.ParseSquare(name)
		if err != nil {
			t.Fatalf("bad square %q in the table: %v", name, err)
		}
		b = b.With(sym.Square(s, rules.MaxSize))
	}
	return b
}

// rpNames writes a set of squares as names, for messages.
func rpNames(b rules.Bitboard) string {
	var names []string
	for _, s := range b.Squares(nil) {
		names = append(names, s.String())
	}
	return "{" + strings.Join(names, " ") + "}"
}

func rpMove(t *testing.T, text string, sym rules.Symmetry) rules.Move {
	t.Helper()
	m, _, err := rules.ParseMove(text)
	if err != nil {
		t.Fatalf("bad move %q in the table: %v", text, err)
	}
	return sym.Move(m, rules.MaxSize)
}

// rpWant is what one rule set must make of a case: the squares the last move
// captures, and the outcome after it.
type rpWant struct {
	caps   string
	winner rules.Winner
	reason rules.Reason
}

func (w rpWant) String() string {
	if w.winner == rules.NoWinner {
		return "ongoing"
	}
	return fmt.Sprintf("%v (%v)", w.winner, w.reason)
}

// goesOn: the game goes on after the last move, which captured caps.
func goesOn(caps string) rpWant { return rpWant{caps: caps} }

// ends: the last move, which captured caps, ended the game.
func ends(w rules.Winner, r rules.Reason, caps string) rpWant {
	return rpWant{caps: caps, winner: w, reason: r}
}

// every: the same result under all four rule sets.
func every(w rpWant) map[string]rpWant {
	return map[string]rpWant{rpCop: w, rpFet: w, rpCC: w, rpH11: w}
}

// bySet: a result per rule set.
func bySet(cop, fet, cc, h11 rpWant) map[string]rpWant {
	return map[string]rpWant{rpCop: cop, rpFet: fet, rpCC: cc, rpH11: h11}
}

// extras: one result for the rule sets with edge fort and encirclement
// (copenhagen, copenhagen-classic), another for the plain ones.
func extras(with, without rpWant) map[string]rpWant {
	return bySet(with, without, with, without)
}

// edgeKing: one result for hnefatafl11, whose king can be taken on the edge,
// another for the rest.
func edgeKing(h11, others rpWant) map[string]rpWant {
	return bySet(others, others, others, h11)
}

type rpCase struct {
	name           string
	att, def, king string   // square lists
	side           string   // "a" or "d"; empty: the side of the first move's piece
	moves          []string // in notation, "from-to"
	want           map[string]rpWant
}

func mv(moves ...string) []string { return moves }

// rpShuttle returns n moves alternating between two pieces, the first moving
// first; each piece walks the squares of its list in order and back to the
// first, one move a step.
func rpShuttle(n int, first, second string) []string {
	a, b := strings.Fields(first), strings.Fields(second)
	var out []string
	for i := range n {
		cycle, k := a, i/2
		if i%2 == 1 {
			cycle = b
		}
		out = append(out, cycle[k%len(cycle)]+"-"+cycle[(k+1)%len(cycle)])
	}
	return out
}

func rpRun(t *testing.T, cases []rpCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			names := append([]string(nil), rpFour...)
			for _, name := range []string{rpNoRep, rpRepDraw} {
				if _, ok := c.want[name]; ok {
					names = append(names, name)
				}
			}
			for _, name := range names {
				want, ok := c.want[name]
				if !ok {
					continue
				}
				t.Run(name, func(t *testing.T) {
					v := rpVariant(t, name)
					for sym := range rules.Symmetry(rules.NumSymmetries) {
						t.Run(fmt.Sprintf("sym%d", sym), func(t *testing.T) {
							rpPlay(t, c, v, want, sym)
						})
					}
				})
			}
		})
	}
}

func rpPlay(t *testing.T, c rpCase, v *rules.Variant, want rpWant, sym rules.Symmetry) {
	side := c.side
	if side == "" {
		side = rpSide(c.att, c.moves)
	}
	p := rpPosition(t, c.att, c.def, c.king, side, sym)
	g, err := rules.NewGameFrom(v, p)
	if err != nil {
		t.Fatalf("NewGameFrom: got %v, want no error", err)
	}
	before := g.Position()
	for i, text := range c.moves {
		m := rpMove(t, text, sym)
		before = g.Position()
		if err := g.Play(m); err != nil {
			t.Fatalf("move %d %s (%v): got %v, want a legal move", i+1, text, m, err)
		}
		if i < len(c.moves)-1 && g.Outcome().Over() {
			t.Fatalf("after move %d %s: got %v, want the game to go on", i+1, text, g.Outcome())
		}
	}
	wantCaps := rpSquares(t, want.caps, sym)
	_, caps := g.LastMove()
	if caps != wantCaps {
		t.Errorf("captures of the last move: got %v, want %v", rpNames(caps), rpNames(wantCaps))
	}
	o := g.Outcome()
	got := rpWant{winner: o.Winner, reason: o.Reason}
	if got.winner != want.winner || got.reason != want.reason {
		t.Errorf("outcome: got %v, want %v", got, want)
	}
	if o.Over() && int(o.Ply) != len(c.moves) {
		t.Errorf("outcome ply: got %d, want %d", o.Ply, len(c.moves))
	}

	// The captured soldiers were the opponent's and are gone.
	after := g.Position()
	victims := before.Defenders
	if before.ToMove == rules.Defenders {
		victims = before.Attackers
	}
	if !caps.SubsetOf(victims) {
		t.Errorf("captured squares that held no enemy soldier: got %v, want a subset of %v", rpNames(caps), rpNames(victims))
	}
	if after.Occupied().Intersects(caps) {
		t.Errorf("captured squares still occupied: got %v, want none", rpNames(after.Occupied().And(caps)))
	}
	if gotN, wantN := after.Occupied().Count(), before.Occupied().Count()-caps.Count(); gotN != wantN {
		t.Errorf("pieces on the board: got %d, want %d", gotN, wantN)
	}
	// A finished game has no move; a game that goes on has one (else the
	// no-moves rule would have ended it).
	moves := g.GenerateMoves(nil)
	if o.Over() && len(moves) != 0 {
		t.Errorf("moves after the end: got %d, want 0", len(moves))
	}
	if !o.Over() && len(moves) == 0 {
		t.Errorf("moves of the side to move in a game that goes on: got 0, want some")
	}
}

// TestRulePointCapture: custodial capture of soldiers ("Capture" and
// "Hostile squares" in the spec), the same in every rule set.
func TestRulePointCapture(t *testing.T) {
	rpRun(t, []rpCase{
		{name: "attackers capture a defender", att: "c5 e8", def: "d5", king: "h9",
			moves: mv("e8-e5"), want: every(goesOn("d5"))},
		{name: "defenders capture an attacker", att: "d5 h2", def: "c5 e8", king: "h9",
			moves: mv("e8-e5"), want: every(goesOn("d5"))},
		{name: "the king is armed: he is the far piece", att: "d5 h2", def: "e8", king: "c5",
			moves: mv("e8-e5"), want: every(goesOn("d5"))},
		{name: "the king is armed: he makes the capture", att: "d5 h2", def: "c5", king: "e8",
			moves: mv("e8-e5"), want: every(goesOn("d5"))},
		{name: "attackers capture on three sides at once", att: "c5 e7 e3 h5", def: "d5 e6 e4", king: "h9",
			moves: mv("h5-e5"), want: every(goesOn("d5 e4 e6"))},
		{name: "defenders capture on three sides at once", att: "d5 e6 e4 j2", def: "c5 e7 e3 h5", king: "h9",
			moves: mv("h5-e5"), want: every(goesOn("d5 e4 e6"))},
		{name: "only the closed sides are captured", att: "c5 e7 h5", def: "d5 e6 e4", king: "h9",
			moves: mv("h5-e5"), want: every(goesOn("d5 e6"))},
		{name: "a corner is hostile to defenders", att: "c4", def: "b1", king: "h9",
			moves: mv("c4-c1"), want: every(goesOn("b1"))},
		{name: "a corner is hostile to attackers", att: "b1 j9", def: "c4", king: "h9",
			moves: mv("c4-c1"), want: every(goesOn("b1"))},
		{name: "the empty throne is hostile to defenders", att: "c4", def: "f5", king: "h9",
			moves: mv("c4-f4"), want: every(goesOn("f5"))},
		{name: "the empty throne is hostile to attackers", att: "e6 j2", def: "d9", king: "h9",
			moves: mv("d9-d6"), want: every(goesOn("e6"))},
		{name: "the king's throne is not hostile to defenders", att: "c4", def: "f5", king: "f6",
			moves: mv("c4-f4"), want: every(goesOn(""))},
		{name: "the king's throne is hostile to attackers", att: "f5 j2", def: "c4", king: "f6",
			moves: mv("c4-f4"), want: every(goesOn("f5"))},
		{name: "the throne turns hostile to defenders when the king leaves", att: "c4", def: "f5", king: "f6",
			moves: mv("f6-f9", "c4-f4"), want: every(goesOn("f5"))},
		{name: "a defender may move between two attackers", att: "c5 e5 j2", def: "d8", king: "h9",
			moves: mv("d8-d5"), want: every(goesOn(""))},
		{name: "an attacker may move between two defenders", att: "d8", def: "c5 e5", king: "h9",
			moves: mv("d8-d5"), want: every(goesOn(""))},
		{name: "passive: a standing trap captures nothing", att: "c5 e5 b8", def: "d5", king: "h9",
			moves: mv("b8-b5"), want: every(goesOn(""))},
		{name: "two soldiers in a line are not captured", att: "c5 h5", def: "d5 e5", king: "h9",
			moves: mv("h5-f5"), want: every(goesOn(""))},
		{name: "the edge is not hostile to a defender", att: "b8", def: "a5", king: "h9",
			moves: mv("b8-b5"), want: every(goesOn(""))},
		{name: "the edge is not hostile to an attacker", att: "a5 j2", def: "b8", king: "h9",
			moves: mv("b8-b5"), want: every(goesOn(""))},
		{name: "the king is not captured between two attackers", att: "c5 e8", king: "d5",
			moves: mv("e8-e5"), want: every(goesOn(""))},
		{name: "the king may return to the throne", att: "c3", def: "h3", king: "f6",
			moves: mv("f6-f9", "c3-c4", "f9-f6"), want: every(goesOn(""))},
	})
}

// TestRulePointKing: capturing the king (the table's "king captured" row and
// "only actively") and his escape.
func TestRulePointKing(t *testing.T) {
	kc := ends(rules.AttackersWin, rules.KingCaptured, "")
	rpRun(t, []rpCase{
		{name: "four attackers capture the king", att: "b8 d8 c9 g7", def: "h3", king: "c8",
			moves: mv("g7-c7"), want: every(kc)},
		{name: "beside the throne three attackers and the empty throne", att: "e7 g7 i8", def: "c3", king: "f7",
			moves: mv("i8-f8"), want: every(kc)},
		{name: "beside the throne two attackers are not enough", att: "e7 i8", def: "c3", king: "f7",
			moves: mv("i8-f8"), want: every(goesOn(""))},
		{name: "on the throne four attackers", att: "e6 g6 f5 i7", def: "c3", king: "f6",
			moves: mv("i7-f7"), want: every(kc)},
		{name: "on the throne three attackers are not enough", att: "e6 g6 i7", def: "c3", king: "f6",
			moves: mv("i7-f7"), want: every(goesOn(""))},
		{name: "a defender among the four blocks", att: "b8 c9 g7", def: "d8", king: "c8",
			moves: mv("g7-c7"), want: every(goesOn(""))},
		{name: "the king and a soldier captured by one move", att: "b8 d8 c9 g7 a7", def: "b7", king: "c8",
			moves: mv("g7-c7"), want: every(ends(rules.AttackersWin, rules.KingCaptured, "b7"))},
		{name: "edge: three attackers (hnefatafl11 only)", att: "a5 a7 b9", def: "h3", king: "a6",
			moves: mv("b9-b6"), want: edgeKing(kc, goesOn(""))},
		{name: "edge: two attackers beside a corner (hnefatafl11 only)", att: "a3 b5", def: "h3", king: "a2",
			moves: mv("b5-b2"), want: edgeKing(kc, goesOn(""))},
		{name: "edge: two attackers away from a corner are not enough", att: "a5 b9", def: "h3", king: "a6",
			moves: mv("b9-b6"), want: every(goesOn(""))},
		{name: "edge: a defender among the three blocks", att: "a5 b9", def: "a7", king: "a6",
			moves: mv("b9-b6"), want: every(goesOn(""))},
		{name: "the king walks into a surround beside the throne", att: "e7 g7 f8 c3", def: "h3", king: "f6",
			moves: mv("f6-f7", "c3-c2"), want: every(goesOn(""))},
		{name: "the walked-into surround is closed only by a move next to him", att: "e7 g7 f8 c3", def: "h3", king: "f6",
			moves: mv("f6-f7", "c3-c2", "h3-h2", "e7-e8", "h2-h3", "e8-e7"), want: every(kc)},
		{name: "edge: the king walks between two attackers", att: "a4 a6 c9 e5", def: "h3", king: "b5",
			moves: mv("b5-a5", "c9-c8"), want: every(goesOn(""))},
		{name: "edge: then an attacker's move next to him (hnefatafl11 only)", att: "a4 a6 c9 e5", def: "h3", king: "b5",
			moves: mv("b5-a5", "c9-c8", "h3-h4", "e5-b5"), want: edgeKing(kc, goesOn(""))},
		{name: "the king escapes to a corner", att: "c3", def: "h3", king: "a5",
			moves: mv("a5-a1"), want: every(ends(rules.DefendersWin, rules.KingEscaped, ""))},
		{name: "the king escapes along the far edge", att: "c3", def: "h3", king: "f11",
			moves: mv("f11-k11"), want: every(ends(rules.DefendersWin, rules.KingEscaped, ""))},
	})
}

// TestRulePointShieldwall: "Shieldwall, exactly". copenhagen: attackers only,
// a sweep wins; copenhagen-classic: both sides, a capture; fetlar and
// hnefatafl11: none, only ordinary captures.
func TestRulePointShieldwall(t *testing.T) {
	// sweep: the result of a sweep of caps by the attackers, per rule set.
	sweep := func(caps string) map[string]rpWant {
		return bySet(ends(rules.AttackersWin, rules.Shieldwall, caps), goesOn(""), goesOn(caps), goesOn(""))
	}
	// classic: a sweep by the defenders, which only copenhagen-classic has.
	classic := func(caps string) map[string]rpWant {
		return bySet(goesOn(""), goesOn(""), goesOn(caps), goesOn(""))
	}
	rpRun(t, []rpCase{
		{name: "attackers sweep a row of two", att: "c2 d2 e1 b5", def: "c1 d1", king: "h8",
			moves: mv("b5-b1"), want: sweep("c1 d1")},
		{name: "attackers sweep a row of three", att: "c2 d2 e2 f1 b5", def: "c1 d1 e1", king: "h8",
			moves: mv("b5-b1"), want: sweep("c1 d1 e1")},
		{name: "a corner closes the far end", att: "b2 c2 d5", def: "b1 c1", king: "h8",
			moves: mv("d5-d1"), want: sweep("b1 c1")},
		{name: "the moving piece may close either end", att: "b1 c2 d2 e5", def: "c1 d1", king: "h8",
			moves: mv("e5-e1"), want: sweep("c1 d1")},
		{name: "the king in the row with a front is not captured", att: "c2 d2 e1 b5", def: "c1 h3", king: "d1",
			moves: mv("b5-b1"), want: sweep("c1")},
		{name: "the king in the middle of the row", att: "c2 d2 e2 f1 b5", def: "c1 e1 h3", king: "d1",
			moves: mv("b5-b1"), want: sweep("c1 e1")},
		{name: "the king in the row needs a front", att: "c2 e1 b5", def: "c1", king: "d1",
			moves: mv("b5-b1"), want: every(goesOn(""))},
		{name: "an unfronted member breaks the row", att: "c2 e2 f1 b5", def: "c1 d1 e1", king: "h8",
			moves: mv("b5-b1"), want: every(goesOn(""))},
		{name: "the far end open: no sweep", att: "c2 d2 b5", def: "c1 d1", king: "h8",
			moves: mv("b5-b1"), want: every(goesOn(""))},
		{name: "completing the front last does not sweep", att: "b1 e1 c2 d5", def: "c1 d1", king: "h8",
			moves: mv("d5-d2"), want: every(goesOn(""))},
		{name: "a row of one is only an ordinary capture", att: "c2 d1 b5", def: "c1", king: "h8",
			moves: mv("b5-b1"), want: every(goesOn("c1"))},
		{name: "a sweep and an ordinary capture on one move", att: "b1 c2 d2 g1 e5", def: "c1 d1 f1", king: "h8",
			moves: mv("e5-e1"),
			want:  bySet(ends(rules.AttackersWin, rules.Shieldwall, "c1 d1 f1"), goesOn("f1"), goesOn("c1 d1 f1"), goesOn("f1"))},
		{name: "two rows swept by one move", att: "b2 c2 e2 f2 g1 d5", def: "b1 c1 e1 f1", king: "h8",
			moves: mv("d5-d1"), want: sweep("b1 c1 e1 f1")},
		{name: "defenders sweep, the king closes the far end", att: "c1 d1 h9", def: "c2 d2 b5", king: "e1",
			moves: mv("b5-b1"), want: classic("c1 d1")},
		{name: "defenders sweep, the king stands in the front", att: "c1 d1 h9", def: "c2 e1 b5", king: "d2",
			moves: mv("b5-b1"), want: classic("c1 d1")},
		{name: "defenders sweep, the king makes the sweep", att: "c1 d1 h9", def: "c2 d2 e1", king: "b5",
			moves: mv("b5-b1"), want: classic("c1 d1")},
		{name: "defenders sweep against a corner", att: "b1 c1 h9", def: "b2 c2 d5", king: "h8",
			moves: mv("d5-d1"), want: classic("b1 c1")},
		{name: "defenders: completing the front last does not sweep", att: "c1 d1 h9", def: "b1 e1 c2 d5", king: "h8",
			moves: mv("d5-d2"), want: every(goesOn(""))},
	})
}

// TestRulePointEdgeFort: "Edge fort, exactly" (copenhagen and
// copenhagen-classic), judged after a defenders' move only.
func TestRulePointEdgeFort(t *testing.T) {
	fort := extras(ends(rules.DefendersWin, rules.EdgeFort, ""), goesOn(""))
	rpRun(t, []rpCase{
		{name: "a small fort", att: "h9", def: "d1 e2 f2 g5", king: "e1",
			moves: mv("g5-g1"), want: fort},
		{name: "a larger fort", att: "c9", def: "f1 f2 f3 f4 f5 j1 j2 j3 j4 j5 g6 i6 h9", king: "h1",
			moves: mv("h9-h6"), want: fort},
		{name: "a fort in a corner", att: "h8", def: "a3 b3 c1 c2", king: "b2",
			moves: mv("b2-b1"), want: fort},
		{name: "an attacker in the wall", att: "g1 h9", def: "d1 e5 f2", king: "e1",
			moves: mv("e5-e2"), want: every(goesOn(""))},
		{name: "a wall defender that can be captured", att: "h9", def: "d1 e2 g1 g2 f5", king: "e1",
			moves: mv("f5-f3"), want: every(goesOn(""))},
		{name: "a wall two men thick is not seen", att: "h9", def: "d1 e2 g1 g2 f5 e3 g3", king: "e1",
			moves: mv("f5-f3"), want: every(goesOn(""))},
		{name: "no empty square for the king", att: "h9", def: "d1 e2 f5", king: "e1",
			moves: mv("f5-f1"), want: every(goesOn(""))},
		{name: "the king not on the edge", att: "h9", def: "d1 d2 g1 g2 e3 f5", king: "e2",
			moves: mv("f5-f3"), want: every(goesOn(""))},
		{name: "the king steps onto the edge of the same fort", att: "h9", def: "d1 d2 g1 g2 e3 f5", king: "e2",
			moves: mv("f5-f3", "h9-h8", "e2-e1"), want: fort},
		{name: "the king off the edge of a corner fort", att: "h8", def: "a3 b3 c1 c2", king: "b1",
			moves: mv("b1-b2"), want: every(goesOn(""))},
		{name: "a man beside an empty corner inside the fort is not safe", att: "h9", def: "a2 b2 c5", king: "b1",
			moves: mv("c5-c1"), want: every(goesOn(""))},
		{name: "a man beside the empty throne inside the fort is not safe", att: "c9",
			def: "d1 d2 d3 d4 d5 d6 h1 h2 h3 h4 h5 h6 e7 g7 f10", king: "f1",
			moves: mv("f10-f7"), want: every(goesOn(""))},
		{name: "not judged after an attackers' move", att: "h9", def: "d1 e2 f2 g1 j3", king: "e1",
			moves: mv("h9-h8"), want: every(goesOn(""))},
		{name: "judged after any defenders' move", att: "h9", def: "d1 e2 f2 g1 j3", king: "e1",
			moves: mv("h9-h8", "j3-j4"), want: fort},
	})
}

// TestRulePointEncirclement: "Encirclement, exactly" (copenhagen and
// copenhagen-classic), judged after an attackers' move only.
func TestRulePointEncirclement(t *testing.T) {
	enc := extras(ends(rules.AttackersWin, rules.Encirclement, ""), goesOn(""))
	rpRun(t, []rpCase{
		{name: "the attackers close the ring", att: "b8 d8 c7 b9 d9 h10", king: "c8",
			moves: mv("h10-c10"), want: enc},
		{name: "separate pockets count", att: "b8 d8 c7 b9 d9 c10 h4 j4 h3 j3 i2 i9", def: "i4", king: "c8",
			moves: mv("i9-i5"), want: enc},
		{name: "a gap to the edge", att: "b8 d8 c7 b9 d9 c10 h4 j4 h3 j3 i9", def: "i4", king: "c8",
			moves: mv("i9-i5"), want: every(goesOn(""))},
		{name: "a defender on the edge is not encircled", att: "b8 d8 c7 b9 d9 h10 a4 a6 b5", def: "a5", king: "c8",
			moves: mv("h10-c10"), want: every(goesOn(""))},
		{name: "a defender outside the ring", att: "b8 d8 c7 b9 d9 h2", def: "c10", king: "c8",
			moves: mv("h2-h3"), want: every(goesOn(""))},
		{name: "not judged after a defenders' move", att: "b8 d8 c7 b9 d9 c10 h2", king: "c8",
			moves: mv("c8-c9"), want: every(goesOn(""))},
		{name: "judged after any attackers' move", att: "b8 d8 c7 b9 d9 c10 h2", king: "c8",
			moves: mv("c8-c9", "h2-h3"), want: enc},
	})
}

// TestRulePointRepetition: the third occurrence of a position (board and side
// to move; the given start counts once). The mover loses, except in
// copenhagen-classic, where only the defenders lose by it, and under
// repetition = "draw", where either side's move into it draws.
func TestRulePointRepetition(t *testing.T) {
	defLose := ends(rules.AttackersWin, rules.Repetition, "")
	attLose := ends(rules.DefendersWin, rules.Repetition, "")
	draw := ends(rules.Draw, rules.Repetition, "")
	rpRun(t, []rpCase{
		{name: "the defenders bring about the third occurrence of the start", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(8, "c3 c4", "i3 i4"), want: every(defLose)},
		{name: "the attackers bring about the third occurrence of the start", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(8, "i3 i4", "c3 c4"), want: bySet(attLose, attLose, goesOn(""), attLose)},
		{name: "classic: the defenders' next repetition loses", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(9, "i3 i4", "c3 c4"), want: map[string]rpWant{rpCC: defLose}},
		{name: "the side to move is part of the position", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(24, "c3 c4 c5", "i3 i4"), want: every(defLose)},
		{name: "no repetition rule: no end at the third occurrence", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(8, "c3 c4", "i3 i4"), want: map[string]rpWant{rpNoRep: goesOn("")}},
		{name: "draw: the defenders' move into the third occurrence draws", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(8, "c3 c4", "i3 i4"), want: map[string]rpWant{rpRepDraw: draw}},
		{name: "draw: the attackers' move into the third occurrence draws", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(8, "i3 i4", "c3 c4"), want: map[string]rpWant{rpRepDraw: draw}},
		{name: "draw: the second occurrence goes on", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(4, "i3 i4", "c3 c4"), want: map[string]rpWant{rpRepDraw: goesOn("")}},
		{name: "draw: the side to move is part of the position", att: "c3", def: "i3", king: "f9",
			moves: rpShuttle(24, "c3 c4 c5", "i3 i4"), want: map[string]rpWant{rpRepDraw: draw}},
	})
}

// TestRulePointNoProgress: a draw after 100 moves without a capture, counted
// from zero at the given start.
func TestRulePointNoProgress(t *testing.T) {
	draw := ends(rules.Draw, rules.NoProgress, "")
	// Cycles of 5 and 6 squares: no position stands three times in 100 moves.
	const x, y = "c3 c4 c5 c6 c7", "i3 i4 i5 i6 i7 i8"
	rpRun(t, []rpCase{
		{name: "the 100th move without a capture draws", att: "c3", def: "i3", king: "g8",
			moves: rpShuttle(100, x, y), want: every(draw)},
		// Ten quiet moves, a capture, then a hundred more: the draw comes on
		// move 111, not 100. After five moves each, the 5-cycle is back on c3
		// and the 6-cycle stands on i8.
		{name: "a capture starts the count again", att: "c3 d10 g10", def: "i3 e10", king: "g8",
			moves: slices.Concat(rpShuttle(10, x, y), mv("g10-f10"), rpShuttle(100, "i8 i3 i4 i5 i6 i7", x)),
			want:  every(draw)},
		{name: "a 2-move shuttle draws where repetition is off", att: "c3", def: "i3", king: "g8",
			moves: rpShuttle(100, "c3 c4", "i3 i4"), want: map[string]rpWant{rpNoRep: draw}},
	})
}

// TestRulePointNoMoves: a side with no legal move when it is to move loses.
func TestRulePointNoMoves(t *testing.T) {
	rpRun(t, []rpCase{
		{name: "the attackers' last piece is walled in", att: "a2", def: "a3 b5", king: "f9",
			moves: mv("b5-b2"), want: every(ends(rules.DefendersWin, rules.NoMoves, ""))},
		{name: "the king alone is walled in on the edge", att: "a5 a7 b9", king: "a6",
			moves: mv("b9-b6"),
			want:  edgeKing(ends(rules.AttackersWin, rules.KingCaptured, ""), ends(rules.AttackersWin, rules.NoMoves, ""))},
	})
}

// TestRulePointOrder: several endings on one move. The spec's order: king
// escaped or captured, shieldwall, edge fort or encirclement, repetition, no
// moves, no progress; the first that applies ends the game.
func TestRulePointOrder(t *testing.T) {
	rpRun(t, []rpCase{
		{name: "escape with a capture", att: "b1 h8", def: "c1", king: "a5",
			moves: mv("a5-a1"), want: every(ends(rules.DefendersWin, rules.KingEscaped, "b1"))},
		{name: "escape into a corner that closes a shieldwall (classic)", att: "a2 a3 h9", def: "b2 b3 a4", king: "c1",
			moves: mv("c1-a1"),
			want: bySet(ends(rules.DefendersWin, rules.KingEscaped, ""), ends(rules.DefendersWin, rules.KingEscaped, ""),
				ends(rules.DefendersWin, rules.KingEscaped, "a2 a3"), ends(rules.DefendersWin, rules.KingEscaped, ""))},
		{name: "escape comes before the edge fort", att: "h8", def: "a3 b3 c1 c2", king: "a2",
			moves: mv("a2-a1"), want: every(ends(rules.DefendersWin, rules.KingEscaped, ""))},
		{name: "king capture comes before the shieldwall", att: "b1 c2 d2 f2 e3 h1", def: "c1 d1", king: "e2",
			moves: mv("h1-e1"),
			want: bySet(ends(rules.AttackersWin, rules.KingCaptured, "c1 d1"), ends(rules.AttackersWin, rules.KingCaptured, ""),
				ends(rules.AttackersWin, rules.KingCaptured, "c1 d1"), ends(rules.AttackersWin, rules.KingCaptured, ""))},
		{name: "king capture comes before encirclement", att: "b8 d8 c9 g7", king: "c8",
			moves: mv("g7-c7"), want: every(ends(rules.AttackersWin, rules.KingCaptured, ""))},
		{name: "shieldwall win comes before encirclement", att: "c2 d2 e1 b5 b8 d8 c7 b9 d9 c10", def: "c1 d1", king: "c8",
			moves: mv("b5-b1"),
			want: bySet(ends(rules.AttackersWin, rules.Shieldwall, "c1 d1"), goesOn(""),
				ends(rules.AttackersWin, rules.Encirclement, "c1 d1"), goesOn(""))},
		{name: "edge fort comes before no moves", att: "a2", def: "d1 e2 f2 g5 a3 b2", king: "e1",
			moves: mv("g5-g1"),
			want:  extras(ends(rules.DefendersWin, rules.EdgeFort, ""), ends(rules.DefendersWin, rules.NoMoves, ""))},
		{name: "encirclement comes before no moves", att: "a8 e8 c6 b7 d7 b9 d9 h10", def: "b8 d8 c7 c9", king: "c8",
			moves: mv("h10-c10"),
			want:  extras(ends(rules.AttackersWin, rules.Encirclement, ""), ends(rules.AttackersWin, rules.NoMoves, ""))},
		{name: "the defenders capture the last attacker: no moves", att: "d5", def: "c5 e8", king: "h9",
			moves: mv("e8-e5"), want: every(ends(rules.DefendersWin, rules.NoMoves, "d5"))},
		{name: "a capture leaves the defenders no move; the walled king is not taken passively",
			att: "a5 a7 b6 c5 e8", def: "d5", king: "a6",
			moves: mv("e8-e5"), want: every(ends(rules.AttackersWin, rules.NoMoves, "d5"))},
		// A 25-square loop and a 5-square shuttle: the start stands for the
		// third time after exactly 100 moves, and no position before.
		{name: "repetition comes before the no-progress draw", att: "b2", def: "j3", king: "d6",
			moves: rpShuttle(100, "b2 b4 b5 b6 b7 b8 b9 c9 d9 e9 f9 g9 h9 h8 h7 h6 h5 h4 h3 h2 g2 f2 e2 d2 c2", "j3 j4 j5 j6 j7"),
			want: map[string]rpWant{rpCop: ends(rules.AttackersWin, rules.Repetition, ""), rpFet: ends(rules.AttackersWin, rules.Repetition, ""),
				rpCC: ends(rules.AttackersWin, rules.Repetition, ""), rpH11: ends(rules.AttackersWin, rules.Repetition, ""),
				rpNoRep: ends(rules.Draw, rules.NoProgress, ""), rpRepDraw: ends(rules.Draw, rules.Repetition, "")}},
		{name: "no moves comes before the no-progress draw", att: "a2", def: "a3 b5 i3", king: "g8",
			moves: append(rpShuttle(99, "a2 c2 d2 e2 f2", "i3 i4 i5 i6 i7 i8"), "b5-b2"),
			want:  every(ends(rules.DefendersWin, rules.NoMoves, ""))},
		{name: "escape comes before the no-progress draw", att: "c3", def: "i3", king: "k5",
			moves: append(rpShuttle(99, "c3 c4 c5 c6 c7", "i3 i4 i5 i6 i7 i8"), "k5-k1"),
			want:  every(ends(rules.DefendersWin, rules.KingEscaped, ""))},
	})
}

// TestRulePointMovement: rook moves over empty squares; only the king stops
// on the throne or a corner; anyone passes the empty throne, nobody the
// occupied one. IsLegal, GenerateMoves and Play must agree.
func TestRulePointMovement(t *testing.T) {
	type moveCase struct {
		name           string
		att, def, king string
		side           string
		move           string
		legal          bool
	}
	cases := []moveCase{
		{"a soldier slides along a file", "c3", "h2", "h9", "a", "c3-c9", true},
		{"a soldier slides along a rank", "c3", "h2", "h9", "a", "c3-k3", true},
		{"a defender slides", "c3", "h2", "h9", "d", "h2-b2", true},
		{"no jumping over a piece", "c3", "c6", "h9", "a", "c3-c8", false},
		{"up to the blocking piece", "c3", "c6", "h9", "a", "c3-c5", true},
		{"not onto an occupied square", "c3", "c6", "h9", "a", "c3-c6", false},
		{"not onto an own piece", "c3 c6", "h2", "h9", "a", "c3-c6", false},
		{"not diagonally", "c3", "h2", "h9", "a", "c3-d4", false},
		{"not the opponent's piece", "c3", "h2", "h9", "a", "h2-h4", false},
		{"not from an empty square", "c3", "h2", "h9", "a", "d3-d4", false},
		{"an attacker may not stop on the empty throne", "f3", "h2", "h9", "a", "f3-f6", false},
		{"a defender may not stop on the empty throne", "c3", "d6", "h9", "d", "d6-f6", false},
		{"an attacker passes over the empty throne", "f3", "h2", "h9", "a", "f3-f9", true},
		{"a defender passes over the empty throne", "c3", "d6", "h9", "d", "d6-j6", true},
		{"no passing over the occupied throne", "f3", "h2", "f6", "a", "f3-f9", false},
		{"a defender does not pass the king's throne", "c3", "d6", "f6", "d", "d6-j6", false},
		{"an attacker may not stop on a corner", "a5", "h2", "h9", "a", "a5-a1", false},
		{"an attacker may stop beside a corner", "a5", "h2", "h9", "a", "a5-a2", true},
		{"a defender may not stop on a corner", "c3", "k3", "h9", "d", "k3-k1", false},
		{"the king may stop on a corner", "c3", "h2", "a5", "d", "a5-a1", true},
		{"the king may stop on the throne", "c3", "h2", "f3", "d", "f3-f6", true},
		{"the king passes over the throne", "c3", "h2", "f3", "d", "f3-f9", true},
		{"the king slides like a rook", "c3", "h2", "e5", "d", "e5-e11", true},
		{"the king does not jump", "c3 e8", "h2", "e5", "d", "e5-e11", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, name := range rpFour {
				v := rpVariant(t, name)
				t.Run(name, func(t *testing.T) {
					for sym := range rules.Symmetry(rules.NumSymmetries) {
						t.Run(fmt.Sprintf("sym%d", sym), func(t *testing.T) {
							g, err := rules.NewGameFrom(v, rpPosition(t, c.att, c.def, c.king, c.side, sym))
							if err != nil {
								t.Fatalf("NewGameFrom: got %v, want no error", err)
							}
							m := rpMove(t, c.move, sym)
							if got := g.IsLegal(m); got != c.legal {
								t.Errorf("IsLegal(%v): got %v, want %v", m, got, c.legal)
							}
							if got := slices.Contains(g.GenerateMoves(nil), m); got != c.legal {
								t.Errorf("GenerateMoves holds %v: got %v, want %v", m, got, c.legal)
							}
							before := g.Position()
							err = g.Play(m)
							if got := err == nil; got != c.legal {
								t.Fatalf("Play(%v) succeeds: got %v (%v), want %v", m, got, err, c.legal)
							}
							if !c.legal {
								if g.Position() != before {
									t.Errorf("position after a refused move: got %v, want %v", g.Position(), before)
								}
								return
							}
							occ := g.Position().Occupied()
							if occ.Has(m.From()) || !occ.Has(m.To()) {
								t.Errorf("after %v: %v occupied %v, %v occupied %v; want false, true", m, m.From(), occ.Has(m.From()), m.To(), occ.Has(m.To()))
							}
						})
					}
				})
			}
		})
	}
}

// TestRulePointMoveTargets: the full set of squares one piece reaches, from
// GenerateMoves.
func TestRulePointMoveTargets(t *testing.T) {
	type targetCase struct {
		name           string
		att, def, king string
		side           string
		from           string
		to             string
	}
	cases := []targetCase{
		{"an attacker on an open board skips the throne", "f2", "h9", "b9", "a", "f2",
			"a2 b2 c2 d2 e2 g2 h2 i2 j2 k2 f1 f3 f4 f5 f7 f8 f9 f10 f11"},
		{"the king on an open board may stop on the throne", "c9", "h9", "f2", "d", "f2",
			"a2 b2 c2 d2 e2 g2 h2 i2 j2 k2 f1 f3 f4 f5 f6 f7 f8 f9 f10 f11"},
		{"an attacker beside a corner skips it", "b1", "h9", "f9", "a", "b1",
			"c1 d1 e1 f1 g1 h1 i1 j1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11"},
		{"the king beside a corner may stop on it", "c9", "h9", "b1", "d", "b1",
			"a1 c1 d1 e1 f1 g1 h1 i1 j1 k1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11"},
		{"an attacker on an edge skips both corners", "a5", "h9", "f9", "a", "a5",
			"a2 a3 a4 a6 a7 a8 a9 a10 b5 c5 d5 e5 f5 g5 h5 i5 j5 k5"},
		{"blocked by pieces of both sides", "c3 f3", "c6", "h9", "a", "c3",
			"a3 b3 d3 e3 c1 c2 c4 c5"},
		{"blocked by the king on the throne", "f3", "h9", "f6", "a", "f3",
			"a3 b3 c3 d3 e3 g3 h3 i3 j3 k3 f1 f2 f4 f5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, name := range rpFour {
				v := rpVariant(t, name)
				t.Run(name, func(t *testing.T) {
					for sym := range rules.Symmetry(rules.NumSymmetries) {
						g, err := rules.NewGameFrom(v, rpPosition(t, c.att, c.def, c.king, c.side, sym))
						if err != nil {
							t.Fatalf("sym %d: NewGameFrom: got %v, want no error", sym, err)
						}
						from := rpSquares(t, c.from, sym).First()
						var got rules.Bitboard
						for _, m := range g.GenerateMoves(nil) {
							if m.From() == from {
								got = got.With(m.To())
							}
						}
						if want := rpSquares(t, c.to, sym); got != want {
							t.Errorf("sym %d: targets of %v: got %v, want %v", sym, from, rpNames(got), rpNames(want))
						}
					}
				})
			}
		})
	}
}

// TestRulePointGivenStart: a game may start from any legal position; the
// start is refused if it has not exactly one king or has a soldier on the
// throne or a corner, and it is not judged.
func TestRulePointGivenStart(t *testing.T) {
	t.Run("refused notation", func(t *testing.T) {
		for _, c := range []struct{ name, text string }{
			{"no king", rpNotation("c3", "h3", "", "a")},
			{"two kings", rpNotation("c3", "h3", "f9 b9", "a")},
			{"an attacker on the throne", rpNotation("c3 f6", "h3", "f9", "a")},
			{"a defender on the throne", rpNotation("c3", "h3 f6", "f9", "a")},
			{"an attacker on a corner", rpNotation("c3 k1", "h3", "f9", "a")},
			{"a defender on a corner", rpNotation("c3", "h3 a11", "f9", "a")},
		} {
			t.Run(c.name, func(t *testing.T) {
				if _, err := rules.ParsePosition(c.text); err == nil {
					t.Errorf("ParsePosition(%q): got no error, want one", c.text)
				}
			})
		}
	})
	t.Run("refused position", func(t *testing.T) {
		for _, name := range rpFour {
			v := rpVariant(t, name)
			for sym := range rules.Symmetry(rules.NumSymmetries) {
				base := rpPosition(t, "c3", "h3", "f9", "a", sym)
				for _, c := range []struct {
					name string
					p    rules.Position
				}{
					{"attacker on the throne", func() rules.Position { p := base; p.Attackers = p.Attackers.With(v.Throne()); return p }()},
					{"defender on a corner", func() rules.Position { p := base; p.Defenders = p.Defenders.With(v.Corners().First()); return p }()},
					{"two pieces on a square", func() rules.Position { p := base; p.Defenders = p.Defenders.Or(p.Attackers); return p }()},
				} {
					if _, err := rules.NewGameFrom(v, c.p); err == nil {
						t.Errorf("%s sym %d %s: NewGameFrom: got no error, want one", name, sym, c.name)
					}
				}
			}
		}
	})
	for _, c := range []struct {
		name                 string
		att, def, king, side string
		noMoves              bool
	}{
		{"the king on a corner, defenders to move", "c3", "h3", "a1", "d", false},
		{"the king on a corner, attackers to move", "c3", "h3", "k11", "a", false},
		{"the king surrounded by four attackers", "b8 d8 c9 c7", "h3", "c8", "d", false},
		{"a finished edge fort", "h9", "d1 e2 f2 g1", "e1", "a", false},
		{"the defenders encircled", "b8 d8 c7 b9 d9 c10", "", "c8", "d", false},
		{"a row that a sweep would take", "b1 c2 d2 e1", "c1 d1", "h8", "a", false},
		{"the side to move has no move", "a2", "a3 b2", "f9", "a", true},
	} {
		t.Run("not judged/"+c.name, func(t *testing.T) {
			for _, name := range rpFour {
				v := rpVariant(t, name)
				for sym := range rules.Symmetry(rules.NumSymmetries) {
					p := rpPosition(t, c.att, c.def, c.king, c.side, sym)
					g, err := rules.NewGameFrom(v, p)
					if err != nil {
						t.Fatalf("%s sym %d: NewGameFrom: got %v, want no error", name, sym, err)
					}
					if o := g.Outcome(); o.Over() {
						t.Errorf("%s sym %d: outcome: got %v, want ongoing", name, sym, o)
					}
					if got := g.Position(); got != p {
						t.Errorf("%s sym %d: position: got %v, want %v", name, sym, got, p)
					}
					if got, want := g.Repetitions(), 1; got != want {
						t.Errorf("%s sym %d: repetitions: got %v, want %v", name, sym, got, want)
					}
					if got, want := g.SinceCapture(), 0; got != want {
						t.Errorf("%s sym %d: no-progress count: got %v, want %v", name, sym, got, want)
					}
					if m, _ := g.LastMove(); m != rules.NoMove {
						t.Errorf("%s sym %d: last move: got %v, want %v", name, sym, m, rules.NoMove)
					}
					if got, want := len(g.GenerateMoves(nil)) == 0, c.noMoves; got != want {
						t.Errorf("%s sym %d: no legal move: got %v, want %v", name, sym, got, want)
					}
				}
			}
		})
	}
}
