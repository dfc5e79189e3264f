package openings

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"taflab/internal/errctx"
	"taflab/match"
	"taflab/mcts"
	"taflab/rules"
)

// Building an opening suite: the reference player plays itself a few games
// from each candidate start position, and the suite keeps the positions
// where the defenders won neither too few nor too many of them.
//
// Selection rule: the candidates (duplicates and unplayable positions
// dropped) are put in an order shuffled by the seed, and the suite is the
// first Size of them, in that order, whose measured defender rate lies
// within the bounds. The candidates are measured in that order and the
// build stops as soon as those Size are known, so a suite of 100 from
// thousands of candidates costs little more than the candidates it needs.
// The suite lists its positions in that order: any first part of it is
// itself a random sample of the candidates that passed, which is what a
// match that uses only its first openings needs. Which positions pass does
// not depend on their rate beyond the bounds: with 8 games a rate is known
// to about +-0.17, and preferring rates nearest 0.5 would mostly select
// for luck while narrowing the mix of sources.

// SuiteConfig is how a suite is built.
type SuiteConfig struct {
	Variant *rules.Variant
	// Reference plays both sides of every game: equal players.
	Reference match.Player
	// Search holds the self-play settings of the games (root noise and
	// the move-choice temperature, or Gumbel root search's draws, give
	// each game its own course); the zero Config means
	// mcts.DefaultConfig(), and Reference.Search, when set, replaces it.
	// Every move gets a full search of Reference.Playouts (see
	// match.Player.SelfPlaySearch).
	Search mcts.Config
	// Games is the number of games per candidate; 0 means 8.
	Games int
	// MinDefenderRate and MaxDefenderRate bound the defender win rate
	// (defender wins over games; a draw is a game the defenders did not
	// win) of the positions kept, both inclusive; both 0 means 0.2 and 0.8.
	MinDefenderRate, MaxDefenderRate float64
	// Size is the most positions kept; 0 keeps every one within the bounds.
	Size int
	// Seed shuffles the candidates and seeds every game. A game's seed
	// depends on Seed, its position and its number, not on the other
	// candidates, so a position measures the same in any build of one seed.
	Seed uint64
	// Workers is the number of self-play workers; 0 means one per core.
	Workers int
	// GamesPerWorker is the number of games a worker plays at once,
	// batching their evaluations; 0 means 8.
	GamesPerWorker int
	// Progress, if set, is called from one goroutine as games finish.
	Progress func(SuiteProgress)
}

// SuiteProgress is a build's state as games finish.
type SuiteProgress struct {
	Games, TotalGames int // finished games; the games of every candidate
	Tried, Kept       int // candidates measured (in order) and kept so far
}

// SuiteCandidate is a start position offered to BuildSuite.
type SuiteCandidate struct {
	Position rules.Position
	// Source says where the position comes from, such as "human line 123,
	// ply 20" or "random opening 4 of seed 1, 6 plies"; the suite's
	// comment starts with it.
	Source string
}

// SuiteResult is the measurement of one candidate.
type SuiteResult struct {
	Candidate   int // its index in BuildSuite's candidates
	match.Tally     // its games
	Kept        bool
}

// SuiteStats describes a build.
type SuiteStats struct {
	Candidates int // offered
	Duplicates int // dropped: the position of an earlier candidate
	Unplayable int // dropped: not a position of the rule set, or over (rules.Variant.CheckStart)
	Tried      int // measured: the first candidates of the shuffled order
	Games      int // the games of the tried candidates
	Kept       int // positions in the suite
	// Before[k] is the number of tried candidates where the defenders won
	// k of the games, After[k] the same for the kept ones; MeanBefore and
	// MeanAfter are their mean defender rates (NaN with none).
	Before, After         []int
	MeanBefore, MeanAfter float64
	// Results are the tried candidates' measurements, in the order tried.
	Results []SuiteResult
}

// withDefaults returns the config with its zero values filled in.
func (c SuiteConfig) withDefaults() SuiteConfig {
	if c.Games == 0 {
		c.Games = 8
	}
	if c.MinDefenderRate == 0 && c.MaxDefenderRate == 0 {
		c.MinDefenderRate, c.MaxDefenderRate = 0.2, 0.8
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.GamesPerWorker == 0 {
		c.GamesPerWorker = 8
	}
	c.Search = c.Reference.SelfPlaySearch(c.Search)
	return c
}

// Validate reports a setting a suite cannot be built with; zero values
// that have defaults are fine.
func (c SuiteConfig) Validate() error {
	var errs []error
	if c.Variant == nil {
		errs = append(errs, errctx.Errorf("openings", "suite: no rule set"))
	}
	if mcts.CheckPlayouts(c.Reference.Playouts) != nil {
		errs = append(errs, errctx.Errorf("openings", "suite: player %s: playouts = %d: want from 1 to %d", c.Reference.Name, c.Reference.Playouts, mcts.MaxPlayouts))
	}
	if c.Reference.NewEvaluator == nil {
		errs = append(errs, errctx.Errorf("openings", "suite: player %s: no evaluator", c.Reference.Name))
	}
	if c.Games < 0 {
		errs = append(errs, errctx.Errorf("openings", "suite: games = %d: want at least 1 (0: 8)", c.Games))
	}
	if lo, hi := c.MinDefenderRate, c.MaxDefenderRate; !(lo >= 0 && lo <= hi && hi <= 1) {
		errs = append(errs, errctx.Errorf("openings", "suite: defender rate bounds [%v, %v]: want 0 <= min <= max <= 1", lo, hi))
	}
	if c.Size < 0 {
		errs = append(errs, errctx.Errorf("openings", "suite: size = %d: want 0 (no limit) or more", c.Size))
	}
	if c.Workers < 0 || c.GamesPerWorker < 0 {
		errs = append(errs, errctx.Errorf("openings", "suite: workers = %d, games per worker = %d: want 0 or more", c.Workers, c.GamesPerWorker))
	}
	if mcts.CheckPlayouts(c.Reference.Playouts) == nil {
		d := c.withDefaults()
		if err := d.Search.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// suiteComment is the comment of a kept position: its source and the
// result measured there, such as "human line 123, ply 20; defenders 3/8".
func suiteComment(source string, r SuiteResult) string {
	s := fmt.Sprintf("defenders %d/%d", r.DefenderWins, r.Games)
	if r.Draws > 0 {
		s += fmt.Sprintf(", draws %d", r.Draws)
	}
	if source == "" {
		return s
	}
	return source + "; " + s
}

// BuildSuite measures the candidates with cfg.Games games each of the
// reference player against itself and returns the suite: at most cfg.Size
// positions whose defender rate lies within the bounds, chosen and ordered
// as the comment at the top of this file says, each with suiteComment as
// its comment. Candidates whose position an earlier candidate has are
// dropped, and so are those that cannot be played (not a position of the
// rule set, or rules.Variant.CheckStart refuses it).
//
// The games of all candidates run through cfg.Workers self-players at
// once, evaluations batched. With a deterministic evaluator (the built-in
// one) a game depends only on its seed, and the suite and the stats are
// the same for a seed whatever the number of workers. When ctx is done the
// build stops and returns ctx's error, with no entries.
func BuildSuite(ctx context.Context, cfg SuiteConfig, candidates []SuiteCandidate) ([]SuiteEntry, SuiteStats, error) {
	if err := cfg.Validate(); err != nil {
		return nil, SuiteStats{}, err
	}
	cfg = cfg.withDefaults()
	st := SuiteStats{Candidates: len(candidates), Before: make([]int, cfg.Games+1), After: make([]int, cfg.Games+1)}

	// The playable, distinct candidates, in a seeded random order.
	var order []int
	seen := make(map[rules.Position]bool, len(candidates))
	for i, c := range candidates {
		if seen[c.Position] {
			st.Duplicates++
			continue
		}
		seen[c.Position] = true
		if cfg.Variant.CheckStart(c.Position) != nil {
			st.Unplayable++
			continue
		}
		order = append(order, i)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5017e))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })

	// Game k is game k%Games of the candidate order[k/Games].
	total := len(order) * cfg.Games
	var next atomic.Int64
	source := func() (mcts.GameSpec, bool) {
		k := next.Add(1) - 1
		if k >= int64(total) {
			return mcts.GameSpec{}, false
		}
		p := candidates[order[int(k)/cfg.Games]].Position
		seed := mcts.MixSeed(mcts.MixSeed(cfg.Seed, rules.HashPosition(p)), uint64(k)%uint64(cfg.Games))
		return mcts.GameSpec{Index: int(k), Seed: seed, Start: p}, true
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	players, err := mcts.NewPlayers(cfg.Search, cfg.Variant, cfg.Workers, cfg.GamesPerWorker, cfg.Reference.NewEvaluator)
	if err != nil {
		return nil, st, err // mcts's, or the reference's evaluators'; one package prefix
	}
	results, wait := mcts.PlayAll(runCtx, players, source, cfg.Workers*cfg.GamesPerWorker)

	// Candidates are judged in order, each once all its games are in, so
	// that the suite does not depend on which games finish first.
	measured := make([]SuiteResult, len(order))
	finished := make([]int, len(order))
	var entries []SuiteEntry
	games, complete := 0, len(order) == 0
	for r := range results {
		if complete {
			continue // games in flight when the suite was complete
		}
		games++
		i := r.Index / cfg.Games
		measured[i].Add(r.Outcome.Winner, len(r.Moves))
		finished[i]++
		for st.Tried < len(order) && finished[st.Tried] == cfg.Games && !complete {
			m := &measured[st.Tried]
			m.Candidate = order[st.Tried]
			rate := float64(m.DefenderWins) / float64(cfg.Games)
			m.Kept = rate >= cfg.MinDefenderRate && rate <= cfg.MaxDefenderRate
			st.Tried++
			st.Before[m.DefenderWins]++
			if m.Kept {
				st.After[m.DefenderWins]++
				c := candidates[m.Candidate]
				entries = append(entries, SuiteEntry{Position: c.Position, Comment: suiteComment(c.Source, *m)})
			}
			if st.Tried == len(order) || (cfg.Size > 0 && len(entries) == cfg.Size) {
				complete = true
				cancel()
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(SuiteProgress{Games: games, TotalGames: total, Tried: st.Tried, Kept: len(entries)})
		}
	}
	if err := wait(); err != nil {
		return nil, st, err // the players' (mcts's)
	}
	if err := ctx.Err(); err != nil && !complete {
		return nil, st, err
	}
	st.Results = measured[:st.Tried]
	st.Games = st.Tried * cfg.Games
	st.Kept = len(entries)
	st.MeanBefore, st.MeanAfter = meanRate(st.Before, cfg.Games), meanRate(st.After, cfg.Games)
	return entries, st, nil
}

// meanRate is the mean defender rate of a histogram of defender wins out
// of games; NaN when it is empty.
func meanRate(hist []int, games int) float64 {
	n, wins := 0, 0
	for k, c := range hist {
		n += c
		wins += k * c
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(wins) / float64(n*games)
}
