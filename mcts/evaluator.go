package mcts

import (
	"fmt"
	"math"
	"math/rand/v2"

	"taflab/rules"
)

// Evaluator gives the search its priors and values, a batch at a time.
//
// For each item i of the batch, Evaluate writes one prior per legal move
// into b.Priors[i] (the same length and order as b.Moves[i], summing to 1)
// and the expected result for the side to move of b.Positions[i], from -1 (a
// loss) to +1 (a win), into b.Values[i]. The search owns every slice of the
// batch; the evaluator must not keep them after it returns. An Evaluator is
// used by one goroutine at a time; each self-play worker has its own.
type Evaluator interface {
	Evaluate(b *Batch) error
	// ID names the evaluator in datasets and reports, such as
	// "heuristic-v1" or a network's file hash.
	ID() string
}

// Batch is a set of positions to evaluate, and the evaluator's answers.
type Batch struct {
	Variants  []*rules.Variant // the rule set of each position
	Positions []rules.Position
	Moves     [][]rules.Move // the legal moves of each position
	Priors    [][]float32    // output: one prior per legal move
	Values    []float32      // output: the side to move's expected result
}

// Len returns the number of positions in the batch.
func (b *Batch) Len() int { return len(b.Positions) }

// reset empties the batch, keeping its memory.
func (b *Batch) reset() {
	b.Variants, b.Positions, b.Moves, b.Priors, b.Values = b.Variants[:0], b.Positions[:0], b.Moves[:0], b.Priors[:0], b.Values[:0]
}

// Uniform is the free evaluator: uniform priors and a value of 0. It costs
// nothing, which makes it the one to measure the search's own work with.
type Uniform struct{}

// Evaluate implements Evaluator.
func (Uniform) Evaluate(b *Batch) error {
	for i, moves := range b.Moves {
		fillUniform(b.Priors[i], len(moves))
		b.Values[i] = 0
	}
	return nil
}

// ID implements Evaluator.
func (Uniform) ID() string { return "uniform" }

func fillUniform(priors []float32, n int) {
	p := 1 / float32(n)
	for j := range priors[:n] {
		priors[j] = p
	}
}

// Heuristic is the built-in evaluator that needs no network: uniform priors
// over the legal moves and a value from a static reading of the position,
// the king's ways to the corners first. Generation 0 of self-play, every
// test and match play's baseline opponent use it.
//
// It replaces the random playouts of classic MCTS (Playouts): a random
// hnefatafl game lasts about 390 plies and ends in a draw or a random escape,
// so a playout costs ~150 µs and says little. The static value costs about a
// microsecond; TestHeuristicBeatsPlayouts measures that it plays better at
// the same playout budget.
type Heuristic struct{}

// NewHeuristic returns the built-in evaluator.
func NewHeuristic() Heuristic { return Heuristic{} }

// ID implements Evaluator.
func (Heuristic) ID() string { return "heuristic-v1" }

// Evaluate implements Evaluator.
func (Heuristic) Evaluate(b *Batch) error {
	for i, moves := range b.Moves {
		fillUniform(b.Priors[i], len(moves))
		b.Values[i] = float32(HeuristicValue(b.Variants[i], &b.Positions[i]))
	}
	return nil
}

// HeuristicValue returns the Heuristic's value of p for the side to move,
// from -1 to 1. It reads, from the defenders' side: the corners the king
// reaches in one move and in two, the soldiers each side has left (as a share
// of a full army), how closely attackers press the king and how free he is.
func HeuristicValue(v *rules.Variant, p *rules.Position) float64 {
	corners := v.Corners()
	kingReach := v.Reach(p, p.King)
	escapes1 := kingReach.And(corners).Count()
	escapes2 := 0
	for r := kingReach.AndNot(corners); r.Any(); {
		q := r.PopFirst()
		if !v.Edge().Has(q) {
			continue // only edge squares see a corner along a line
		}
		moved := *p
		moved.King = q
		escapes2 += v.Reach(&moved, q).And(corners).Count()
	}
	// Attackers and hostile squares next to the king.
	near := v.Neighbours(p.King)
	pressed := near.And(p.Attackers).Count() + near.And(corners).Count()
	if p.King != v.Throne() && near.Has(v.Throne()) {
		pressed++
	}
	start := v.Start()
	material := float64(p.Defenders.Count())/float64(max(start.Defenders.Count(), 1)) -
		float64(p.Attackers.Count())/float64(max(start.Attackers.Count(), 1))

	score := -0.1 + 0.35*float64(min(escapes2, 4)) + 1.2*material - 0.3*float64(pressed) + 0.02*float64(kingReach.Count())
	if escapes1 > 0 {
		if p.ToMove == rules.Defenders {
			score += 3 // he walks out next move
		} else if escapes1 >= 2 {
			score += 2 // one move cannot close two corners
		} else {
			score += 0.5
		}
	}
	value := math.Tanh(score)
	if p.ToMove == rules.Attackers {
		return -value
	}
	return value
}

// Playouts is the classic evaluator of Monte Carlo tree search: uniform
// priors and the mean result of random games played from the position (a
// game still going after MaxPlies counts as a draw). It is here to be
// measured against: Heuristic is stronger at the same playout budget and far
// cheaper.
type Playouts struct {
	N        int // random games per position
	MaxPlies int // plies after which a random game counts as a draw
	rng      *rand.Rand
	game     *rules.Game
	moves    []rules.Move
}

// NewPlayouts returns a playout evaluator with its own random stream.
func NewPlayouts(n, maxPlies int, seed uint64) *Playouts {
	return &Playouts{N: n, MaxPlies: maxPlies, rng: rand.New(rand.NewPCG(seed, 0x91a7)), moves: make([]rules.Move, 0, rules.MaxMoves)}
}

// ID implements Evaluator.
func (e *Playouts) ID() string { return fmt.Sprintf("playouts-%dx%d", e.N, e.MaxPlies) }

// Evaluate implements Evaluator.
func (e *Playouts) Evaluate(b *Batch) error {
	for i, moves := range b.Moves {
		fillUniform(b.Priors[i], len(moves))
		if e.game == nil || e.game.Variant() != b.Variants[i] {
			e.game = rules.NewGame(b.Variants[i])
		}
		side := b.Positions[i].ToMove
		total := 0.0
		for range e.N {
			if err := e.game.ResetTo(b.Positions[i]); err != nil {
				return err
			}
			for e.game.Ply() < e.MaxPlies {
				e.moves = e.game.GenerateMoves(e.moves[:0])
				if len(e.moves) == 0 {
					break
				}
				e.game.Make(e.moves[e.rng.IntN(len(e.moves))])
			}
			switch w := e.game.Outcome().Winner; {
			case w == rules.AttackersWin && side == rules.Attackers, w == rules.DefendersWin && side == rules.Defenders:
				total++
			case w == rules.AttackersWin, w == rules.DefendersWin:
				total--
			}
		}
		b.Values[i] = float32(total / float64(e.N))
	}
	return nil
}
