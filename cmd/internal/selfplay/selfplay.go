// Package selfplay runs a self-play job for the commands: workers that play
// games with mcts, and a writer that turns finished games into dataset
// shards, written whole every few games so that a stopped run keeps them.
//
//	sum, err := selfplay.Run(ctx, cfg, variant, selfplay.Options{OnProgress: show})
package selfplay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"taflab/configs"
	"taflab/datasets"
	"taflab/mcts"
	"taflab/rules"
)

// Options are what a caller adds to the run's configuration.
type Options struct {
	// NewEvaluator returns each worker's evaluator; nil means the built-in
	// heuristic.
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
}

// Summary is what a run has done so far.
type Summary struct {
	Games, Positions               int
	AttackerWins, DefenderWins     int
	Draws                          int
	Shards                         int
	Elapsed                        time.Duration
	Reasons                        map[rules.Reason]int
	Interrupted                    bool
	Workers, GamesPerWorker, Total int
}

// GamesPerMinute returns the rate of finished games.
func (s Summary) GamesPerMinute() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Games) / s.Elapsed.Minutes()
}

// Run plays cfg.Games games of variant and writes them into cfg.Out, adding
// to what is there. When ctx is done it stops: unfinished games are dropped,
// finished ones are written, and the summary says Interrupted. Every game's
// randomness comes from cfg.Seed and its index, so with a deterministic
// evaluator the same seed gives the same games whatever the number of
// workers.
func Run(ctx context.Context, cfg configs.SelfPlay, variant *rules.Variant, opt Options) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return Summary{}, fmt.Errorf("selfplay: output folder: %w", err)
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	newEval := opt.NewEvaluator
	if newEval == nil {
		newEval = func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }
	}
	name := opt.WorkerName
	if name == "" {
		host, _ := os.Hostname()
		name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	started := time.Now()
	runID := datasets.ShardName(started, name, 0)

	// Games are handed out by index; each game's seed mixes the run seed
	// and the index, so a game does not depend on which worker plays it.
	var nextIndex atomic.Int64
	source := func() (int, uint64, bool) {
		for {
			i := nextIndex.Add(1) - 1
			if i >= int64(cfg.Games) {
				return 0, 0, false
			}
			if seed := GameSeed(cfg.Seed, int(i)); !opt.Played[seed] {
				return int(i), seed, true
			}
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	records := make(chan *mcts.GameRecord, workers*cfg.GamesPerWorker)
	var wg sync.WaitGroup
	workerErrs := make([]error, workers)
	for w := range workers {
		eval, err := newEval()
		if err != nil {
			cancel()
			wg.Wait()
			return Summary{}, fmt.Errorf("selfplay: evaluator: %w", err)
		}
		player, err := mcts.NewSelfPlayer(cfg.Search, variant, eval, cfg.GamesPerWorker)
		if err != nil {
			cancel()
			wg.Wait()
			return Summary{}, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := player.Play(ctx, source, func(r *mcts.GameRecord) error {
				select {
				case records <- r:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			if err != nil && !errors.Is(err, context.Canceled) {
				workerErrs[w] = err
				cancel()
			}
		}()
	}
	go func() {
		wg.Wait()
		close(records)
	}()

	wr := writer{cfg: &cfg, variant: variant, name: name, runID: runID}
	wr.sum = Summary{Reasons: map[rules.Reason]int{}, Workers: workers, GamesPerWorker: cfg.GamesPerWorker, Total: cfg.Games}
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
	wanted := 0
	for i := range cfg.Games {
		if !opt.Played[GameSeed(cfg.Seed, i)] {
			wanted++
		}
	}
	wr.sum.Interrupted = wr.sum.Games < wanted
	if err := errors.Join(append(workerErrs, writeErr)...); err != nil {
		return wr.sum, err
	}
	return wr.sum, nil
}

// GameSeed derives a game's seed from the run's seed and the game's index
// (splitmix64 of their combination).
func GameSeed(seed uint64, index int) uint64 {
	z := seed*0x9e3779b97f4a7c15 + uint64(index) + 1
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// writer collects finished games and writes them as shards. It runs on the
// Run goroutine only.
type writer struct {
	cfg       *configs.SelfPlay
	variant   *rules.Variant
	name      string // this process's name in shard names
	runID     string // prefix of the run's game ids
	seq       int    // shards written
	games     []datasets.GameRow
	positions []datasets.PositionRow
	sum       Summary
	notation  []byte
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
	w.games = append(w.games, datasets.GameRow{
		GameID: id, RuleSet: w.variant.Name(), Moves: moves, Winner: o.Winner, Reason: o.Reason,
		Length: int32(len(r.Moves)), Seed: r.Seed, Evaluator: r.Evaluator,
	})
	for _, s := range r.Samples {
		policy := make([]datasets.MoveProb, len(s.Policy))
		for i, mp := range s.Policy {
			policy[i] = datasets.MoveProb{Move: mp.Move, Prob: mp.Prob}
		}
		w.positions = append(w.positions, datasets.PositionRow{
			GameID: id, Ply: int32(s.Ply), RuleSet: w.variant.Name(), Position: s.Position,
			Policy: policy, FullSearch: s.Full, RootValue: s.RootValue,
			Result: resultFor(o.Winner, s.Position.ToMove), Reason: o.Reason,
		})
	}
	w.sum.Games++
	w.sum.Positions += len(r.Samples)
	w.sum.Reasons[o.Reason]++
	switch o.Winner {
	case rules.AttackersWin:
		w.sum.AttackerWins++
	case rules.DefendersWin:
		w.sum.DefenderWins++
	default:
		w.sum.Draws++
	}
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
		return fmt.Errorf("selfplay: %w", err)
	}
	w.sum.Shards++
	w.games, w.positions = w.games[:0], w.positions[:0]
	return nil
}
