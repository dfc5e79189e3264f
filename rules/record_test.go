package rules_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"taflab/archive"
	"taflab/configs/variants"
	"taflab/rules"
)

// recMovesText writes moves in notation, space-separated.
func recMovesText(moves []rules.RecordedMove) string {
	parts := make([]string, len(moves))
	for i, m := range moves {
		parts[i] = m.String()
	}
	return strings.Join(parts, " ")
}

func recSquare(t testing.TB, name string) rules.Square {
	t.Helper()
	s, err := rules.ParseSquare(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func recSquares(t testing.TB, names string) rules.Bitboard {
	t.Helper()
	var b rules.Bitboard
	for _, n := range strings.Fields(names) {
		b = b.With(recSquare(t, n))
	}
	return b
}

func TestParseRecord(t *testing.T) {
	cases := []struct {
		name, line string
		moves      string // the moves as String writes them
		ac, dc     int
		result     rules.RecordResult
		timeout    bool
		start      string // the start position's notation, "" for none
	}{
		{"plain", "d1-d3 e5-e2,0,0,Ongoing", "d1-d3 e5-e2", 0, 0, rules.ResultOngoing, false, ""},
		{"start", "d1-d3,0,0,Black,3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a", "d1-d3", 0, 0, rules.ResultBlack, false, "3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a"},
		{"empty start", "d1-d3,0,0,Black,", "d1-d3", 0, 0, rules.ResultBlack, false, ""},
		{"capture", "d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8xb7,1,0,Black",
			"d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8xb7", 1, 0, rules.ResultBlack, false, ""},
		{"captures sorted, written twice", "a8-b8xc7xb7xb7,3,0,White", "a8-b8xb7xc7", 3, 0, rules.ResultWhite, false, ""},
		{"timeout", "h1-h3 f8-i8 timeout,0,0,White", "h1-h3 f8-i8", 0, 0, rules.ResultWhite, true, ""},
		{"timeout alone", "timeout,0,0,Black", "", 0, 0, rules.ResultBlack, true, ""},
		{"no moves", ",0,0,Draw", "", 0, 0, rules.ResultDraw, false, ""},
		{"CRLF", "d1-d3,0,0,Draw\r\n", "d1-d3", 0, 0, rules.ResultDraw, false, ""},
		{"extra spaces", "  d1-d3   e5-e2  ,2, 7 ,Ongoing", "d1-d3 e5-e2", 2, 7, rules.ResultOngoing, false, ""},
		{"k11", "k8-k10xk11xj10,1,0,Black", "k8-k10xj10xk11", 1, 0, rules.ResultBlack, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, err := rules.ParseRecord(1, c.line)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := recMovesText(rec.Moves); got != c.moves {
				t.Errorf("moves: got %v, want %v", got, c.moves)
			}
			if rec.AttackerCaptures != c.ac || rec.DefenderCaptures != c.dc {
				t.Errorf("counts: got %v,%v, want %v,%v", rec.AttackerCaptures, rec.DefenderCaptures, c.ac, c.dc)
			}
			if rec.Result != c.result {
				t.Errorf("result: got %v, want %v", rec.Result, c.result)
			}
			if rec.Timeout != c.timeout {
				t.Errorf("timeout: got %v, want %v", rec.Timeout, c.timeout)
			}
			start := ""
			if rec.Start != nil {
				start = rec.Start.String()
			}
			if start != c.start {
				t.Errorf("start: got %q, want %q", start, c.start)
			}
		})
	}
}

func TestParseRecordErrors(t *testing.T) {
	cases := []struct {
		name, line string
		ply        int
		token      string
		want       string // the whole message
	}{
		{"empty", "", 0, "", "rules: line 7: 1 fields, want 4 or 5 (moves,attacker_captures,defender_captures,result[,start])"},
		{"three fields", "d1-d3,0,0", 0, "", "rules: line 7: 3 fields, want 4 or 5 (moves,attacker_captures,defender_captures,result[,start])"},
		{"six fields", "d1-d3,0,0,Black,x,y", 0, "", "rules: line 7: 6 fields, want 4 or 5 (moves,attacker_captures,defender_captures,result[,start])"},
		{"bad start", "d1-d3,0,0,Black,x", 0, "", `rules: line 7: start: position "x": missing the side to move (a space, then a or d)`},
		{"bad to-square", "d1-d3 e5-e,0,0,Ongoing", 2, "e5-e",
			`rules: line 7, ply 2: bad move "e5-e": to-square: bad square "e": want a file letter and a rank number, such as f6`},
		{"no dash", "d1d3,0,0,Black", 1, "d1d3", `rules: line 7, ply 1: bad move "d1d3": want from-to, such as d1-d3`},
		{"bad capture", "d1-d3 e5-e2 f2-f3xz9,0,0,Black", 3, "f2-f3xz9",
			`rules: line 7, ply 3: bad move "f2-f3xz9": captured square: bad square "z9": file 'z' is not a to k`},
		{"empty capture", "d1-d3x,0,0,Black", 1, "d1-d3x",
			`rules: line 7, ply 1: bad move "d1-d3x": captured square: bad square "": want a file letter and a rank number, such as f6`},
		{"rank 12", "d1-d12,0,0,Black", 1, "d1-d12", `rules: line 7, ply 1: bad move "d1-d12": to-square: bad square "d12": rank 12 is not from 1 to 11`},
		{"timeout inside", "d1-d3 timeout e5-e2,0,0,Black", 2, "timeout",
			`rules: line 7, ply 2: "timeout" is not a move: it may only follow the last move`},
		{"glued timeout", "d1-d3timeout,0,0,Black", 1, "d1-d3timeout",
			`rules: line 7, ply 1: bad move "d1-d3timeout": to-square: bad square "d3timeout": want a file letter and a rank number, such as f6`},
		{"negative count", "d1-d3,-1,0,Black", 0, "", `rules: line 7: attacker_captures "-1": want a count (0 or more)`},
		{"word count", "d1-d3,0,two,Black", 0, "", `rules: line 7: defender_captures "two": want a count (0 or more)`},
		{"lower-case result", "d1-d3,0,0,black", 0, "", `rules: line 7: result "black": want Black, White, Draw or Ongoing`},
		{"no result", "d1-d3,0,0,", 0, "", `rules: line 7: result "": want Black, White, Draw or Ongoing`},
		{"header", "moves,attacker_captures,defender_captures,result", 1, "moves",
			`rules: line 7, ply 1: bad move "moves": want from-to, such as d1-d3`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := rules.ParseRecord(7, c.line)
			if err == nil {
				t.Fatalf("got no error, want %v", c.want)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
			var re *rules.RecordError
			if !errors.As(err, &re) {
				t.Fatalf("got %T, want *rules.RecordError", err)
			}
			if re.Line != 7 || re.Ply != c.ply || re.Token != c.token {
				t.Errorf("got line %v, ply %v, token %q, want line 7, ply %v, token %q", re.Line, re.Ply, re.Token, c.ply, c.token)
			}
		})
	}
}

func TestParseMoves(t *testing.T) {
	cases := []struct {
		name, text, want, err string
	}{
		{"two", "d1-d3 e5-e2", "d1-d3 e5-e2", ""},
		{"empty", "", "", ""},
		{"blank", " \t ", "", ""},
		{"captures", "a5-a2xb2xa3", "a5-a2xa3xb2", ""},
		{"bad second", "d1-d3 e5", "", `rules: ply 2: bad move "e5": want from-to, such as d1-d3`},
		{"timeout", "d1-d3 timeout", "", `rules: ply 2: "timeout" is not a move: it may only follow the last move`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			moves, err := rules.ParseMoves(c.text)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("got error %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := recMovesText(moves); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestRecordResult(t *testing.T) {
	cases := []struct {
		r      rules.RecordResult
		name   string
		winner rules.Winner
	}{
		{rules.NoResult, "", rules.NoWinner},
		{rules.ResultBlack, "Black", rules.AttackersWin},
		{rules.ResultWhite, "White", rules.DefendersWin},
		{rules.ResultDraw, "Draw", rules.Draw},
		{rules.ResultOngoing, "Ongoing", rules.NoWinner},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("result_%d", c.r), func(t *testing.T) {
			if got := c.r.String(); got != c.name {
				t.Errorf("String: got %v, want %v", got, c.name)
			}
			if got := c.r.Winner(); got != c.winner {
				t.Errorf("Winner: got %v, want %v", got, c.winner)
			}
		})
	}
}

// FuzzParseRecord checks that no line makes ParseRecord or Replay panic, and
// that a replay accounts for every move it was given.
func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{
		"d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8xb7,1,0,Ongoing",
		"h1-h3 f8-i8 timeout,0,0,White",
		"a1-a1,0,0,Draw",
		"k11-k1xk11xa1,0,0,Black",
		"d1-d3xd1,,,",
		"-,0,0,Black",
		"x-x,1,1,White",
		"a1-,0,0,Black",
		"d1-d3 d1-d2 e5-e2,0,0,Black",
	} {
		f.Add(s)
	}
	v := variants.MustLoad("copenhagen-classic")
	f.Fuzz(func(t *testing.T, line string) {
		rec, err := rules.ParseRecord(1, line)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "rules: line 1") {
				t.Errorf("got %v, want an error naming line 1", err)
			}
			return
		}
		r := rules.Replay(v, v.Start(), rec.Moves, 1)
		if r.Err == nil && len(r.Moves)+r.MovesAfterEnd != len(rec.Moves) {
			t.Errorf("got %v applied + %v after the end, want %v moves", len(r.Moves), r.MovesAfterEnd, len(rec.Moves))
		}
	})
}

func TestReplay(t *testing.T) {
	classic := variants.MustLoad("copenhagen-classic")
	def := classic.Definition()
	def.Repetition = rules.RepetitionNone
	def.Name = "no-repetition"
	noRepetition, err := rules.Compile(def)
	if err != nil {
		t.Fatal(err)
	}
	// kingTrap: the king on c3 with attackers on b3, d3 and c2; c6-c4 takes him.
	kingTrap := rules.Position{Attackers: recSquares(t, "b3 d3 c2 c6"), Defenders: recSquares(t, "h8"),
		King: recSquare(t, "c3"), ToMove: rules.Attackers, Size: 11}
	// escape: the king on a5 with the way to a1 open.
	escape := rules.Position{Attackers: recSquares(t, "e1 e11"), Defenders: recSquares(t, "h8"),
		King: recSquare(t, "a5"), ToMove: rules.Defenders, Size: 11}
	const game2 = "d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 "
	const shuffle = "b6-b7 f8-i8 b7-b6 i8-f8 b6-b7 f8-i8 b7-b6 i8-f8" // the start stands a third time
	cases := []struct {
		name       string
		v          *rules.Variant
		start      *rules.Position // nil: the rule set's start
		moves      string
		applied    string // the moves applied, with the engine's captures
		mismatches int
		first      int // FirstMismatch
		afterEnd   int
		outcome    rules.Outcome
		err        string // the whole message, "" for none
	}{
		{"capture written", classic, nil, game2 + "a8-b8xb7", game2 + "a8-b8xb7", 0, 0, 0, rules.Outcome{}, ""},
		{"capture not written", classic, nil, game2 + "a8-b8", game2 + "a8-b8xb7", 1, 7, 0, rules.Outcome{}, ""},
		{"capture written twice", classic, nil, game2 + "a8-b8xb7xb7", game2 + "a8-b8xb7", 0, 0, 0, rules.Outcome{}, ""},
		{"capture too many", classic, nil, game2 + "a8-b8xb7xc7", game2 + "a8-b8xb7", 1, 7, 0, rules.Outcome{}, ""},
		{"capture that is not", classic, nil, "d1-d3xd4 e5-e2xa1", "d1-d3 e5-e2", 2, 1, 0, rules.Outcome{}, ""},
		{"king captured, written", classic, &kingTrap, "c6-c4xc3", "c6-c4", 0, 0, 0,
			rules.Outcome{Winner: rules.AttackersWin, Reason: rules.KingCaptured, Ply: 1}, ""},
		{"king captured, not written", classic, &kingTrap, "c6-c4", "c6-c4", 0, 0, 0,
			rules.Outcome{Winner: rules.AttackersWin, Reason: rules.KingCaptured, Ply: 1}, ""},
		{"moves after the king's capture", classic, &kingTrap, "c6-c4 h8-h9 b3-b4", "c6-c4", 0, 0, 2,
			rules.Outcome{Winner: rules.AttackersWin, Reason: rules.KingCaptured, Ply: 1}, ""},
		{"moves after an escape, illegal ones too", classic, &escape, "a5-a1 e1-e2 a1-a1", "a5-a1", 0, 0, 2,
			rules.Outcome{Winner: rules.DefendersWin, Reason: rules.KingEscaped, Ply: 1}, ""},
		{"repetition", classic, nil, shuffle + " b6-b7", shuffle, 0, 0, 1,
			rules.Outcome{Winner: rules.AttackersWin, Reason: rules.Repetition, Ply: 8}, ""},
		{"repetition off", noRepetition, nil, shuffle + " b6-b7", shuffle + " b6-b7", 0, 0, 0, rules.Outcome{}, ""},
		{"no piece", classic, nil, "d1-d3 d1-d2 e5-e2", "d1-d3", 0, 0, 0, rules.Outcome{},
			"rules: line 12, ply 2: illegal move d1-d2: defenders to move, but no piece stands on d1"},
		{"blocked", classic, nil, "f1-f3", "", 0, 0, 0, rules.Outcome{},
			"rules: line 12, ply 1: illegal move f1-f3: f2 is occupied"},
		{"soldier to a corner", classic, nil, "a4-a1xa2", "", 0, 0, 0, rules.Outcome{},
			"rules: line 12, ply 1: illegal move a4-a1: only the king may stop on a1"},
		{"diagonal after a mismatch", classic, nil, "d1-d3xd4 e5-f4", "d1-d3", 1, 1, 0, rules.Outcome{},
			"rules: line 12, ply 2: illegal move e5-f4: not a move along one rank or file"},
		{"a1-a1", classic, nil, "a1-a1", "", 0, 0, 0, rules.Outcome{},
			"rules: line 12, ply 1: illegal move a1-a1: attackers to move, but no piece stands on a1"},
		{"wrong start", classic, &rules.Position{King: recSquare(t, "d4"), Size: 7}, "d1-d3", "", 0, 0, 0, rules.Outcome{},
			"rules: line 12: start position: position is 7x7, rule set copenhagen-classic plays on 11x11"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			moves, err := rules.ParseMoves(c.moves)
			if err != nil {
				t.Fatal(err)
			}
			start := c.v.Start()
			if c.start != nil {
				start = *c.start
			}
			r := rules.Replay(c.v, start, moves, 12)
			if got := recMovesText(r.Moves); got != strings.TrimSpace(c.applied) {
				t.Errorf("moves: got %v, want %v", got, c.applied)
			}
			if r.CaptureMismatches != c.mismatches || r.FirstMismatch != c.first {
				t.Errorf("mismatches: got %v (first %v), want %v (first %v)", r.CaptureMismatches, r.FirstMismatch, c.mismatches, c.first)
			}
			if r.MovesAfterEnd != c.afterEnd {
				t.Errorf("moves after end: got %v, want %v", r.MovesAfterEnd, c.afterEnd)
			}
			if r.Outcome != c.outcome {
				t.Errorf("outcome: got %v, want %v", r.Outcome, c.outcome)
			}
			gotErr := ""
			if r.Err != nil {
				gotErr = r.Err.Error()
			}
			if gotErr != c.err {
				t.Errorf("error: got %v, want %v", gotErr, c.err)
			}
			// The final position is the one the applied moves reach.
			if r.Err == nil || len(r.Moves) > 0 {
				g, err := rules.NewGameFrom(c.v, start)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range r.Moves {
					if err := g.Play(m.Move); err != nil {
						t.Fatal(err)
					}
				}
				if got, want := r.Position.String(), g.Position().String(); got != want {
					t.Errorf("position: got %v, want %v", got, want)
				}
			}
		})
	}
}

// TestRealGames replays every game of the human archive (embedded) under
// copenhagen-classic, the rules the games were played by (see the data's
// README): every move must be legal and make exactly the captures written,
// and where the rules end a game on its last recorded move, the winner must
// be the one recorded.
//
// How a record's result is held against a game that the rules end on its
// last move: Black must be the attackers' win and White the defenders' (by
// any reason). Draw must be a draw (no progress), since the server ended a
// game the rules end, so a rules win recorded as a draw is a disagreement.
// Ongoing must not be ended by the rules at all: the record says the server
// saw no end, so a rules end is a disagreement too. The one exception is an
// end by repetition: the server did not enforce that rule, so such a game is
// reported, not failed.
//
// A game that the rules end before its last move fails the test unless it
// ends by repetition: those are the games that ran past a third repetition
// on a server that did not enforce it. They are reported, and replayed again
// with repetition off so that their later moves are still checked.
func TestRealGames(t *testing.T) {
	a, ok := archive.Lookup(archive.Copenhagen)
	if !ok {
		t.Fatalf("no embedded archive %s", archive.Copenhagen)
	}
	data := a.Data()
	classic := variants.MustLoad("copenhagen-classic")
	def := classic.Definition()
	def.Repetition = rules.RepetitionNone
	noRepetition, err := rules.Compile(def)
	if err != nil {
		t.Fatal(err)
	}

	games, plies, recorded := 0, 0, 0
	byReason := map[string]int{}
	var repeated, attackersRepeated []string
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		n := i + 1
		if strings.TrimSpace(line) == "" {
			continue
		}
		games++
		rec, err := rules.ParseRecord(n, line)
		if err != nil {
			t.Errorf("game on line %d: %v", n, err)
			continue
		}
		r := rules.Replay(classic, classic.Start(), rec.Moves, n)
		plies += len(r.Moves)
		recorded += len(rec.Moves)
		reason := r.Outcome.Reason.String()
		if !r.Outcome.Over() {
			reason = "not ended"
		}
		byReason[reason]++
		recCheckReplay(t, classic, rec, r, n)
		if ply := recThirdOccurrence(noRepetition, rec.Moves, rules.Attackers); ply > 0 {
			attackersRepeated = append(attackersRepeated, fmt.Sprintf("%d (ply %d)", n, ply))
		}

		switch {
		case !r.Outcome.Over():
		case r.MovesAfterEnd == 0:
			if r.Outcome.Winner == rec.Result.Winner() {
				break
			}
			if r.Outcome.Reason == rules.Repetition {
				repeated = append(repeated, fmt.Sprintf("line %d: %v on the last move, recorded %v", n, r.Outcome, rec.Result))
				break
			}
			t.Errorf("game on line %d: the rules end it on its last move with %v, but the record says %v\n  position: %v",
				n, r.Outcome, rec.Result, r.Position)
		case r.Outcome.Reason == rules.Repetition:
			repeated = append(repeated, fmt.Sprintf("line %d: %v, %d recorded moves after it, recorded %v",
				n, r.Outcome, r.MovesAfterEnd, rec.Result))
			again := rules.Replay(noRepetition, noRepetition.Start(), rec.Moves, n)
			recCheckReplay(t, noRepetition, rec, again, n)
			repeated[len(repeated)-1] += fmt.Sprintf("; with repetition off: %d plies, %v", len(again.Moves), again.Outcome)
			if again.Outcome.Over() && (again.MovesAfterEnd > 0 || again.Outcome.Winner != rec.Result.Winner()) {
				t.Errorf("game on line %d, repetition off: the rules end it with %v with %d moves after it, but the record says %v",
					n, again.Outcome, again.MovesAfterEnd, rec.Result)
			}
		default:
			ply := int(r.Outcome.Ply)
			t.Errorf("game on line %d: the rules end it at ply %d (%v) with %d recorded moves after it; recorded %v\n  move: %v\n  position before: %v\n  position after: %v",
				n, ply, r.Outcome, r.MovesAfterEnd, rec.Result, r.Moves[ply-1], recPositionBefore(t, classic, rec.Moves, ply), r.Position)
		}
	}

	for _, s := range repeated {
		t.Logf("ran past a third repetition: %s", s)
	}
	t.Logf("attackers' moves into a third repetition (not punished under copenhagen-classic), first one per game: lines %s",
		strings.Join(attackersRepeated, ", "))
	reasons := make([]string, 0, len(byReason))
	for reason, count := range byReason {
		reasons = append(reasons, fmt.Sprintf("%s %d", reason, count))
	}
	sort.Strings(reasons)
	t.Logf("%d games, %d plies applied of %d recorded, %d games ran past a third repetition; outcomes: %s",
		games, plies, recorded, len(repeated), strings.Join(reasons, ", "))
	if games != a.Games {
		t.Errorf("games: got %d, want %d (the archive's)", games, a.Games)
	}
}

// recCheckReplay fails on an illegal move or a capture mismatch of a real game,
// naming the move and the position it was played in.
func recCheckReplay(t *testing.T, v *rules.Variant, rec rules.Record, r rules.ReplayResult, line int) {
	t.Helper()
	if r.Err != nil {
		var re *rules.RecordError
		ply := 0
		if errors.As(r.Err, &re) {
			ply = re.Ply
		}
		t.Errorf("game on line %d under %s: %v\n  position before: %v", line, v.Name(), r.Err, recPositionBefore(t, v, rec.Moves, ply))
	}
	if r.CaptureMismatches > 0 {
		ply := r.FirstMismatch
		t.Errorf("game on line %d under %s: %d capture mismatches; the first at ply %d: written %v, the rules made %v\n  position before: %v",
			line, v.Name(), r.CaptureMismatches, ply, rec.Moves[ply-1], r.Moves[ply-1], recPositionBefore(t, v, rec.Moves, ply))
	}
}

// recThirdOccurrence returns the ply of the first move by side that brings
// about a position for the third time (or later), or 0 if none does. It plays
// the moves under v, which should not judge repetition, up to the first
// illegal one.
func recThirdOccurrence(v *rules.Variant, moves []rules.RecordedMove, side rules.Side) int {
	g := rules.NewGame(v)
	for i, m := range moves {
		mover := g.ToMove()
		if g.Play(m.Move) != nil {
			break
		}
		if mover == side && g.Repetitions() >= 3 {
			return i + 1
		}
	}
	return 0
}

// recPositionBefore returns the position in which the move of the given ply
// (from 1) was played.
func recPositionBefore(t *testing.T, v *rules.Variant, moves []rules.RecordedMove, ply int) rules.Position {
	t.Helper()
	if ply < 1 || ply > len(moves) {
		return v.Start()
	}
	return rules.Replay(v, v.Start(), moves[:ply-1], 0).Position
}
