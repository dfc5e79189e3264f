package rules

import (
	"math/rand/v2"
	"testing"
)

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

// TestOpenTaflRandomGames plays random games of OpenTafl's Copenhagen under
// its referee and checks that Unmake takes every move back exactly (board,
// side, hash, outcome) and that every game ends.
func TestOpenTaflRandomGames(t *testing.T) {
	v, err := Compile(Definition{Name: "ot", Size: 11, Start: "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a",
		Shieldwall: ShieldwallBoth, EdgeFort: true, Encirclement: true, Repetition: RepetitionMoverLoses, Referee: RefereeOpenTafl})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 3))
	g := NewGame(v)
	moves := make([]Move, 0, MaxMoves)
	reasons := map[Reason]int{}
	for range 300 {
		g.Reset()
		for ply := 0; !g.Outcome().Over(); ply++ {
			if ply > 5000 {
				t.Fatalf("a game of more than %d plies", ply)
			}
			moves = g.GenerateMoves(moves[:0])
			m := moves[rng.IntN(len(moves))]
			before, hash := g.Position(), g.Hash()
			g.Make(m)
			after, afterHash, o := g.Position(), g.Hash(), g.Outcome()
			g.Unmake()
			if got := g.Position(); got != before || g.Hash() != hash || g.Outcome().Over() {
				t.Fatalf("Unmake of %v: got %v (hash %x), want %v (hash %x)", m, got, g.Hash(), before, hash)
			}
			g.Make(m)
			if g.Position() != after || g.Hash() != afterHash || g.Outcome() != o {
				t.Fatalf("Make of %v again: got %v, want %v", m, g.Position(), after)
			}
			if g.Hash() != HashPosition(g.Position()) {
				t.Fatalf("after %v: hash %x, want %x", m, g.Hash(), HashPosition(g.Position()))
			}
		}
		reasons[g.Outcome().Reason]++
	}
	if reasons[KingEscaped] == 0 || reasons[KingCaptured] == 0 {
		t.Errorf("got endings %v, want escapes and captures among 300 random games", reasons)
	}
}
