// Package matchcmd is "eval match": its flags, help, progress and the
// match folder, over match.Run, and the gate's best-network pointer.
package matchcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/loop"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/stats"
)

const help = `usage: eval match -a PLAYER -b PLAYER [-variant NAME|FILE|otr:RULES] [-max-games N]
                  [-openings suite|random|FILE] [-odds 2,4,8 [-odds-pairs N]]
                  [-elo0 E0 -elo1 E1 -alpha A -beta B] [-gate [-best FILE]] -out DIR

Plays player A (the candidate) against player B in game pairs: each opening
is played twice with the sides swapped, because the two sides of hnefatafl
are not alike. The openings are the rule set's opening suite (-openings
suite, the default: start positions where equal players split their
results, since from the start the defenders win nearly every game between
engines and every pair would split 1-1; each shipped rule set has one, a
rule set of your own needs a suite file or random; -openings suite:NAME
plays the shipped rule set NAME's suite under -variant, another reading of
its rules such as OpenTafl's rules string), a book of short random starts
(-openings random), or a suite file. The pentanomial
SPRT over the pairs (as Stockfish's fishtest does it: H0 Elo(A-B) = elo0
against H1 = elo1) stops the match as soon as it decides. A PLAYER is
"builtin:playouts=800" (the network-free searcher) or
"net=FILE,playouts=200", either with ",root=gumbel" for Gumbel root search
and ",tactics=W" for implicit minimax backups of material and game ends
with weight W (0 to 1, mcts's TacticalWeight), a network with
",planes=NAME" to show it the input planes of the embedded rule set NAME
whatever is played (by default those its file names, if any), or an engine
program: "otep:cmd=COMMAND,movetime=MS" (OpenTafl's engine
protocol) or "uci:cmd=COMMAND,movetime=MS" or ",nodes=N" (TaflZero's), with
",limit=MS" its allowance per move (default the move time plus a second).
The rules referee an engine's moves: an illegal move, a move past its
allowance or a crash loses that game (games.csv ends its moves with
illegal-move, timeout or crash; match.json and match.md say what happened),
and the engine is restarted for the next game.

-odds climbs B's playout ladder after the match (B at 2, 4, 8 times its
playouts against B, -odds-pairs pairs each) and reports the playout odds:
how many times its playouts B needs to score level with A.

It prints the test's state as it goes and at the end: the log-likelihood
ratio and its bounds, the decision, the Elo difference with a 95% interval
and the results split by side; and writes into -out: match.json (players,
test, report, every game), games.csv (the games as game records, which
"eval replay" checks) and match.md. With -gate, an accepted H1 promotes A:
the best-network pointer (-best, default OUT/best.json) then names A's
network. Bad input (a missing network, a network of another input encoding,
an unknown rule set, nonsense test settings) is an error before any game.
While it plays, OUT/pairs.jsonl keeps every finished pair: a match
stopped by a signal or a crash carries on with -resume and the same flags,
playing only the pairs it had not finished (for a long match against a
slow engine, over several sittings); the file goes once the match is done.
In a match with an engine program, whose games can take hours,
OUT/in-play.json also keeps the games of the unfinished pairs (written
every 10 s, and when the match stops or fails), and -resume carries those
games on from their moves rather than from their starts; a game that had
ended, by the rules or a forfeit, ends as it did.
Exit status: 0 done (whatever the decision), 1 failed, 2 bad input, 130
stopped by a signal (what was played is written).

Flags:
`

// JournalFile is the file in a match's folder that holds its finished pairs
// while it runs (match.AppendPair), for -resume.
const JournalFile = match.JournalFile

// InPlayFile is the file in a match's folder that holds the moves of its
// games in play (match.InPlay) while a match with an engine program runs,
// for -resume.
const InPlayFile = match.InPlayFile

// inPlayEvery is how often the games in play are written (a variable for
// the tests).
var inPlayEvery = 10 * time.Second

// options are the flags of eval match.
type options struct {
	variant, a, b, out, best string
	openings, odds           string
	maxGames, openingPlies   int
	oddsPairs, workers       int
	elo0, elo1, alpha, beta  float64
	gate, resume             bool
	seed                     uint64
}

// Run runs "eval match" with its arguments and returns the exit status:
// 130 when ctx stops it (what was played is written).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, code, done := parseFlags(args, stdout, stderr)
	if done {
		return code
	}
	m, code := o.prepare(ctx, stdout, stderr)
	if m == nil {
		return code
	}
	defer m.folder.Close() // Play frees the folder; this, a match refused before it
	return m.play(ctx, o, stdout, stderr)
}

// parseFlags reads the flags; done says the command has nothing more to do
// (-h, or a flag out of its range), with its exit status.
func parseFlags(args []string, stdout, stderr io.Writer) (o options, code int, done bool) {
	fs := cli.NewFlags("eval match", help, stderr)
	cli.Precision(fs.FlagSet)
	fs.StringVar(&o.variant, "variant", "copenhagen", "rule set: an embedded `name`, a rule-set file or otr:RULES (an OpenTafl rules string)")
	fs.StringVar(&o.a, "a", "", "the candidate `player`")
	fs.StringVar(&o.b, "b", "", "the reference `player`")
	fs.IntVar(&o.maxGames, "max-games", 400, cli.IntRange(2, 1_000_000, ""), "stop after this many `games` (pairs of two) if the test has not decided")
	fs.Float64Var(&o.elo0, "elo0", 0, cli.Range{Min: -1000, Max: 1000}, "the SPRT's H0: Elo(A-B) = `elo0`")
	fs.Float64Var(&o.elo1, "elo1", 30, cli.Range{Min: -1000, Max: 1000}, "the SPRT's H1: Elo(A-B) = `elo1`")
	fs.Float64Var(&o.alpha, "alpha", 0.05, cli.Range{Min: 0, Max: 0.5, MinOpen: true, MaxOpen: true}, "the false-accept rate of H1 (`alpha`)")
	fs.Float64Var(&o.beta, "beta", 0.05, cli.Range{Min: 0, Max: 0.5, MinOpen: true, MaxOpen: true}, "the false-accept rate of H0 (`beta`)")
	fs.BoolVar(&o.gate, "gate", false, "promote A (write the best-network pointer) if the test accepts H1")
	fs.StringVar(&o.best, "best", "", "the best-network pointer `file` (default OUT/best.json)")
	fs.StringVar(&o.out, "out", "", "the match `folder`")
	fs.StringVar(&o.openings, "openings", "suite", "where pairs start: `suite` (the rule set's opening suite), suite:NAME (a shipped rule set's), random, or a suite file")
	fs.IntVar(&o.openingPlies, "opening-plies", 4, cli.IntRange(0, cli.MaxOpeningPlies, ""), "random moves of each opening of -openings random (`plies`)")
	fs.Uint64Var(&o.seed, "seed", 1, cli.FullUint64, "`seed` of the opening book, or of the suite's order")
	fs.StringVar(&o.odds, "odds", "", "comma-separated playout `multipliers` of B's ladder, e.g. 2,4,8 (\"\": no odds)")
	fs.IntVar(&o.oddsPairs, "odds-pairs", 20, cli.IntRange(1, 100_000, ""), "game `pairs` per rung of the ladder")
	fs.IntVar(&o.workers, "workers", 0, cli.WorkersRange, "worker goroutines (`N`); 0 = one per core")
	fs.BoolVar(&o.resume, "resume", false, "carry on the interrupted match in -out, given the same flags: its finished pairs count and are not played again (against an engine program, its games begun go on from their moves)")
	code, done = fs.Parse(args, nil, nil, stdout, stderr)
	return o, code, done
}

// identity is what makes the match: the flags a resumed match must give
// again.
func (o *options) identity() string {
	return fmt.Sprintf("-variant %q -a %q -b %q -max-games %d -openings %q -opening-plies %d -seed %d -elo0 %g -elo1 %g -alpha %g -beta %g\n",
		o.variant, o.a, o.b, o.maxGames, o.openings, o.openingPlies, o.seed, o.elo0, o.elo1, o.alpha, o.beta)
}

// bad writes a refusal of the command's input and returns exit status 2.
func bad(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "eval match: "+format+"\n", a...)
	return 2
}

// prepared is a match ready to play: its folder, opened, and what it
// plays.
type prepared struct {
	folder     *match.Folder
	rc         match.RunConfig
	a, b       match.Player
	pairs      int
	multiplier []int
}

// prepare checks the flags and loads what the match needs, and opens its
// folder (Folder.Open): nil and the exit status when it cannot be played.
func (o *options) prepare(ctx context.Context, stdout, stderr io.Writer) (*prepared, int) {
	switch {
	case o.a == "" || o.b == "":
		return nil, bad(stderr, "-a and -b are required")
	case o.out == "":
		return nil, bad(stderr, "-out is required")
	}
	m := &prepared{pairs: o.maxGames / 2}
	var err error
	if m.multiplier, err = cli.ParseInts(o.odds, 2); err != nil {
		return nil, bad(stderr, "-odds: %v", err)
	}
	if len(m.multiplier) > configs.MaxOddsRungs {
		return nil, bad(stderr, "-odds: %d multipliers: want at most %d rungs", len(m.multiplier), configs.MaxOddsRungs)
	}
	test := stats.SPRT{Elo0: o.elo0, Elo1: o.elo1, Alpha: o.alpha, Beta: o.beta}
	if err := test.Validate(); err != nil {
		return nil, bad(stderr, "%v", err)
	}
	v, err := configs.LoadVariant(o.variant)
	if err != nil {
		return nil, bad(stderr, "-variant: %v", err)
	}
	if m.a, err = player.Parse(o.a); err != nil {
		return nil, bad(stderr, "-a: %v", err)
	}
	if m.b, err = player.Parse(o.b); err != nil {
		return nil, bad(stderr, "-b: %v", err)
	}
	if m.a.Name == m.b.Name {
		m.b.Name += "-b" // the same player on both sides: keep the names apart in ratings
	}
	if o.gate && m.a.Network == "" {
		return nil, bad(stderr, "-gate promotes a network: -a must be net=FILE,...")
	}
	ops, desc, err := openings.OpeningsCtx(ctx, o.openings, v, m.pairs, o.openingPlies, o.seed)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintln(stderr, "eval match: stopped while drawing the openings; nothing played")
		return nil, 130
	}
	if err != nil {
		return nil, bad(stderr, "-openings: %v", err)
	}
	m.rc = match.RunConfig{Test: test, Openings: desc, Odds: m.multiplier, OddsPairs: o.oddsPairs,
		Match: match.Config{Variant: v, A: m.a, B: m.b, Search: mcts.DefaultConfig(), Workers: o.workers, Openings: ops, MaxPairs: m.pairs}}
	if code := o.open(m, stderr); code != 0 {
		return nil, code
	}
	if err := m.rc.Validate(); err != nil {
		m.folder.Close()
		var le *match.LadderError
		switch {
		case errors.As(err, &le) && le.Program:
			return nil, bad(stderr, "-odds climbs B's playout ladder: -b must search (builtin or net), not be an engine program")
		case errors.As(err, &le) && le.Multiplier >= 2:
			return nil, bad(stderr, "-odds %s: %d times B's %d playouts is more than %d, the most a search may have", o.odds, le.Multiplier, le.Playouts, cli.MaxPlayouts)
		}
		return nil, bad(stderr, "%v", err)
	}
	return m, 0
}

// open opens the match's folder (-out): a new match in a folder without
// one, or with -resume the interrupted match the folder holds, given the
// same flags. The games in play are kept where a player is an engine
// program: its games can take hours, and cannot be replayed exactly
// anyway; a match of searches alone plays an interrupted game again from
// its start, so that the match resumed is the match played in one go. It
// returns 0, or the exit status of a refusal.
func (o *options) open(m *prepared, stderr io.Writer) int {
	m.folder = &match.Folder{Dir: o.out, Identity: o.identity(), InPlayEvery: inPlayEvery, WriteStopped: true,
		KeepInPlay: m.a.NewProgram != nil || m.b.NewProgram != nil,
		OnInPlayError: func(err error) {
			fmt.Fprintf(stderr, "eval match: the games in play: %v (finished pairs are kept all the same)\n", err)
		}}
	resume := match.StartNew
	if o.resume {
		resume = match.ResumeOnly
	}
	err := m.folder.Open(&m.rc.Match, resume)
	var ie *match.IdentityError
	var pe *match.InPlayError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, match.ErrNoJournal):
		return bad(stderr, "-resume: no interrupted match in %s (no %s)", o.out, JournalFile)
	case errors.Is(err, match.ErrUnfinishedMatch):
		return bad(stderr, "-out %s holds an interrupted match (%s): -resume to carry it on, or another -out", o.out, JournalFile)
	case errors.As(err, &ie):
		return bad(stderr, "-resume: the match in %s was started with %sand this one has %sgive the same flags, or another -out", o.out, ie.Kept, ie.Given)
	case errors.As(err, &pe):
		return bad(stderr, "-resume: %s: %v (remove the file to play its games again from their starts)", pe.Path, pe.Err)
	case errors.Is(err, fileio.ErrLocked):
		fmt.Fprintf(stderr, "eval match: -out: %s\n", errctx.MessageOf("match", err))
		return 1
	}
	return bad(stderr, "-resume: %v", err)
}

// play plays the prepared match into its folder, with progress, and
// reports it; with -gate it promotes A if the test accepts H1.
func (m *prepared) play(ctx context.Context, o options, stdout, stderr io.Writer) int {
	if o.best == "" {
		o.best = filepath.Join(o.out, "best.json")
	}
	if m.folder.Resumed() {
		inPlayNote := ""
		if m.folder.KeepInPlay {
			inPlayNote = fmt.Sprintf(", and %d games begun go on from their moves", len(m.rc.Match.Unfinished))
		}
		fmt.Fprintf(stdout, "eval match: resuming: %d finished pairs of %s count%s\n", len(m.rc.Match.Played), filepath.Join(o.out, JournalFile), inPlayNote)
	}
	t := m.rc.Test
	fmt.Fprintf(stdout, "eval match: %s (A) against %s (B), %s, up to %d pairs from %s; SPRT H0 %g, H1 %g, alpha %g, beta %g\n",
		m.a.Name, m.b.Name, m.rc.Match.Variant.Name(), m.pairs, m.rc.Openings, t.Elo0, t.Elo1, t.Alpha, t.Beta)
	bar := progress.New(stdout, m.pairs, "pairs", 10*time.Second)
	finished := len(m.rc.Match.Played)
	m.rc.OnPair = func(p match.Pair, r stats.Report) {
		finished++
		bar.Update(finished, pairNote(finished, r))
	}
	m.rc.OnLadder = func(res match.Result) {
		bar.Finish()
		fmt.Fprintf(stdout, "eval match: %s\n", res.Report)
		fmt.Fprintf(stdout, "eval match: playout odds: %s at %v times its playouts against itself, %d pairs each\n", m.b.Name, m.multiplier, o.oddsPairs)
	}
	m.rc.OnRung = func(r match.Rung) {
		fmt.Fprintf(stdout, "eval match: %s: Elo %.0f [%.0f, %.0f] over %d pairs\n", r.Player, r.Report.Elo, r.Report.EloLo, r.Report.EloHi, r.Report.Pairs)
	}
	file, res, err := m.folder.Play(ctx, m.rc)
	bar.Finish()
	interrupted := errors.Is(err, context.Canceled)
	var oddsErr *match.OddsError
	var journalErr *match.JournalError
	switch {
	case errors.As(err, &oddsErr):
		fmt.Fprintf(stderr, "eval match: odds: %v\n", oddsErr.Err)
		return 1
	case errors.As(err, &journalErr):
		fmt.Fprintf(stderr, "eval match: %s: %v (the match files hold every game)\n", journalErr.Path, journalErr.Err)
		return 1
	case err != nil && !interrupted:
		fmt.Fprintf(stderr, "eval match: %v\n", err)
		return 1
	case file.Odds != nil:
		fmt.Fprintf(stdout, "eval match: playout odds: %s needs %s its playouts to score level with %s\n", m.b.Name, file.Odds.Text, m.a.Name)
	}
	fmt.Fprintf(stdout, "eval match: %s\n", res.Report)
	fmt.Fprintf(stdout, "eval match: %s after %d pairs (%s); written to %s\n", file.Decided().Text(), res.Report.Pairs, res.Stopped, o.out)
	if o.gate {
		promoted, err := loop.Promote(o.best, m.a.Network, o.out, file)
		if err != nil {
			fmt.Fprintf(stderr, "eval match: %v\n", err)
			return 1
		}
		if promoted {
			fmt.Fprintf(stdout, "eval match: promoted %s: %s\n", m.a.Network, o.best)
		}
	}
	if interrupted {
		return 130
	}
	return 0
}

// pairNote is the progress line's test after finished pairs: the test
// counts pairs in the order they were started, so after a resume, or with
// several pairs in play at once, it may count fewer than have finished.
func pairNote(finished int, r stats.Report) string {
	note := fmt.Sprintf("LLR %.2f (%.2f, %.2f), Elo %.0f [%.0f, %.0f]", r.LLR, r.Lower, r.Upper, r.Elo, r.EloLo, r.EloHi)
	if r.Pairs < finished {
		note += fmt.Sprintf(" over the first %d in order", r.Pairs)
	}
	return note
}
