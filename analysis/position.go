package analysis

import (
	"context"
	"fmt"

	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/mcts"
	"taflab/rules"
)

// replayed is a game played through the rules.
type replayed struct {
	game      *rules.Game          // at the end of the moves
	played    []rules.RecordedMove // the moves, with the captures the rules made
	positions []rules.Position     // before each move, then after the last
}

// replay plays g's moves from its start (their written captures aside),
// or returns an error naming the ply of the first move the rules refuse
// (or one played after the game ended).
func replay(g *datasets.Game) (*replayed, error) {
	if g.Variant == nil {
		return nil, errctx.Errorf("analysis", "a game without a rule set")
	}
	game, err := rules.NewGameFrom(g.Variant, g.Start)
	if err != nil {
		return nil, errctx.Key("analysis", "start", err)
	}
	r := &replayed{game: game, played: make([]rules.RecordedMove, 0, len(g.Moves)), positions: []rules.Position{game.Position()}}
	for i, rm := range g.Moves {
		m := rm.Move
		if o := game.Outcome(); o.Over() {
			return nil, errctx.Errorf("analysis", "ply %d: %s is played after the game ended at ply %d (%s)", i+1, m, o.Ply, o)
		}
		if err := game.Play(m); err != nil {
			return nil, errctx.Key("analysis", fmt.Sprintf("ply %d", i+1), err)
		}
		_, captured := game.LastMove()
		r.played = append(r.played, rules.RecordedMove{Move: m, Captures: captured})
		r.positions = append(r.positions, game.Position())
	}
	return r, nil
}

// Position is what an evaluator and a search make of one position: the
// evaluator's own view (a network's win, draw and loss, its value and its
// move priors) and, when asked, a search's.
type Position struct {
	Position  string `json:"position"`  // in notation
	ToMove    string `json:"to_move"`   // "attackers" or "defenders"
	Evaluator string `json:"evaluator"` // the evaluator's ID
	// PlanesOf names the rule set whose input planes a network was shown
	// (the one it learnt from, where its file names one); "" for an
	// evaluator without planes.
	PlanesOf string `json:"planes_of"`
	// WDL is the evaluator's win, draw and loss for the side to move;
	// nil for an evaluator that gives only a value (the built-in one).
	WDL    *WDL    `json:"wdl"`
	Value  float64 `json:"value"`  // the evaluator's value for the side to move, −1 to +1
	Policy []Move  `json:"policy"` // the evaluator's top moves by prior
	Search *Search `json:"search"` // nil without playouts
}

// Move is one of the moves an evaluator or a search lists.
type Move struct {
	Move   string   `json:"move"` // "d1-d3"
	From   string   `json:"from"`
	To     string   `json:"to"`
	Prior  float64  `json:"prior"`            // the evaluator's probability
	Visits *int     `json:"visits,omitempty"` // a search's visits
	Value  *float64 `json:"value,omitempty"`  // a search's value for the side to move, −1 to +1
}

// Search is a search's view of a position.
type Search struct {
	// Playouts are those this search ran; fewer than asked when its tree
	// reached its memory budget, or when a reused tree brought visits.
	Playouts int `json:"playouts"`
	// Visits are the root's, those of a reused tree included.
	Visits   int     `json:"visits"`
	BestMove string  `json:"best_move"`
	Value    float64 `json:"value"` // for the side to move, −1 to +1
	// WDL is the search's win, draw and loss for the side to move: its
	// value split with the evaluator's draw probability (searchWDL).
	WDL   WDL      `json:"wdl"`
	PV    []string `json:"pv"`    // the principal variation, best move first
	Moves []Move   `json:"moves"` // the top moves by visits
}

// wdlSource is what an evaluator with a win/draw/loss head offers
// besides its value (net.Inference): the probabilities of position i of
// its last batch, for the side to move.
type wdlSource interface {
	WDL(i int) [3]float32
}

// planesSource names the rule set whose planes an evaluator shows a
// position of v (net.Inference).
type planesSource interface {
	Planes(v *rules.Variant) *rules.Variant
}

// seeded is an evaluator with random choices of its own (a network's
// board symmetries), drawn from a seed.
type seeded interface {
	Seed(seed uint64)
}

// view is an evaluator's view of one position.
type view struct {
	policy []rules.MoveProb
	value  float64
	wdl    *WDL
}

// evaluate asks e for its view of g's position, listing top moves.
func evaluate(e mcts.Evaluator, g *rules.Game, top int) (view, error) {
	moves := g.GenerateMoves(nil)
	policy, value, err := mcts.EvaluatePosition(e, g.Variant(), g.Position(), moves, top)
	if err != nil {
		return view{}, errctx.Key("analysis", "evaluating "+g.Position().String(), err)
	}
	out := view{policy: policy, value: float64(value)}
	if w, ok := e.(wdlSource); ok {
		p := w.WDL(0)
		out.wdl = &WDL{Win: float64(p[0]), Draw: float64(p[1]), Loss: float64(p[2])}
	}
	return out, nil
}

// Analyze tells what e makes of the position after game's moves (a game
// so far, or a finished game's first moves) and, with
// cfg.Playouts > 0, what a search of that many playouts makes of it
// (repetitions counted over the game's moves), until ctx is done. A game
// that is over, or whose side to move has no move, is an error.
func Analyze(ctx context.Context, cfg *Config, e mcts.Evaluator, game *datasets.Game) (*Position, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rg, err := replay(game)
	if err != nil {
		return nil, err
	}
	g := rg.game
	if o := g.Outcome(); o.Over() {
		return nil, errctx.Errorf("analysis", "the game is over (%s): nothing to analyse", o)
	}
	if !g.HasMove() {
		return nil, errctx.Errorf("analysis", "the %s have no legal move: nothing to analyse", g.ToMove())
	}
	if s, ok := e.(seeded); ok {
		s.Seed(cfg.Seed)
	}
	v, err := evaluate(e, g, cfg.Top)
	if err != nil {
		return nil, err
	}
	pos := g.Position()
	rep := &Position{Position: pos.String(), ToMove: pos.ToMove.String(), Evaluator: e.ID(), Value: round(v.value, 4), Policy: []Move{}}
	if v.wdl != nil {
		w := v.wdl.rounded()
		rep.WDL = &w
	}
	if p, ok := e.(planesSource); ok {
		rep.PlanesOf = p.Planes(g.Variant()).Name()
	}
	for _, mp := range v.policy {
		rep.Policy = append(rep.Policy, newMove(mp.Move, float64(mp.Prob)))
	}
	if cfg.Playouts == 0 {
		return rep, nil
	}
	s := mcts.NewSearch(&cfg.Search, g, cfg.Seed)
	if err := mcts.NewRunner(e).SearchContext(ctx, s, cfg.Playouts); err != nil {
		return nil, errctx.Key("analysis", "search", err)
	}
	rep.Search = searchReport(cfg, s, v.wdl)
	return rep, nil
}

// searchReport describes a finished search; netWDL is the evaluator's
// view of its root, or nil.
func searchReport(cfg *Config, s *mcts.Search, netWDL *WDL) *Search {
	draw := 0.0
	if netWDL != nil {
		draw = netWDL.Draw
	}
	value := float64(s.RootValue())
	out := &Search{Playouts: s.Playouts(), Visits: s.Visits(), BestMove: s.BestMove().String(), Value: round(value, 4),
		WDL: searchWDL(value, draw, s.Proven()).rounded(), PV: []string{}, Moves: []Move{}}
	for _, m := range s.PV(nil, cfg.PVMoves) {
		out.PV = append(out.PV, m.String())
	}
	for _, st := range s.TopStats(cfg.Top) {
		m := newMove(st.Move, float64(st.Prior))
		visits, value := st.Visits, round(float64(st.Value), 4)
		m.Visits, m.Value = &visits, &value
		out.Moves = append(out.Moves, m)
	}
	return out
}

func newMove(m rules.Move, prior float64) Move {
	return Move{Move: m.String(), From: m.From().String(), To: m.To().String(), Prior: round(prior, 4)}
}
