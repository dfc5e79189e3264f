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
	"taflab/internal/fileio"
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

	// started, if set, is called as each game is handed out, with the
	// label of the evaluator that will play it (the tests' view of the
	// switch; called from the workers' goroutines).
	started func(label string)
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
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	poll := opt.Poll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	host := opt.Host
	if host == "" {
		h, err := os.Hostname()
		if err != nil {
			return FollowSummary{}, fmt.Errorf("loop: follow: host name: %w", err)
		}
		host = h
	}
	name := fmt.Sprintf("%s-%d", host, os.Getpid())
	cfg, v, err := waitForRun(ctx, run, poll, log)
	if err != nil {
		return FollowSummary{}, err
	}
	donePath := filepath.Join(run, DoneFile)
	runDone := func() bool {
		_, err := os.Stat(donePath)
		return err == nil
	}
	if runDone() {
		fmt.Fprintf(log, "follow: the run in %s needs no more self-play (%s): stopped\n", run, DoneFile)
		return FollowSummary{Complete: true}, nil
	}
	// play is ctx, also done once the run is (a look every poll).
	play, stop := context.WithCancel(ctx)
	defer stop()
	var complete atomic.Bool
	go func() {
		for {
			select {
			case <-play.Done():
				return
			case <-time.After(poll):
			}
			if runDone() {
				complete.Store(true)
				stop()
				return
			}
		}
	}()
	// A suite file is read from the run's copy, never from the path in
	// loop.toml, which is the loop's (relative to its working folder).
	if cfg.SelfPlay.Mix.Suite != "" {
		cfg.SelfPlay.Mix.Suite = filepath.Join(run, SuiteFile)
	}
	var suite []openings.SuiteEntry
	if cfg.SelfPlay.Mix.SuiteShare > 0 {
		if suite, err = openings.LoadSuite(cfg.SelfPlay.Mix.Suite, v); err != nil {
			return FollowSummary{}, within(fmt.Sprintf("follow: selfplay.mix.suite of %s, from the run's copy that the loop writes as it starts", filepath.Join(run, ConfigFile)), err)
		}
	}
	sp := configs.DefaultSelfPlay()
	sp.Variant, sp.SelfPlayGames, sp.Out = cfg.Variant, cfg.SelfPlay.SelfPlayGames, filepath.Join(run, DataDir)
	sp.Games = math.MaxInt32 // until stopped
	if opt.Workers >= 0 {
		sp.Workers = opt.Workers
	}
	if opt.GamesPerWorker > 0 {
		sp.GamesPerWorker = opt.GamesPerWorker
	}
	if opt.ShardGames > 0 {
		sp.ShardGames = opt.ShardGames
	}
	if opt.ShardSeconds > 0 {
		sp.ShardSeconds = opt.ShardSeconds
	}
	if err := sp.Validate(); err != nil {
		return FollowSummary{}, within("follow", err)
	}
	seed := opt.Seed
	if seed == 0 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%d/%d", host, os.Getpid(), time.Now().UnixNano())
		seed = h.Sum64() | 1
	}

	ws := workerStats{Name: name, Host: host, Started: time.Now().UTC(), ByEvaluator: map[string]int{}}
	// The start time keeps apart two processes of one name: a container
	// started again in its pod has the same host name and often pid 1.
	statsPath := filepath.Join(run, WorkersDir, name+"-"+ws.Started.Format("20060102T150405.000000000Z")+".json")
	if err := os.MkdirAll(filepath.Dir(statsPath), 0o755); err != nil {
		return FollowSummary{}, fmt.Errorf("loop: follow: %w", err)
	}
	var sum FollowSummary
	var index atomic.Int64 // games handed out, over every player
	for play.Err() == nil {
		self, err := currentPlayer(run, cfg, v)
		if err != nil {
			return sum, err
		}
		newEval, label, err := self.evaluators(new(player.Loader)) // a follower keeps no old network
		if err != nil {
			return sum, err
		}
		fmt.Fprintf(log, "follow: playing with %s into %s (%d workers x %d games, shards of %d games)\n", label, sp.Out, sp.Workers, sp.GamesPerWorker, sp.ShardGames)
		sum.Networks = append(sum.Networks, label)
		// stale is set once the pointer names another player: no game
		// starts after that, and Run returns when the games in progress
		// are done.
		var stale atomic.Bool
		source := func() (mcts.GameSpec, bool) {
			if stale.Load() || play.Err() != nil {
				return mcts.GameSpec{}, false
			}
			if runDone() {
				complete.Store(true)
				stop()
				return mcts.GameSpec{}, false
			}
			if now, err := currentPlayer(run, cfg, v); err != nil || now.key() != self.key() {
				stale.Store(true) // an error is read again, and reported, by the loop above
				return mcts.GameSpec{}, false
			}
			i := index.Add(1) - 1
			if opt.started != nil {
				opt.started(label)
			}
			return selfplay.MixGame(int(i), selfplay.GameSeed(seed, int(i)), sp.Mix, suite), true
		}
		before := ws
		beforeLabel := ws.ByEvaluator[label]
		var werr error // the first failed write of the worker record
		record := func(s selfplay.Summary) {
			ws.Games, ws.Positions, ws.Shards = before.Games+s.Games, before.Positions+s.Positions, before.Shards+s.Shards
			ws.ByEvaluator[label] = beforeLabel + s.Games
			ws.Updated = time.Now().UTC()
			if werr == nil {
				if err := fileio.WriteJSON(statsPath, ws); err != nil {
					werr = fmt.Errorf("loop: follow: %w", err)
				}
			}
			fmt.Fprintf(log, "follow: %d games, %d positions in %d shards; with %s %d games at %.1f games/min\n",
				ws.Games, ws.Positions, ws.Shards, label, s.Games, s.GamesPerMinute())
		}
		s, err := selfplay.Run(play, sp, v, selfplay.Options{
			NewEvaluator: newEval, WorkerName: name, Source: source, ShardSeq: ws.Shards, OnShard: record,
		})
		sum.Games += s.Games
		sum.Positions += s.Positions
		sum.Shards += s.Shards
		if err := errors.Join(err, werr); err != nil {
			return sum, err
		}
	}
	sum.Complete = complete.Load()
	why := ""
	if sum.Complete {
		why = fmt.Sprintf(" (the run needs no more self-play: %s)", DoneFile)
	}
	fmt.Fprintf(log, "follow: stopped%s: %d games, %d positions in %d shards\n", why, sum.Games, sum.Positions, sum.Shards)
	return sum, nil
}

// waitForRun waits until the run folder holds its config and rule set
// (the loop writes them as it starts) and reads them.
func waitForRun(ctx context.Context, run string, poll time.Duration, log io.Writer) (configs.Loop, *rules.Variant, error) {
	cfgPath, varPath := filepath.Join(run, ConfigFile), filepath.Join(run, VariantFile)
	said := false
	for {
		text, err1 := fileio.ReadFileLimit(cfgPath, fileio.MaxConfigBytes, "this file")
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
				return configs.Loop{}, nil, fmt.Errorf("loop: follow: %w", err)
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

// key names a player: two specs with the same key play alike.
func (p playerSpec) key() string {
	if p.planes == nil {
		return p.net
	}
	return p.net + " as " + p.planes.Name()
}

// currentPlayer is the player of the run's self-play now: what the loop's
// next generation plays with (selfPlayer of the best network).
func currentPlayer(run string, cfg configs.Loop, v *rules.Variant) (playerSpec, error) {
	b, err := best(run)
	if err != nil {
		return playerSpec{}, err
	}
	return selfPlayer(run, cfg, v, b)
}

// evaluators returns the evaluators of the player's workers, its network
// loaded by players, and the label its games carry in the dataset's
// evaluator column (the evaluators' ID): the label by which the loop
// counts a generation's games.
func (p playerSpec) evaluators(players *player.Loader) (func() (mcts.Evaluator, error), string, error) {
	if p.net == "" {
		return func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }, mcts.NewHeuristic().ID(), nil
	}
	n, err := players.Network(p.net)
	if err != nil {
		return nil, "", err
	}
	// The planes of the records' rule set (selfPlayer) are of the
	// network's board size: training refuses other records.
	factory := player.Evaluators(n, 1, p.planes)
	e, err := factory()
	if err != nil {
		return nil, "", err
	}
	return factory, e.ID(), nil
}
