package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"image/color"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"taflab/chart"
	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
	"taflab/stats"
)

const balanceHelp = `usage: eval balance [-variants a,b,...] [-player PLAYER ...] [-strengths N,N,...]
                    [-games N] [-width W] [-confidence C] [-min-games M] [-openings start|suite]
                    [-records FILE ...] [-records-variant NAME|FILE|otr:RULES] -out DIR

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
-records-variant (default copenhagen-classic; ../shared/data/
copenhagen-games.csv is the human baseline). The winner is the record's
result (Black: attackers, White: defenders, Draw); "Ongoing" games are
counted apart and left out of the rates and lengths. A game the rules end
on its last recorded move has the rules' ending; otherwise it "timed-out"
(the record ends in timeout), was "resigned-or-timed-out", is a
"draw-agreed", went on "past-rules-end" (the server did not enforce every
rule), is "unfinished" (Ongoing), or has an "illegal-move" (see eval
replay; its stated result still counts). Each record file is
also compared with the self-play runs of its rule set. With -variants ""
only the records are reported.

Output, into -out: balance.md (the report, also printed), balance.json (the
same figures) and balance.png (the defender win rate with its interval
against strength, one line per rule set, playouts on a log scale when there
is one player, else one category per player; record files as horizontal
lines). A progress line per run shows the current rates and intervals.

Bad input (an unknown rule set, a missing network or one of another input
encoding, a bad -strengths list, -games below 1, -width outside [0, 1],
-confidence outside (0, 1), an unreadable or malformed record file) is an
error before any game and before anything is written. Exit status: 0 done,
1 failed, 2 bad input, 130 stopped by a signal (the report of the games
played so far is written).

Flags:
`

// listFlag is a flag that may be given several times; with split, each
// value may also be a comma-separated list.
type listFlag struct {
	values []string
	split  bool
}

func (l *listFlag) String() string { return strings.Join(l.values, ",") }

func (l *listFlag) Set(s string) error {
	if !l.split {
		l.values = append(l.values, s)
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			l.values = append(l.values, part)
		}
	}
	return nil
}

// balanceOptions are the balance subcommand's settings, checked.
type balanceOptions struct {
	variants   []*rules.Variant
	players    []match.Player // one per strength, in order
	numeric    bool           // one player at several budgets: the chart's x is playouts
	maxGames   int
	width      float64 // 0: never stop early
	confidence float64
	minGames   int
	workers    int
	perWorker  int
	seed       uint64
	out        string
	records    []recordFile
	recVariant *rules.Variant
	suites     bool // start the games from each rule set's opening suite

	// workersGiven and perWorkerGiven say whether -workers and
	// -games-per-worker were given: an engine's run keeps match's
	// defaults (one pair at a time) otherwise.
	workersGiven, perWorkerGiven bool
}

// recordFile is a game-record file, read and parsed.
type recordFile struct {
	name    string
	records []rules.Record
}

// rateJSON is a rate with its Wilson interval.
type rateJSON struct {
	Wins  int     `json:"wins"`
	Games int     `json:"games"`
	Rate  float64 `json:"rate"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

func newRate(p stats.Proportion) rateJSON {
	return rateJSON{Wins: p.Successes, Games: p.N, Rate: p.P, Lo: p.Lo, Hi: p.Hi}
}

// String formats the rate as "0.412 [0.371, 0.455]".
func (r rateJSON) String() string { return fmt.Sprintf("%.3f [%.3f, %.3f]", r.Rate, r.Lo, r.Hi) }

// lengthJSON summarizes game lengths in plies.
type lengthJSON struct {
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Min    int     `json:"min"`
	Max    int     `json:"max"`
}

// tally counts games as they come.
type tally struct {
	outcomes stats.Outcomes
	endings  map[string]int
	lengths  []int
}

// add counts a game: its winner (NoWinner for an unfinished record, which
// counts only among the endings), how it ended and its length.
func (t *tally) add(w rules.Winner, ending string, plies int) {
	if t.endings == nil {
		t.endings = map[string]int{}
	}
	t.endings[ending]++
	switch w {
	case rules.AttackersWin:
		t.outcomes.AttackerWins++
	case rules.DefendersWin:
		t.outcomes.DefenderWins++
	case rules.Draw:
		t.outcomes.Draws++
	default:
		return
	}
	t.lengths = append(t.lengths, plies)
}

// summary fills the rates, endings and lengths of a report.
func (t *tally) summary(confidence float64) (a, d, dr rateJSON, endings map[string]int, lengths lengthJSON) {
	r := t.outcomes.Rates(confidence)
	endings = map[string]int{}
	for k, v := range t.endings {
		endings[k] = v
	}
	if n := len(t.lengths); n > 0 {
		s := slices.Clone(t.lengths)
		sort.Ints(s)
		sum := 0
		for _, x := range s {
			sum += x
		}
		lengths = lengthJSON{Mean: float64(sum) / float64(n), Min: s[0], Max: s[n-1], Median: float64(s[n/2])}
		if n%2 == 0 {
			lengths.Median = float64(s[n/2-1]+s[n/2]) / 2
		}
	}
	return newRate(r.Attacker), newRate(r.Defender), newRate(r.Draw), endings, lengths
}

// balanceRun is one rule set at one strength.
type balanceRun struct {
	Variant  string `json:"variant"`
	Player   string `json:"player"`
	Network  string `json:"network,omitempty"`
	Playouts int    `json:"playouts"`
	// RootSearch is "gumbel" for a player with Gumbel root search, which
	// has no root noise or temperature; "" for the search of "search".
	RootSearch string         `json:"root_search,omitempty"`
	Openings   string         `json:"openings"` // "start", or the suite the games started from
	Games      int            `json:"games"`
	Stopped    string         `json:"stopped"` // "precision", "max-games" or "interrupted"
	Attackers  rateJSON       `json:"attackers"`
	Defenders  rateJSON       `json:"defenders"`
	Draws      rateJSON       `json:"draws"`
	Endings    map[string]int `json:"endings"`
	Lengths    lengthJSON     `json:"lengths"`
	Seconds    float64        `json:"seconds"`
	// Engine is an engine player's command; Forfeits counts the games one
	// of its instances lost outside the rules (also among Endings, as
	// "forfeit-" and the reason), and FirstForfeit says what happened in
	// the first.
	Engine       string `json:"engine,omitempty"`
	Forfeits     int    `json:"forfeits,omitempty"`
	FirstForfeit string `json:"first_forfeit,omitempty"`

	tally tally
}

// comparisonJSON is the test of two rule sets' defender rates at one
// strength.
type comparisonJSON struct {
	Player string  `json:"player"`
	A      string  `json:"a"`
	B      string  `json:"b"`
	Diff   float64 `json:"diff"` // defender rate of A minus that of B
	Z      float64 `json:"z"`
	P      float64 `json:"p"`
	PHolm  float64 `json:"p_holm"`
}

// recordsJSON is the report of a game-record file.
type recordsJSON struct {
	File      string         `json:"file"`
	Variant   string         `json:"variant"`
	Games     int            `json:"games"`   // every game of the file
	Ongoing   int            `json:"ongoing"` // left out of the rates
	Attackers rateJSON       `json:"attackers"`
	Defenders rateJSON       `json:"defenders"`
	Draws     rateJSON       `json:"draws"`
	Endings   map[string]int `json:"endings"`
	Lengths   lengthJSON     `json:"lengths"` // of the games with a result
	// Disagree counts the games the rules end on the last recorded move
	// with another winner than the record states.
	Disagree int `json:"rules_disagree"`
	// Illegal counts the games with a move the rules refuse; FirstError
	// names the first.
	Illegal    int    `json:"illegal"`
	FirstError string `json:"first_error,omitempty"`

	tally tally
}

// baselineJSON compares a record file's defender rate with a self-play
// run's of the same rule set.
type baselineJSON struct {
	File    string  `json:"file"`
	Variant string  `json:"variant"`
	Player  string  `json:"player"`
	Diff    float64 `json:"diff"` // records minus self-play
	Z       float64 `json:"z"`
	P       float64 `json:"p"`
}

// balanceJSON is balance.json.
type balanceJSON struct {
	Variants    []string         `json:"variants"`
	Players     []string         `json:"players"`
	MaxGames    int              `json:"max_games"`
	Width       float64          `json:"width"`
	Confidence  float64          `json:"confidence"`
	MinGames    int              `json:"min_games"`
	Seed        uint64           `json:"seed"`
	Search      balanceSearchCfg `json:"search"`
	Interrupted bool             `json:"interrupted"`
	Runs        []*balanceRun    `json:"runs"`
	Comparisons []comparisonJSON `json:"comparisons"`
	Records     []*recordsJSON   `json:"records"`
	Baselines   []baselineJSON   `json:"baselines"`
}

// balanceSearchCfg records the search settings that shape the games.
type balanceSearchCfg struct {
	FullSearchProb      float64 `json:"full_search_prob"`
	NoiseFraction       float64 `json:"noise_fraction"`
	TemperatureStart    float64 `json:"temperature_start"`
	TemperatureEnd      float64 `json:"temperature_end"`
	TemperatureHalfLife float64 `json:"temperature_half_life"`
}

// balanceSearch is the search of every balance game of the player: full
// searches of its playouts with its own search settings if it has them
// (root=gumbel), else the default ones (the self-play noise and
// temperature).
func balanceSearch(p *match.Player) mcts.Config {
	return p.SelfPlaySearch(mcts.DefaultConfig())
}

// runBalance is the balance subcommand; SIGINT and SIGTERM stop it with the
// report of the games played so far.
func runBalance(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runBalanceCtx(ctx, args, stdin, stdout, stderr)
}

// runBalanceCtx is runBalance stopped by ctx instead of a signal.
func runBalanceCtx(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, code := parseBalanceFlags(ctx, args, stdin, stderr)
	if o == nil {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "eval balance: %v\n", err)
		return 1
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fail(fmt.Errorf("-out: %w", err))
	}
	def := mcts.DefaultConfig()
	rep := &balanceJSON{MaxGames: o.maxGames, Width: o.width, Confidence: o.confidence, MinGames: o.minGames, Seed: o.seed,
		Search: balanceSearchCfg{FullSearchProb: 1, NoiseFraction: def.NoiseFraction, TemperatureStart: def.TemperatureStart,
			TemperatureEnd: def.TemperatureEnd, TemperatureHalfLife: def.TemperatureHalfLife},
		Runs: []*balanceRun{}, Comparisons: []comparisonJSON{}, Records: []*recordsJSON{}, Baselines: []baselineJSON{}}
	for _, v := range o.variants {
		rep.Variants = append(rep.Variants, v.Name())
	}
	for _, p := range o.players {
		rep.Players = append(rep.Players, p.Name)
	}
	if rep.Variants == nil {
		rep.Variants, rep.Players = []string{}, []string{}
	}
	for _, rf := range o.records {
		rep.Records = append(rep.Records, recordsReport(rf, o.recVariant, o.confidence))
	}

	var runErr error
play:
	for _, p := range o.players {
		for _, v := range o.variants {
			run, err := playBalanceRun(ctx, o, v, p, stdout)
			if run.Games > 0 || !errors.Is(err, context.Canceled) {
				rep.Runs = append(rep.Runs, run)
			}
			if errors.Is(err, context.Canceled) {
				rep.Interrupted = true
				break play
			}
			if err != nil {
				runErr = err
				break play
			}
		}
	}
	rep.compare()

	md := balanceMarkdown(rep)
	if err := errors.Join(
		fileio.WriteJSON(filepath.Join(o.out, "balance.json"), rep),
		fileio.WriteFile(filepath.Join(o.out, "balance.md"), []byte(md)),
		balanceChart(rep, o.numeric, filepath.Join(o.out, "balance.png")),
	); err != nil {
		runErr = errors.Join(runErr, err)
	}
	fmt.Fprint(stdout, "\n"+md)
	if runErr != nil {
		return fail(runErr)
	}
	fmt.Fprintf(stdout, "\neval balance: written to %s\n", o.out)
	if rep.Interrupted {
		return 130
	}
	return 0
}

// parseBalanceFlags reads and checks every flag and reads the record files.
// It returns nil and the exit status when the command should stop: 0 after
// -h, 2 for bad input.
func parseBalanceFlags(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer) (*balanceOptions, int) {
	fs := cli.NewFlagSet("eval balance", balanceHelp, stderr)
	variantList := fs.String("variants", strings.Join(variants.Names(), ","), "comma-separated rule sets: embedded `names`, rule-set files or otr:RULES (\"\": records only)")
	players := &listFlag{}
	fs.Var(players, "player", "the `player` playing itself (repeatable; default builtin:playouts=200)")
	strengths := fs.String("strengths", "", "comma-separated playout `budgets` replacing the player's playouts, one run each")
	games := fs.Int("games", 1000, "the most `games` of each run")
	width := fs.Float64("width", 0.1, "stop a run when every interval is at most `W` wide (0: never early)")
	confidence := fs.Float64("confidence", 0.95, "`confidence` of the intervals")
	minGames := fs.Int("min-games", 50, "`games` a run plays before it may stop early")
	records := &listFlag{split: true}
	fs.Var(records, "records", "game-record `file` to report on as well (repeatable or comma-separated; - for standard input)")
	recVariant := fs.String("records-variant", "copenhagen-classic", "rule set of the records: an embedded `name`, a rule-set file or otr:RULES")
	openingsFlag := fs.String("openings", "start", "where games start: `start` (the rule set's start) or suite (its opening suite)")
	workers := fs.Int("workers", 0, "worker goroutines (`N`); 0 = one per core")
	perWorker := fs.Int("games-per-worker", 8, "`games` each worker plays at once")
	seed := fs.Uint64("seed", 1, "`seed` of the games")
	out := fs.String("out", "", "the report `folder`")
	cli.DocumentRanges(fs, cli.FlagRanges[fs.Name()])
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, 0
		}
		return nil, 2
	}
	if err := cli.CheckRanges(fs, cli.FlagRanges[fs.Name()]); err != nil {
		fmt.Fprintf(stderr, "eval balance: %v\n", err)
		return nil, 2
	}
	bad := func(format string, a ...any) (*balanceOptions, int) {
		fmt.Fprintf(stderr, "eval balance: "+format+"\n", a...)
		return nil, 2
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q (flags only; game records go in -records)", fs.Arg(0))
	case *out == "":
		return bad("-out is required")
	case *games < 1:
		return bad("-games %d: want at least 1", *games)
	case !(*width >= 0 && *width <= 1):
		return bad("-width %v: want an interval width from 0 to 1 (0: never stop early)", *width)
	case !(*confidence > 0 && *confidence < 1):
		return bad("-confidence %v: want a level strictly between 0 and 1, such as 0.95", *confidence)
	case *minGames < 0:
		return bad("-min-games %d: want 0 or more", *minGames)
	case *workers < 0:
		return bad("-workers %d: want 0 (one per core) or more", *workers)
	case *perWorker < 1:
		return bad("-games-per-worker %d: want at least 1", *perWorker)
	}
	o := &balanceOptions{maxGames: *games, width: *width, confidence: *confidence, minGames: *minGames,
		workers: *workers, perWorker: *perWorker, seed: *seed, out: *out, suites: *openingsFlag == "suite",
		workersGiven: isFlagSet(fs, "workers"), perWorkerGiven: isFlagSet(fs, "games-per-worker")}
	if *openingsFlag != "start" && *openingsFlag != "suite" {
		return bad("-openings %q: want start or suite", *openingsFlag)
	}
	if o.workers == 0 {
		o.workers = runtime.GOMAXPROCS(0)
	}
	if o.width > 0 {
		if err := (stats.PrecisionStop{Width: o.width, Confidence: o.confidence, MinGames: o.minGames}).Validate(); err != nil {
			return bad("-width, -confidence, -min-games: %v", err)
		}
	}

	seen := map[string]string{}
	for _, arg := range strings.Split(*variantList, ",") {
		arg = strings.TrimSpace(arg)
		if arg == "" {
			continue
		}
		v, err := configs.LoadVariant(arg)
		if err != nil {
			return bad("-variants: %v", err)
		}
		if prev, dup := seen[v.Name()]; dup {
			return bad("-variants: %q and %q are both rule set %q: give each once", prev, arg, v.Name())
		}
		seen[v.Name()] = arg
		o.variants = append(o.variants, v)
		if o.suites {
			if _, err := openings.LoadSuite("", v); err != nil {
				return bad("-openings suite: %v", err)
			}
		}
	}

	var budgets []int
	if strings.TrimSpace(*strengths) != "" || isFlagSet(fs, "strengths") {
		for _, s := range strings.Split(*strengths, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > cli.MaxPlayouts {
				return bad("-strengths %q: %q is not a playout budget (want whole numbers from 1 to %d, such as 50,200,800)", *strengths, s, cli.MaxPlayouts)
			}
			if slices.Contains(budgets, n) {
				return bad("-strengths %q: %d is given twice", *strengths, n)
			}
			budgets = append(budgets, n)
		}
	}
	specs := players.values
	if len(specs) == 0 {
		specs = []string{"builtin:playouts=200"}
	}
	names := map[string]bool{}
	for _, spec := range specs {
		p, err := player.Parse(spec)
		if err != nil {
			return bad("-player: %v", err)
		}
		atBudgets := []match.Player{p}
		if budgets != nil && p.NewEngine != nil {
			return bad("-strengths: player %s is an engine program, which has no playouts to replace", p.Name)
		}
		if budgets != nil {
			atBudgets = atBudgets[:0]
			for _, n := range budgets {
				// The spec again with its playouts replaced (the last key
				// counts), so that the player's name says them.
				sep := ","
				if spec == "builtin" {
					sep = ":"
				}
				q, err := player.Parse(fmt.Sprintf("%s%splayouts=%d", spec, sep, n))
				if err != nil {
					return bad("-player: %v", err)
				}
				atBudgets = append(atBudgets, q)
			}
		}
		for _, q := range atBudgets {
			if names[q.Name] {
				return bad("-player: %q gives player %s a second time", spec, q.Name)
			}
			names[q.Name] = true
			o.players = append(o.players, q)
		}
	}
	o.numeric = len(specs) == 1 && o.players[0].NewEngine == nil
	for _, p := range o.players {
		if p.NewEngine != nil {
			continue // an engine searches as it will
		}
		cfg := balanceSearch(&p)
		if err := cfg.Validate(); err != nil {
			return bad("-player %s: %v", p.Name, err)
		}
	}

	rv, err := configs.LoadVariant(*recVariant)
	if err != nil {
		return bad("-records-variant: %v", err)
	}
	o.recVariant = rv
	for _, name := range records.values {
		rf, err := readRecordFile(ctx, name, stdin)
		if err != nil && ctx.Err() != nil {
			fmt.Fprintf(stderr, "eval balance: stopped while reading -records %s; nothing written\n", name)
			return nil, 130
		}
		if err != nil {
			return bad("-records: %v", err)
		}
		o.records = append(o.records, rf)
	}
	if len(o.variants) == 0 {
		o.players = nil
		if len(o.records) == 0 {
			return bad("-variants is empty and there are no -records: nothing to report")
		}
	}
	return o, 0
}

// isFlagSet reports whether the flag was given.
func isFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// readRecordFile reads a game-record file ("-" for stdin), skipping blank
// lines and a header. Errors name the file and the line.
func readRecordFile(ctx context.Context, name string, stdin io.Reader) (recordFile, error) {
	rf := recordFile{name: name}
	var in io.Reader
	if name == "-" {
		if stdin == nil {
			return rf, errors.New("standard input: not available")
		}
		in, rf.name = stdin, "stdin"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return rf, err
		}
		defer f.Close()
		in = f
	}
	// Within datasets' limits of a line and a file; errors name both.
	recs, err := datasets.ReadRecords(ctx, rf.name, in)
	if err != nil {
		return rf, errors.New(strings.TrimPrefix(err.Error(), "datasets: "))
	}
	rf.records = recs
	if len(rf.records) == 0 {
		return rf, fmt.Errorf("%s: no game records in it", rf.name)
	}
	return rf, nil
}

// Endings of recorded games that the rules did not end on the last move.
const (
	endTimedOut     = "timed-out"
	endResigned     = "resigned-or-timed-out"
	endAgreedDraw   = "draw-agreed"
	endPastRulesEnd = "past-rules-end"
	endUnfinished   = "unfinished"
	endIllegal      = "illegal-move"
)

// recordsReport replays a record file's games under v and reports them.
func recordsReport(rf recordFile, v *rules.Variant, confidence float64) *recordsJSON {
	r := &recordsJSON{File: rf.name, Variant: v.Name(), Games: len(rf.records)}
	for _, rec := range rf.records {
		res := rules.Replay(v, rec.StartOr(v.Start()), rec.Moves, rec.Line)
		w := rec.Result.Winner()
		var ending string
		switch {
		case res.Err != nil:
			ending = endIllegal
			r.Illegal++
			if r.FirstError == "" {
				r.FirstError = rf.name + ": " + res.Err.Error()
			}
		case res.Outcome.Over() && res.MovesAfterEnd == 0:
			ending = res.Outcome.Reason.String()
			if w != rules.NoWinner && w != res.Outcome.Winner {
				r.Disagree++
			}
		case res.Outcome.Over():
			ending = endPastRulesEnd
		case rec.Result == rules.ResultOngoing:
			ending = endUnfinished
		case rec.Timeout:
			ending = endTimedOut
		case rec.Result == rules.ResultDraw:
			ending = endAgreedDraw
		default:
			ending = endResigned
		}
		if rec.Result == rules.ResultOngoing {
			r.Ongoing++
		}
		r.tally.add(w, ending, len(rec.Moves))
	}
	r.Attackers, r.Defenders, r.Draws, r.Endings, r.Lengths = r.tally.summary(confidence)
	return r
}

// gameResult is what the collector needs of a finished game.
type gameResult struct {
	index   int
	outcome rules.Outcome
	plies   int
}

// playBalanceRun plays one rule set at one strength. It returns the run
// with the games counted so far also when it fails or ctx is done (then
// with ctx's error).
func playBalanceRun(ctx context.Context, o *balanceOptions, v *rules.Variant, p match.Player, stdout io.Writer) (*balanceRun, error) {
	if p.NewEngine != nil {
		return playBalanceEngineRun(ctx, o, v, p, stdout)
	}
	run := &balanceRun{Variant: v.Name(), Player: p.Name, Network: p.Network, Playouts: p.Playouts, Stopped: "max-games"}
	if p.Search != nil && p.Search.RootSearch == mcts.RootGumbel {
		run.RootSearch = mcts.RootGumbel
	}
	started := time.Now()
	defer func() {
		run.Seconds = math.Round(time.Since(started).Seconds()*10) / 10
		run.Games = run.tally.outcomes.Games()
		run.Attackers, run.Defenders, run.Draws, run.Endings, run.Lengths = run.tally.summary(o.confidence)
	}()
	runSeed := mcts.MixSeed(o.seed, nameHash(v.Name()+"\x00"+p.Name))
	run.Openings = "start"
	var suite []match.SuiteEntry
	if o.suites {
		var err error
		if suite, err = openings.LoadSuite("", v); err != nil {
			return run, fmt.Errorf("%s: %w", v.Name(), err)
		}
		run.Openings = fmt.Sprintf("the opening suite of %s (%d positions)", v.Name(), len(suite))
	}
	var next atomic.Int64
	source := func() (mcts.GameSpec, bool) {
		i := next.Add(1) - 1
		if i >= int64(o.maxGames) {
			return mcts.GameSpec{}, false
		}
		g := mcts.GameSpec{Index: int(i), Seed: mcts.MixSeed(runSeed, uint64(i))}
		if len(suite) > 0 {
			g.Start = suite[int(i)%len(suite)].Position
		}
		return g, true
	}
	cfg := balanceSearch(&p)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	players := make([]*mcts.SelfPlayer, o.workers)
	for w := range players {
		eval, err := p.NewEvaluator()
		if err == nil {
			players[w], err = mcts.NewSelfPlayer(cfg, v, eval, o.perWorker)
		}
		if err != nil {
			return run, fmt.Errorf("%s, %s: %w", v.Name(), p.Name, err)
		}
	}
	results, wait := mcts.PlayAll(runCtx, players, source, o.workers*o.perWorker)

	var stop *stats.PrecisionStop
	if o.width > 0 {
		stop = &stats.PrecisionStop{Width: o.width, Confidence: o.confidence, MinGames: o.minGames}
	}
	progress := progress.New(stdout, o.maxGames, "games", 10*time.Second)
	progress.Update(0, v.Name()+" "+p.Name+": starting")
	pending := map[int]gameResult{}
	counted, done := 0, false
	for rec := range results {
		if done {
			continue
		}
		r := gameResult{rec.Index, rec.Outcome, len(rec.Moves)}
		pending[r.index] = r
		for g, ok := pending[counted]; ok && !done; g, ok = pending[counted] {
			delete(pending, counted)
			counted++
			run.tally.add(g.outcome.Winner, g.outcome.Reason.String(), g.plies)
			rates := run.tally.outcomes.Rates(o.confidence)
			progress.Update(counted, fmt.Sprintf("%s %s: defenders %.2f [%.2f, %.2f], attackers %.2f [%.2f, %.2f], draws %.2f [%.2f, %.2f]",
				v.Name(), p.Name, rates.Defender.P, rates.Defender.Lo, rates.Defender.Hi,
				rates.Attacker.P, rates.Attacker.Lo, rates.Attacker.Hi, rates.Draw.P, rates.Draw.Lo, rates.Draw.Hi))
			if stop != nil && stop.Done([]stats.Outcomes{run.tally.outcomes}) {
				done = true
				run.Stopped = "precision"
				cancel()
			}
		}
	}
	progress.Finish()
	if err := wait(); err != nil {
		return run, fmt.Errorf("%s, %s: %w", v.Name(), p.Name, err)
	}
	if err := ctx.Err(); err != nil && !done {
		run.Stopped = "interrupted"
		return run, err
	}
	return run, nil
}

// playBalanceEngineRun plays one rule set with an engine program against
// itself: match's game pairs between two instances of it, refereed by the
// rules, the games counted in the order of their numbers (pair*2 + half)
// as playBalanceRun counts its own. Like playBalanceRun it returns the run
// so far also when it fails or ctx is done.
func playBalanceEngineRun(ctx context.Context, o *balanceOptions, v *rules.Variant, p match.Player, stdout io.Writer) (*balanceRun, error) {
	run := &balanceRun{Variant: v.Name(), Player: p.Name, Engine: p.Engine, Stopped: "max-games", Openings: "start"}
	started := time.Now()
	defer func() {
		run.Seconds = math.Round(time.Since(started).Seconds()*10) / 10
		run.Games = run.tally.outcomes.Games()
		run.Attackers, run.Defenders, run.Draws, run.Endings, run.Lengths = run.tally.summary(o.confidence)
	}()
	cfg := match.Config{Variant: v, A: p, B: p, Search: mcts.DefaultConfig(), MaxPairs: (o.maxGames + 1) / 2}
	if o.workersGiven {
		cfg.Workers = o.workers
	}
	if o.perWorkerGiven {
		cfg.GamesPerWorker = o.perWorker
	}
	if o.suites {
		suite, err := openings.LoadSuite("", v)
		if err != nil {
			return run, fmt.Errorf("%s: %w", v.Name(), err)
		}
		for _, e := range suite {
			cfg.Openings = append(cfg.Openings, match.Opening{Start: e.Position})
		}
		run.Openings = fmt.Sprintf("the opening suite of %s (%d positions)", v.Name(), len(suite))
	}
	var stop *stats.PrecisionStop
	if o.width > 0 {
		stop = &stats.PrecisionStop{Width: o.width, Confidence: o.confidence, MinGames: o.minGames}
	}
	progress := progress.New(stdout, o.maxGames, "games", 10*time.Second)
	progress.Update(0, v.Name()+" "+p.Name+": starting")
	pending := map[int]match.Game{}
	counted, done := 0, false
	err := match.Play(ctx, cfg, func(pair match.Pair) bool {
		for half, g := range pair.Games {
			if i := 2*pair.Index + half; i < o.maxGames {
				pending[i] = g
			}
		}
		for g, ok := pending[counted]; ok && !done; g, ok = pending[counted] {
			delete(pending, counted)
			counted++
			ending := g.Outcome.Reason.String()
			if g.Forfeit != "" {
				ending = "forfeit-" + g.Forfeit
				if run.Forfeits++; run.Forfeits == 1 {
					run.FirstForfeit = fmt.Sprintf("game %d: the %s: %s: %s", counted, forfeiter(g), g.Forfeit, g.ForfeitDetail)
				}
			}
			run.tally.add(g.Outcome.Winner, ending, len(g.Moves))
			rates := run.tally.outcomes.Rates(o.confidence)
			progress.Update(counted, fmt.Sprintf("%s %s: defenders %.2f [%.2f, %.2f], attackers %.2f [%.2f, %.2f], draws %.2f [%.2f, %.2f], forfeits %d",
				v.Name(), p.Name, rates.Defender.P, rates.Defender.Lo, rates.Defender.Hi,
				rates.Attacker.P, rates.Attacker.Lo, rates.Attacker.Hi, rates.Draw.P, rates.Draw.Lo, rates.Draw.Hi, run.Forfeits))
			if stop != nil && stop.Done([]stats.Outcomes{run.tally.outcomes}) {
				done = true
				run.Stopped = "precision"
			}
		}
		return !done && counted < o.maxGames
	})
	progress.Finish()
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			run.Stopped = "interrupted"
			return run, ctx.Err()
		}
		return run, fmt.Errorf("%s, %s: %w", v.Name(), p.Name, err)
	}
	return run, nil
}

// forfeiter names the side that forfeited a game: the loser.
func forfeiter(g match.Game) string {
	if g.Outcome.Winner == rules.AttackersWin {
		return "defenders"
	}
	return "attackers"
}

// nameHash is the FNV-1a hash of a name.
func nameHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// compare fills the pairwise comparisons of the rule sets at each strength
// and the comparisons of each record file with the self-play runs of its
// rule set.
func (rep *balanceJSON) compare() {
	for _, player := range rep.Players {
		var runs []*balanceRun
		var sets []stats.Outcomes
		for _, r := range rep.Runs {
			if r.Player == player {
				runs = append(runs, r)
				sets = append(sets, r.tally.outcomes)
			}
		}
		for _, c := range stats.CompareDefenderRates(sets) {
			rep.Comparisons = append(rep.Comparisons, comparisonJSON{Player: player, A: runs[c.A].Variant, B: runs[c.B].Variant,
				Diff: c.Diff, Z: c.Z, P: c.P, PHolm: c.PHolm})
		}
	}
	for _, rec := range rep.Records {
		for _, r := range rep.Runs {
			if r.Variant != rec.Variant {
				continue
			}
			o := rec.tally.outcomes
			z, p := stats.TwoProportion(o.DefenderWins, o.Games(), r.tally.outcomes.DefenderWins, r.Games)
			diff := 0.0
			if o.Games() > 0 && r.Games > 0 {
				diff = rec.Defenders.Rate - r.Defenders.Rate
			}
			rep.Baselines = append(rep.Baselines, baselineJSON{File: rec.File, Variant: rec.Variant, Player: r.Player, Diff: diff, Z: z, P: p})
		}
	}
}

// ruleEndings are the endings the rules give, in the spec's order.
var ruleEndings = func() []string {
	var out []string
	for r := rules.KingEscaped; r <= rules.NoProgress; r++ {
		out = append(out, r.String())
	}
	return out
}()

// forfeitEndings are the endings of games an engine forfeited.
var forfeitEndings = []string{"forfeit-" + match.ForfeitIllegal, "forfeit-" + match.ForfeitTime, "forfeit-" + match.ForfeitCrash}

// recordEndings are the other endings of recorded games.
var recordEndings = []string{endTimedOut, endResigned, endAgreedDraw, endPastRulesEnd, endUnfinished, endIllegal}

// balanceMarkdown writes the report.
func balanceMarkdown(rep *balanceJSON) string {
	var b strings.Builder
	pct := fmt.Sprintf("%g%%", 100*rep.Confidence)
	fmt.Fprintf(&b, "# Rule-set balance\n\n")
	if rep.Interrupted {
		fmt.Fprintf(&b, "**Interrupted**: the figures are of the games played before the stop.\n\n")
	}
	if len(rep.Runs) > 0 || len(rep.Players) > 0 {
		stopText := "every game played (-width 0)"
		if rep.Width > 0 {
			stopText = fmt.Sprintf("a run stops when every interval is at most %g wide, after at least %d games", rep.Width, rep.MinGames)
		}
		fmt.Fprintf(&b, "Self-play: each player against itself, up to %d games per rule set; %s. "+
			"Full searches with root noise %g and a move-choice temperature from %g to %g (half-life %g plies); seed %d. "+
			"Rates with %s Wilson intervals.\n\n",
			rep.MaxGames, stopText, rep.Search.NoiseFraction, rep.Search.TemperatureStart, rep.Search.TemperatureEnd,
			rep.Search.TemperatureHalfLife, rep.Seed, pct)
		for _, r := range rep.Runs {
			if r.RootSearch == mcts.RootGumbel {
				b.WriteString("Players with Gumbel root search (names ending in -gumbel) have no root noise and no temperature: " +
					"Gumbel-top-k sampling and sequential halving choose their moves.\n\n")
				break
			}
		}
		for _, r := range rep.Runs {
			if r.Engine != "" {
				fmt.Fprintf(&b, "%s is an engine program (%s) playing itself, one instance per side, refereed by the rules; "+
					"it searches as it always does: no root noise or temperature from taflab.\n\n", r.Player, r.Engine)
				break
			}
		}
		for _, r := range rep.Runs {
			if r.Openings != "start" {
				fmt.Fprintf(&b, "The games of %s started from %s, not from its start: their rates are not the rule set's balance.\n\n", r.Variant, r.Openings)
			}
		}
		b.WriteString("| rule set | player | games | stopped | attackers | defenders | draws | plies: mean | median | min | max |\n")
		b.WriteString("| --- | --- | ---: | --- | --- | --- | --- | ---: | ---: | ---: | ---: |\n")
		for _, r := range rep.Runs {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %.1f | %g | %d | %d |\n", r.Variant, r.Player, r.Games, r.Stopped,
				r.Attackers, r.Defenders, r.Draws, r.Lengths.Mean, r.Lengths.Median, r.Lengths.Min, r.Lengths.Max)
		}
		b.WriteString("\n## How the games ended\n\n| rule set | player | " + strings.Join(ruleEndings, " | ") + " |\n")
		b.WriteString("| --- | --- |" + strings.Repeat(" ---: |", len(ruleEndings)) + "\n")
		for _, r := range rep.Runs {
			fmt.Fprintf(&b, "| %s | %s |", r.Variant, r.Player)
			for _, e := range ruleEndings {
				fmt.Fprintf(&b, " %d |", r.Endings[e])
			}
			b.WriteString("\n")
		}
		forfeits := false
		for _, r := range rep.Runs {
			forfeits = forfeits || r.Forfeits > 0
		}
		if forfeits {
			b.WriteString("\n## Engine forfeits\n\nGames an engine lost outside the rules; they count as wins of the other side.\n\n")
			b.WriteString("| rule set | player | " + strings.Join(forfeitEndings, " | ") + " | first |\n")
			b.WriteString("| --- | --- |" + strings.Repeat(" ---: |", len(forfeitEndings)) + " --- |\n")
			for _, r := range rep.Runs {
				if r.Forfeits == 0 {
					continue
				}
				fmt.Fprintf(&b, "| %s | %s |", r.Variant, r.Player)
				for _, e := range forfeitEndings {
					fmt.Fprintf(&b, " %d |", r.Endings[e])
				}
				fmt.Fprintf(&b, " %s |\n", strings.ReplaceAll(r.FirstForfeit, "|", "/"))
			}
		}
		if len(rep.Comparisons) > 0 {
			b.WriteString("\n## Defender rates compared\n\nThe pooled two-proportion z-test for every pair of rule sets at a strength; " +
				"p (Holm) is adjusted over the pairs of that strength.\n\n")
			b.WriteString("| player | A | B | defenders A − B | z | p | p (Holm) |\n| --- | --- | --- | ---: | ---: | ---: | ---: |\n")
			for _, c := range rep.Comparisons {
				fmt.Fprintf(&b, "| %s | %s | %s | %+.3f | %.2f | %s | %s |\n", c.Player, c.A, c.B, c.Diff, c.Z, pValue(c.P), pValue(c.PHolm))
			}
		}
	}
	if len(rep.Records) > 0 {
		b.WriteString("\n## Game records\n\nThe winner is the record's result; Ongoing games are left out of the rates and lengths. " +
			"Endings are the rules' where they end the game on the last recorded move.\n\n")
		b.WriteString("| file | rule set | games | ongoing | attackers | defenders | draws | plies: mean | median | min | max |\n")
		b.WriteString("| --- | --- | ---: | ---: | --- | --- | --- | ---: | ---: | ---: | ---: |\n")
		for _, r := range rep.Records {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %.1f | %g | %d | %d |\n", r.File, r.Variant, r.Games, r.Ongoing,
				r.Attackers, r.Defenders, r.Draws, r.Lengths.Mean, r.Lengths.Median, r.Lengths.Min, r.Lengths.Max)
		}
		var cols []string
		for _, e := range append(slices.Clone(ruleEndings), recordEndings...) {
			for _, r := range rep.Records {
				if r.Endings[e] > 0 {
					cols = append(cols, e)
					break
				}
			}
		}
		b.WriteString("\n| file | " + strings.Join(cols, " | ") + " |\n| --- |" + strings.Repeat(" ---: |", len(cols)) + "\n")
		for _, r := range rep.Records {
			fmt.Fprintf(&b, "| %s |", r.File)
			for _, e := range cols {
				fmt.Fprintf(&b, " %d |", r.Endings[e])
			}
			b.WriteString("\n")
		}
		for _, r := range rep.Records {
			if r.Disagree > 0 {
				fmt.Fprintf(&b, "\n%s: in %d games the rules end the game on the last move with another winner than the record states.\n", r.File, r.Disagree)
			}
			if r.Illegal > 0 {
				fmt.Fprintf(&b, "\n%s: %d games have a move the rules refuse (first: %s); run eval replay on the file.\n", r.File, r.Illegal, r.FirstError)
			}
		}
		if len(rep.Baselines) > 0 {
			b.WriteString("\n### Records against self-play\n\n| file | player | defenders: records − self-play | z | p |\n| --- | --- | ---: | ---: | ---: |\n")
			for _, c := range rep.Baselines {
				fmt.Fprintf(&b, "| %s | %s | %+.3f | %.2f | %s |\n", c.File, c.Player, c.Diff, c.Z, pValue(c.P))
			}
		}
	}
	return b.String()
}

// pValue formats a p-value.
func pValue(p float64) string {
	if p < 0.001 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.3f", p)
}

// balanceChart draws the defender win rate with its interval against
// strength, one line per rule set, and the record files as horizontal
// lines (or, with no self-play, as points).
func balanceChart(rep *balanceJSON, numeric bool, path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Defender win rate (%g%% Wilson intervals)", 100*rep.Confidence)
	p.Y.Label.Text = "defender win rate"
	p.Add(plotter.NewGrid())

	type point struct {
		x        float64
		p, lo, h float64
	}
	series := map[string][]point{} // by rule set
	var order []string             // rule sets in order
	var ticks []plot.Tick
	xmin, xmax := -0.5, 0.5
	switch {
	case len(rep.Runs) == 0:
		// Records only: one category per file.
		p.X.Label.Text = "game records"
		for i, r := range rep.Records {
			key := fmt.Sprintf("%s (%s) %s", filepath.Base(r.File), r.Variant, r.Defenders)
			order = append(order, key)
			series[key] = append(series[key], point{float64(i), r.Defenders.Rate, r.Defenders.Lo, r.Defenders.Hi})
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: filepath.Base(r.File)})
		}
		xmax = float64(len(rep.Records)) - 0.5
	case numeric:
		p.X.Label.Text = "playouts per move"
		p.X.Scale = plot.LogScale{}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range rep.Runs {
			lo, hi = math.Min(lo, float64(r.Playouts)), math.Max(hi, float64(r.Playouts))
		}
		xmin, xmax = lo/1.5, hi*1.5
		for _, name := range rep.Players {
			for _, r := range rep.Runs {
				if r.Player == name {
					ticks = append(ticks, plot.Tick{Value: float64(r.Playouts), Label: strconv.Itoa(r.Playouts)})
					break
				}
			}
		}
	default:
		p.X.Label.Text = "player"
		for i, name := range rep.Players {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: name})
		}
		xmax = float64(len(rep.Players)) - 0.5
	}
	if len(rep.Runs) > 0 {
		for _, v := range rep.Variants {
			order = append(order, v)
		}
		k := float64(len(order))
		for _, r := range rep.Runs {
			i := float64(slices.Index(order, r.Variant))
			shift := (i - (k-1)/2) // keeps the error bars of the rule sets apart
			var x float64
			if numeric {
				x = float64(r.Playouts) * math.Pow(10, 0.015*shift)
			} else {
				x = float64(slices.Index(rep.Players, r.Player)) + 0.06*shift
			}
			series[r.Variant] = append(series[r.Variant], point{x, r.Defenders.Rate, r.Defenders.Lo, r.Defenders.Hi})
		}
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	// Rates run from 0 to 1, a tick each tenth, every other one labelled.
	var yticks []plot.Tick
	for i := 0; i <= 10; i++ {
		y := float64(i) / 10
		label := ""
		if i%2 == 0 {
			label = strconv.FormatFloat(y, 'f', 1, 64)
		}
		yticks = append(yticks, plot.Tick{Value: y, Label: label})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(yticks)
	for i, name := range order {
		pts := series[name]
		if len(pts) == 0 {
			continue
		}
		data := errorPoints{}
		for _, q := range pts {
			data.XYs = append(data.XYs, plotter.XY{X: q.x, Y: q.p})
			data.YErrors = append(data.YErrors, struct{ Low, High float64 }{q.p - q.lo, q.h - q.p})
		}
		if err := addErrorSeries(p, name, data, i, len(rep.Runs) > 0); err != nil {
			return err
		}
	}
	if len(rep.Runs) > 0 {
		for j, r := range rep.Records {
			c := chart.Color(len(order) + j)
			for k, y := range []float64{r.Defenders.Rate, r.Defenders.Lo, r.Defenders.Hi} {
				l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: y}, {X: xmax, Y: y}})
				if err != nil {
					return fmt.Errorf("balance.png: %w", err)
				}
				l.Color = c
				if k == 0 {
					l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
					p.Legend.Add(fmt.Sprintf("%s (%s) %s", filepath.Base(r.File), r.Variant, r.Defenders), l)
				} else {
					l.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
					l.Color = fade(c)
				}
				p.Add(l)
			}
		}
	}
	// Rates run from 0 to 1; the room above 1 is the legend's.
	chart.LegendRoom(p, chart.Canvas(chartWidth, chartHeight), 0, 1)
	return savePNG(p, path)
}

// fade returns the colour half transparent.
func fade(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 128}
}
