package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// This file is the game-record format of ../shared/data/ (spec, "Notation"):
// one game a line, "moves,attacker_captures,defender_captures,result", the
// moves space-separated, attackers first, each written "from-to" followed by
// "x" and each captured square; a final token "timeout" may follow the moves.
// A fifth field, this project's extension, may give the position the game
// started from (an opening suite's), in position notation; a record without
// it starts from the rule set's start. Replay plays a record's moves and compares the captures written with the
// captures the rules make. Neither is a hot path: they allocate a slice per
// game and never per move.

// RecordResult is the result a game record states.
type RecordResult uint8

const (
	NoResult      RecordResult = iota // no result written: a game given as moves alone
	ResultBlack                       // "Black": the attackers won
	ResultWhite                       // "White": the defenders won
	ResultDraw                        // "Draw": nobody won
	ResultOngoing                     // "Ongoing": the record stops before an end
)

var recordResultNames = []string{"", "Black", "White", "Draw", "Ongoing"}

// String returns the result as records write it ("Black", "White", "Draw",
// "Ongoing"), or "" for NoResult.
func (r RecordResult) String() string { return enumName(recordResultNames, uint8(r)) }

// Winner returns the winner the result states: AttackersWin for Black,
// DefendersWin for White, Draw for Draw, and NoWinner for Ongoing and
// NoResult.
func (r RecordResult) Winner() Winner {
	switch r {
	case ResultBlack:
		return AttackersWin
	case ResultWhite:
		return DefendersWin
	case ResultDraw:
		return Draw
	}
	return NoWinner
}

// RecordedMove is a move with a set of captured squares: as written in a
// record (ParseRecord, ParseMoves), or as the rules made it (Replay).
type RecordedMove struct {
	Move     Move
	Captures Bitboard
}

// String returns the move in notation, captures sorted a1, a2, ..., k11.
func (m RecordedMove) String() string { return string(AppendMove(nil, m.Move, m.Captures)) }

// Record is one game of a game-record file.
type Record struct {
	// Line is the record's line in its file, from 1 (0 if none).
	Line int
	// Moves are the moves as written, with the captures written after them
	// (a square written twice is in the set once).
	Moves []RecordedMove
	// AttackerCaptures and DefenderCaptures are the counts the record
	// states. The archive counts a square written twice twice, so they are
	// read but not checked against the moves.
	AttackerCaptures, DefenderCaptures int
	// Result is the result the record states.
	Result RecordResult
	// Timeout is set when the moves end with the token "timeout".
	Timeout bool
	// Forfeit is the token the moves end with when a game was lost
	// outside the rules: "timeout" (as Timeout), or, in the games of
	// matches with engine programs, "illegal-move" or "crash"; "" if none.
	Forfeit string
	// Start is the position the game started from (the fifth field), or
	// nil for the rule set's start.
	Start *Position
}

// StartOr returns the record's start position, or def when it has none.
func (r *Record) StartOr(def Position) Position {
	if r.Start != nil {
		return *r.Start
	}
	return def
}

// RecordError says what is wrong with a game record or with one of its moves,
// and where: the line of the file, the ply of the move (which is also the
// move's token number in the moves field), and the token as written.
type RecordError struct {
	Line  int    // the record's line, from 1; 0 for moves given without a file
	Ply   int    // the move's ply, from 1; 0 when the problem is not in a move
	Token string // the text at fault as written, or the move played; "" if none
	Err   error  // what is wrong, without a package prefix
}

// Error returns the message, such as
// "rules: line 12, ply 7: illegal move d1-d4: d2 is occupied".
func (e *RecordError) Error() string { return "rules: " + e.Message() }

// Message is the error's text without the package's name, such as
// "line 12, ply 7: illegal move d1-d4: d2 is occupied".
func (e *RecordError) Message() string {
	var b []byte
	if e.Line > 0 {
		b = append(b, "line "...)
		b = strconv.AppendInt(b, int64(e.Line), 10)
	}
	if e.Ply > 0 {
		if e.Line > 0 {
			b = append(b, ", "...)
		}
		b = append(b, "ply "...)
		b = strconv.AppendInt(b, int64(e.Ply), 10)
	}
	if e.Line > 0 || e.Ply > 0 {
		b = append(b, ": "...)
	}
	if e.Err == nil {
		return string(append(b, "bad record"...))
	}
	return string(append(b, e.Err.Error()...))
}

// Unwrap returns the underlying error.
func (e *RecordError) Unwrap() error { return e.Err }

// forfeitTokens are the words a record's moves may end with (Record.Forfeit).
var forfeitTokens = []string{"timeout", "illegal-move", "crash"}

// recordFields names the fields of a record line, in order.
const recordFields = "moves,attacker_captures,defender_captures,result[,start]"

// ParseRecord reads one line of a game-record file; line is its number in
// the file (from 1), for errors. A trailing "\r" is ignored. Errors are
// *RecordError values naming the line and, for a bad move, the ply and the
// token; ParseRecord never panics.
func ParseRecord(line int, text string) (Record, error) {
	text = strings.TrimSuffix(text, "\n")
	text = strings.TrimSuffix(text, "\r")
	bad := func(format string, args ...any) (Record, error) {
		return Record{}, &RecordError{Line: line, Err: fmt.Errorf(format, args...)}
	}
	if n := strings.Count(text, ",") + 1; n != 4 && n != 5 {
		return bad("%d fields, want 4 or 5 (%s)", n, recordFields)
	}
	moves, rest, _ := strings.Cut(text, ",")
	attackerCaptures, rest, _ := strings.Cut(rest, ",")
	defenderCaptures, rest, _ := strings.Cut(rest, ",")
	result, start, hasStart := strings.Cut(rest, ",")

	rec := Record{Line: line}
	var err error
	trimmed := strings.TrimRight(moves, " \t")
	for _, token := range forfeitTokens {
		if before, ok := strings.CutSuffix(trimmed, token); ok && (before == "" || strings.HasSuffix(before, " ") || strings.HasSuffix(before, "\t")) {
			moves, rec.Forfeit = before, token
			break
		}
	}
	if rec.Moves, err = parseMoves(line, moves); err != nil {
		return Record{}, err
	}
	rec.Timeout = rec.Forfeit == "timeout"
	counts := [2]struct {
		name, text string
		dst        *int
	}{{"attacker_captures", attackerCaptures, &rec.AttackerCaptures}, {"defender_captures", defenderCaptures, &rec.DefenderCaptures}}
	for _, c := range counts {
		s := strings.TrimSpace(c.text)
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return bad("%s %q: want a count (0 or more)", c.name, s)
		}
		*c.dst = n
	}
	result = strings.TrimSpace(result)
	for i, name := range recordResultNames {
		if i > 0 && name == result {
			rec.Result = RecordResult(i)
		}
	}
	if rec.Result == NoResult {
		return bad("result %q: want Black, White, Draw or Ongoing", result)
	}
	if start = strings.TrimSpace(start); hasStart && start != "" {
		p, err := ParsePosition(start)
		if err != nil {
			return bad("start: %v", unwrapPrefix(err))
		}
		rec.Start = &p
	}
	return rec, nil
}

// IsRecordHeader reports whether a line is a record file's header line
// ("moves,attacker_captures,...").
func IsRecordHeader(text string) bool { return strings.HasPrefix(text, "moves,") }

// ParseMoves reads moves in notation separated by spaces, such as
// "d1-d3 g3-e3xe2"; the first move is ply 1. Errors are *RecordError values
// naming the ply and the token; ParseMoves never panics.
func ParseMoves(text string) ([]RecordedMove, error) { return parseMoves(0, text) }

func parseMoves(line int, text string) ([]RecordedMove, error) {
	moves := make([]RecordedMove, 0, countTokens(text))
	for rest := text; ; {
		var token string
		token, rest = nextToken(rest)
		if token == "" {
			return moves, nil
		}
		ply := len(moves) + 1
		if token == "timeout" {
			return nil, &RecordError{Line: line, Ply: ply, Token: token, Err: fmt.Errorf("%q is not a move: it may only follow the last move", token)}
		}
		m, captures, err := ParseMove(token)
		if err != nil {
			return nil, &RecordError{Line: line, Ply: ply, Token: token, Err: unwrapPrefix(err)}
		}
		moves = append(moves, RecordedMove{Move: m, Captures: captures})
	}
}

// nextToken returns the first token of s (separated by spaces or tabs) and
// the text after it; token is "" when s holds none.
func nextToken(s string) (token, rest string) {
	start := 0
	for start < len(s) && (s[start] == ' ' || s[start] == '\t') {
		start++
	}
	end := start
	for end < len(s) && s[end] != ' ' && s[end] != '\t' {
		end++
	}
	return s[start:end], s[end:]
}

func countTokens(s string) int {
	n := 0
	for t, rest := nextToken(s); t != ""; t, rest = nextToken(rest) {
		n++
	}
	return n
}

// ReplayResult is what Replay found.
type ReplayResult struct {
	// Moves are the moves applied, with the captures the rules made.
	Moves []RecordedMove
	// CaptureMismatches counts the applied moves whose written captures
	// differ, as a set and leaving out the square the king stood on, from
	// the captures the rules made.
	CaptureMismatches int
	// FirstMismatch is the ply of the first capture mismatch, 0 if none.
	FirstMismatch int
	// MovesAfterEnd counts the moves that were left when the rules ended
	// the game.
	MovesAfterEnd int
	// Outcome is how the rules ended the game, or the zero Outcome.
	Outcome Outcome
	// Position is the position after the last move applied.
	Position Position
	// Err is nil, or a *RecordError naming the ply and the move that could
	// not be played (or the start position that could not be set up);
	// Replay stops there.
	Err error
}

// Replay plays recorded moves under v from the position start, stopping at
// the first illegal move or where the rules end the game; line is the
// record's line in its file for errors (0 if none). Written captures never
// make a move illegal: where they differ from the captures the rules make,
// the move counts as a capture mismatch. A written capture of the square the
// king stands on is left out of the comparison (records mark a captured king
// inconsistently, and the rules never list him as a capture). A start
// position Variant.CheckStart refuses (a finished game) is an error.
func Replay(v *Variant, start Position, moves []RecordedMove, line int) ReplayResult {
	r := ReplayResult{Position: start}
	g, err := NewGameFromStart(v, start)
	if err != nil {
		r.Err = &RecordError{Line: line, Err: fmt.Errorf("start position: %w", unwrapPrefix(err))}
		return r
	}
	r.Moves = make([]RecordedMove, 0, len(moves))
	for i, rm := range moves {
		if g.outcome.Over() {
			r.MovesAfterEnd = len(moves) - i
			break
		}
		if !g.IsLegal(rm.Move) {
			r.Err = &RecordError{Line: line, Ply: i + 1, Token: rm.Move.String(), Err: fmt.Errorf("illegal move %s: %w", rm.Move, g.whyIllegal(rm.Move))}
			break
		}
		g.Make(rm.Move)
		_, captured := g.LastMove()
		if rm.Captures.Without(g.king) != captured {
			r.CaptureMismatches++
			if r.FirstMismatch == 0 {
				r.FirstMismatch = i + 1
			}
		}
		r.Moves = append(r.Moves, RecordedMove{Move: rm.Move, Captures: captured})
	}
	r.Outcome = g.Outcome()
	r.Position = g.Position()
	return r
}
