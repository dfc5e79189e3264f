// Package suitecmd is "eval suite": its flags, help, progress and the suite
// file, over openings.GatherCandidates and openings.BuildSuite.
package suitecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
)

const help = `usage: eval suite -variant NAME|FILE|otr:RULES [-records FILE [-records-variant NAME|FILE|otr:RULES]]
                  [-plies A-B] [-every N] [-winner attackers|defenders] [-random N] [-random-plies N]
                  [-candidates SUITE]
                  [-player PLAYER] [-games N] [-min R] [-max R] [-size N] [-seed S]
                  [-workers N] [-games-per-worker N] -out FILE

Builds an opening suite for a rule set: start positions (position notation,
one a line, with a comment) from which equal players win as either side,
for matches, gates, ratings and balance runs (see openings.ParseSuite). From
the rule set's start the defenders win nearly every game between engines of
this strength, so a match from there splits every game pair and cannot
tell two players apart; fishtest answers the same problem in chess with
unbalanced-opening books.

Candidates:
  - human prefixes (-records FILE, the archive CSV that "eval replay" reads,
    or archive:copenhagen, the human archive that ships inside taflab;
    replayed under -records-variant, default copenhagen-classic): in each
    game, the position after k moves for k in -plies (A-B, or one number;
    default 8-40) every -every plies (from A), each replayed under the
    rule set of -variant from its start. A prefix that is illegal there or
    where the game is already over there is skipped, with the rest of that
    game. With an even A and -every, the attackers are to move. -winner
    takes only the games that side won.
  - -random N positions of -random-plies random legal moves from the start
    (none of them ending the game; at most 100 plies: a rule set where
    random moves cannot go on that long without ending the game is an
    error, not a wait).
  - -candidates SUITE: the positions of a suite file, to measure again (a
    second pass with more games, say: a position kept on few games may have
    been lucky).
Duplicate positions are dropped (the first source is kept), and so are
positions that cannot be played (the king on a corner, no move).

Measure: the reference player (-player, default builtin:playouts=200) plays
itself -games games from each candidate, every move a full search with the
self-play root noise and move-choice temperature (0.8 falling to 0.2), so
that the games differ; the defender rate is the defenders' wins over the
games (a draw is not a win).

Selection: the candidates are shuffled by -seed and measured in that order;
the suite is the first -size of them (0: no limit) whose defender rate lies
within [-min, -max] (inclusive), in that order, so that any first part of
the suite is a random sample of the positions that passed. The build stops
as soon as it has them. With the built-in player the suite is the same for
a seed whatever -workers; a network player's random board symmetries make
its games differ between runs.

Output: the suite, written to -out whole or not at all, with a header that
says how it was built (the command line, the player, the filter, the
candidates by source, the defender-rate histogram) and a comment per
position ("human line 123, ply 20; defenders 3/8"); and one summary line.
"eval match" and the other commands read it back.

Exit status: 0 done, 1 failed (no candidate passed: nothing is written), 2
bad input (bad flags, an unknown rule set, a missing or malformed record
file, no candidates), 130 stopped by a signal (nothing is written).

Flags:
`

// options are the command's settings, checked.
type options struct {
	cands openings.CandidateConfig
	build openings.SuiteConfig // without Progress
	out   string
	args  []string
}

// Run runs "eval suite" with its arguments and returns the exit status:
// 130 when ctx stops it.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, code := parseFlags(args, stdout, stderr)
	if o == nil {
		return code
	}
	cands, err := openings.GatherCandidates(ctx, o.cands)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(stderr, "eval suite: stopped while gathering the candidates; nothing written\n")
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "eval suite: %s\n", candidateError(err, o.cands))
		return 2
	}
	if len(cands.List) == 0 {
		fmt.Fprintf(stderr, "eval suite: no candidates: give -records, -candidates or -random\n")
		return 2
	}

	started := time.Now()
	var bar *progress.Bar
	cfg := o.build
	cfg.Progress = func(p openings.SuiteProgress) {
		if bar == nil {
			bar = progress.New(stdout, p.TotalGames, "games", 10*time.Second)
		}
		bar.Update(p.Games, fmt.Sprintf("%d candidates measured, %d kept", p.Tried, p.Kept))
	}
	fmt.Fprintf(stdout, "eval suite: %s: %d candidates, %s against itself, %d games each\n",
		cfg.Variant.Name(), len(cands.List), cfg.Reference.Name, cfg.Games)
	entries, st, err := openings.BuildSuite(ctx, cfg, cands.List)
	if bar != nil {
		bar.Finish()
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintf(stderr, "eval suite: stopped after %d candidates; nothing written\n", st.Tried)
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "eval suite: %v\n", err)
		return 1
	}
	header := openings.SuiteBuild{Program: "eval suite", Args: o.args, Candidates: o.cands, Gathered: cands, Config: cfg, Stats: st}.Header()
	if len(entries) == 0 {
		fmt.Fprintf(stderr, "eval suite: none of the %d candidates tried had a defender rate within [%g, %g]; nothing written\n",
			st.Tried, cfg.MinDefenderRate, cfg.MaxDefenderRate)
		for _, h := range header[4:] {
			fmt.Fprintf(stderr, "eval suite: %s\n", h)
		}
		return 1
	}
	data := openings.FormatSuite(header, entries)
	if _, err := openings.ParseSuite(o.out, data, cfg.Variant); err != nil {
		fmt.Fprintf(stderr, "eval suite: the suite does not read back: %v\n", err)
		return 1
	}
	if err := fileio.WriteFile(o.out, data); err != nil {
		fmt.Fprintf(stderr, "eval suite: -out: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "eval suite: %s: %d positions written to %s (%d candidates tried, %d games; mean defender rate %.2f tried, %.2f kept; %s)\n",
		cfg.Variant.Name(), len(entries), o.out, st.Tried, st.Games, st.MeanBefore, st.MeanAfter,
		time.Since(started).Round(time.Second))
	return 0
}

// candidateError says what failed while gathering the candidates, naming
// the flag of the source.
func candidateError(err error, c openings.CandidateConfig) string {
	var ce *openings.CandidateError
	if !errors.As(err, &ce) {
		return err.Error()
	}
	switch ce.Key {
	case "records":
		return "-records: " + errctx.Message(ce.Err)
	case "suite":
		return "-candidates: " + ce.Err.Error()
	}
	return fmt.Sprintf("-random %d, -random-plies %d: %v", c.Random, c.RandomPlies, ce.Err)
}

// suiteFlags are the flags that options does not hold as they are.
type suiteFlags struct {
	variant, recVariant, plies, winner, player string
}

// parseFlags reads and checks every flag. It returns nil and the exit
// status when the command should stop: 0 after -h, 2 for bad input.
func parseFlags(args []string, stdout, stderr io.Writer) (*options, int) {
	fs := cli.NewFlags("eval suite", help, stderr)
	cli.Precision(fs.FlagSet)
	def := openings.DefaultCandidateConfig()
	o := &options{args: args, cands: def}
	var f suiteFlags
	fs.StringVar(&f.variant, "variant", "", "the rule set of the suite: an embedded `name`, a rule-set file or otr:RULES (an OpenTafl rules string)")
	fs.StringVar(&o.cands.Records, "records", "", "game-record `file` whose prefixes are candidates")
	fs.StringVar(&f.recVariant, "records-variant", "copenhagen-classic", "rule set the records were played under: an embedded `name`, a rule-set file or otr:RULES")
	fs.StringVar(&f.plies, "plies", fmt.Sprintf("%d-%d", def.PlyLo, def.PlyHi), "human prefixes after `A-B` moves (or one number)")
	fs.StringVar(&f.winner, "winner", "", "take only the human games that `side` won: attackers or defenders (\"\": any)")
	fs.StringVar(&o.cands.Suite, "candidates", "", "a suite `file` whose positions are candidates too")
	fs.IntVar(&o.cands.Every, "every", def.Every, cli.IntRange(1, 1000, ""), "a human prefix every `N` plies from A")
	fs.IntVar(&o.cands.Random, "random", def.Random, cli.IntRange(0, 100_000, ""), "`N` random openings as candidates")
	fs.IntVar(&o.cands.RandomPlies, "random-plies", def.RandomPlies, cli.IntRange(1, cli.MaxOpeningPlies, ""), "`plies` of random moves in each random opening")
	fs.StringVar(&f.player, "player", "builtin:playouts=200", "the reference `player`, playing itself")
	fs.IntVar(&o.build.Games, "games", 8, cli.IntRange(1, 10_000, ""), "`games` per candidate")
	fs.Float64Var(&o.build.MinDefenderRate, "min", 0.2, cli.Range{Min: 0, Max: 1}, "keep candidates whose defender rate is at least `R`")
	fs.Float64Var(&o.build.MaxDefenderRate, "max", 0.8, cli.Range{Min: 0, Max: 1}, "keep candidates whose defender rate is at most `R`")
	fs.IntVar(&o.build.Size, "size", 100, cli.IntRange(0, 100_000, "0: no limit"), "the most `positions` kept (0: every one that passes)")
	fs.Uint64Var(&o.cands.Seed, "seed", def.Seed, cli.FullUint64, "`seed` of the random openings, the order of the candidates and the games")
	fs.IntVar(&o.build.Workers, "workers", 0, cli.WorkersRange, "worker goroutines (`N`); 0 = one per core")
	fs.IntVar(&o.build.GamesPerWorker, "games-per-worker", 8, cli.GamesPerWorkerRange, "`games` each worker plays at once")
	fs.StringVar(&o.out, "out", "", "the suite `file` to write")
	if code, done := fs.Parse(args, nil, nil, stdout, stderr); done {
		return nil, code
	}
	o.build.Seed = o.cands.Seed
	if msg := o.check(f); msg != "" {
		fmt.Fprintf(stderr, "eval suite: %s\n", msg)
		return nil, 2
	}
	return o, 0
}

// check checks the flags that their ranges do not, and loads the rule
// sets and the player: what is wrong, or "".
func (o *options) check(f suiteFlags) string {
	var err error
	switch {
	case f.variant == "":
		return "-variant is required: the suite is for one rule set"
	case o.out == "":
		return "-out is required"
	case o.build.MinDefenderRate > o.build.MaxDefenderRate:
		return fmt.Sprintf("-min %v is above -max %v", o.build.MinDefenderRate, o.build.MaxDefenderRate)
	}
	switch f.winner {
	case "":
	case "attackers":
		o.cands.Winner = rules.AttackersWin
	case "defenders":
		o.cands.Winner = rules.DefendersWin
	default:
		return fmt.Sprintf("-winner %q: want attackers or defenders", f.winner)
	}
	if o.cands.PlyLo, o.cands.PlyHi, err = parsePlyRange(f.plies); err != nil {
		return fmt.Sprintf("-plies %q: %v", f.plies, err)
	}
	if info, err := os.Stat(o.out); err == nil && info.IsDir() {
		return fmt.Sprintf("-out %s: a folder; want a file", o.out)
	}
	if info, err := os.Stat(filepath.Dir(o.out)); err != nil {
		return fmt.Sprintf("-out %s: its folder %s does not exist", o.out, filepath.Dir(o.out))
	} else if !info.IsDir() {
		return fmt.Sprintf("-out %s: %s is not a folder", o.out, filepath.Dir(o.out))
	}
	if o.build.Variant, err = configs.LoadVariant(f.variant); err != nil {
		return fmt.Sprintf("-variant: %v", err)
	}
	if o.cands.RecordsVariant, err = configs.LoadVariant(f.recVariant); err != nil {
		return fmt.Sprintf("-records-variant: %v", err)
	}
	o.cands.Variant = o.build.Variant
	if o.build.Reference, err = player.Parse(f.player); err != nil {
		return fmt.Sprintf("-player: %v", err)
	}
	if o.cands.Records != "" && o.cands.RecordsVariant.Start() != o.cands.Variant.Start() {
		return fmt.Sprintf("-records: games of %s's start, and %s starts elsewhere: its prefixes would all be illegal",
			o.cands.RecordsVariant.Name(), o.cands.Variant.Name())
	}
	if err := o.build.Validate(); err != nil {
		return err.Error()
	}
	return ""
}

// parsePlyRange reads "A-B" or "A": 0 <= A <= B.
func parsePlyRange(s string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		b = a
	}
	lo, errA := strconv.Atoi(strings.TrimSpace(a))
	hi, errB := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case errA != nil || errB != nil:
		return 0, 0, errors.New("want a range of plies such as 8-40, or one number")
	case lo < 0 || hi < lo:
		return 0, 0, errors.New("want 0 <= A <= B")
	}
	return lo, hi, nil
}
