// Package balancecmd is the eval balance subcommand: its flags become a
// balance.Config, it reads the record files, shows each run's progress,
// writes balance.json, balance.md and balance.png, and sets the exit
// status. The study itself is package balance's.
package balancecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"taflab/balance"
	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/openings"
	"taflab/player"
)

const help = `usage: eval balance [-variants a,b,...] [-player PLAYER ...] [-strengths N,N,...]
                    [-networks NAME=FILE,...] [-games N] [-width W] [-confidence C] [-min-games M]
                    [-openings start|suite] [-records FILE ...] [-records-variant NAME|FILE|otr:RULES]
                    [-resume] -out DIR

How the rule sets balance. For each rule set (-variants: embedded names or
rule-set files or otr:RULES; default all four embedded ones) and each strength, the
player plays itself up to -games games, and the report gives the attacker,
defender and draw rates with Wilson intervals, how the games ended
(king-escaped, king-captured, shieldwall, edge-fort, encirclement,
repetition, no-moves, no-progress), the game lengths in plies (mean,
median, min, max), and for every pair of rule sets at a strength whether
their defender rates differ: the pooled two-proportion z-test (draws count
as games the defenders did not win), its p-value, and the p-value after
Holm's adjustment over all the pairs of that strength.

Strength: a PLAYER is "builtin:playouts=N" (the network-free searcher;
default builtin:playouts=200) or "net=FILE,playouts=N". -player may be given
several times (network generations, say): one run each. -strengths
50,200,800 replaces each player's playouts with each of these budgets: one
run per player and budget.

"net=own,playouts=N" plays each rule set with its own network (player
"own-N"; each run names its file): the shipped ones (networks/NAME.safetensors)
or -networks NAME=FILE,... (NAME a rule set's name).

An engine program is a player too: "otep:cmd=COMMAND,movetime=MS" or
"uci:cmd=COMMAND,nodes=N" (see eval match -h for its keys). It plays itself:
each game has two instances of the program, one per side, and taflab's
rules referee every move. An illegal move, no move within the allowance
(limit=MS) or a crash loses that game for the side that did it (a
"forfeit-illegal-move", "forfeit-timeout" or "forfeit-crash" ending, counted
in the rates as the win of the other side), and the program is started
again for the next game. Its games come in pairs from each start, as in a
match, one worker playing one pair at a time unless -workers and
-games-per-worker say otherwise. taflab gives an engine no noise or
temperature: an engine without randomness of its own plays the same game
from the same start, so give it -openings suite. -strengths does not apply.

The games: workers (-workers, one per core by default) each play
-games-per-worker games at once, batching their evaluations. Every move gets
a full search (no playout-cap randomization), otherwise with the self-play
defaults: Dirichlet noise at the root and a move-choice temperature falling
from 0.8 to 0.2, so that the games differ. The rates therefore describe the
player with this exploration, a little weaker than its best play. Every game
has its own seed, from -seed, the rule set's name, the player's name and the
game's number. Games start from the rule set's start (-openings start, the
default: the balance of the rule set itself), or from each rule set's
opening suite in turn (-openings suite: positions where equal reference
players split their results, to compare players or rule sets on games that
are decisive either way; the rates then say nothing of the start).

Stopping: a run ends after -games games, or as soon as each of its three
intervals is at most -width wide and it has at least -min-games games, so
that every rule set ends at the precision asked; -width 0 plays every game.
Games count in the order they were started, not as they finish, so that
stopping early does not favour the short games that finish first.

Game records (-records FILE, repeated or comma-separated; the CSV that
"eval replay" reads): the same report for recorded games, under
-records-variant (default copenhagen-classic; archive:copenhagen, the
human archive that ships inside taflab, is the human baseline). The winner is the record's
result (Black: attackers, White: defenders, Draw); "Ongoing" games are
counted apart and left out of the rates and lengths. A game the rules end
on its last recorded move has the rules' ending; otherwise it "timed-out"
(the record ends in timeout), was "resigned-or-timed-out", is a
"draw-agreed", went on "past-rules-end" (the server did not enforce every
rule), is "unfinished" (Ongoing), or has an "illegal-move" (see eval
replay; its stated result still counts). Each record file is
also compared with the self-play runs of its rule set. With -variants ""
only the records are reported.

Carrying on: every game is kept in -out/games.jsonl as it finishes, so a
study stopped at any point carries on with -resume and the same flags,
playing only the games it lacks (-games, -width and -min-games may change;
rule sets or strengths may be added; a run played before with other rules,
player, search, seed or openings is refused). Each run's wall and CPU time
are in the report.

Output, into -out: balance.md (the report, also printed, with the command
that made it), balance.json (the same figures) and balance.png (the
defender win rate with its interval against strength, one line per rule
set, playouts on a log scale when there is one player, else one category
per player; record files as horizontal lines). A progress line per run
shows the current rates and intervals.

Bad input (an unknown rule set, a missing network or one of another input
encoding, a bad -strengths list, -games below 1, -width outside [0, 1],
-confidence outside (0, 1), an unreadable or malformed record file) is an
error before any game and before anything is written. Exit status: 0 done,
1 failed, 2 bad input, 130 stopped by a signal (the report of the games
played so far is written).

Flags:
`

// Run is the balance subcommand; SIGINT and SIGTERM stop it with the
// report of the games played so far.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return RunCtx(ctx, args, stdin, stdout, stderr)
}

// RunCtx is Run stopped by ctx instead of a signal.
func RunCtx(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, out, resume, code := parseFlags(ctx, args, stdin, stderr)
	if out == "" {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "eval balance: %s\n", errctx.Message(err))
		return 1
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fail(fmt.Errorf("-out: %w", err))
	}
	lock, err := fileio.LockDir(out, "eval balance")
	if err != nil {
		return fail(fmt.Errorf("-out: %w", err))
	}
	defer lock.Unlock()
	if err := balance.CheckResume(out, resume); err != nil {
		fmt.Fprintf(stderr, "eval balance: %s\n", errctx.Message(err))
		return 2
	}
	cfg.Progress = cli.BalanceProgress(stdout)
	rep, runErr := balance.Run(ctx, cfg)
	if rep.Runs == nil { // refused before any game
		return fail(runErr)
	}
	rep.Command = cli.CommandLine("eval balance", args)
	if rep.Interrupted {
		runErr = nil // not a failure: the report of the games played is written
	}
	if err := balance.WriteFiles(out, rep); err != nil {
		runErr = errors.Join(runErr, err)
	}
	fmt.Fprint(stdout, "\n"+rep.Markdown())
	if runErr != nil {
		return fail(runErr)
	}
	fmt.Fprintf(stdout, "\neval balance: written to %s\n", out)
	if rep.Interrupted {
		return 130
	}
	return 0
}

// parseFlags reads and checks every flag, loads the players and reads the
// record files. It returns the config and the -out folder, or "" and the
// exit status when the command should stop: 0 after -h, 2 for bad input,
// 130 when stopped while reading the records.
func parseFlags(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer) (balance.Config, string, bool, int) {
	def := balance.DefaultConfig()
	cfg := balance.Config{Players: def.Players, Loader: new(player.Loader)}
	var f balanceFlags
	fs := cli.NewFlags("eval balance", help, stderr)
	cli.Precision(fs.FlagSet)
	fs.StringVar(&f.variants, "variants", strings.Join(variants.Names(), ","), "comma-separated rule sets: embedded `names`, rule-set files or otr:RULES (\"\": records only)")
	fs.Var(&f.players, "player", "the `player` playing itself (repeatable; default builtin:playouts=200)")
	fs.StringVar(&f.strengths, "strengths", "", "comma-separated playout `budgets` replacing the player's playouts, one run each")
	fs.IntVar(&cfg.MaxGames, "games", def.MaxGames, cli.IntRange(1, 1_000_000, ""), "the most `games` of each run")
	fs.Float64Var(&cfg.Width, "width", def.Width, cli.Range{Min: 0, Max: 1, Note: "0: never stop early"}, "stop a run when every interval is at most `W` wide (0: never early)")
	fs.Float64Var(&cfg.Confidence, "confidence", def.Confidence, cli.Range{Min: 0, Max: 1, MinOpen: true, MaxOpen: true}, "`confidence` of the intervals")
	fs.IntVar(&cfg.MinGames, "min-games", def.MinGames, cli.IntRange(0, 1_000_000, ""), "`games` a run plays before it may stop early")
	f.records.Split = true
	fs.Var(&f.records, "records", "game-record `file` to report on as well (repeatable or comma-separated; - for standard input)")
	fs.StringVar(&f.recVariant, "records-variant", "copenhagen-classic", "rule set of the records: an embedded `name`, a rule-set file or otr:RULES")
	fs.StringVar(&f.openings, "openings", "start", "where games start: `start` (the rule set's start) or suite (its opening suite)")
	workers := fs.Int("workers", 0, cli.WorkersRange, "worker goroutines (`N`); 0 = one per core")
	perWorker := fs.Int("games-per-worker", 8, cli.GamesPerWorkerRange, "`games` each worker plays at once")
	fs.Uint64Var(&cfg.Seed, "seed", def.Seed, cli.FullUint64, "`seed` of the games")
	fs.StringVar(&f.networks, "networks", "", "each rule set's own `networks` for net=own players, NAME=FILE,... (default: the shipped ones)")
	fs.BoolVar(&f.resume, "resume", false, "carry on the study whose games -out holds")
	fs.StringVar(&f.out, "out", "", "the report `folder`")
	fs.Document()
	if err := fs.FlagSet.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return def, "", false, 0
		}
		return def, "", false, 2
	}
	bad := func(format string, a ...any) (balance.Config, string, bool, int) {
		fmt.Fprintf(stderr, "eval balance: "+format+"\n", a...)
		return def, "", false, 2
	}
	if err := fs.CheckRanges(); err != nil {
		return bad("%v", err)
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q (flags only; game records go in -records)", fs.Arg(0))
	case f.out == "":
		return bad("-out is required")
	case f.openings != "start" && f.openings != "suite":
		return bad("-openings %q: want start or suite", f.openings)
	}
	set := fs.Given()
	cfg.Suites = f.openings == "suite"
	if set["workers"] { // else a search's default (one per core) or an engine's (match's)
		cfg.Workers = *workers
		if cfg.Workers == 0 {
			cfg.Workers = runtime.GOMAXPROCS(0)
		}
	}
	if set["games-per-worker"] {
		cfg.GamesPerWorker = *perWorker
	}
	if msg := f.load(&cfg, set["strengths"]); msg != "" {
		return bad("%s", msg)
	}
	code, msg := f.readRecords(ctx, &cfg, stdin)
	switch {
	case code == 130:
		fmt.Fprintf(stderr, "eval balance: %s\n", msg)
		return def, "", false, 130
	case code != 0:
		return bad("%s", msg)
	}
	cfg.Journal = filepath.Join(f.out, balance.JournalFile)
	return cfg, f.out, f.resume, 0
}

// balanceFlags are the flags of eval balance its config does not hold.
type balanceFlags struct {
	variants, strengths, recVariant, openings, networks, out string
	players, records                                         cli.List
	resume                                                   bool
}

// load reads the rule sets, the strengths and the players into cfg: what
// is wrong, or "".
func (f *balanceFlags) load(cfg *balance.Config, strengthsGiven bool) string {
	seen := map[string]string{}
	for _, arg := range strings.Split(f.variants, ",") {
		if arg = strings.TrimSpace(arg); arg == "" {
			continue
		}
		v, err := configs.LoadVariant(arg)
		if err != nil {
			return fmt.Sprintf("-variants: %v", err)
		}
		if prev, dup := seen[v.Name()]; dup {
			return fmt.Sprintf("-variants: %q and %q are both rule set %q: give each once", prev, arg, v.Name())
		}
		seen[v.Name()] = arg
		cfg.Variants = append(cfg.Variants, v)
		if cfg.Suites {
			if _, err := openings.LoadSuite("", v); err != nil {
				return fmt.Sprintf("-openings suite: %v", err)
			}
		}
	}
	if strings.TrimSpace(f.strengths) != "" || strengthsGiven {
		for _, s := range strings.Split(f.strengths, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > cli.MaxPlayouts {
				return fmt.Sprintf("-strengths %q: %q is not a playout budget (want whole numbers from 1 to %d, such as 50,200,800)", f.strengths, s, cli.MaxPlayouts)
			}
			if slices.Contains(cfg.Strengths, n) {
				return fmt.Sprintf("-strengths %q: %d is given twice", f.strengths, n)
			}
			cfg.Strengths = append(cfg.Strengths, n)
		}
	}
	if len(f.players.Values) > 0 {
		cfg.Players = nil
	}
	for _, text := range f.players.Values {
		s, err := player.ParseSpec(text)
		if err != nil {
			return fmt.Sprintf("-player: %v", err)
		}
		cfg.Players = append(cfg.Players, s)
	}
	if _, err := balance.Ladder(cfg.Players, cfg.Strengths); err != nil {
		return "-strengths: " + errctx.Message(err)
	}
	if msg := f.loadNetworks(cfg); msg != "" {
		return msg
	}
	if _, err := cfg.Entries(); err != nil { // each network file loaded once, here for the runs too
		return "-player: " + errctx.Message(err)
	}
	return ""
}

// loadNetworks sets each rule set's own network (for net=own players):
// the shipped ones, then -networks: what is wrong, or "".
func (f *balanceFlags) loadNetworks(cfg *balance.Config) string {
	own := false
	for _, s := range cfg.Players {
		own = own || s.Kind == player.Network && s.Net == balance.OwnNetwork
	}
	if !own && f.networks == "" {
		return ""
	}
	cfg.Networks = player.ShippedNetworks()
	if err := balance.ParseNetworks(f.networks, cfg.Networks); err != nil {
		return "-networks: " + errctx.Message(err)
	}
	return ""
}

// readRecords reads the record files into cfg and checks it: the exit
// status and what to say when it cannot go on (130: stopped).
func (f *balanceFlags) readRecords(ctx context.Context, cfg *balance.Config, stdin io.Reader) (int, string) {
	var err error
	if cfg.RecordsVariant, err = configs.LoadVariant(f.recVariant); err != nil {
		return 2, fmt.Sprintf("-records-variant: %v", err)
	}
	for _, name := range f.records.Values {
		in := stdin
		if name == "-" && stdin != nil {
			in = cli.StopReader(ctx, stdin) // a signal stops a wait for input too
		}
		rf, err := balance.ReadRecordFile(ctx, name, in)
		if err != nil && ctx.Err() != nil {
			return 130, fmt.Sprintf("stopped while reading -records %s; nothing written", name)
		}
		if err != nil {
			return 2, fmt.Sprintf("-records: %v", err)
		}
		cfg.Records = append(cfg.Records, rf)
	}
	if len(cfg.Variants) == 0 && len(cfg.Records) == 0 {
		return 2, "-variants is empty and there are no -records: nothing to report"
	}
	if err := cfg.Validate(); err != nil {
		return 2, errctx.Message(err)
	}
	return 0, ""
}
