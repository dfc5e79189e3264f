// Command selfplay generates training data: games of the search against
// itself, every searched position written to an Apache Arrow dataset.
//
// Usage:
//
//	go run ./cmd/selfplay                      # the embedded default run (configs/selfplay.toml)
//	go run ./cmd/selfplay -config my.toml      # a run of your own
//	go run ./cmd/selfplay -variant fetlar -games 100 -playouts 400 -out data/fetlar
//	go run ./cmd/selfplay -follow runs/loop    # a worker of a loop's external self-play
//
// Flags override the config file's keys. The dataset folder receives shards
// (NAME.positions.arrow and NAME.games.arrow), each written whole, every few
// games; running again into the same folder adds shards. Ctrl-C or SIGTERM
// stops cleanly: finished games are written, unfinished ones dropped, and no
// half-written file is left. Exit status: 0 done, 1 failed, 2 bad flags or
// config, 130 stopped by a signal (what was finished is kept).
//
// With -follow RUN it is a worker of the loop in folder RUN (whose
// selfplay.external is set): it plays with the run's best network, switches
// to a newly promoted one between games, writes shards into RUN/data and
// runs until the run needs no more self-play (exit 0, once the loop wrote
// RUN/selfplay-done.json) or it is stopped (130 after Ctrl-C or SIGTERM, its
// finished games written; 1 on a failure). A stop is not a success, so that
// a Kubernetes Job of followers (deploy/k8s) replaces an evicted one and
// completes when the run does.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/internal/progress"
	"taflab/loop"
	"taflab/selfplay"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: selfplay [-config FILE] [-variant NAME|FILE|otr:RULES] [-games N] [-workers N]
                [-playouts N] [-net FILE] [-out DIR] [-seed N]
       selfplay -follow RUN [-workers N] [-games-per-worker N] [-shard-games N]
                [-shard-seconds S] [-seed N] [-host NAME]

Plays games of the search against itself and writes every searched position
to an Arrow dataset in -out (default data/selfplay). With no flags it plays
the embedded default run (print it with -print-config). Flags override the
config file's keys.

With -follow it is a worker of a training loop's external self-play
(train loop -external, or selfplay.external in its config): it plays with
the run's current best network, picks up a newly promoted one between games,
writes its games into RUN/data, and runs until the run needs no more
self-play (exit 0) or it is stopped (130). Start any number,
on any machines that share the run folder; the rule set and search come
from RUN/loop.toml.

Flags:
`

// flags are selfplay's: a run's, bound to its config, and a follower's.
type flags struct {
	fs          *cli.Flags
	bind        *cli.Binding[configs.SelfPlay]
	configFile  *string
	printConfig *bool
	workers     *int    // a run's workers, or a follower's
	seed        *uint64 // a run's seed, or a follower's
	follow      string
	opt         loop.FollowOptions // a follower's options
}

// declare declares selfplay's flags, each once.
func declare(stderr io.Writer) *flags {
	f := &flags{fs: cli.NewFlags("selfplay", usage, stderr), opt: loop.FollowOptions{Workers: -1}}
	fs := f.fs
	cli.Precision(fs.FlagSet)
	f.configFile = fs.String("config", "", "a self-play config `file` (TOML, as configs/selfplay.toml); default: the embedded one")
	f.printConfig = fs.Bool("print-config", false, "print the embedded config file and exit")
	b := cli.Bind[configs.SelfPlay](fs)
	f.bind = b
	b.String("variant", "", "rule set: an embedded `name`, a rule-set file or otr:RULES (an OpenTafl rules string)",
		func(c *configs.SelfPlay, v string) { c.Variant = v })
	b.Int("games", 0, cli.IntRange(1, 100_000_000, ""), "`number` of games to play", func(c *configs.SelfPlay, n int) { c.Games = n })
	f.workers = b.Int("workers", -1, cli.WorkersRange, "worker goroutines (`N`); 0 = one per core (the default)",
		func(c *configs.SelfPlay, n int) { c.Workers = n })
	b.Int("playouts", 0, cli.PlayoutsRange, "playouts of a full search (`N`); cheap searches keep their share of it", setPlayouts)
	b.String("out", "", "dataset `folder`", func(c *configs.SelfPlay, dir string) { c.Out = dir })
	f.seed = b.Uint64("seed", 0, cli.FullUint64, "`seed` of every random choice (default: the config's)", func(c *configs.SelfPlay, n uint64) { c.Seed = n })
	b.String("net", "", "a network `file` to evaluate with (default: the built-in evaluator)", func(c *configs.SelfPlay, file string) { c.Net = file })
	fs.StringVar(&f.follow, "follow", "", "play for the loop in run `folder` RUN until stopped")
	fs.IntVar(&f.opt.GamesPerWorker, "games-per-worker", 0, cli.IntRange(0, cli.MaxGamesPerWorker, "0: the run's"), "with -follow: games a worker plays at once (`N`; default: the run's)")
	fs.IntVar(&f.opt.ShardGames, "shard-games", 0, cli.IntRange(0, 1_000_000, "0: 16"), "with -follow: games per shard (`N`; default 16)")
	fs.Float64Var(&f.opt.ShardSeconds, "shard-seconds", 0, cli.Range{Min: 0, Max: 86400, Note: "0: 30"}, "with -follow: most `seconds` between shards (default 30)")
	fs.StringVar(&f.opt.Host, "host", "", "with -follow: this machine's `name` in shard names (default: the host name)")
	return f
}

// setPlayouts sets a full search's playouts, and the cheap searches'
// keeping their share of the budget.
func setPlayouts(c *configs.SelfPlay, playouts int) {
	cheap := c.Search.CheapPlayouts * playouts / max(c.Search.Playouts, 1)
	c.Search.Playouts, c.Search.CheapPlayouts = playouts, max(1, min(cheap, playouts))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := declare(stderr)
	// The ranges are checked after the checks of their own below, whose
	// messages say more about the values they refuse.
	if code, done := f.fs.ParseUnchecked(args, f.printConfig, configs.SelfPlayFile(), stdout, stderr); done {
		return code
	}
	set := f.fs.Given()
	if set["follow"] {
		return f.runFollower(ctx, set, stdout, stderr)
	}
	if set["games-per-worker"] || set["shard-games"] || set["shard-seconds"] || set["host"] {
		fmt.Fprintln(stderr, "selfplay: -games-per-worker, -shard-games, -shard-seconds and -host go with -follow (the config file sets them otherwise)")
		return 2
	}
	cfg, err := cli.ReadConfig("selfplay", *f.configFile, configs.DefaultSelfPlay(), configs.ParseSelfPlay)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	f.bind.Apply(&cfg)
	if !f.check(cfg.Validate(), stderr) {
		return 2
	}
	return playRun(ctx, cfg, stdout, stderr)
}

// check reports the settings' own error (valid, of the config or the
// follower's options, whose messages say more about the values they
// refuse), else the flags out of their ranges: false if there is one.
func (f *flags) check(valid error, stderr io.Writer) bool {
	if valid != nil {
		fmt.Fprintf(stderr, "selfplay: flags: %v\n", valid)
		return false
	}
	if err := f.fs.CheckRanges(); err != nil {
		fmt.Fprintf(stderr, "selfplay: %v\n", err)
		return false
	}
	return true
}

// runFollower runs selfplay -follow: a worker of a loop's external
// self-play.
func (f *flags) runFollower(ctx context.Context, set map[string]bool, stdout, stderr io.Writer) int {
	for _, name := range []string{"config", "variant", "games", "playouts", "out", "net"} {
		if set[name] {
			fmt.Fprintf(stderr, "selfplay: -%s with -follow: a follower takes its settings from the run's %s\n", name, loop.ConfigFile)
			return 2
		}
	}
	opt := f.opt
	opt.Seed, opt.Log = *f.seed, stdout
	opt.OnConfig = func(c configs.Loop) { limitMemory(c.SelfPlay.MemoryBytes) }
	if set["workers"] {
		opt.Workers = *f.workers
	}
	if !f.check(opt.Validate(), stderr) {
		return 2
	}
	sum, err := loop.Follow(ctx, f.follow, opt)
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "selfplay:", err)
		return 1
	case !sum.Complete:
		fmt.Fprintf(stderr, "selfplay: stopped before the run in %s was done; its finished games are written\n", f.follow)
		return 130
	}
	return 0
}

// playRun plays the self-play run of cfg, with progress, and reports it.
func playRun(ctx context.Context, cfg configs.SelfPlay, stdout, stderr io.Writer) int {
	v, err := configs.LoadVariant(cfg.Variant)
	if err != nil {
		fmt.Fprintf(stderr, "selfplay: -variant: %v\n", err)
		return 2
	}
	newEval, evaluator, err := selfplay.Evaluators(cfg)
	if err != nil {
		key := "-net"
		if se := (*selfplay.SettingError)(nil); errors.As(err, &se) && se.Key != "net" {
			key = se.Key
		}
		fmt.Fprintf(stderr, "selfplay: %s: %v\n", key, err)
		return 2
	}
	limitMemory(cfg.MemoryBytes)
	opts := selfplay.Options{NewEvaluator: newEval}
	fmt.Fprintf(stdout, "selfplay: %d games of %s, %d playouts (cheap %d, full %.0f%%), %s, into %s\n",
		cfg.Games, v.Name(), cfg.Search.Playouts, cfg.Search.CheapPlayouts, 100*cfg.Search.FullSearchProb, evaluator, cfg.Out)
	progress := progress.New(stdout, cfg.Games, "games", 5*time.Second)
	cpuBefore := cpuTime()
	opts.OnProgress = func(s selfplay.Summary) { progress.Update(s.Games, describe(s)) }
	sum, err := selfplay.Run(ctx, cfg, v, opts)
	progress.Finish()
	wall := sum.Elapsed.Seconds()
	if wall > 0 {
		cpu := (cpuTime() - cpuBefore).Seconds()
		fmt.Fprintf(stdout, "selfplay: %d games, %d positions, %d shards in %s (%.1f games/min); cpu %.0f%% of %d cores\n",
			sum.Games, sum.Positions, sum.Shards, sum.Elapsed.Round(time.Millisecond), sum.GamesPerMinute(),
			100*cpu/wall/float64(runtime.NumCPU()), runtime.NumCPU())
		fmt.Fprintf(stdout, "selfplay: endings: %s\n", reasons(sum))
	}
	if err != nil {
		fmt.Fprintln(stderr, "selfplay:", err)
		return 1
	}
	if sum.Interrupted {
		fmt.Fprintf(stderr, "selfplay: stopped after %d of %d games; the finished ones are in %s\n", sum.Games, cfg.Games, cfg.Out)
		return 130
	}
	return 0
}

// describe is the progress line's figures.
func describe(s selfplay.Summary) string {
	return fmt.Sprintf("%d positions, %.1f games/min, attackers %d defenders %d draws %d",
		s.Positions, s.GamesPerMinute(), s.AttackerWins, s.DefenderWins, s.Draws)
}

// reasons lists how the games ended.
func reasons(s selfplay.Summary) string {
	var parts []string
	for r, n := range s.Endings {
		parts = append(parts, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// memoryHeadroom is what self-play holds besides its games' budget
// (memory_bytes): the network and the evaluators' buffers, a shard being
// written, the runtime.
const memoryHeadroom = 256 << 20

// limitMemory sets the Go runtime's soft memory limit to the games'
// budget plus memoryHeadroom, unless GOMEMLIMIT says otherwise: what the
// games hold is bounded by the budget, and the limit makes the collector
// return what finished games and shards leave behind before the process
// grows past it, where the default pacing lets the heap reach twice what
// is live.
func limitMemory(budget int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(budget + memoryHeadroom)
}
