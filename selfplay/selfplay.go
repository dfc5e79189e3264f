// Package selfplay runs self-play: workers that play games with mcts, and a
// writer that turns finished games into dataset shards, written whole every
// few games so that a stopped run keeps them. The selfplay command, the
// loop's self-play stage and its followers run it.
//
//	sum, err := selfplay.Run(ctx, cfg, variant, selfplay.Options{OnProgress: show})
package selfplay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"taflab/configs"
	"taflab/datasets"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
)

// Options are what a caller adds to the run's configuration.
type Options struct {
	// NewEvaluator returns each worker's evaluator; nil means the run's
	// own (Evaluators: cfg.Net's network, or the built-in heuristic).
	NewEvaluator func() (mcts.Evaluator, error)
	// OnProgress, if set, is called after every finished game with the
	// figures so far (from the writer's goroutine).
	OnProgress func(Summary)
	// WorkerName names this process in shard names; "" means host-pid.
	// Separate processes writing into one folder need different names.
	WorkerName string
	// Played holds the seeds of the run's games already in the dataset (a
	// resumed run): those games are not played again.
	Played map[uint64]bool
	// Source, if set, hands out the games instead of cfg.Games indices of
	// cfg.Seed (Played and cfg.Games are then unused): the run ends when
	// it says no more and every game in progress is finished. It is called
	// from the workers' goroutines, so it must be safe for concurrent use.
	// A follower of a loop stops its source when the loop promotes a new
	// network.
	Source mcts.GameSource
	// ShardSeq is the number of shards this worker name has written before
	// (a worker that calls Run again goes on numbering from there).
	ShardSeq int
	// OnShard, if set, is called after every shard written with the figures
	// so far (from the writer's goroutine).
	OnShard func(Summary)
}

// Summary is what a run has done so far.
type Summary struct {
	// Tally counts the games: who won them, in how many plies, and how
	// they ended (Endings, by rules.Reason).
	match.Tally
	Positions                      int
	Shards                         int
	Elapsed                        time.Duration
	Interrupted                    bool
	Workers, GamesPerWorker, Total int
	// CutShort counts the moves whose search the memory budget ended
	// early (memory_bytes full), with fewer playouts than it asked for.
	CutShort int
	// ByKind splits the games by how they were set up (Kind): who won and
	// in how many plies.
	ByKind map[string]match.Tally
}

// Kinds of self-play games (Kind).
const (
	KindStart = "start" // the rule set's start, equal playouts: the games balance figures count
	KindSuite = "suite" // an opening suite's start, equal playouts
)

// Kind names how a game was set up: KindStart or KindSuite, followed for a
// game with odds by the favoured side and the ratio, such as
// "start/attackers-x4".
func Kind(g mcts.GameSpec) string {
	k := KindStart
	if !g.StartsAtStart() {
		k = KindSuite
	}
	if g.Odds > 1 {
		k += fmt.Sprintf("/%v-x%d", g.Favoured, g.Odds)
	}
	return k
}

// rowKind is Kind of a game read back from a dataset: its start and the
// two sides' playouts say how it was set up.
func rowKind(r *datasets.GameRow) string {
	g := mcts.GameSpec{}
	if r.Start != "" {
		g.Start.Size = 1 // any start but the rule set's
	}
	a, d := int(r.AttackerPlayouts), int(r.DefenderPlayouts)
	switch {
	case a > d && d > 0:
		g.Odds, g.Favoured = a/d, rules.Attackers
	case d > a && a > 0:
		g.Odds, g.Favoured = d/a, rules.Defenders
	}
	return Kind(g)
}

// TallyGames counts games read back from a dataset, in all and by kind.
func TallyGames(rows []datasets.GameRow) (all match.Tally, byKind map[string]match.Tally) {
	byKind = map[string]match.Tally{}
	for i := range rows {
		r := &rows[i]
		all.Add(r.Winner, int(r.Length))
		k := rowKind(r)
		t := byKind[k]
		t.Add(r.Winner, int(r.Length))
		byKind[k] = t
	}
	return all, byKind
}

// GamesPerMinute returns the rate of finished games.
func (s Summary) GamesPerMinute() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Games) / s.Elapsed.Minutes()
}

// SettingError is a setting of a run's configuration that cannot be used:
// a network file, or the rule set of its planes. Its text is the error's
// own, which names the file or rule set; Key is the setting's key in the
// config file ("net", "net_planes").
type SettingError struct {
	Key string
	Err error
}

func (e *SettingError) Error() string { return e.Err.Error() }

func (e *SettingError) Unwrap() error { return e.Err }

// Evaluators returns what cfg's games are evaluated with when the caller
// gives no evaluators of its own (Options.NewEvaluator): each worker's
// evaluator over the network of cfg.Net, seeing the planes of the rule set
// cfg.NetPlanes if set (player.NetworkEvaluators), or the built-in
// heuristic without a network; and a description for a log line ("the
// built-in evaluator", or the file and the planes). A network or planes
// that cannot be used (a missing file, an unknown rule set, another board
// size) is a *SettingError.
func Evaluators(cfg configs.SelfPlay) (newEval func() (mcts.Evaluator, error), desc string, err error) {
	if cfg.Net == "" { // the heuristic sees no planes: NetPlanes is unused
		return func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }, "the built-in evaluator", nil
	}
	var planes *rules.Variant
	if cfg.NetPlanes != "" {
		if planes, err = configs.LoadVariant(cfg.NetPlanes); err != nil {
			return nil, "", &SettingError{"net_planes", err}
		}
	}
	newEval, _, err = player.NetworkEvaluators(cfg.Net, 1, planes)
	if err != nil {
		return nil, "", &SettingError{"net", err}
	}
	desc = cfg.Net
	if planes != nil {
		desc += " (with the planes of " + planes.Name() + ")"
	}
	return newEval, desc, nil
}

// Run plays cfg.Games games of variant (nil: the rule set cfg.Variant
// names) and writes them into cfg.Out, adding to what is there. The games
// are evaluated by opt.NewEvaluator's evaluators, or else by cfg's
// (Evaluators). When ctx is done it stops: unfinished games are dropped,
// finished ones are written, and the summary says Interrupted. Every game's
// randomness comes from cfg.Seed and its index, so with a deterministic
// evaluator the same seed gives the same games whatever the number of
// workers. With opt.Source the games come from it instead, until it says
// no more.
func Run(ctx context.Context, cfg configs.SelfPlay, variant *rules.Variant, opt Options) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if variant == nil {
		v, err := configs.LoadVariant(cfg.Variant)
		if err != nil {
			return Summary{}, err
		}
		variant = v
	}
	newEval := opt.NewEvaluator
	if newEval == nil {
		var err error
		if newEval, _, err = Evaluators(cfg); err != nil {
			return Summary{}, err
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return Summary{}, fmt.Errorf("selfplay: output folder: %w", err)
	}
	// Temporary files of shards that a killed writer left (hidden, never
	// read): this writer's start in the folder is when to remove them.
	if _, err := fileio.RemoveStaleTemps(cfg.Out, "", fileio.StaleTempAge); err != nil {
		return Summary{}, fmt.Errorf("selfplay: output folder: %w", err)
	}
	workers := cfg.Workers // within configs.MaxWorkers: Validate
	if workers == 0 {
		workers = min(runtime.GOMAXPROCS(0), configs.MaxWorkers)
		if err := configs.CheckGamesAtOnce("", workers, cfg.GamesPerWorker, cfg.MemoryBytes, cfg.Search); err != nil {
			return Summary{}, fmt.Errorf("selfplay: workers = 0 is %d here (one per core): %w", workers, err)
		}
	}
	name := opt.WorkerName
	if name == "" {
		host, _ := os.Hostname()
		name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	var suite []openings.SuiteEntry
	if cfg.Mix.SuiteShare > 0 {
		var err error
		if suite, err = openings.LoadSuite(cfg.Mix.Suite, variant); err != nil {
			return Summary{}, err // openings', naming the suite file
		}
	}
	started := time.Now()
	runID := datasets.ShardName(started, name, 0)

	// Games are handed out by index; each game's seed mixes the run seed
	// and the index, so a game does not depend on which worker plays it.
	var nextIndex atomic.Int64
	source := opt.Source
	if source == nil {
		source = func() (mcts.GameSpec, bool) {
			for {
				i := nextIndex.Add(1) - 1
				if i >= int64(cfg.Games) {
					return mcts.GameSpec{}, false
				}
				if seed := GameSeed(cfg.Seed, int(i)); !opt.Played[seed] {
					return MixGame(int(i), seed, cfg.Mix, suite), true
				}
			}
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	players, err := mcts.NewPlayers(cfg.Search, variant, workers, cfg.GamesPerWorker, newEval)
	if err != nil {
		return Summary{}, err // mcts's, or the evaluators' own
	}
	// The games in play share one memory budget: their trees, and their
	// positions until a shard holds them (the writer releases them).
	budget := mcts.NewBudget(cfg.MemoryBytes)
	for _, p := range players {
		p.ShareBudget(budget)
	}
	records, wait := mcts.PlayAll(ctx, players, source, workers*cfg.GamesPerWorker)

	wr := writer{cfg: &cfg, variant: variant, name: name, runID: runID, seq: opt.ShardSeq, onShard: opt.OnShard, budget: budget}
	wr.sum = Summary{ByKind: map[string]match.Tally{}, Workers: workers, GamesPerWorker: cfg.GamesPerWorker, Total: cfg.Games}
	lastShard := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var writeErr error
	for open := true; open; {
		select {
		case r, ok := <-records:
			if !ok {
				open = false
				break
			}
			wr.add(r)
			wr.sum.Elapsed = time.Since(started)
			if opt.OnProgress != nil {
				opt.OnProgress(wr.sum)
			}
		case <-tick.C:
		}
		if writeErr == nil && len(wr.games) > 0 && (len(wr.games) >= cfg.ShardGames || time.Since(lastShard).Seconds() >= cfg.ShardSeconds) {
			writeErr = wr.flush()
			lastShard = time.Now()
			if writeErr != nil {
				cancel()
			}
		}
	}
	if writeErr == nil {
		writeErr = wr.flush()
	}
	wr.sum.Elapsed = time.Since(started)
	if opt.Source != nil {
		wr.sum.Interrupted = ctx.Err() != nil
	} else {
		wanted := 0
		for i := range cfg.Games {
			if !opt.Played[GameSeed(cfg.Seed, i)] {
				wanted++
			}
		}
		wr.sum.Interrupted = wr.sum.Games < wanted
	}
	if err := errors.Join(wait(), writeErr); err != nil {
		return wr.sum, err
	}
	return wr.sum, nil
}

// MixGame sets up game index of a run from its seed under the mix
// (configs.GameMix.Game): where it starts (a random position of suite, or
// the rule set's start) and whether a side has odds.
func MixGame(index int, seed uint64, mix configs.GameMix, suite []openings.SuiteEntry) mcts.GameSpec {
	g, i := mix.Game(index, seed, len(suite))
	if i >= 0 {
		g.Start = suite[i].Position
	}
	return g
}

// GameSeed derives a game's seed from the run's seed and the game's index
// (mcts.MixSeed of the two).
func GameSeed(seed uint64, index int) uint64 {
	return mcts.MixSeed(seed, uint64(index))
}

// writer collects finished games and writes them as shards. It runs on the
// Run goroutine only.
type writer struct {
	cfg       *configs.SelfPlay
	variant   *rules.Variant
	name      string // this process's name in shard names
	runID     string // prefix of the run's game ids
	seq       int    // shards written
	onShard   func(Summary)
	games     []datasets.GameRow
	positions []datasets.PositionRow
	// budget is the games' memory budget; pendingBytes what the records
	// of games and positions hold (mcts.GameRecord.Bytes), released from
	// it once a shard holds them.
	budget       *mcts.Budget
	pendingBytes int64
	sum          Summary
	notation     []byte
}

// add turns a finished game into dataset rows.
func (w *writer) add(r *mcts.GameRecord) {
	id := fmt.Sprintf("%s-g%d", w.runID, r.Index)
	o := r.Outcome
	moves := make([]string, len(r.Moves))
	for i, m := range r.Moves {
		w.notation = rules.AppendMove(w.notation[:0], m, r.Captures[i])
		moves[i] = string(w.notation)
	}
	start := ""
	if !r.StartsAtStart() {
		start = r.Start.String()
	}
	w.games = append(w.games, datasets.GameRow{
		GameID: id, RuleSet: w.variant.Name(), Moves: moves, Winner: o.Winner, Reason: o.Reason,
		Length: int32(len(r.Moves)), Seed: r.Seed, Evaluator: r.Evaluator, Start: start,
		AttackerPlayouts: int32(r.Playouts[rules.Attackers]), DefenderPlayouts: int32(r.Playouts[rules.Defenders]),
	})
	for _, s := range r.Samples {
		w.positions = append(w.positions, datasets.PositionRow{
			GameID: id, Ply: int32(s.Ply), RuleSet: w.variant.Name(), Position: s.Position,
			Policy: s.Policy, FullSearch: s.Full, RootValue: s.RootValue, Surprise: s.Surprise,
			Result: resultFor(o.Winner, s.Position.ToMove), Reason: o.Reason,
		})
	}
	w.sum.AddEnding(o.Winner, o.Reason.String(), len(r.Moves))
	w.sum.Positions += len(r.Samples)
	w.sum.CutShort += r.CutShort
	w.pendingBytes += r.Bytes()
	kind := Kind(r.GameSpec)
	t := w.sum.ByKind[kind]
	t.Add(o.Winner, len(r.Moves))
	w.sum.ByKind[kind] = t
}

// resultFor returns a game's result for a side: +1 win, 0 draw, -1 loss.
func resultFor(winner rules.Winner, side rules.Side) int8 {
	switch {
	case winner == rules.Draw:
		return 0
	case winner == rules.AttackersWin && side == rules.Attackers, winner == rules.DefendersWin && side == rules.Defenders:
		return 1
	}
	return -1
}

// flush writes the collected games as one shard.
func (w *writer) flush() error {
	if len(w.games) == 0 {
		return nil
	}
	w.seq++
	name := datasets.ShardName(time.Now(), w.name, w.seq)
	if err := datasets.WriteShard(w.cfg.Out, name, w.variant.Definition(), w.positions, w.games); err != nil {
		return err // datasets', naming the file
	}
	w.sum.Shards++
	// The rows' positions and policies go (their memory leaves the budget):
	// cleared, so that the rows' arrays do not keep them.
	clear(w.games)
	clear(w.positions)
	w.games, w.positions = w.games[:0], w.positions[:0]
	w.budget.Release(w.pendingBytes)
	w.pendingBytes = 0
	if w.onShard != nil {
		w.onShard(w.sum)
	}
	return nil
}
