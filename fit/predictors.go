package fit

import (
	"fmt"

	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// atPly puts err, an error at a ply of a game (from 1), under the ply:
// another package's reason is named under package fit alone.
func atPly(ply int, err error) error { return errctx.Key("fit", fmt.Sprintf("ply %d", ply), err) }

// legalMoves returns the legal moves of position p under v (a scratch game
// g reset to p) and the index of move m among them, or an error naming the
// ply when m is not one of them.
func legalMoves(g **rules.Game, v *rules.Variant, p rules.Position, m rules.Move, ply int, buf []rules.Move) ([]rules.Move, int, error) {
	if *g == nil || (*g).Variant() != v {
		*g = rules.NewGame(v)
	}
	if err := (*g).ResetTo(p); err != nil {
		return buf, -1, atPly(ply+1, err)
	}
	buf = (*g).GenerateMoves(buf[:0])
	for i, lm := range buf {
		if lm == m {
			return buf, i, nil
		}
	}
	return buf, -1, fmt.Errorf("ply %d: the move played, %s, is not legal in %s", ply+1, m, p)
}

// Uniform returns the predictor that picks a legal move at random. Its
// top-k is the expectation min(k, n)/n at a position of n legal moves; it
// has no value.
func Uniform() Predictor { return uniform{} }

type uniform struct{}

func (uniform) Name() string { return "uniform" }

func (uniform) NewScorer() (Scorer, error) { return &uniformScorer{}, nil }

type uniformScorer struct {
	game  *rules.Game
	moves []rules.Move
}

func (s *uniformScorer) Score(v *rules.Variant, g *datasets.Game, out []Score) error {
	for i := range g.Moves {
		var err error
		if s.moves, _, err = legalMoves(&s.game, v, g.Positions[i], g.Moves[i].Move, i, s.moves); err != nil {
			return err
		}
		n := float64(len(s.moves))
		out[i] = Score{Top1: 1 / n, Top5: min(5, n) / n}
	}
	return nil
}

// topK returns the Top1 and Top5 scores of a move ranked rank (0 first).
func topK(rank int) (top1, top5 float64) {
	if rank < 1 {
		top1 = 1
	}
	if rank < 5 {
		top5 = 1
	}
	return top1, top5
}

// Builtin returns the network-free searcher at a playout budget (at least
// 1): mcts.Heuristic under PUCT with mcts.DefaultConfig, without root noise
// or tree reuse, one fresh search per position from the game's history. Its
// first choice is the search's BestMove; the other moves follow by visits,
// ties broken by the higher prior, then by move-generation order. It has no
// value (the searcher's value is not a win/draw/loss distribution).
func Builtin(playouts int) Predictor {
	return &searchPredictor{name: fmt.Sprintf("builtin:playouts=%d", playouts), playouts: playouts,
		newEval: func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }}
}

// searchPredictor ranks the moves by a search with any evaluator: Builtin
// uses the heuristic; a network with search would use its Inference.
type searchPredictor struct {
	name     string
	playouts int
	newEval  func() (mcts.Evaluator, error)
}

func (p *searchPredictor) Name() string { return p.name }

func (p *searchPredictor) NewScorer() (Scorer, error) {
	if p.playouts < 1 {
		return nil, fmt.Errorf("%d playouts: want at least 1", p.playouts)
	}
	eval, err := p.newEval()
	if err != nil {
		return nil, err
	}
	cfg := mcts.DefaultConfig()
	cfg.NoiseFraction = 0
	cfg.TreeReuse = false
	return &searchScorer{cfg: cfg, playouts: p.playouts, runner: mcts.NewRunner(eval)}, nil
}

type searchScorer struct {
	cfg      mcts.Config
	playouts int
	runner   *mcts.Runner
	search   *mcts.Search
	stats    []mcts.MoveStat
}

// searchSeed is the seed of the search at a record's line and ply: the
// same in every run, whatever worker searches it. It is mcts.MixSeed with
// seed 1 and index (line<<32 | ply) − 1, which mixes line<<32 | ply + φ as
// this function always has, so scores stay as they were.
func searchSeed(line, ply int) uint64 {
	return mcts.MixSeed(1, (uint64(line)<<32|uint64(uint32(ply)))-1)
}

func (s *searchScorer) Score(v *rules.Variant, g *datasets.Game, out []Score) error {
	if len(g.Moves) == 0 {
		return nil
	}
	game, err := rules.NewGameFrom(v, g.Positions[0])
	if err != nil {
		return atPly(1, err)
	}
	for i, m := range g.Moves {
		if game.Position() != g.Positions[i] {
			return fmt.Errorf("ply %d: the moves before it lead to %s, not to the record's %s", i+1, game.Position(), g.Positions[i])
		}
		if s.search == nil {
			s.search = mcts.NewSearch(&s.cfg, game, searchSeed(g.Line, i))
		} else {
			s.search.Reset(game, searchSeed(g.Line, i))
		}
		if err := s.runner.Search(s.search, s.playouts); err != nil {
			return atPly(i+1, err)
		}
		s.stats = s.search.Stats(s.stats[:0])
		rank, err := searchRank(s.stats, s.search.BestMove(), m.Move)
		if err != nil {
			return atPly(i+1, err)
		}
		out[i].Top1, out[i].Top5 = topK(rank)
		if err := s.search.Advance(m.Move); err != nil {
			return atPly(i+1, err)
		}
	}
	return nil
}

// searchRank returns the rank (0 first) of move played among the root moves
// of a search: best first, then by visits, ties broken by the higher prior,
// then by the order of stats (move generation).
func searchRank(stats []mcts.MoveStat, best, played rules.Move) (int, error) {
	j := -1
	for i := range stats {
		if stats[i].Move == played {
			j = i
			break
		}
	}
	switch {
	case j < 0:
		return 0, fmt.Errorf("the move played, %s, is not one of the search's %d root moves", played, len(stats))
	case played == best:
		return 0, nil
	}
	p := &stats[j]
	rank := 1 // best
	for i := range stats {
		c := &stats[i]
		if i == j || c.Move == best {
			continue
		}
		if c.Visits > p.Visits || c.Visits == p.Visits && (c.Prior > p.Prior || c.Prior == p.Prior && i < j) {
			rank++
		}
	}
	return rank, nil
}

// Network returns the predictor of a network's policy and value head,
// named name in reports: it ranks the legal moves by their policy logits,
// ties broken by move-generation order, and gives the value head's
// win/draw/loss probabilities for the side to move. It evaluates each
// position alone (no history, no symmetry), in batches of one game's
// positions. The board must be 11x11.
func Network(n *net.Network, name string) Predictor { return &network{n: n, name: name} }

type network struct {
	n    *net.Network
	name string
}

func (p *network) Name() string { return p.name }

func (p *network) NewScorer() (Scorer, error) {
	return &networkScorer{in: p.n.NewInference(1, p.name)}, nil
}

// networkBatch is the most positions one forward pass evaluates.
const networkBatch = 64

type networkScorer struct {
	in     *net.Inference
	game   *rules.Game
	moves  []rules.Move
	logits []float32 // the legal moves' logits at one position
}

func (s *networkScorer) Score(v *rules.Variant, g *datasets.Game, out []Score) error {
	const planes = net.Squares * net.InputPlanes
	for start := 0; start < len(g.Moves); start += networkBatch {
		b := min(networkBatch, len(g.Moves)-start)
		x := s.in.Input(b)
		for i := range b {
			if err := net.Encode(x[i*planes:(i+1)*planes], v, &g.Positions[start+i]); err != nil {
				return atPly(start+i+1, err)
			}
		}
		logits, wdl := s.in.Forward(b)
		for i := range b {
			ply := start + i
			var (
				j   int
				err error
			)
			if s.moves, j, err = legalMoves(&s.game, v, g.Positions[ply], g.Moves[ply].Move, ply, s.moves); err != nil {
				return err
			}
			l := logits[i*net.PolicySize : (i+1)*net.PolicySize]
			s.logits = s.logits[:0]
			for _, m := range s.moves {
				idx := net.MoveIndex(m)
				if idx < 0 {
					return fmt.Errorf("ply %d: move %s is not along a line", ply+1, m)
				}
				s.logits = append(s.logits, l[idx])
			}
			out[ply].Top1, out[ply].Top5 = topK(logitRank(s.logits, j))
			out[ply].HasValue = true
			for k := range 3 {
				out[ply].WDL[k] = float64(wdl[i*3+k])
			}
		}
	}
	return nil
}

// logitRank returns the rank (0 first) of move j by score: the moves with a
// higher score, and those before it with an equal one, rank before it.
func logitRank(scores []float32, j int) int {
	rank := 0
	for i, x := range scores {
		if x > scores[j] || x == scores[j] && i < j {
			rank++
		}
	}
	return rank
}
