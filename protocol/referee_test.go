package protocol

import (
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// The positions of these tests are OpenTafl's where OpenTafl's own tests
// have them (jslater89/OpenTafl: test/rules/StrictShieldwallTest,
// EdgeFortEscapeTest, EdgeFortEscapeFailedTest, ThreefoldVictoryTest and
// the layouts of rules/copenhagen/eleven/test/), translated: OpenTafl's
// square (x, y) is taflab's file x, rank y+1.

// openTafl9 is OpenTafl's Copenhagen rules on the 9x9 board of its edge
// fort and shieldwall tests (Copenhagen.newStrictShieldwallTest and
// newLargeEdgeFortTest: strict shieldwalls, edge forts, encirclement); the
// start is replaced by each test's position.
const openTafl9 = "dim:9 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"

// refPosition builds a position from lists of squares: attackers,
// defenders, the king's square, and the side to move.
func refPosition(t *testing.T, size int, attackers, defenders, king string, toMove rules.Side) rules.Position {
	t.Helper()
	p := rules.Position{Size: uint8(size), ToMove: toMove}
	for _, name := range strings.Fields(attackers) {
		p.Attackers = p.Attackers.With(mustSquare(t, name))
	}
	for _, name := range strings.Fields(defenders) {
		p.Defenders = p.Defenders.With(mustSquare(t, name))
	}
	p.King = mustSquare(t, king)
	return p
}

func mustSquare(t *testing.T, name string) rules.Square {
	t.Helper()
	s, err := rules.ParseSquare(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// refCase is a position, moves, and what each referee makes of the last
// move: the soldiers it took and how the game stands.
type refCase struct {
	name                 string
	otr                  string // the OpenTafl rules string
	attackers, defenders string
	king                 string
	toMove               rules.Side
	moves                string // played in order; all but the last must leave the game going
	wantTaken            string // the soldiers the last move takes under OpenTafl's referee
	want                 rules.Outcome
	// taflabTaken and taflab are what the same rule set under taflab's
	// referee makes of it, where that differs (the difference the case
	// shows); taflabSame says it is the same.
	taflabSame  bool
	taflabTaken string
	taflab      rules.Outcome
}

func playCase(t *testing.T, def rules.Definition, c refCase) (rules.Bitboard, rules.Outcome) {
	t.Helper()
	v, err := rules.Compile(def)
	if err != nil {
		t.Fatal(err)
	}
	p := refPosition(t, def.Size, c.attackers, c.defenders, c.king, c.toMove)
	g, err := rules.NewGameFrom(v, p)
	if err != nil {
		t.Fatal(err)
	}
	moves := strings.Fields(c.moves)
	for i, text := range moves {
		m, _, err := rules.ParseMove(text)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(m); err != nil {
			t.Fatalf("move %d %s: %v", i+1, text, err)
		}
		if i < len(moves)-1 && g.Outcome().Over() {
			t.Fatalf("move %d %s ended the game early: %v", i+1, text, g.Outcome())
		}
	}
	_, taken := g.LastMove()
	return taken, g.Outcome()
}

func squares(t *testing.T, names string) rules.Bitboard {
	t.Helper()
	var b rules.Bitboard
	for _, n := range strings.Fields(names) {
		b = b.With(mustSquare(t, n))
	}
	return b
}

func outcome(w rules.Winner, r rules.Reason, ply int32) rules.Outcome {
	return rules.Outcome{Winner: w, Reason: r, Ply: ply}
}

// TestOpenTaflReferee plays positions under OpenTafl's Copenhagen, compiled
// from its rules string, and checks every capture and ending as OpenTafl's
// referee makes them; where taflab's referee (the spec) judges otherwise,
// the same rule set with Referee = RefereeTaflab shows the difference.
func TestOpenTaflReferee(t *testing.T) {
	none := rules.Outcome{}
	cases := []refCase{
		// StrictShieldwallTest: after c9-c8 f3-f2 c2-b2, two rows of each
		// side stand; the attackers' f3-f2 (not onto the edge) took nothing
		// (f1 stands); and the king on a2, free to move, inside the
		// defenders' row a2-a3 (closed by the a1 corner and a4, fronted by
		// b2 and b3) has won by edge fort. taflab's fort needs more: the
		// wall's b3 falls to attackers on b4 and c3... and here the
		// defenders' region is open, so the game goes on.
		{name: "StrictShieldwallTest", otr: openTafl9,
			attackers: "c1 d2 e2 f3 g1 i6 h7 h8", defenders: "b8 c9 d9 d1 e1 f1 c2 b3 a4", king: "a2", toMove: rules.Defenders,
			moves: "c9-c8 f3-f2 c2-b2", want: outcome(rules.DefendersWin, rules.EdgeFort, 3),
			taflab: none},
		// EdgeFortEscapeTest, first part: c6-c7 leaves c7 open to capture
		// (three of its neighbours outside the fort are empty); after
		// c1-c2 and b5-b7 it is safe: an edge fort. For the spec's test c7
		// is not yet safe on its rank (b7 stands outside the wall: taken
		// first, it opens c7), so taflab plays on.
		{name: "EdgeFortEscapeTest", otr: openTafl9,
			attackers: "c1 d2 e2 f3 g1 i6 h7 h8", defenders: "b9 b8 c6 d8 d9 b5", king: "c9", toMove: rules.Defenders,
			moves: "c6-c7 c1-c2 b5-b7", want: outcome(rules.DefendersWin, rules.EdgeFort, 3), taflab: none},
		// EdgeFortEscapeTest goes on with the attackers' c2-c1: OpenTafl
		// judges the fort after either side's move, so that move ends
		// the game; taflab judges forts after the defenders' moves.
		{name: "edge fort after an attacker's move", otr: openTafl9,
			attackers: "c2 d2 e2 f3 g1 i6 h7 h8", defenders: "b9 b8 b7 c7 d8 d9", king: "c9", toMove: rules.Attackers,
			moves: "c2-c1", want: outcome(rules.DefendersWin, rules.EdgeFort, 1), taflab: none},
		// ... and the king's c9-c8 off the edge still wins: he can reach
		// the edge inside the fort. taflab's fort needs him on the edge.
		{name: "edge fort, the king off the edge", otr: openTafl9,
			attackers: "c1 d2 e2 f3 g1 i6 h7 h8", defenders: "b9 b8 b7 c7 d8 d9", king: "c9", toMove: rules.Defenders,
			moves: "c9-c8", want: outcome(rules.DefendersWin, rules.EdgeFort, 1), taflab: none},
		// EdgeFortEscapeFailedTest: an attacker (c7) beside the king's
		// room: no fort, after any move (i6-i5 here; OpenTafl's test
		// judges the position as it stands).
		{name: "EdgeFortEscapeFailedTest", otr: openTafl9,
			attackers: "c1 c7 e2 f3 g1 i6 h7 h8", defenders: "b9 b8 b7 c6 d7 d8 d9", king: "c9", toMove: rules.Attackers,
			moves: "i6-i5", want: none, taflabSame: true},
		// OpenTafl's breakability test counts a wall piece's open
		// neighbours: e3 has two (d3, f3), so OpenTafl calls the fort
		// unbreakable; but they are on one line, and attackers on d3 and
		// f3 take e3 (the spec's test), so for taflab it is no fort.
		{name: "edge fort: two open neighbours on one line", otr: openTaflCopenhagen,
			attackers: "a6 k6 f11 j9", defenders: "d1 f1 d2 f2 e3 e6", king: "e1", toMove: rules.Defenders,
			moves: "e6-e4", want: outcome(rules.DefendersWin, rules.EdgeFort, 1), taflab: none},
		// A row of defenders with the king in it, fronted and closed by
		// attackers: OpenTafl's shieldwall takes the king too, and wins.
		// taflab's sweep never takes the king.
		{name: "shieldwall takes the king", otr: openTaflCopenhagen,
			attackers: "c1 d2 e2 f2 g5 a6 k6", defenders: "d1 f1 h8", king: "e1", toMove: rules.Attackers,
			moves: "g5-g1", wantTaken: "d1 f1", want: outcome(rules.AttackersWin, rules.KingCaptured, 1),
			taflabTaken: "d1 f1", taflab: none},
		// A row closed by the a1 corner and a piece with a friend directly
		// inward of it: OpenTafl's scan reads the closing piece as part of
		// the row and takes nothing; taflab sweeps b1 and c1.
		{name: "shieldwall: the closing piece with a friend inward", otr: openTaflCopenhagen,
			attackers: "b2 c2 d2 g1 a6 k6 f11", defenders: "b1 c1 e11 h8", king: "f6", toMove: rules.Attackers,
			moves: "g1-d1", want: none, taflabTaken: "b1 c1", taflab: none},
		// The same without the friend on d2: both take b1 and c1.
		{name: "shieldwall closed by a corner", otr: openTaflCopenhagen,
			attackers: "b2 c2 d5 a6 k6 f11", defenders: "b1 c1 e11 h8", king: "f6", toMove: rules.Attackers,
			moves: "d5-d1", wantTaken: "b1 c1", want: none, taflabSame: true},
		// A run left open at the k1 corner (h1's row i1-j1, which that
		// corner closes) carries on into the next edge OpenTafl scans,
		// rank 11 from a11: b11, fronted by b10 and closed by c11, joins
		// it. h1-moving, its rows take i1, j1 and b11. taflab takes i1 and
		// j1.
		{name: "shieldwall rows carry over to the next edge", otr: openTaflCopenhagen,
			attackers: "h5 i2 j2 b10 c11 a6 k6", defenders: "i1 j1 b11 f8", king: "f6", toMove: rules.Attackers,
			moves: "h5-h1", wantTaken: "i1 j1 b11", want: none, taflabTaken: "i1 j1", taflab: none},
		// The defenders sweep too (sw:s is both sides').
		{name: "defenders' shieldwall", otr: openTaflCopenhagen,
			attackers: "e1 f1 a6 k6 f11", defenders: "d1 e2 f2 g5 h8", king: "f6", toMove: rules.Defenders,
			moves: "g5-g1", wantTaken: "e1 f1", want: none, taflabSame: true},
		// ThreefoldVictoryTest: the defenders' move into the third
		// occurrence of a position (the start counts) loses (tfr:w: the
		// side now to move wins).
		{name: "ThreefoldVictoryTest", otr: openTaflCopenhagen,
			attackers: "a4 a5 a6 a7 a8 k4 k5 k6 k7 k8 d1 h11", defenders: "e5 e6 e7 f5 f7 g5 g6 g7", king: "f6", toMove: rules.Attackers,
			moves: "d1-c1 e5-e4 c1-d1 e4-e5 d1-c1 e5-e4 c1-d1 e4-e5", want: outcome(rules.AttackersWin, rules.Repetition, 8), taflabSame: true},
		// A board met again with the other side to move is another
		// position (OpenTafl's hash holds the side to move): the start's
		// board stands again after plies 5 (defenders to move) and 10
		// (attackers to move): twice, not three times.
		{name: "repetition counts the side to move", otr: openTaflCopenhagen,
			attackers: "a4 a5 a6 a7 a8 k4 k5 k6 k7 k8 d1 h11", defenders: "e5 e6 e7 f5 f7 g5 g6 g7", king: "f6", toMove: rules.Attackers,
			moves: "d1-d3 e5-e4 d3-d2 e4-e5 d2-d1 e5-e4 d1-d3 e4-e3 d3-d1 e3-e5", want: none, taflabSame: true},
		// The strong king: four sides, the empty throne counting as one;
		// on the edge he is safe.
		{name: "king taken beside the throne", otr: openTaflCopenhagen,
			attackers: "e5 e7 c6 a6 k6", defenders: "h8", king: "e6", toMove: rules.Attackers,
			moves: "c6-d6", want: outcome(rules.AttackersWin, rules.KingCaptured, 1), taflabSame: true},
		{name: "king safe on the edge", otr: openTaflCopenhagen,
			attackers: "d1 f1 e4 a6 k6", defenders: "h8", king: "e1", toMove: rules.Attackers,
			moves: "e4-e2", want: none, taflabSame: true},
		// Custodial captures: against a corner, and by the king.
		{name: "capture against a corner", otr: openTaflCopenhagen,
			attackers: "b1 e6 a6 k6 f11", defenders: "d1 h8 h5", king: "g6", toMove: rules.Defenders,
			moves: "d1-c1", wantTaken: "b1", want: none, taflabSame: true},
		{name: "the king captures", otr: openTaflCopenhagen,
			attackers: "h5 a6 k6 f11", defenders: "i5 d9", king: "g8", toMove: rules.Defenders,
			moves: "g8-g5", wantTaken: "h5", want: none, taflabSame: true},
		// Encirclement after the attackers' move; and a defender side with
		// no square to move to loses.
		{name: "encirclement", otr: openTaflCopenhagen,
			attackers: "e4 f4 g4 d5 h5 d6 h6 d7 h7 e8 f8 g9", defenders: "e5 g5", king: "f6", toMove: rules.Attackers,
			moves: "g9-g8", want: outcome(rules.AttackersWin, rules.Encirclement, 1), taflabSame: true},
		{name: "all attackers taken", otr: openTaflCopenhagen,
			attackers: "d2", defenders: "c2 e3 h8", king: "f6", toMove: rules.Defenders,
			moves: "e3-e2", wantTaken: "d2", want: outcome(rules.DefendersWin, rules.NoMoves, 1), taflabSame: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def, err := CompileRules(c.otr)
			if err != nil {
				t.Fatal(err)
			}
			if def.Referee != rules.RefereeOpenTafl {
				t.Fatalf("got referee %v, want opentafl", def.Referee)
			}
			taken, got := playCase(t, def, c)
			if want := squares(t, c.wantTaken); taken != want {
				t.Errorf("OpenTafl's referee took %v, want %v", taken.Squares(nil), want.Squares(nil))
			}
			if got != c.want {
				t.Errorf("OpenTafl's referee: got %v, want %v", got, c.want)
			}
			def.Referee = rules.RefereeTaflab
			taken, got = playCase(t, def, c)
			wantTaken, want := squares(t, c.taflabTaken), c.taflab
			if c.taflabSame {
				wantTaken, want = squares(t, c.wantTaken), c.want
			}
			if taken != wantTaken {
				t.Errorf("taflab's referee took %v, want %v", taken.Squares(nil), wantTaken.Squares(nil))
			}
			if got != want {
				t.Errorf("taflab's referee: got %v, want %v", got, want)
			}
		})
	}
}

// TestShippedRuleSetsRefereedByTaflab: the four shipped rule sets, and the
// rules strings taflab writes for them, keep taflab's referee.
func TestShippedRuleSetsRefereedByTaflab(t *testing.T) {
	for _, name := range variants.Names() {
		def := variants.MustLoad(name).Definition()
		if def.Referee != rules.RefereeTaflab {
			t.Errorf("%s: got referee %v, want taflab", name, def.Referee)
		}
		otr, err := RulesString(def)
		if err != nil {
			t.Fatal(err)
		}
		got, err := CompileRules(otr)
		if err != nil || got.Referee != rules.RefereeTaflab {
			t.Errorf("%s: %s compiles to referee %v (%v), want taflab", name, otr, got.Referee, err)
		}
	}
}
