package rules

import "testing"

// TestOpenTaflShieldwallRows: the position of OpenTafl's
// StrictShieldwallTest after its three moves, where that test counts two
// rows of each side (detectShieldwallPositionsForSide).
func TestOpenTaflShieldwallRows(t *testing.T) {
	def := Definition{Name: "ot9", Size: 9, Start: "3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aaa3 a",
		Shieldwall: ShieldwallBoth, EdgeFort: true, Encirclement: true, Repetition: RepetitionMoverLoses, Referee: RefereeOpenTafl}
	v, err := Compile(def)
	if err != nil {
		t.Fatal(err)
	}
	// OpenTafl's (x, y) is file x, rank y+1.
	p := Position{Size: 9, ToMove: Attackers}
	for _, s := range []string{"c1", "d2", "e2", "f2", "g1", "i6", "h7", "h8"} {
		p.Attackers = p.Attackers.With(mustParseSquare(t, s))
	}
	for _, s := range []string{"b8", "c8", "d9", "d1", "e1", "f1", "b2", "b3", "a4"} {
		p.Defenders = p.Defenders.With(mustParseSquare(t, s))
	}
	p.King = mustParseSquare(t, "a2")
	g, err := NewGameFrom(v, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []Side{Attackers, Defenders} {
		b := otBoard{att: g.attackers, def: g.defenders, king: g.king, kingOn: true}
		sc := g.ot()
		g.otShieldwallRows(&b, side, sc)
		if len(sc.rows) != 2 {
			t.Errorf("%v: got %d rows, want 2", side, len(sc.rows))
		}
	}
}

func mustParseSquare(t *testing.T, name string) Square {
	t.Helper()
	s, err := ParseSquare(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
