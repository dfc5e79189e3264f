package rules_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// The seed corpus of each fuzz test runs as an ordinary test under go test;
// run a fuzzer with, for example,
//
//	go test ./rules/ -run '^$' -fuzz '^FuzzMakeUnmake$' -fuzztime 30s -fuzzminimizetime 5s
//
// (FuzzMakeUnmake's inputs run up to 400 moves; with the default minimize
// time of 60s the fuzzer spends long stretches shrinking new inputs.)

const fuzzStart = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a"

func FuzzParsePosition(f *testing.F) {
	for _, s := range []string{
		fuzzStart,
		"3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 d",
		"3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a",
		"3aaa3/4a4/4d4/a3d3a/aaddkddaa/a3d3a/4d4/4a4/3aaa3 a",
		"7/7/7/3k3/7/7/7 d",
		"k6/7/7/7/7/7/7 a",
		"11/11/11/11/11/11/11/11/11/11/10k d",
		"a6/7/7/3k3/7/7/7 a",            // soldier on a corner
		"7/7/7/3d3/7/7/k6 a",            // soldier on the throne
		"7/7/7/7/7/7/7 a",               // no king
		"k6/7/7/7/7/7/6k a",             // two kings
		"7/7/7/3k3/7/7/7",               // no side
		"7/7/7/3k3/7/7/7 x",             // bad side
		"7/7/7/3k3/7/7/7 a ",            // trailing space
		"8/7/7/3k3/7/7/7 a",             // long row
		"6/7/7/3k3/7/7/7 a",             // short row
		"7/7/7/3k3/7/7 a",               // six rows
		"7/7/7/3k3/7/7/7/7/7/7/7/7/7 a", // thirteen rows
		"61/7/7/3k3/7/7/7 a",
		"0a6/7/7/3k3/7/7/7 a",
		"1a1a1a1a1a1a1a1/7/7/3k3/7/7/7 a",
		"111/11/11/11/11/5k5/11/11/11/11/11 a",
		"7a/7/7/3k3/7/7/7 a",
		"",
		" ",
		"/ a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := rules.ParsePosition(text)
		if err != nil {
			return
		}
		out := p.String()
		q, err := rules.ParsePosition(out)
		if err != nil {
			t.Fatalf("ParsePosition(%q) = %q, which does not parse: %v", text, out, err)
		}
		if q != p {
			t.Fatalf("ParsePosition(%q) round trip: got %+v, want %+v", text, q, p)
		}
		if got := q.String(); got != out {
			t.Fatalf("ParsePosition(%q): String not stable: got %q, want %q", text, got, out)
		}
		// Whatever parses is playable on a board of its size.
		v := fuzzVariantOfSize(t, int(p.Size))
		g, err := rules.NewGameFrom(v, p)
		if err != nil {
			t.Fatalf("NewGameFrom(%s, %q): %v", v.Name(), out, err)
		}
		if got := g.Position(); got != p {
			t.Fatalf("NewGameFrom(%q).Position(): got %q, want %q", out, got, p)
		}
		if got, want := g.Hash(), rules.HashPosition(p); got != want {
			t.Fatalf("NewGameFrom(%q).Hash(): got %#x, want %#x", out, got, want)
		}
	})
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{
		"d1-d3", "g3-e3xe2", "a5-a2xa3xb2", "a5-a2xa3xa3", "k11-a11", "a1-a1",
		"f6-f6xf6", "a10-a11xk11xb10", "a1-", "-a1", "a1a2", "a1-a2x", "a1-a2xx",
		"a1-a2xa0", "l1-a1", "a12-a1", "a01-a1", "a1--a2", "a1-a2-a3", "", "-", "x",
		"a1-a2xa3-a4", "a1-a2\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, caps, err := rules.ParseMove(text)
		if err != nil {
			return
		}
		if int(m.From()) >= rules.MaxSize*rules.MaxSize || int(m.To()) >= rules.MaxSize*rules.MaxSize {
			t.Fatalf("ParseMove(%q) = %v: a square off the layout", text, m)
		}
		out := string(rules.AppendMove(nil, m, caps))
		m2, caps2, err := rules.ParseMove(out)
		if err != nil {
			t.Fatalf("ParseMove(%q) written as %q, which does not parse: %v", text, out, err)
		}
		if m2 != m || caps2 != caps {
			t.Fatalf("ParseMove(%q) round trip via %q: got %v %v, want %v %v", text, out, m2, caps2, m, caps)
		}
		if got := string(rules.AppendMove(nil, m2, caps2)); got != out {
			t.Fatalf("ParseMove(%q): AppendMove not stable: got %q, want %q", text, got, out)
		}
		if got, want := string(rules.AppendMove([]byte("x "), m, rules.Bitboard{})), "x "+m.String(); got != want {
			t.Fatalf("AppendMove with a prefix: got %q, want %q", got, want)
		}
		// AppendMove writes each written capture once; a canonical text
		// reads back to itself.
		if n := bytes.Count([]byte(out), []byte("x")); n != caps.Count() {
			t.Fatalf("AppendMove(%v, %v) = %q: got %d captures written, want %d", m, caps, out, n, caps.Count())
		}
	})
}

func FuzzParseSquare(f *testing.F) {
	for f0 := range rules.MaxSize {
		for r := range rules.MaxSize {
			f.Add(rules.NewSquare(f0, r).String())
		}
	}
	for _, s := range []string{"", "a", "a0", "a01", "a12", "l1", "A1", "a1 ", "a-1", "a111", "k99", "`1", "a:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s, err := rules.ParseSquare(name)
		if err != nil {
			if s != rules.NoSquare {
				t.Fatalf("ParseSquare(%q) error %v: got square %d, want NoSquare", name, err, s)
			}
			return
		}
		if int(s) >= rules.MaxSize*rules.MaxSize {
			t.Fatalf("ParseSquare(%q): got %d, off the layout", name, s)
		}
		// Names are canonical: no leading zero, one spelling per square.
		if got := s.String(); got != name {
			t.Fatalf("ParseSquare(%q).String(): got %q, want %q", name, got, name)
		}
		if got := rules.NewSquare(s.File(), s.Rank()); got != s {
			t.Fatalf("NewSquare(File, Rank) of %q: got %v, want %v", name, got, s)
		}
	})
}

// fuzzVariants are the rule sets FuzzMakeUnmake picks from: the embedded
// ones and the 7x7 and 9x9 ones of reference_test.go.
var fuzzVariants = func() []*rules.Variant {
	var vs []*rules.Variant
	for _, name := range variants.Names() {
		vs = append(vs, variants.MustLoad(name))
	}
	for _, def := range refSmallDefs {
		vs = append(vs, rules.MustCompile(def))
	}
	return vs
}()

func fuzzVariantOfSize(t *testing.T, size int) *rules.Variant {
	t.Helper()
	for _, v := range fuzzVariants {
		if v.Size() == size {
			return v
		}
	}
	t.Fatalf("no rule set of size %d", size)
	return nil
}

// fuzzState is everything Unmake must restore.
type fuzzState struct {
	pos          rules.Position
	hash         uint64
	ply, since   int
	repetitions  int
	outcome      rules.Outcome
	last         rules.Move
	lastCaptured rules.Bitboard
	moves        []rules.Move
}

func fuzzSnapshot(g *rules.Game) fuzzState {
	last, caps := g.LastMove()
	return fuzzState{
		pos: g.Position(), hash: g.Hash(), ply: g.Ply(), since: g.SinceCapture(),
		repetitions: g.Repetitions(), outcome: g.Outcome(), last: last, lastCaptured: caps,
		moves: g.GenerateMoves(nil),
	}
}

func fuzzCheckSame(t *testing.T, what string, got, want fuzzState) {
	t.Helper()
	switch {
	case got.pos != want.pos:
		t.Fatalf("%s: position: got %q, want %q", what, got.pos, want.pos)
	case got.hash != want.hash:
		t.Fatalf("%s: Hash: got %#x, want %#x", what, got.hash, want.hash)
	case got.ply != want.ply:
		t.Fatalf("%s: Ply: got %d, want %d", what, got.ply, want.ply)
	case got.since != want.since:
		t.Fatalf("%s: SinceCapture: got %d, want %d", what, got.since, want.since)
	case got.repetitions != want.repetitions:
		t.Fatalf("%s: Repetitions: got %d, want %d", what, got.repetitions, want.repetitions)
	case got.outcome != want.outcome:
		t.Fatalf("%s: Outcome: got %v, want %v", what, got.outcome, want.outcome)
	case got.last != want.last || got.lastCaptured != want.lastCaptured:
		t.Fatalf("%s: LastMove: got %v %v, want %v %v", what, got.last, got.lastCaptured, want.last, want.lastCaptured)
	case !slices.Equal(got.moves, want.moves):
		t.Fatalf("%s: GenerateMoves: got %s, want %s", what, refMoveNames(got.moves), refMoveNames(want.moves))
	}
}

// fuzzCheckGame checks what holds in every state of a game: the hash is the
// position's, the moves are the reference's, and a game goes on exactly while
// the side to move has a move (or ends for another reason).
func fuzzCheckGame(t *testing.T, g *rules.Game, s fuzzState) {
	t.Helper()
	if got, want := s.hash, rules.HashPosition(s.pos); got != want {
		t.Fatalf("position %q: Hash: got %#x, want HashPosition %#x", s.pos, got, want)
	}
	ref := refMoves(s.pos)
	if s.outcome.Over() {
		if len(s.moves) != 0 {
			t.Fatalf("finished game (%v) at %q: got moves %s, want none", s.outcome, s.pos, refMoveNames(s.moves))
		}
		if got, want := int(s.outcome.Ply), s.ply; got != want {
			t.Fatalf("finished game at %q: Outcome.Ply: got %d, want %d", s.pos, got, want)
		}
		if s.outcome.Reason == rules.NoMoves && len(ref) != 0 {
			t.Fatalf("game ended %v at %q, but the side to move has %s", s.outcome, s.pos, refMoveNames(ref))
		}
		for _, m := range ref {
			if g.IsLegal(m) {
				t.Fatalf("finished game (%v) at %q: IsLegal(%s): got true, want false", s.outcome, s.pos, m)
			}
		}
		return
	}
	refCompare(t, s.pos, s.moves)
	// A game started from a position is not judged there (spec: "the start
	// itself is not judged"), so only after a move must it have a move.
	if len(s.moves) == 0 && s.ply > 0 {
		t.Fatalf("position %q: game goes on but has no moves", s.pos)
	}
}

// fuzzCheckMove checks the move m from state before to state after: the
// mover's piece went from its square to the target, the captures are enemy
// soldiers taken off the board, and the counters moved on.
func fuzzCheckMove(t *testing.T, m rules.Move, before, after fuzzState) {
	t.Helper()
	b, a := before.pos, after.pos
	if after.last != m {
		t.Fatalf("after %s at %q: LastMove: got %v, want %v", m, b, after.last, m)
	}
	caps := after.lastCaptured
	if after.ply != before.ply+1 {
		t.Fatalf("after %s at %q: Ply: got %d, want %d", m, b, after.ply, before.ply+1)
	}
	wantSince := before.since + 1
	if caps.Any() {
		wantSince = 0
	}
	if after.since != wantSince {
		t.Fatalf("after %s at %q: SinceCapture: got %d, want %d", m, b, after.since, wantSince)
	}
	if a.ToMove != b.ToMove.Opponent() || a.Size != b.Size {
		t.Fatalf("after %s at %q: got %q", m, b, a)
	}
	move := rules.SquareSet(m.From(), m.To())
	mine, theirs := &b.Attackers, &b.Defenders
	mineAfter, theirsAfter := a.Attackers, a.Defenders
	if b.ToMove == rules.Defenders {
		mine, theirs = &b.Defenders, &b.Attackers
		mineAfter, theirsAfter = a.Defenders, a.Attackers
	}
	if !caps.SubsetOf(*theirs) {
		t.Fatalf("after %s at %q: captured %v, not all enemy soldiers", m, b, caps)
	}
	wantMine := *mine
	wantKing := b.King
	if m.From() == b.King {
		wantKing = m.To()
	} else {
		wantMine = wantMine.Xor(move)
	}
	if mineAfter != wantMine || a.King != wantKing || theirsAfter != theirs.AndNot(caps) {
		t.Fatalf("after %s (captures %v) at %q: got %q", m, caps, b, a)
	}
}

// FuzzMakeUnmake plays moves chosen by the input and takes them back,
// checking that Unmake restores everything and that Make agrees with Play.
//
// Input: byte 0 picks the rule set; if bit 0 of byte 1 is set, the game
// starts from a random position seeded by bytes 2..9, otherwise from the
// rule set's start. Each further byte is a move: the index (mod the number of
// moves) into GenerateMoves, or, for 0xff, an Unmake.
func FuzzMakeUnmake(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 1, 7, 7, 7, 7, 7, 7, 7, 7, 0, 1, 0xff, 2, 3, 0xff, 0xff, 4})
	// A random start where the side to move has no piece: not judged.
	f.Add([]byte("11\a7\a\a!#1Y000000"))
	for vi := range fuzzVariants {
		for seed := range 3 {
			rng := rand.New(rand.NewPCG(uint64(vi), uint64(seed)))
			data := []byte{byte(vi), byte(seed)}
			for range 8 + 150*seed {
				data = append(data, byte(rng.IntN(255)))
			}
			f.Add(data)
		}
	}
	// Long shuffles between two squares: repetition and no progress.
	for vi := range fuzzVariants {
		data := []byte{byte(vi), 0}
		for range 130 {
			data = append(data, 0, 0)
		}
		f.Add(data)
	}
	const maxMoves = 400
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		v := fuzzVariants[int(data[0])%len(fuzzVariants)]
		rest := data[2:]
		start := v.Start()
		if data[1]&1 != 0 {
			if len(rest) < 8 {
				return
			}
			rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(rest), 0))
			start = refRandomPosition(rng, v.Size())
			rest = rest[8:]
		}
		if len(rest) > maxMoves {
			rest = rest[:maxMoves]
		}
		g, err := rules.NewGameFrom(v, start)
		if err != nil {
			t.Fatalf("NewGameFrom(%s, %q): %v", v.Name(), start, err)
		}
		twin, _ := rules.NewGameFrom(v, start)
		states := []fuzzState{fuzzSnapshot(g)}
		fuzzCheckGame(t, g, states[0])
		var played []rules.Move
		unmake := func() {
			t.Helper()
			g.Unmake()
			twin.Unmake()
			m := played[len(played)-1]
			played = played[:len(played)-1]
			states = states[:len(states)-1]
			want := states[len(states)-1]
			fuzzCheckSame(t, "Unmake of "+m.String(), fuzzSnapshot(g), want)
			fuzzCheckSame(t, "twin's Unmake of "+m.String(), fuzzSnapshot(twin), want)
		}
		for _, b := range rest {
			if b == 0xff {
				if len(played) > 0 {
					unmake()
				}
				continue
			}
			before := states[len(states)-1]
			if len(before.moves) == 0 {
				break
			}
			m := before.moves[int(b)%len(before.moves)]
			if !g.IsLegal(m) {
				t.Fatalf("position %q: IsLegal(%s): got false, want true", before.pos, m)
			}
			g.Make(m)
			if err := twin.Play(m); err != nil {
				t.Fatalf("position %q: Play(%s): %v", before.pos, m, err)
			}
			played = append(played, m)
			after := fuzzSnapshot(g)
			fuzzCheckSame(t, "Play of "+m.String()+" (twin) against Make", fuzzSnapshot(twin), after)
			fuzzCheckMove(t, m, before, after)
			fuzzCheckGame(t, g, after)
			if after.outcome.Over() {
				if err := twin.Play(m); err == nil {
					t.Fatalf("finished game (%v): Play(%s): got no error, want one", after.outcome, m)
				}
			}
			states = append(states, after)
		}
		for len(played) > 0 {
			unmake()
		}
		fuzzCheckSame(t, "after unmaking every move", fuzzSnapshot(g), states[0])
	})
}
