package balance

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"sync/atomic"
	"time"

	"taflab/internal/cputime"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/rules"
	"taflab/stats"
)

// runner plays one run, one rule set at one strength, and counts its games
// in the order they were started: a game that finishes before one started
// earlier waits for it, so that stopping early does not favour the short
// games that finish first.
type runner struct {
	cfg     *Config
	run     RunReport
	engine  bool
	tally   match.Tally
	stop    *stats.PrecisionStop
	pending map[int]played // finished games past the first one missing
	counted int            // games counted: the index of the next to count
	done    bool           // stopped at the precision asked
	journal *journal       // nil: no journal
	clock   *runClock
}

// runClock measures a run's time in laps: CPU and wall time since the
// last lap, and in all.
type runClock struct {
	cpu   time.Duration
	wall  time.Time
	total runTime
}

func newRunClock() *runClock {
	cpu, _ := cputime.Process()
	return &runClock{cpu: cpu, wall: time.Now()}
}

// lap returns the time since the last lap (or the start) and adds it to
// the total.
func (c *runClock) lap() runTime {
	cpu, _ := cputime.Process()
	now := time.Now()
	t := runTime{CPU: (cpu - c.cpu).Seconds(), Wall: now.Sub(c.wall).Seconds()}
	c.cpu, c.wall = cpu, now
	c.total.CPU += t.CPU
	c.total.Wall += t.Wall
	return t
}

// played is what a run counts of a finished game.
type played struct {
	winner  rules.Winner
	ending  string
	plies   int
	forfeit string // an engine's forfeit: "the attackers: illegal-move: what it did"
}

// playRun plays one rule set at one strength, carrying on from the games
// the journal j holds of it (nil: none kept). It returns the run with the
// games counted so far also when it fails or ctx is done (then with ctx's
// error).
func playRun(ctx context.Context, cfg *Config, v *rules.Variant, p match.Player, j *journal) (RunReport, error) {
	r := &runner{cfg: cfg, engine: p.NewProgram != nil, stop: cfg.precisionStop(), pending: map[int]played{}, journal: j,
		run: RunReport{Variant: v.Name(), Player: p.Name, Engine: p.Command, Stopped: "max-games", Openings: "start"}}
	if !r.engine {
		r.run.Network, r.run.Playouts = p.Network, p.Playouts
		if p.Search != nil && p.Search.RootSearch == mcts.RootGumbel {
			r.run.RootSearch = mcts.RootGumbel
		}
	}
	r.clock = newRunClock()
	suite, err := suite(*cfg, v)
	var prior priorRun
	if err == nil {
		if suite != nil {
			r.run.Openings = fmt.Sprintf("the opening suite of %s (%d positions)", v.Name(), len(suite))
		}
		prior, err = r.begin(v, p, suite)
	}
	if err == nil {
		if r.engine {
			err = r.playEngine(ctx, v, p, suite, prior)
		} else {
			err = r.playSearch(ctx, v, p, suite, prior)
		}
	}
	spent := r.clock.lap()
	if r.journal != nil && (spent.CPU > 0 || spent.Wall > 0) {
		if jerr := r.journal.append(journalEntry{Time: &journalTime{Variant: v.Name(), Player: p.Name, runTime: spent}}); jerr != nil {
			err = errors.Join(err, jerr)
		}
	}
	total := prior.time
	total.CPU += r.clock.total.CPU
	total.Wall += r.clock.total.Wall
	r.run.Seconds, r.run.CPUSeconds = seconds(total.Wall), seconds(total.CPU)
	r.run.Games = r.tally.Games
	r.run.Summary = summarize(&r.tally, cfg.Confidence)
	return r.run, err
}

// begin names the run's evaluator, and with a journal begins the run in
// it: what the journal holds of it.
func (r *runner) begin(v *rules.Variant, p match.Player, suite []openings.SuiteEntry) (priorRun, error) {
	id := runIdentity{Variant: v.Name(), Player: p.Name, Rules: v.Definition(), Engine: p.Command, Seed: r.cfg.Seed,
		Openings: openingsIdentity(suite)}
	if !r.engine {
		e, err := p.NewEvaluator()
		if err != nil {
			return priorRun{}, within(v.Name()+", "+p.Name, err)
		}
		id.Evaluator = e.ID()
		search := p.SelfPlaySearch(mcts.DefaultConfig())
		id.Search = &search
	}
	r.run.Evaluator = id.Evaluator
	if r.journal == nil {
		return priorRun{games: map[int]played{}}, nil
	}
	return r.journal.begin(id, v)
}

// playSearch plays the games of a searching player: self-play games on
// the shared pool (mcts.PlayAll), full searches with the self-play noise
// and temperature, each game seeded by its number. The games of prior are
// counted first and not played again.
func (r *runner) playSearch(ctx context.Context, v *rules.Variant, p match.Player, suite []openings.SuiteEntry, prior priorRun) error {
	r.report(false)
	for i, g := range prior.games {
		r.add(i, g)
	}
	if r.done {
		r.report(true)
		return nil
	}
	runSeed := mcts.MixSeed(r.cfg.Seed, nameHash(v.Name()+"\x00"+p.Name))
	var next atomic.Int64
	source := func() (mcts.GameSpec, bool) {
		for {
			i := next.Add(1) - 1
			if i >= int64(r.cfg.MaxGames) {
				return mcts.GameSpec{}, false
			}
			if _, ok := prior.games[int(i)]; ok {
				continue // read-only while the games are played
			}
			g := mcts.GameSpec{Index: int(i), Seed: mcts.MixSeed(runSeed, uint64(i))}
			if len(suite) > 0 {
				g.Start = suite[int(i)%len(suite)].Position
			}
			return g, true
		}
	}
	workers, perWorker := r.cfg.Workers, r.cfg.GamesPerWorker
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if perWorker == 0 {
		perWorker = 8
	}
	search := p.SelfPlaySearch(mcts.DefaultConfig())
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	players, err := mcts.NewPlayers(search, v, workers, perWorker, p.NewEvaluator)
	if err != nil {
		return within(v.Name()+", "+p.Name, err)
	}
	results, wait := mcts.PlayAll(runCtx, players, source, workers*perWorker)
	var jerr error
	for rec := range results {
		if r.done || jerr != nil {
			continue // the games in flight are not counted
		}
		g := played{winner: rec.Outcome.Winner, ending: rec.Outcome.Reason.String(), plies: len(rec.Moves)}
		if jerr = r.keepGame(v, p, rec); jerr != nil {
			cancel()
			continue
		}
		r.add(rec.Index, g)
		if r.done {
			cancel()
		}
	}
	r.report(true)
	if err := errors.Join(wait(), jerr); err != nil {
		return within(v.Name()+", "+p.Name, err)
	}
	if err := ctx.Err(); err != nil && !r.done {
		r.run.Stopped = "interrupted"
		return err
	}
	return nil
}

// keepGame writes a finished game into the journal, if any, with the time
// since the run's previous line.
func (r *runner) keepGame(v *rules.Variant, p match.Player, rec *mcts.GameRecord) error {
	if r.journal == nil {
		return nil
	}
	g := journalGame{Variant: v.Name(), Player: p.Name, Index: rec.Index, Moves: movesText(rec.Moves),
		Winner: rec.Outcome.Winner.String(), Ending: rec.Outcome.Reason.String(), runTime: r.clock.lap()}
	if rec.Start.Size != 0 {
		g.Start = rec.Start.String()
	}
	return r.journal.append(journalEntry{Game: &g})
}

// playEngine plays the games of an engine program against itself:
// match's game pairs between two instances of it, refereed by the rules,
// game pair*2+half counted as the pair's half.
func (r *runner) playEngine(ctx context.Context, v *rules.Variant, p match.Player, suite []openings.SuiteEntry, prior priorRun) error {
	cfg := match.Config{Variant: v, A: p, B: p, Search: mcts.DefaultConfig(), MaxPairs: (r.cfg.MaxGames + 1) / 2,
		Workers: r.cfg.Workers, GamesPerWorker: r.cfg.GamesPerWorker}
	for _, e := range suite {
		cfg.Openings = append(cfg.Openings, match.Opening{Start: e.Position})
	}
	r.report(false)
	for _, pair := range prior.pairs {
		if pair.Index < cfg.MaxPairs {
			cfg.Played = append(cfg.Played, pair)
		}
		r.addPair(pair)
	}
	if r.done || len(cfg.Played) >= cfg.MaxPairs {
		r.report(true)
		return nil
	}
	var jerr error
	err := match.Play(ctx, cfg, func(pair match.Pair) bool {
		if r.journal != nil {
			jp := journalPair{Variant: v.Name(), Player: p.Name, Pair: pair, runTime: r.clock.lap()}
			if jerr = r.journal.append(journalEntry{Pair: &jp}); jerr != nil {
				return false
			}
		}
		r.addPair(pair)
		return !r.done && r.counted < r.cfg.MaxGames
	})
	r.report(true)
	if jerr != nil {
		return within(v.Name()+", "+p.Name, jerr)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			r.run.Stopped = "interrupted"
			return ctx.Err()
		}
		return within(v.Name()+", "+p.Name, err)
	}
	return nil
}

// addPair takes the two games of an engine's pair: game pair*2+half.
func (r *runner) addPair(pair match.Pair) {
	for half, g := range pair.Games {
		pg := played{winner: g.Outcome.Winner, ending: g.Outcome.Reason.String(), plies: len(g.Moves)}
		if g.Forfeit != "" {
			pg.ending = "forfeit-" + g.Forfeit
			pg.forfeit = fmt.Sprintf("the %s: %s: %s", forfeiter(g), g.Forfeit, g.ForfeitDetail)
		}
		r.add(2*pair.Index+half, pg)
	}
}

// add takes the game of the given index and counts every game it makes
// countable, in index order, until the run has its precision or its games.
func (r *runner) add(index int, g played) {
	if index >= r.cfg.MaxGames {
		return
	}
	r.pending[index] = g
	for g, ok := r.pending[r.counted]; ok && !r.done; g, ok = r.pending[r.counted] {
		delete(r.pending, r.counted)
		r.counted++
		if g.forfeit != "" {
			if r.run.Forfeits++; r.run.Forfeits == 1 {
				r.run.FirstForfeit = fmt.Sprintf("game %d: %s", r.counted, g.forfeit)
			}
		}
		r.tally.AddEnding(g.winner, g.ending, g.plies)
		r.report(false)
		if r.stop != nil && r.stop.Done([]stats.Outcomes{r.tally.Outcomes()}) {
			r.done = true
			r.run.Stopped = "precision"
		}
	}
}

// report tells Config.Progress how far the run has come.
func (r *runner) report(done bool) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Variant: r.run.Variant, Player: r.run.Player, Games: r.counted, MaxGames: r.cfg.MaxGames,
			Rates: r.tally.Outcomes().Rates(r.cfg.Confidence), Engine: r.engine, Forfeits: r.run.Forfeits, Done: done})
	}
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
