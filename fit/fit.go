// Package fit measures how well a predictor matches human play: how often it
// would have chosen the move people played (top-1 and top-5 accuracy, over
// all positions and by side to move), and, for a predictor with a value, how
// well that value foresaw the games' results (log loss). Its main use is to
// tell whether a network knows something about the game that people know,
// beside two baselines that need no network: uniform choice over the legal
// moves and the built-in searcher.
//
// Measuring a network and the baselines on the held-out records of the
// human archive:
//
//	games, err := datasets.ReadRecordGames(archive.Copenhagen, v) // or a file of game records
//	_, heldOut := datasets.SplitRecords(games, 10)
//	n, _, err := net.Load("network.safetensors")
//	rep, err := fit.Measure(ctx, v, heldOut,
//		[]fit.Predictor{fit.Uniform(), fit.Builtin(200), fit.Network(n, "net-"+n.Hash()[:6])},
//		fit.Options{})
//	for _, p := range rep.Predictors {
//		fmt.Println(p.Name, p.Top1.Mean, p.Top1.CI95)
//	}
//
// # The predictors
//
//   - Uniform picks a legal move at random. Its figures are expectations,
//     not a random draw: min(k, n)/n for top-k at a position of n legal
//     moves.
//   - Builtin is the network-free searcher (mcts.Heuristic under PUCT,
//     mcts.DefaultConfig without root noise or tree reuse) at a playout
//     budget, searching each position with the game's history (so that it
//     sees repetitions). Its first choice is the search's BestMove; the other
//     moves follow by visits, ties broken by the higher prior and then by
//     move-generation order.
//   - Network ranks the legal moves by the network's policy logit (ties:
//     move-generation order) and gives its value head's win/draw/loss
//     probabilities; it sees each position alone, as training does.
//
// A predictor is a Predictor: a name and a factory of Scorers, one per
// worker goroutine, each with its own evaluator. A network with search would
// be one more Predictor whose Scorer runs mcts with the network's Inference
// as evaluator (searchPredictor is written to take any evaluator).
//
// # Intervals
//
// Every figure is a ratio of sums over positions, and the positions of one
// game are correlated (the same players, the same plan, a move that follows
// from the one before). Intervals therefore treat games as clusters: for a
// figure R = sum_g y_g / sum_g n_g over games g (y_g the game's total, n_g
// its positions), the variance is the linearized (cluster-robust, "CR1")
// variance of a ratio estimator,
//
//	Var(R) = G/(G-1) * sum_g (y_g - R n_g)^2 / (sum_g n_g)^2,
//
// over the G games with positions in the figure, and the 95% interval is R
// +- t * sqrt(Var(R)), t the 97.5% quantile of Student's t with G-1 degrees
// of freedom. Proportions are clipped to [0, 1] and log losses to at least
// 0. With fewer than two games there is no interval (null in JSON). The
// interval is exact arithmetic on the results: no random draw, so the same
// records give the same report.
//
// # Value log loss
//
// Over the positions of games with a result, the mean of -log P(result for
// the side to move), P floored at 1e-6. Beside it the report gives the log
// loss of the constant predictor that always says the measured games' own
// attacker, defender and draw rates (from the side to move's view: P(win) is
// the rate of the mover's side), and the network's loss minus the
// constant's per position, with its interval: the value head knows something
// about results when that difference is below 0. The constant is fitted on
// the same games, which flatters it a little.
//
// # Determinism
//
// Games are shared among workers, each with its own scorers; every figure is
// summed per game and the games' sums are added in record order, and a
// search's seed is a function of its record's line and ply only. The report
// is the same whatever the number of workers.
package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/rules"
)

// Predictor is a way to predict the moves people play (and maybe the
// results of their games).
type Predictor interface {
	// Name names the predictor in reports: "uniform",
	// "builtin:playouts=200", "net-3f2a1c".
	Name() string
	// NewScorer returns a scorer for one worker goroutine, with its own
	// evaluator. Measure calls it from one goroutine, before any scoring.
	NewScorer() (Scorer, error)
}

// Scorer scores the positions of games for one goroutine.
type Scorer interface {
	// Score writes into out (len(g.Moves) entries) how the predictor fares
	// at each position of g, a game under v.
	Score(v *rules.Variant, g *datasets.Game, out []Score) error
}

// Score is a predictor's fit at one position.
type Score struct {
	// Top1 and Top5 are the probabilities that the move played is the
	// predictor's first choice, or among its first five: 0 or 1 for a
	// predictor that ranks the moves, an expectation for a random one.
	Top1, Top5 float64
	// HasValue says that WDL holds the predictor's win, draw and loss
	// probabilities for the side to move.
	HasValue bool
	WDL      [3]float64
}

// Options are the settings of Measure.
type Options struct {
	// Workers is the number of worker goroutines; 0 means one per core.
	Workers int
	// Progress, if set, is called after each game with the games done and
	// their total, from one goroutine at a time.
	Progress func(done, total int)
}

// Report is the fit of predictors to a set of game records.
type Report struct {
	// Games, Positions: the games measured and their positions (one per
	// move played).
	Games     int `json:"games"`
	Positions int `json:"positions"`
	// GamesWithResult and PositionsWithResult count the games with a result
	// (a win or a draw; not "Ongoing") and their positions, over which log
	// losses are measured.
	GamesWithResult     int `json:"games_with_result"`
	PositionsWithResult int `json:"positions_with_result"`
	// Rates are the attacker, defender and draw rates of the games with a
	// result: the constant predictor's probabilities.
	Rates Rates `json:"result_rates"`
	// ConstantLogLoss is the log loss of the constant predictor over the
	// positions with a result; nil when there are none.
	ConstantLogLoss *Estimate `json:"constant_log_loss"`
	// Predictors are the predictors' figures, in the order given.
	Predictors []PredictorReport `json:"predictors"`
}

// Rates are the shares of games won by each side, and drawn.
type Rates struct {
	Attackers float64 `json:"attackers"`
	Defenders float64 `json:"defenders"`
	Draws     float64 `json:"draws"`
}

// PredictorReport is one predictor's fit.
type PredictorReport struct {
	Name string `json:"name"`
	// Top1 and Top5 are over all positions.
	Top1 Estimate `json:"top1"`
	Top5 Estimate `json:"top5"`
	// Attackers and Defenders are over the positions where that side was
	// to move.
	Attackers SideReport `json:"attackers"`
	Defenders SideReport `json:"defenders"`
	// ValueLogLoss is the value's log loss over the positions with a
	// result, and ValueMinusConstant the same less the constant predictor's
	// loss (below 0: better than the rates); nil for a predictor without a
	// value or when no game has a result.
	ValueLogLoss       *Estimate `json:"value_log_loss"`
	ValueMinusConstant *Estimate `json:"value_log_loss_minus_constant"`
	// ValueByPly is the same two figures over the positions of each range
	// of PlyRanges that has any: whether the value knows more than the
	// rates early in a game, or only once it is decided.
	ValueByPly []PlyValue `json:"value_by_ply,omitempty"`
}

// PlyRanges are the ranges of plies (the position's index in its game,
// from 0) that PredictorReport.ValueByPly splits the value's figures by;
// To 0 means no end.
var PlyRanges = [...]PlyRange{{0, 10}, {10, 20}, {20, 40}, {40, 0}}

// PlyRange is the plies From to To-1 (To 0: no end).
type PlyRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Has reports whether ply lies in r.
func (r PlyRange) Has(ply int) bool { return ply >= r.From && (r.To == 0 || ply < r.To) }

// String writes r as "0-9", or "40+" without an end.
func (r PlyRange) String() string {
	if r.To == 0 {
		return fmt.Sprintf("%d+", r.From)
	}
	return fmt.Sprintf("%d-%d", r.From, r.To-1)
}

// PlyValue is the value's fit over the positions of one ply range.
type PlyValue struct {
	Plies         PlyRange `json:"plies"`
	LogLoss       Estimate `json:"log_loss"`
	MinusConstant Estimate `json:"log_loss_minus_constant"`
}

// SideReport is the move-prediction accuracy for one side to move.
type SideReport struct {
	Top1 Estimate `json:"top1"`
	Top5 Estimate `json:"top5"`
}

// Estimate is a mean over positions with its 95% interval, games as
// clusters (see the package comment).
type Estimate struct {
	Mean float64 `json:"mean"`
	// CI95 is the 95% interval; nil with fewer than two games.
	CI95      *[2]float64 `json:"ci95"`
	Positions int         `json:"positions"`
	Games     int         `json:"games"`
}

// logFloor is the least probability a log loss counts, so that one
// confident mistake costs 13.8 and not infinity.
const logFloor = 1e-6

// sides indexes the per-side sums: all positions, attackers to move,
// defenders to move.
const (
	allSides = iota
	attackersSide
	defendersSide
)

// gameSums are one predictor's sums over one game.
type gameSums struct {
	n, top1, top5 [3]float64 // by allSides, attackersSide, defendersSide
	valued        float64    // positions with a result and a value
	loss          float64    // the value's log loss over them
	constLoss     float64    // the constant predictor's over the same
	byPly         [len(PlyRanges)]valueSums
}

// valueSums are a game's value sums over the positions of one ply range.
type valueSums struct{ valued, loss, constLoss float64 }

// Measure scores every position of games with each predictor, in parallel,
// and returns the figures. The games are replayed records under v
// (datasets.ReadRecordGames); ctx stops the work early (its error is
// returned).
func Measure(ctx context.Context, v *rules.Variant, games []datasets.Game, preds []Predictor, opts Options) (*Report, error) {
	if len(games) == 0 {
		return nil, errors.New("fit: no games to measure")
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(games))
	rep := &Report{Games: len(games)}
	var counts [4]int // by rules.Winner
	for i := range games {
		g := &games[i]
		if len(g.Positions) != len(g.Moves) {
			return nil, fmt.Errorf("fit: line %d: %d positions for %d moves", g.Line, len(g.Positions), len(g.Moves))
		}
		rep.Positions += len(g.Moves)
		if g.Winner != rules.NoWinner {
			rep.GamesWithResult++
			rep.PositionsWithResult += len(g.Moves)
			counts[g.Winner]++
		}
	}
	var rates [4]float64 // by rules.Winner
	if rep.GamesWithResult > 0 {
		for w := range rates {
			rates[w] = float64(counts[w]) / float64(rep.GamesWithResult)
		}
		rep.Rates = Rates{Attackers: rates[rules.AttackersWin], Defenders: rates[rules.DefendersWin], Draws: rates[rules.Draw]}
	}

	// Scorers are made here, one goroutine, before any work starts.
	scorers := make([][]Scorer, workers)
	for w := range scorers {
		for _, p := range preds {
			s, err := p.NewScorer()
			if err != nil {
				return nil, errctx.Key("fit", p.Name(), err)
			}
			scorers[w] = append(scorers[w], s)
		}
	}

	// The longest games first, so that no worker is left with a long one
	// at the end; the order changes nothing in the sums.
	order := make([]int, len(games))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(games[order[a]].Moves) > len(games[order[b]].Moves) })

	// sums[p][g] is written only by the worker that measures game g, and
	// read after wg.Wait.
	sums := make([][]gameSums, len(preds)) // [predictor][game]
	for p := range sums {
		sums[p] = make([]gameSums, len(games))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		mu       sync.Mutex // guards firstErr, done and Progress calls
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scores []Score
			for ctx.Err() == nil {
				k := int(next.Add(1)) - 1
				if k >= len(order) {
					return
				}
				gi := order[k]
				g := &games[gi]
				scores = growScores(scores, len(g.Moves))
				for p, s := range scorers[w] {
					clear(scores)
					if err := s.Score(v, g, scores); err != nil {
						fail(errctx.Key("fit", fmt.Sprintf("%s: line %d", preds[p].Name(), g.Line), err))
						return
					}
					sums[p][gi] = sumGame(g, scores, &rates)
				}
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(games))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	constant := make([]cluster, 0, len(games))
	for i := range games {
		if len(games[i].Moves) > 0 && games[i].Winner != rules.NoWinner {
			n := float64(len(games[i].Moves))
			constant = append(constant, cluster{y: n * -math.Log(max(rates[games[i].Winner], logFloor)), n: n})
		}
	}
	if len(constant) > 0 {
		e := estimate(constant, 0, math.Inf(1))
		rep.ConstantLogLoss = &e
	}
	for p, pred := range preds {
		rep.Predictors = append(rep.Predictors, predictorReport(pred.Name(), sums[p]))
	}
	return rep, nil
}

func growScores(s []Score, n int) []Score {
	if cap(s) < n {
		return make([]Score, n)
	}
	return s[:n]
}

// sumGame adds up one game's scores.
func sumGame(g *datasets.Game, scores []Score, rates *[4]float64) gameSums {
	var s gameSums
	for i := range scores {
		sc := &scores[i]
		side := attackersSide
		if g.Positions[i].ToMove == rules.Defenders {
			side = defendersSide
		}
		for _, k := range [2]int{allSides, side} {
			s.n[k]++
			s.top1[k] += sc.Top1
			s.top5[k] += sc.Top5
		}
		result, ok := g.Result(i)
		if !ok || !sc.HasValue {
			continue
		}
		p := sc.WDL[1-result] // +1 → WDL[0], 0 → WDL[1], -1 → WDL[2]
		loss, constLoss := -math.Log(max(p, logFloor)), -math.Log(max(rates[g.Winner], logFloor))
		s.valued++
		s.loss += loss
		s.constLoss += constLoss
		for r, plies := range PlyRanges {
			if plies.Has(i) {
				b := &s.byPly[r]
				b.valued++
				b.loss += loss
				b.constLoss += constLoss
			}
		}
	}
	return s
}

// predictorReport turns a predictor's per-game sums into its figures.
func predictorReport(name string, games []gameSums) PredictorReport {
	rate := func(side int, top func(*gameSums) float64) Estimate {
		cs := make([]cluster, 0, len(games))
		for i := range games {
			if games[i].n[side] > 0 {
				cs = append(cs, cluster{y: top(&games[i]), n: games[i].n[side]})
			}
		}
		return estimate(cs, 0, 1)
	}
	top1 := func(side int) Estimate { return rate(side, func(s *gameSums) float64 { return s.top1[side] }) }
	top5 := func(side int) Estimate { return rate(side, func(s *gameSums) float64 { return s.top5[side] }) }
	r := PredictorReport{Name: name, Top1: top1(allSides), Top5: top5(allSides),
		Attackers: SideReport{top1(attackersSide), top5(attackersSide)},
		Defenders: SideReport{top1(defendersSide), top5(defendersSide)}}
	var loss, diff []cluster
	for i := range games {
		if s := &games[i]; s.valued > 0 {
			loss = append(loss, cluster{y: s.loss, n: s.valued})
			diff = append(diff, cluster{y: s.loss - s.constLoss, n: s.valued})
		}
	}
	if len(loss) > 0 {
		l, d := estimate(loss, 0, math.Inf(1)), estimate(diff, math.Inf(-1), math.Inf(1))
		r.ValueLogLoss, r.ValueMinusConstant = &l, &d
	}
	for k, plies := range PlyRanges {
		loss, diff = loss[:0], diff[:0]
		for i := range games {
			if b := &games[i].byPly[k]; b.valued > 0 {
				loss = append(loss, cluster{y: b.loss, n: b.valued})
				diff = append(diff, cluster{y: b.loss - b.constLoss, n: b.valued})
			}
		}
		if len(loss) > 0 {
			r.ValueByPly = append(r.ValueByPly, PlyValue{Plies: plies,
				LogLoss: estimate(loss, 0, math.Inf(1)), MinusConstant: estimate(diff, math.Inf(-1), math.Inf(1))})
		}
	}
	return r
}
