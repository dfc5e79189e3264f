package loop

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/tomlbound"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
	"taflab/selfplay"
)

// WorkersDir is the run folder's folder of follower records: one JSON file
// per follower process (workerStats), which the summary's throughput per
// host reads.
const WorkersDir = "workers"

// FollowOptions are a follower's settings; the rest (rule set, search,
// mix) comes from the run's own loop.toml.
type FollowOptions struct {
	// Workers is the number of worker goroutines: 0 one per core, -1 the
	// run's selfplay.workers.
	Workers int
	// GamesPerWorker is the number of games a worker plays at once; 0 the
	// run's selfplay.games_per_worker.
	GamesPerWorker int
	// ShardGames is the number of finished games per shard (0: 16), and
	// ShardSeconds the most seconds between shards (0: 30). The loop counts
	// whole shards, so smaller shards reach a quota more evenly.
	ShardGames   int
	ShardSeconds float64
	// Seed fixes this follower's games; 0 draws one from the clock, the
	// host and the process id, so that followers never play the same games.
	Seed uint64
	// Host names this machine in shard names and in its worker record;
	// "" means os.Hostname.
	Host string
	// Poll is how often to look again for a run that is not set up yet;
	// 0 means 2 seconds.
	Poll time.Duration
	// Log receives a line when the follower starts, switches networks and
	// stops, and progress lines; nil discards.
	Log io.Writer
	// OnConfig, if set, is called once with the run's config, when the
	// follower has read it (the selfplay command sets the process's memory
	// limit from its selfplay.memory_bytes).
	OnConfig func(configs.Loop)

	// started, if set, is called as each game is handed out, with the
	// label of the evaluator that will play it (the tests' view of the
	// switch; called from the workers' goroutines).
	started func(label string)
}

// Validate reports the options that cannot be used: a negative count or
// time (Workers -1 means the run's). Its errors name the options as
// selfplay -follow's flags do.
func (o FollowOptions) Validate() error {
	var errs []error
	if o.Workers < -1 {
		errs = append(errs, errctx.Errorf("loop", "follow: workers = %d: want 0 or more (-1: the run's)", o.Workers))
	}
	for _, c := range []struct {
		key   string
		value float64
	}{{"games-per-worker", float64(o.GamesPerWorker)}, {"shard-games", float64(o.ShardGames)}, {"shard-seconds", o.ShardSeconds}} {
		if !(c.value >= 0) {
			errs = append(errs, errctx.Errorf("loop", "follow: %s = %v: want 0 or more", c.key, c.value))
		}
	}
	return errors.Join(errs...)
}

// FollowSummary is what a follower did.
type FollowSummary struct {
	Games, Positions, Shards int
	// Networks lists the evaluators the follower played with, in order.
	Networks []string
	// Complete says the follower stopped because the run needs no more
	// self-play (DoneFile), not because its context was done.
	Complete bool
}

// workerStats is a follower's record in WorkersDir, rewritten whole after
// every shard: what it wrote and over what time, for the run summary's
// throughput per host. A killed follower's record stops at its last shard,
// which is also where its whole files stop.
type workerStats struct {
	Name        string         `json:"name"` // the worker name in its shard names
	Host        string         `json:"host"`
	Started     time.Time      `json:"started"`
	Updated     time.Time      `json:"updated"` // when its last shard was written
	Games       int            `json:"games"`
	Positions   int            `json:"positions"`
	Shards      int            `json:"shards"`
	ByEvaluator map[string]int `json:"games_by_evaluator"`
}

// Follow plays self-play games for the loop in folder run until ctx is
// done: always with the run's current player (the best network; before the
// first promotion generation 0's, else the network-free searcher, as the
// loop's own self-play would), writing shards into run/data that carry the
// player in every game's evaluator column. It looks at the best-network
// pointer as each game starts: once it changes, no new game starts with
// the old player, the games in progress finish and are written, and play
// goes on with the new one, so a follower switches within one game of a
// promotion. A run not set up yet is waited for.
//
// Once the run needs no more self-play (the loop wrote DoneFile after its
// last generation's games were in), it stops as when ctx is done and
// returns with Complete set. Stopping it (ctx done) writes the finished
// games and drops the unfinished ones; a follower killed outright leaves only whole shards, as
// every shard is written to a temporary file and renamed. Any number of
// followers, on any machines that share the run folder, may run at once
// and come and go at any time: each names its shards by host and process.
func Follow(ctx context.Context, run string, opt FollowOptions) (FollowSummary, error) {
	if err := opt.Validate(); err != nil {
		return FollowSummary{}, err
	}
	f, err := newFollower(ctx, run, opt)
	if err != nil {
		return FollowSummary{}, err
	}
	if f.runDone() {
		fmt.Fprintf(f.log, "follow: the run in %s needs no more self-play (%s): stopped\n", run, DoneFile)
		return FollowSummary{Complete: true}, nil
	}
	// play is ctx, also done once the run is (a look every poll).
	play, stop := context.WithCancel(ctx)
	defer stop()
	f.stop = stop
	go f.watch(play)
	if err := f.prepare(); err != nil {
		return FollowSummary{}, err
	}
	var sum FollowSummary
	for play.Err() == nil {
		if err := f.playWithCurrent(play, &sum); err != nil {
			return sum, err
		}
	}
	sum.Complete = f.complete.Load()
	why := ""
	if sum.Complete {
		why = fmt.Sprintf(" (the run needs no more self-play: %s)", DoneFile)
	}
	fmt.Fprintf(f.log, "follow: stopped%s: %d games, %d positions in %d shards\n", why, sum.Games, sum.Positions, sum.Shards)
	return sum, nil
}

// follower is a Follow in progress. Its fields are set before play starts
// and only read after, but for those that say otherwise.
type follower struct {
	run      *loopRun
	opt      FollowOptions
	log      io.Writer
	host     string
	name     string // its worker name in shard names: host-pid
	poll     time.Duration
	sp       configs.SelfPlay // the run's self-play with this follower's workers and shards
	suite    []openings.SuiteEntry
	seed     uint64
	stop     func()       // stops play: the run needs no more self-play
	complete atomic.Bool  // the run needed no more self-play
	index    atomic.Int64 // games handed out, over every player
	// ws is the follower's record (statsPath), changed by OnShard calls,
	// which one selfplay.Run at a time makes from one goroutine.
	ws        workerStats
	statsPath string
}

// newFollower reads the options and waits for the run to be set up.
func newFollower(ctx context.Context, run string, opt FollowOptions) (*follower, error) {
	f := &follower{opt: opt, log: opt.Log, poll: opt.Poll, host: opt.Host}
	if f.log == nil {
		f.log = io.Discard
	}
	if f.poll <= 0 {
		f.poll = 2 * time.Second
	}
	if f.host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, errctx.Errorf("loop", "follow: host name: %w", err)
		}
		f.host = h
	}
	f.name = fmt.Sprintf("%s-%d", f.host, os.Getpid())
	cfg, v, err := waitForRun(ctx, run, f.poll, f.log)
	if err != nil {
		return nil, err
	}
	if opt.OnConfig != nil {
		opt.OnConfig(cfg)
	}
	f.run = newLoopRun(run, cfg, v)
	return f, nil
}

// runDone reports whether the run needs no more self-play (DoneFile).
func (f *follower) runDone() bool {
	_, err := os.Stat(filepath.Join(f.run.dir, DoneFile))
	return err == nil
}

// watch stops play once the run needs no more self-play, looking every
// poll.
func (f *follower) watch(play context.Context) {
	for {
		select {
		case <-play.Done():
			return
		case <-time.After(f.poll):
		}
		if f.runDone() {
			f.complete.Store(true)
			f.stop()
			return
		}
	}
}

// prepare reads the run's suite, sets the follower's self-play config and
// seed, and makes the folder of its record.
func (f *follower) prepare() error {
	cfg, v, opt := f.run.cfg, f.run.variant, f.opt
	var err error
	if cfg.SelfPlay.Mix.SuiteShare > 0 {
		if f.suite, err = openings.LoadSuite(cfg.SelfPlay.Mix.Suite, v); err != nil {
			return within(fmt.Sprintf("follow: selfplay.mix.suite of %s, from the run's copy that the loop writes as it starts", filepath.Join(f.run.dir, ConfigFile)), err)
		}
	}
	f.sp = f.run.selfPlayConfig()
	f.sp.Games = math.MaxInt32 // until stopped
	if opt.Workers >= 0 {
		f.sp.Workers = opt.Workers
	}
	if opt.GamesPerWorker > 0 {
		f.sp.GamesPerWorker = opt.GamesPerWorker
	}
	if opt.ShardGames > 0 {
		f.sp.ShardGames = opt.ShardGames
	}
	if opt.ShardSeconds > 0 {
		f.sp.ShardSeconds = opt.ShardSeconds
	}
	if err := f.sp.Validate(); err != nil {
		return within("follow", err)
	}
	f.seed = opt.Seed
	if f.seed == 0 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%d/%d", f.host, os.Getpid(), time.Now().UnixNano())
		f.seed = h.Sum64() | 1
	}
	f.ws = workerStats{Name: f.name, Host: f.host, Started: time.Now().UTC(), ByEvaluator: map[string]int{}}
	// The start time keeps apart two processes of one name: a container
	// started again in its pod has the same host name and often pid 1.
	f.statsPath = filepath.Join(f.run.dir, WorkersDir, f.name+"-"+f.ws.Started.Format("20060102T150405.000000000Z")+".json")
	if err := os.MkdirAll(filepath.Dir(f.statsPath), 0o755); err != nil {
		return errctx.Errorf("loop", "follow: %w", err)
	}
	return nil
}

// playWithCurrent plays with the run's current player until the pointer
// names another or play is done, adding what it played to sum.
func (f *follower) playWithCurrent(play context.Context, sum *FollowSummary) error {
	self, err := f.run.currentPlayer()
	if err != nil {
		return err
	}
	newEval, label, err := self.evaluators(new(player.Loader)) // a follower keeps no old network
	if err != nil {
		return err
	}
	fmt.Fprintf(f.log, "follow: playing with %s into %s (%d workers x %d games, shards of %d games)\n", label, f.sp.Out, f.sp.Workers, f.sp.GamesPerWorker, f.sp.ShardGames)
	sum.Networks = append(sum.Networks, label)
	// stale is set once the pointer names another player: no game
	// starts after that, and Run returns when the games in progress
	// are done.
	var stale atomic.Bool
	source := func() (mcts.GameSpec, bool) {
		if stale.Load() || play.Err() != nil {
			return mcts.GameSpec{}, false
		}
		if f.runDone() {
			f.complete.Store(true)
			f.stop()
			return mcts.GameSpec{}, false
		}
		if now, err := f.run.currentPlayer(); err != nil || now.key() != self.key() {
			stale.Store(true) // an error is read again, and reported, by Follow's loop
			return mcts.GameSpec{}, false
		}
		i := f.index.Add(1) - 1
		if f.opt.started != nil {
			f.opt.started(label)
		}
		return selfplay.MixGame(int(i), selfplay.GameSeed(f.seed, int(i)), f.sp.Mix, f.suite), true
	}
	record, werr := f.recorder(label)
	s, err := selfplay.Run(play, f.sp, f.run.variant, selfplay.Options{
		NewEvaluator: newEval, WorkerName: f.name, Source: source, ShardSeq: f.ws.Shards, OnShard: record,
	})
	sum.Games += s.Games
	sum.Positions += s.Positions
	sum.Shards += s.Shards
	return errors.Join(err, *werr)
}

// recorder returns the OnShard of a play with the player of label: it
// rewrites the follower's record after every shard and logs it; werr holds
// the first failed write of the record.
func (f *follower) recorder(label string) (record func(selfplay.Summary), werr *error) {
	before := f.ws
	beforeLabel := f.ws.ByEvaluator[label]
	werr = new(error)
	return func(s selfplay.Summary) {
		ws := &f.ws
		ws.Games, ws.Positions, ws.Shards = before.Games+s.Games, before.Positions+s.Positions, before.Shards+s.Shards
		ws.ByEvaluator[label] = beforeLabel + s.Games
		ws.Updated = time.Now().UTC()
		if *werr == nil {
			if err := fileio.WriteJSON(f.statsPath, *ws); err != nil {
				*werr = errctx.Errorf("loop", "follow: %w", err)
			}
		}
		fmt.Fprintf(f.log, "follow: %d games, %d positions in %d shards; with %s %d games at %.1f games/min\n",
			ws.Games, ws.Positions, ws.Shards, label, s.Games, s.GamesPerMinute())
	}, werr
}

// waitForRun waits until the run folder holds its config and rule set
// (the loop writes them as it starts) and reads them.
func waitForRun(ctx context.Context, run string, poll time.Duration, log io.Writer) (configs.Loop, *rules.Variant, error) {
	cfgPath, varPath := filepath.Join(run, ConfigFile), filepath.Join(run, VariantFile)
	said := false
	for {
		text, err1 := fileio.ReadFileLimit(cfgPath, tomlbound.MaxBytes, "a TOML file")
		_, err2 := os.Stat(varPath)
		if err1 == nil && err2 == nil {
			cfg, err := configs.ParseLoop(cfgPath, text)
			if err != nil {
				return configs.Loop{}, nil, within("follow", err)
			}
			v, err := configs.LoadVariant(varPath)
			if err != nil {
				return configs.Loop{}, nil, within("follow", err)
			}
			return cfg, v, nil
		}
		for _, err := range []error{err1, err2} {
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return configs.Loop{}, nil, errctx.Errorf("loop", "follow: %w", err)
			}
		}
		if !said {
			fmt.Fprintf(log, "follow: waiting for the run in %s to start (its %s and %s)\n", run, ConfigFile, VariantFile)
			said = true
		}
		select {
		case <-ctx.Done():
			return configs.Loop{}, nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}
