package rules_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// This file checks the fast move generator against a slow one written square
// by square from ../shared/spec/variants.md ("Movement"): every piece slides
// like a rook over empty squares and stops on an empty square; only the king
// may stop on the throne or a corner; any piece may pass over the empty
// throne. The reference looks at a Position only (never at the Game's
// bitboards or tables), so it shares no code with the engine.

// refSmallDefs are the 7x7 and 9x9 rule sets of these tests, with switches
// mixed so that each board size meets different end rules.
var refSmallDefs = []rules.Definition{
	{
		Name:               "brandubh-test",
		Size:               7,
		Start:              "3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a",
		KingCapturedOnEdge: true,
		Shieldwall:         rules.ShieldwallNone,
		Repetition:         rules.RepetitionMoverLoses,
		NoProgressMoves:    100,
	},
	{
		Name:            "tablut-test",
		Size:            9,
		Start:           "3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aaa3 a",
		Shieldwall:      rules.ShieldwallBoth,
		EdgeFort:        true,
		Encirclement:    true,
		Repetition:      rules.RepetitionDefendersLose,
		NoProgressMoves: 100,
	},
}

// refVariants returns every rule set under test: the embedded ones and the
// small boards above.
func refVariants(tb testing.TB) []*rules.Variant {
	tb.Helper()
	var vs []*rules.Variant
	for _, name := range variants.Names() {
		vs = append(vs, variants.MustLoad(name))
	}
	for _, def := range refSmallDefs {
		v, err := rules.Compile(def)
		if err != nil {
			tb.Fatalf("compile %s: %v", def.Name, err)
		}
		vs = append(vs, v)
	}
	return vs
}

// refPiece returns what stands on s: 'a', 'd', 'k' or 0 for an empty square.
func refPiece(p rules.Position, s rules.Square) byte {
	switch {
	case p.King == s:
		return 'k'
	case p.Attackers.Has(s):
		return 'a'
	case p.Defenders.Has(s):
		return 'd'
	}
	return 0
}

// refRestricted reports whether (file, rank) is the throne (the centre) or a
// corner of a size x size board.
func refRestricted(size, file, rank int) bool {
	last := size - 1
	if file == size/2 && rank == size/2 {
		return true
	}
	return (file == 0 || file == last) && (rank == 0 || rank == last)
}

// refMoves lists the moves of the side to move in p, walking each direction
// from each of its pieces until the first occupied square or the edge.
func refMoves(p rules.Position) []rules.Move {
	size := int(p.Size)
	steps := [4][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}}
	var moves []rules.Move
	for rank := range size {
		for file := range size {
			from := rules.NewSquare(file, rank)
			piece := refPiece(p, from)
			mine := p.ToMove == rules.Attackers && piece == 'a' ||
				p.ToMove == rules.Defenders && (piece == 'd' || piece == 'k')
			if !mine {
				continue
			}
			for _, st := range steps {
				for f, r := file+st[0], rank+st[1]; f >= 0 && f < size && r >= 0 && r < size; f, r = f+st[0], r+st[1] {
					to := rules.NewSquare(f, r)
					if refPiece(p, to) != 0 {
						break // blocked: no stop here, no passing
					}
					if piece == 'k' || !refRestricted(size, f, r) {
						moves = append(moves, rules.NewMove(from, to))
					}
					// A soldier passes over the empty throne (and a
					// corner is the end of its line anyway).
				}
			}
		}
	}
	return moves
}

// refRandomPosition places one king anywhere (the throne a third of the
// time) and soldiers at a random density on squares that are neither the
// throne nor a corner, with a random side to move.
func refRandomPosition(rng *rand.Rand, size int) rules.Position {
	p := rules.Position{Size: uint8(size), ToMove: rules.Side(rng.IntN(2))}
	if rng.IntN(3) == 0 {
		p.King = rules.NewSquare(size/2, size/2)
	} else {
		p.King = rules.NewSquare(rng.IntN(size), rng.IntN(size))
	}
	density := rng.Float64() * 0.9
	attackerShare := rng.Float64()
	for rank := range size {
		for file := range size {
			s := rules.NewSquare(file, rank)
			if s == p.King || refRestricted(size, file, rank) || rng.Float64() >= density {
				continue
			}
			if rng.Float64() < attackerShare {
				p.Attackers = p.Attackers.With(s)
			} else {
				p.Defenders = p.Defenders.With(s)
			}
		}
	}
	return p
}

func refNewGame(tb testing.TB, v *rules.Variant, p rules.Position) *rules.Game {
	tb.Helper()
	g, err := rules.NewGameFrom(v, p)
	if err != nil {
		tb.Fatalf("NewGameFrom(%s, %q): %v", v.Name(), p, err)
	}
	return g
}

func refMoveNames(moves []rules.Move) string {
	names := make([]string, len(moves))
	for i, m := range moves {
		names[i] = m.String()
	}
	return "[" + strings.Join(names, " ") + "]"
}

// refCompare checks a fast move list against the reference list of p: the
// same set, no duplicates, and the documented order within each piece.
func refCompare(t *testing.T, p rules.Position, fast []rules.Move) {
	t.Helper()
	want := slices.Clone(refMoves(p))
	got := slices.Clone(fast)
	slices.Sort(want)
	slices.Sort(got)
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("position %q: GenerateMoves lists %s twice", p, got[i])
		}
	}
	if !slices.Equal(got, want) {
		var missing, extra []rules.Move
		for _, m := range want {
			if _, ok := slices.BinarySearch(got, m); !ok {
				missing = append(missing, m)
			}
		}
		for _, m := range got {
			if _, ok := slices.BinarySearch(want, m); !ok {
				extra = append(extra, m)
			}
		}
		t.Fatalf("position %q: got %d moves, want %d; missing %s, extra %s",
			p, len(got), len(want), refMoveNames(missing), refMoveNames(extra))
	}
	refCheckOrder(t, p, fast)
}

// refCheckOrder checks the order GenerateMoves produces: the moves of one
// piece together, soldiers by from-square index and the king's moves last;
// within a piece, the moves along the rank, then along the file, each by
// square index. (The doc comment says "by from-square index" for all pieces;
// the code lists the king last, which this test takes as the contract.)
func refCheckOrder(t *testing.T, p rules.Position, moves []rules.Move) {
	t.Helper()
	for i := 1; i < len(moves); i++ {
		a, b := moves[i-1], moves[i]
		if a.From() != b.From() {
			if a.From() == p.King || b.From() != p.King && b.From() < a.From() {
				t.Fatalf("position %q: moves out of order: %s before %s", p, a, b)
			}
			continue
		}
		aRank := a.To().Rank() == a.From().Rank()
		bRank := b.To().Rank() == b.From().Rank()
		if aRank == bRank && b.To() <= a.To() || !aRank && bRank {
			t.Fatalf("position %q: moves out of order: %s before %s", p, a, b)
		}
	}
}

// refCheckIsLegal checks IsLegal against the reference on every move along a
// line of the board, legal or not.
func refCheckIsLegal(t *testing.T, g *rules.Game) {
	t.Helper()
	p := g.Position()
	size := int(p.Size)
	legal := map[rules.Move]bool{}
	for _, m := range refMoves(p) {
		legal[m] = true
	}
	for rank := range size {
		for file := range size {
			from := rules.NewSquare(file, rank)
			for i := range size {
				for _, to := range []rules.Square{rules.NewSquare(i, rank), rules.NewSquare(file, i)} {
					m := rules.NewMove(from, to)
					if got, want := g.IsLegal(m), legal[m]; got != want {
						t.Fatalf("position %q: IsLegal(%s): got %v, want %v", p, m, got, want)
					}
				}
			}
		}
	}
}

func TestReferenceHandCases(t *testing.T) {
	tests := []struct {
		name, pos string
		want      string // the legal moves, sorted by from then to (index order)
	}{
		{"king on throne", "7/7/7/3k3/7/7/7 d",
			"d4-d1 d4-d2 d4-d3 d4-a4 d4-b4 d4-c4 d4-e4 d4-f4 d4-g4 d4-d5 d4-d6 d4-d7"},
		{"attacker passes empty throne", "7/7/7/a6/7/7/k6 a",
			"a4-a2 a4-a3 a4-b4 a4-c4 a4-e4 a4-f4 a4-g4 a4-a5 a4-a6"},
		{"king on throne blocks", "7/7/7/a2k3/7/7/7 a",
			"a4-a2 a4-a3 a4-b4 a4-c4 a4-a5 a4-a6"},
		{"boxed defender, king to throne", "7/7/1a5/adk4/1a5/7/7 d",
			"c4-c1 c4-c2 c4-c3 c4-d4 c4-e4 c4-f4 c4-g4 c4-c5 c4-c6 c4-c7"},
		{"defender stops short of corners, king enters one", "1d5/7/7/7/7/7/6k d",
			"g1-a1 g1-b1 g1-c1 g1-d1 g1-e1 g1-f1 g1-g2 g1-g3 g1-g4 g1-g5 g1-g6 g1-g7 " +
				"b7-b1 b7-b2 b7-b3 b7-b4 b7-b5 b7-b6 b7-c7 b7-d7 b7-e7 b7-f7"},
		{"defenders to move, king in corner boxed", "7/7/7/7/7/a6/ka5 d", ""},
		{"9x9 soldier across throne", "9/9/9/9/a8/9/9/9/k8 a",
			"a5-a2 a5-a3 a5-a4 a5-b5 a5-c5 a5-d5 a5-f5 a5-g5 a5-h5 a5-i5 a5-a6 a5-a7 a5-a8"},
	}
	vs := map[int]*rules.Variant{11: variants.MustLoad("copenhagen")}
	for _, def := range refSmallDefs {
		vs[def.Size] = rules.MustCompile(def)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := rules.ParsePosition(tt.pos)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(tt.want)
			byIndex := func(moves []rules.Move) []string {
				moves = slices.Clone(moves)
				slices.SortFunc(moves, func(a, b rules.Move) int {
					if a.From() != b.From() {
						return int(a.From()) - int(b.From())
					}
					return int(a.To()) - int(b.To())
				})
				names := []string{}
				for _, m := range moves {
					names = append(names, m.String())
				}
				return names
			}
			slices.Sort(want)
			got := byIndex(refMoves(p))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("reference: got %v, want %v", got, want)
			}
			g := refNewGame(t, vs[int(p.Size)], p)
			got = byIndex(g.GenerateMoves(nil))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("GenerateMoves: got %v, want %v", got, want)
			}
			refCheckIsLegal(t, g)
		})
	}
}

func TestReferenceGeometry(t *testing.T) {
	for _, v := range refVariants(t) {
		size := v.Size()
		if got, want := v.Throne(), rules.NewSquare(size/2, size/2); got != want {
			t.Errorf("%s: Throne: got %v, want %v", v.Name(), got, want)
		}
		last := size - 1
		want := rules.SquareSet(rules.NewSquare(0, 0), rules.NewSquare(last, 0), rules.NewSquare(0, last), rules.NewSquare(last, last))
		if got := v.Corners(); got != want {
			t.Errorf("%s: Corners: got %v, want %v", v.Name(), got, want)
		}
	}
}

func TestReferenceRandomPlacement(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	for vi, v := range refVariants(t) {
		t.Run(v.Name(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(vi)+1, 0x7af1))
			for i := range n {
				p := refRandomPosition(rng, v.Size())
				g := refNewGame(t, v, p)
				refCompare(t, p, g.GenerateMoves(nil))
				// A list appended to an existing one keeps the prefix.
				prefix := []rules.Move{rules.NewMove(1, 2)}
				if got := g.GenerateMoves(prefix); len(got) == 0 || got[0] != prefix[0] {
					t.Fatalf("position %q: GenerateMoves(prefix) dropped the prefix", p)
				}
				if i%16 == 0 {
					refCheckIsLegal(t, g)
				}
			}
		})
	}
}

func TestReferenceRandomGames(t *testing.T) {
	games := 12
	if testing.Short() {
		games = 3
	}
	for vi, v := range refVariants(t) {
		t.Run(v.Name(), func(t *testing.T) {
			moves := make([]rules.Move, 0, rules.MaxMoves)
			plies := 0
			for seed := range games {
				rng := rand.New(rand.NewPCG(uint64(seed), uint64(vi)))
				g := rules.NewGame(v)
				for !g.Outcome().Over() {
					p := g.Position()
					moves = g.GenerateMoves(moves[:0])
					refCompare(t, p, moves)
					fresh := refNewGame(t, v, p)
					if got := fresh.GenerateMoves(nil); !slices.Equal(got, moves) {
						t.Fatalf("position %q: fresh game lists %s, game in progress %s", p, refMoveNames(got), refMoveNames(moves))
					}
					if len(moves) == 0 {
						t.Fatalf("position %q: game not over (%v) but no moves", p, g.Outcome())
					}
					if plies%64 == 0 {
						refCheckIsLegal(t, g)
					}
					g.Make(moves[rng.IntN(len(moves))])
					plies++
				}
				o, p := g.Outcome(), g.Position()
				if got := g.GenerateMoves(nil); len(got) != 0 {
					t.Fatalf("finished game (%v) at %q: got moves %s, want none", o, p, refMoveNames(got))
				}
				if m := refMoves(p); o.Reason == rules.NoMoves && len(m) != 0 {
					t.Fatalf("game ended %v at %q, but the side to move has %s", o, p, refMoveNames(m))
				}
				if o.Reason != rules.NoMoves {
					// A fresh game from the final position is not judged
					// and must list the reference's moves.
					refCompare(t, p, refNewGame(t, v, p).GenerateMoves(nil))
				}
			}
			t.Logf("%d games, %d plies", games, plies)
		})
	}
}

// Perft counts the move sequences of a given length; a finished game is a
// leaf (it counts 1 at depth 0 and 0 deeper: it has no moves).

// fastPerft counts with the engine alone: GenerateMoves, Make, Unmake.
func fastPerft(g *rules.Game, depth int, lists [][]rules.Move) uint64 {
	if depth == 0 {
		return 1
	}
	if g.Outcome().Over() {
		return 0
	}
	moves := g.GenerateMoves(lists[depth][:0])
	lists[depth] = moves
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		g.Make(m)
		n += fastPerft(g, depth-1, lists)
		g.Unmake()
	}
	return n
}

// refPerft counts with the reference generator. Each node is a fresh game,
// started from the root position and brought to the node with Play, so that
// the count depends on neither GenerateMoves nor Unmake; the engine only
// judges the outcome of each node.
func refPerft(t *testing.T, v *rules.Variant, root rules.Position, path []rules.Move, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	g := refNewGame(t, v, root)
	for _, m := range path {
		if err := g.Play(m); err != nil {
			t.Fatalf("from %q after %s: %v", root, refMoveNames(path), err)
		}
	}
	if g.Outcome().Over() {
		return 0
	}
	moves := refMoves(g.Position())
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		n += refPerft(t, v, root, append(path[:len(path):len(path)], m), depth-1)
	}
	return n
}

// refDivide returns the perft count below each root move, with both counters.
func refDivide(t *testing.T, v *rules.Variant, root rules.Position, depth int) (fast, ref map[rules.Move]uint64) {
	fast, ref = map[rules.Move]uint64{}, map[rules.Move]uint64{}
	g := refNewGame(t, v, root)
	lists := make([][]rules.Move, depth+1)
	for i := range lists {
		lists[i] = make([]rules.Move, 0, rules.MaxMoves)
	}
	for _, m := range g.GenerateMoves(nil) {
		g.Make(m)
		fast[m] = fastPerft(g, depth-1, lists)
		g.Unmake()
	}
	for _, m := range refMoves(root) {
		ref[m] = refPerft(t, v, root, []rules.Move{m}, depth-1)
	}
	return fast, ref
}

func refCheckPerft(t *testing.T, v *rules.Variant, root rules.Position, depth int) uint64 {
	t.Helper()
	fast, ref := refDivide(t, v, root, depth)
	var nFast, nRef uint64
	for m, n := range ref {
		nRef += n
		if got, ok := fast[m]; !ok || got != n {
			t.Errorf("%s from %q: perft(%d) below %s: got %d, want %d", v.Name(), root, depth, m, got, n)
		}
	}
	for m, n := range fast {
		nFast += n
		if _, ok := ref[m]; !ok {
			t.Errorf("%s from %q: perft(%d): engine plays %s, the reference does not", v.Name(), root, depth, m)
		}
	}
	if nFast != nRef {
		t.Errorf("%s from %q: perft(%d): got %d, want %d", v.Name(), root, depth, nFast, nRef)
	}
	return nRef
}

// Perft from the start positions, as counted by the reference (no game can
// end within two moves of these starts, so the 11x11 rule sets agree).
var refStartPerft = map[int][]uint64{ // board size -> perft(1), perft(2), perft(3)
	11: {116, 6_788, 806_344},
	9:  {72, 3_944, 285_728},
	7:  {40, 960, 39_512},
}

func TestPerftStart(t *testing.T) {
	for _, v := range refVariants(t) {
		t.Run(v.Name(), func(t *testing.T) {
			want := refStartPerft[v.Size()]
			depths := len(want)
			if testing.Short() && v.Size() == 11 && v.Name() != "copenhagen" {
				depths = 2
			}
			for d := 1; d <= depths; d++ {
				if got := refCheckPerft(t, v, v.Start(), d); got != want[d-1] {
					t.Errorf("perft(%d): got %d, want %d", d, got, want[d-1])
				}
			}
		})
	}
}

func TestPerftRandomPositions(t *testing.T) {
	for vi, v := range refVariants(t) {
		t.Run(v.Name(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(vi)+100, 0xbeef))
			var roots []rules.Position
			// Two positions from random games, 10 to 59 plies in: mid-game
			// material, and sometimes a game that ends within the horizon.
			for len(roots) < 2 {
				g := rules.NewGame(v)
				plies := 10 + rng.IntN(50)
				for g.Ply() < plies && !g.Outcome().Over() {
					moves := g.GenerateMoves(nil)
					g.Make(moves[rng.IntN(len(moves))])
				}
				if !g.Outcome().Over() {
					roots = append(roots, g.Position())
				}
			}
			// Three placed at random, with few enough moves to keep the
			// count small.
			for len(roots) < 5 {
				p := refRandomPosition(rng, v.Size())
				if n := len(refMoves(p)); n > 0 && n < 120 {
					roots = append(roots, p)
				}
			}
			depth := 3
			if testing.Short() {
				depth = 2
			}
			for _, root := range roots {
				n := refCheckPerft(t, v, root, depth)
				t.Logf("perft(%d) from %q = %d", depth, root, n)
			}
		})
	}
}

// TestPerftEndsInHorizon checks perft where games end inside the horizon:
// the king one step from a corner (fetlar and hnefatafl11 differ in king
// capture on the edge).
func TestPerftEndsInHorizon(t *testing.T) {
	roots := []string{
		"11/11/11/11/11/4d6/11/11/a10/1a9/k10 a",                                    // king in corner, not judged at the start
		"11/11/11/11/11/11/11/11/11/a1a8/1k9 a",                                     // king on the edge beside the corner
		"3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1dd1dd1aa/a3ddd3a/a4d4a/11/5a5/1k1aaaaa3 d", // king one step from a1
		"7/7/7/7/1a5/a1a4/1k5 a",                                                    // 7x7: edge king, capture on edge
	}
	for i, text := range roots {
		p, err := rules.ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range refVariants(t) {
			if v.Size() != int(p.Size) {
				continue
			}
			t.Run(fmt.Sprintf("%d/%s", i, v.Name()), func(t *testing.T) {
				refCheckPerft(t, v, p, 3)
			})
		}
	}
}

// TestReferenceOffBoardMoves checks moves with a square off the board, or off
// the square layout altogether (such as NoSquare): never legal, refused by
// Play with an error, and printable.
func TestReferenceOffBoardMoves(t *testing.T) {
	for _, v := range refVariants(t) {
		t.Run(v.Name(), func(t *testing.T) {
			size := v.Size()
			own := v.Start().Attackers.First() // an attacker: attackers move first
			bad := []rules.Square{rules.NoSquare, rules.MaxSize * rules.MaxSize, 127, 200}
			if size < rules.MaxSize {
				// On the layout, off this board: beyond the last file
				// and above the last rank.
				bad = append(bad, rules.NewSquare(size, own.Rank()), rules.NewSquare(own.File(), size))
			}
			for _, s := range bad {
				for _, m := range []rules.Move{rules.NewMove(own, s), rules.NewMove(s, own), rules.NewMove(s, s)} {
					g := rules.NewGame(v)
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Fatalf("move %d->%d: panic %v", m.From(), m.To(), r)
							}
						}()
						if g.IsLegal(m) {
							t.Fatalf("IsLegal(%d->%d): got true, want false", m.From(), m.To())
						}
						err := g.Play(m)
						if err == nil {
							t.Fatalf("Play(%d->%d): got no error, want one", m.From(), m.To())
						} else if strings.Contains(err.Error(), "%!") {
							t.Fatalf("Play(%d->%d): error %q: the move is not printable", m.From(), m.To(), err)
						}
						_ = m.String()
					}()
					if got, want := g.Position(), v.Start(); got != want {
						t.Fatalf("after refusing %d->%d: got %q, want %q", m.From(), m.To(), got, want)
					}
				}
			}
		})
	}
}
