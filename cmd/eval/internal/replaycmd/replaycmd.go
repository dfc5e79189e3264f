// Package replaycmd is "eval replay": its flags, help and the JSON line of
// each game, over rules.Replay and datasets.ScanRecordGames.
package replaycmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"taflab/archive"
	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/rules"
)

const help = `usage: eval replay [-variant NAME|FILE|otr:RULES] [-start POSITION] -moves "m1 m2 ..."
       eval replay [-variant NAME|FILE|otr:RULES] [-start POSITION] FILE ...

Replays games under a rule set and checks them against its rules: the
command-line check of the rules, for people and for tests. Flags come before
the files.

Input: either one game given by -moves, or every game of the game-record
files (- for standard input; archive:copenhagen for the human archive that
ships inside taflab). Moves are written from-to, captures after them
as x and the square: "d1-d3 e5-e2 a8-b8xb7". A game-record file has one game
a line, as in the Copenhagen archive:

    moves,attacker_captures,defender_captures,result[,start]

moves space-separated, attackers first, optionally ending with the token
timeout; result Black (attackers won), White (defenders won), Draw or
Ongoing. Blank lines and a header line are skipped. Every game starts from
its record's start position when it has one (a fifth field, which match
play writes for games from an opening suite), else from -start.

Output: one JSON object per game, one per line:

    {"game": N, "plies": applied, "moves": ["d1-d3", "g3-e3xe2", ...],
     "capture_mismatches": K, "moves_after_end": M,
     "outcome": null | {"winner": "attackers"|"defenders"|"draw", "reason": R, "ply": P},
     "record_result": "Black"|"White"|"Draw"|"Ongoing"|null,
     "position": FINAL, "error": null | TEXT}

  game                the game's number, from 1, counted over all inputs
  plies               the moves applied
  moves               the moves applied, written with the captures the rules
                      made (captured squares sorted a1, a2, ..., k11)
  capture_mismatches  moves whose written captures (as a set, the king's
                      square left out) differ from the rules' captures;
                      a difference is counted, never a reason to stop
  moves_after_end     moves left unplayed when the rules ended the game
  outcome             how the rules ended the game (null: not ended); R is
                      one of king-escaped, king-captured, shieldwall,
                      edge-fort, encirclement, repetition, no-moves,
                      no-progress, and P the ply of the move that ended it
  record_result       the result the record states (null for -moves, or a
                      line that could not be read)
  position            the position after the last move applied, in position
                      notation (the side named is the one to move next)
  error               null, or what stopped the game: an illegal move or a
                      malformed line, naming the file, line, ply and move;
                      the command goes on with the next game

Limits: a line of more than 1 MiB (1048576 bytes) or a file of more than
256 MiB stops that file with an error naming it and the line (exit status
1); the games before it are reported. -start must be a position a game can
start from: one of the rule set, with the king off the corners and a move
for the side to move.

Exit status: 0 if every game replayed without error, 1 if any game had an
error (or a file could not be read), 2 for bad flags, 130 stopped by a
signal (the games replayed so far are written).

Examples:

    eval replay -moves "d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8xb7"
    eval replay -variant copenhagen-classic archive:copenhagen
    eval replay -variant my-rules.toml -start "POSITION" -moves "d1-d3"
    cat games.csv | eval replay -variant fetlar -

Flags:
`

// flags are the command's settings once the flags are read.
type flags struct {
	variant  *rules.Variant
	start    rules.Position
	moves    string
	movesSet bool
	files    []string
}

// GameReport is the JSON line of one game; the field order is the spec's
// (the help's).
type GameReport struct {
	Game              int            `json:"game"`
	Plies             int            `json:"plies"`
	Moves             []string       `json:"moves"`
	CaptureMismatches int            `json:"capture_mismatches"`
	MovesAfterEnd     int            `json:"moves_after_end"`
	Outcome           *OutcomeReport `json:"outcome"`
	RecordResult      *string        `json:"record_result"`
	Position          string         `json:"position"`
	Error             *string        `json:"error"`
}

// OutcomeReport is how the rules ended a game.
type OutcomeReport struct {
	Winner string `json:"winner"`
	Reason string `json:"reason"`
	Ply    int    `json:"ply"`
}

// Run runs "eval replay" with its arguments and returns the exit status:
// 130 when ctx stops it (the games replayed so far are written).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, status := parseFlags(args, stdout, stderr)
	if f == nil {
		return status
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	r := replayer{ctx: ctx, f: f, enc: json.NewEncoder(out), stderr: stderr}
	r.enc.SetEscapeHTML(false)

	if f.movesSet {
		moves, err := rules.ParseMoves(f.moves)
		if err != nil {
			r.report(rules.ReplayResult{Position: f.start}, "", err.Error())
		} else {
			r.replay(f.start, moves, 0, "", "")
		}
	}
	for _, name := range f.files {
		if ctx.Err() != nil {
			break
		}
		if name == "-" {
			r.replayFile("stdin", cli.StopReader(ctx, stdin)) // a signal stops a wait for input too
			continue
		}
		file, err := archive.Open(name) // a file (regular only: a pipe is read as "-"), or an embedded archive
		if err != nil {
			fmt.Fprintf(stderr, "eval replay: %v\n", err)
			r.failed = true
			continue
		}
		r.replayFile(name, file)
		file.Close()
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "eval replay: writing the output: %v\n", err)
		return 1
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "eval replay: stopped after %d games\n", r.game)
		return 130
	}
	if r.failed {
		return 1
	}
	return 0
}

// parseFlags reads the flags. It returns nil and the exit status when
// the command should stop: 0 after -h, 2 for bad flags.
func parseFlags(args []string, stdout, stderr io.Writer) (*flags, int) {
	fs := cli.NewFlags("eval replay", "", stderr)
	fs.Usage = func() {} // the help goes to stdout, on -h only
	variant := fs.String("variant", "copenhagen", "the rule set: an embedded `name` ("+strings.Join(variants.Names(), ", ")+
		")\nor a rule-set file ending in .toml (copy one of configs/variants/ and change it)")
	start := fs.String("start", "", "the `position` every game starts from, in position notation\n(default the rule set's start)")
	moves := fs.String("moves", "", "replay this one game: `moves` in notation, space-separated\n(exclusive with FILE arguments)")
	fs.Document() // none yet: a numeric flag needs one
	if err := fs.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, help)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil, 0
		}
		fmt.Fprintln(stderr, "eval replay: run eval replay -h for help")
		return nil, 2
	}
	if err := fs.CheckRanges(); err != nil {
		fmt.Fprintf(stderr, "eval replay: %v\n", err)
		return nil, 2
	}
	f := &flags{moves: *moves, files: fs.Args()}
	fs.Visit(func(fl *flag.Flag) { f.movesSet = f.movesSet || fl.Name == "moves" })
	bad := func(format string, a ...any) (*flags, int) {
		fmt.Fprintf(stderr, "eval replay: "+format+"\n", a...)
		fmt.Fprintln(stderr, "eval replay: run eval replay -h for help")
		return nil, 2
	}
	switch {
	case f.movesSet && len(f.files) > 0:
		return bad("give -moves or FILE arguments, not both (got -moves and %s)", strings.Join(f.files, " "))
	case !f.movesSet && len(f.files) == 0:
		return bad("nothing to replay: give -moves \"m1 m2 ...\" or FILE arguments (- for standard input)")
	}
	v, err := configs.LoadVariant(*variant)
	if err != nil {
		return bad("-variant: %v", err)
	}
	f.variant, f.start = v, v.Start()
	if *start != "" {
		p, err := rules.ParsePosition(*start)
		if err == nil {
			// A position of the rule set, and a game not already over.
			err = v.CheckStart(p)
		}
		if err != nil {
			return bad("-start: %v", err)
		}
		f.start = p
	}
	return f, 0
}

// replayer replays games and writes their reports.
type replayer struct {
	ctx    context.Context
	f      *flags
	enc    *json.Encoder
	stderr io.Writer
	game   int  // the games reported so far
	failed bool // a game had an error, or a file could not be read
}

// replayFile replays every game of a game-record file (datasets'
// reader); name labels it in errors. A line that is not a record is a game
// with its error. A line or a file past datasets' limits
// (MaxRecordLineBytes, MaxRecordFileBytes) stops the file with an error
// naming it and the line; so does ctx, between lines.
func (r *replayer) replayFile(name string, in io.Reader) {
	err := datasets.ScanRecordGames(r.ctx, name, in, r.f.variant, r.f.start, func(g *datasets.Game) error {
		if g.Err != nil {
			r.report(rules.ReplayResult{Position: r.f.start}, "", name+": "+g.Err.Error())
			return nil
		}
		r.replay(g.Start, g.Moves, g.Line, g.Recorded, name)
		return nil
	})
	if err != nil && r.ctx.Err() == nil {
		fmt.Fprintf(r.stderr, "eval replay: %s\n", errctx.MessageOf("datasets", err))
		r.failed = true
	}
}

// replay replays one game and reports it; recorded is the result its
// record states ("" for none), and name labels the file in errors ("" for
// -moves).
func (r *replayer) replay(start rules.Position, moves []rules.RecordedMove, line int, recorded, name string) {
	res := rules.Replay(r.f.variant, start, moves, line)
	errText := ""
	if res.Err != nil {
		errText = res.Err.Error()
		if name != "" {
			errText = name + ": " + errText
		}
	}
	r.report(res, recorded, errText)
}

// report writes the JSON line of one game; recorded "" means no result
// stated, errText "" no error.
func (r *replayer) report(res rules.ReplayResult, recorded, errText string) {
	r.game++
	rep := GameReport{
		Game:              r.game,
		Plies:             len(res.Moves),
		Moves:             make([]string, len(res.Moves)),
		CaptureMismatches: res.CaptureMismatches,
		MovesAfterEnd:     res.MovesAfterEnd,
		Position:          res.Position.String(),
	}
	var buf []byte
	for i, m := range res.Moves {
		buf = rules.AppendMove(buf[:0], m.Move, m.Captures)
		rep.Moves[i] = string(buf)
	}
	if o := res.Outcome; o.Over() {
		rep.Outcome = &OutcomeReport{Winner: o.Winner.String(), Reason: o.Reason.String(), Ply: int(o.Ply)}
	}
	if recorded != "" {
		rep.RecordResult = &recorded
	}
	if errText != "" {
		rep.Error = &errText
		r.failed = true
	}
	if err := r.enc.Encode(rep); err != nil {
		fmt.Fprintf(r.stderr, "eval replay: writing game %d: %v\n", r.game, err)
		r.failed = true
	}
}
