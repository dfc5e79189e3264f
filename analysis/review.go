package analysis

import (
	"context"
	"fmt"
	"slices"

	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/mcts"
	"taflab/rules"
)

// Ply is the review of one move: how the mover stood before it and after
// it, what the search would have played, and what the move cost.
type Ply struct {
	Ply      int      `json:"ply"`      // from 1
	Mover    string   `json:"mover"`    // "attackers" or "defenders"
	Position string   `json:"position"` // before the move, in notation
	Move     string   `json:"move"`     // as played, with the captures the rules made
	Best     string   `json:"best"`     // the search's best move before it
	PV       []string `json:"pv"`       // the search's principal variation, Best first
	// Before and After are the mover's win, draw and loss before the move
	// (the search of the position it was played in) and after it (the
	// search of the next position, or the game's result where it ended);
	// AttackersBefore and AttackersAfter the same from the attackers' side.
	Before          WDL `json:"before"`
	After           WDL `json:"after"`
	AttackersBefore WDL `json:"attackers_before"`
	AttackersAfter  WDL `json:"attackers_after"`
	// WinBefore and WinAfter are the mover's win chance (WDL.WinChance,
	// points from 0 to 100) before and after; Loss is what the move lost,
	// WinBefore − WinAfter when positive, else 0.
	WinBefore float64 `json:"win_before"`
	WinAfter  float64 `json:"win_after"`
	Loss      float64 `json:"loss"`
	Label     Label   `json:"label"`    // by Config.Thresholds of Loss
	Accuracy  float64 `json:"accuracy"` // MoveAccuracy, percent
	// Playouts and Visits are the search's before the move (Search).
	Playouts int `json:"playouts"`
	Visits   int `json:"visits"`
}

// Side sums up one side's moves of a game, or of many.
type Side struct {
	Moves        int     `json:"moves"`
	Inaccuracies int     `json:"inaccuracies"`
	Mistakes     int     `json:"mistakes"`
	Blunders     int     `json:"blunders"`
	MeanLoss     float64 `json:"mean_loss"` // points of win chance a move
	// Accuracy is GameAccuracy's for one game; over many games, the mean
	// of the games' accuracies. nil for a side with no move.
	Accuracy *float64 `json:"accuracy"`
}

// Moment is one move of a game singled out: where it turned, or the
// move that decided it.
type Moment struct {
	Ply   int     `json:"ply"`   // from 1; 0 for "before the first move"
	Mover string  `json:"mover"` // who played the move ("" for ply 0)
	Move  string  `json:"move"`  // the move ("" for ply 0)
	Loss  float64 `json:"loss"`  // what the move lost its mover, in points
	Label Label   `json:"label"`
}

// Review is a game's review.
type Review struct {
	Variant    string     `json:"variant"`
	Start      string     `json:"start"`
	Evaluator  string     `json:"evaluator"`
	Playouts   int        `json:"playouts"`   // Config.Playouts
	TreeReuse  bool       `json:"tree_reuse"` // Config.Search.TreeReuse
	Parallel   int        `json:"parallel"`   // Config.Parallel
	Seed       uint64     `json:"seed"`
	Thresholds Thresholds `json:"thresholds"`
	Plies      []Ply      `json:"plies"`
	// Winner and Reason are how the rules ended the game ("none" and ""
	// when the moves stop before an end).
	Winner    string `json:"winner"`
	Reason    string `json:"reason"`
	Attackers Side   `json:"attackers"`
	Defenders Side   `json:"defenders"`
	// Turn is where the game turned: the ply after which the winner's win
	// chance stayed above 50 points to the end (ply 0: it never fell to 50
	// or below, the game was the winner's from the start). Decisive is the
	// loser's move that lost the most win chance. Both nil for a game
	// drawn or not ended.
	Turn     *Moment `json:"turn"`
	Decisive *Moment `json:"decisive"`
}

// WinChances returns the attackers' win chance before the first move and
// after each (points), the series the review's graph draws.
func (r *Review) WinChances() []float64 {
	out := make([]float64, 0, len(r.Plies)+1)
	for i, p := range r.Plies {
		if i == 0 {
			out = append(out, p.AttackersBefore.WinChance())
		}
		out = append(out, p.AttackersAfter.WinChance())
	}
	return out
}

// Reviewer reviews a game a step at a time, so that its caller bounds
// the work (a search slot for each Step) and can stop between steps. The
// positions to search are cut into Config.Parallel stretches of the game,
// searched side by side (their leaves evaluated in one batch); within a
// stretch each search reuses the tree of the one before when
// Config.Search.TreeReuse is set. A Reviewer is used by one goroutine at a
// time.
type Reviewer struct {
	cfg       *Config
	eval      mcts.Evaluator
	variant   *rules.Variant
	start     rules.Position
	played    []rules.RecordedMove // the moves with the rules' captures
	positions []rules.Position     // before each move, then after the last
	end       rules.Outcome        // how the rules ended the game, or not
	runner    *mcts.Runner
	chains    []*chain
	views     []*attackers // by position: the attackers' view once searched
	plies     []Ply        // the plies reviewed, by ply
	done      []bool       // by ply - 1: reviewed
	searches  []*mcts.Search
}

// chain is one stretch of the game's positions, searched in order with
// one search.
type chain struct {
	search     *mcts.Search
	next, last int // the positions still to search, next to last
}

// attackers is a searched position's view from the attackers' side, and
// what the search would play.
type attackers struct {
	wdl              WDL
	best             string
	pv               []string
	playouts, visits int
}

// NewReviewer checks game (every move legal, none after the end) and
// prepares its review with e, which it alone uses until the review ends.
func NewReviewer(cfg *Config, e mcts.Evaluator, game *datasets.Game) (*Reviewer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Playouts < 1 {
		return nil, errctx.Errorf("analysis", "a review needs a search: playouts %d, want 1 or more", cfg.Playouts)
	}
	rg, err := replay(game)
	if err != nil {
		return nil, err
	}
	r := &Reviewer{cfg: cfg, eval: e, variant: game.Variant, start: game.Start, played: rg.played, positions: rg.positions, end: rg.game.Outcome(),
		runner: mcts.NewRunner(e), views: make([]*attackers, len(rg.positions)), done: make([]bool, len(rg.played))}
	last := len(rg.played) // the last position to search
	if r.end.Over() || !rg.game.HasMove() {
		last-- // the final position is the result, not a search
	}
	n := last + 1
	k := min(cfg.Parallel, max(n, 1))
	for i := range k {
		from, to := i*n/k, (i+1)*n/k-1
		if from > to {
			continue
		}
		g, err := rules.NewGameFrom(game.Variant, game.Start)
		if err != nil {
			return nil, errctx.Key("analysis", "start", err)
		}
		for _, m := range rg.played[:from] {
			g.Make(m.Move) // the moves before, so that repetitions count
		}
		r.chains = append(r.chains, &chain{search: mcts.NewSearch(&cfg.Search, g, cfg.Seed), next: from, last: to})
	}
	if s, ok := e.(seeded); ok {
		s.Seed(cfg.Seed)
	}
	return r, nil
}

// Plies returns the number of plies the review will hold.
func (r *Reviewer) Plies() int { return len(r.played) }

// Done reports whether every position has been searched.
func (r *Reviewer) Done() bool {
	for _, c := range r.chains {
		if c.next <= c.last {
			return false
		}
	}
	return true
}

// Step searches the next position of every stretch of the game, side by
// side, and returns the plies it completes, in order (a ply is complete
// once the positions before and after it are known). It stops when ctx is
// done, returning ctx's error; the review can then not go on.
func (r *Reviewer) Step(ctx context.Context) ([]Ply, error) {
	active := r.chains[:0:0]
	r.searches = r.searches[:0]
	for _, c := range r.chains {
		if c.next <= c.last {
			active = append(active, c)
			r.searches = append(r.searches, c.search)
		}
	}
	if len(active) == 0 {
		return nil, nil
	}
	draws := make([]float64, len(active)) // the evaluator's, which split a search's value (searchWDL)
	_, hasWDL := r.eval.(wdlSource)
	for i, c := range active {
		if hasWDL { // an evaluator without draws is not asked for nothing
			view, err := evaluate(r.eval, c.search.Game(), 1)
			if err != nil {
				return nil, err
			}
			draws[i] = view.wdl.Draw
		}
		c.search.Start(r.cfg.Playouts, false)
	}
	for !allDone(r.searches) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := r.runner.Step(r.searches); err != nil {
			return nil, errctx.Key("analysis", "search", err)
		}
	}
	var out []Ply
	for i, c := range active {
		s := c.search
		wdl := searchWDL(float64(s.RootValue()), draws[i], s.Proven())
		if s.Game().ToMove() != rules.Attackers {
			wdl = wdl.Flip()
		}
		a := &attackers{wdl: wdl, best: s.BestMove().String(), pv: []string{}, playouts: s.Playouts(), visits: s.Visits()}
		for _, m := range s.PV(nil, r.cfg.PVMoves) {
			a.pv = append(a.pv, m.String())
		}
		r.views[c.next] = a
		if c.next < c.last {
			if err := s.Advance(r.played[c.next].Move); err != nil {
				return nil, errctx.Key("analysis", fmt.Sprintf("ply %d", c.next+1), err)
			}
		}
		c.next++
	}
	for n := 1; n <= len(r.played); n++ {
		if r.done[n-1] || r.views[n-1] == nil {
			continue
		}
		var after WDL
		switch {
		case r.views[n] != nil:
			after = r.views[n].wdl
		case n == len(r.played) && r.end.Over():
			after = resultWDL(r.end)
		default:
			continue
		}
		p := r.ply(n, after)
		r.done[n-1] = true
		out = append(out, p)
	}
	r.plies = append(r.plies, out...)
	slices.SortFunc(r.plies, func(a, b Ply) int { return a.Ply - b.Ply })
	return out, nil
}

// allDone reports whether every search has its playouts.
func allDone(searches []*mcts.Search) bool {
	for _, s := range searches {
		if !s.Done() {
			return false
		}
	}
	return true
}

// ply reviews move n (from 1), whose position after is after (the
// attackers' view).
func (r *Reviewer) ply(n int, after WDL) Ply {
	before := r.views[n-1]
	mover := r.positions[n-1].ToMove
	p := Ply{Ply: n, Mover: mover.String(), Move: r.played[n-1].String(), Best: before.best, PV: before.pv,
		AttackersBefore: before.wdl.rounded(), AttackersAfter: after.rounded(), Playouts: before.playouts, Visits: before.visits}
	p.Before, p.After = p.AttackersBefore, p.AttackersAfter
	if mover == rules.Defenders {
		p.Before, p.After = p.Before.Flip(), p.After.Flip()
	}
	p.Position = r.positions[n-1].String()
	p.WinBefore, p.WinAfter = round(p.Before.WinChance(), 2), round(p.After.WinChance(), 2)
	p.Loss = round(max(0, p.WinBefore-p.WinAfter), 2)
	p.Label = r.cfg.Thresholds.Label(p.Loss)
	p.Accuracy = round(MoveAccuracy(p.WinBefore, p.WinAfter), 2)
	return p
}

// resultWDL is a finished game's result from the attackers' side.
func resultWDL(o rules.Outcome) WDL {
	switch o.Winner {
	case rules.AttackersWin:
		return WDL{Win: 1}
	case rules.DefendersWin:
		return WDL{Loss: 1}
	}
	return WDL{Draw: 1}
}

// Review returns the review so far: every ply completed, each side's
// summary and the turn.
func (r *Reviewer) Review() *Review {
	rev := &Review{Variant: r.variant.Name(), Start: r.start.String(), Evaluator: r.eval.ID(), Playouts: r.cfg.Playouts,
		TreeReuse: r.cfg.Search.TreeReuse, Parallel: r.cfg.Parallel, Seed: r.cfg.Seed, Thresholds: r.cfg.Thresholds, Plies: r.plies,
		Winner: r.end.Winner.String(), Reason: ""}
	if rev.Plies == nil {
		rev.Plies = []Ply{}
	}
	if r.end.Over() {
		rev.Reason = r.end.Reason.String()
	}
	rev.summarize(r.start.ToMove)
	return rev
}

// summarize fills in each side's summary and the turn from the plies.
func (rev *Review) summarize(first rules.Side) {
	sides := map[string]*Side{rules.Attackers.String(): &rev.Attackers, rules.Defenders.String(): &rev.Defenders}
	loss := map[string]float64{}
	for _, p := range rev.Plies {
		s := sides[p.Mover]
		s.Moves++
		loss[p.Mover] += p.Loss
		switch p.Label {
		case Inaccuracy:
			s.Inaccuracies++
		case Mistake:
			s.Mistakes++
		case Blunder:
			s.Blunders++
		}
	}
	for name, s := range sides {
		if s.Moves > 0 {
			s.MeanLoss = round(loss[name]/float64(s.Moves), 2)
		}
	}
	x := rev.WinChances()
	if first == rules.Defenders {
		for i := range x {
			x[i] = 100 - x[i]
		}
	}
	a, b, aOK, bOK := GameAccuracy(x)
	firstSide, secondSide := sides[first.String()], sides[first.Opponent().String()]
	if aOK {
		v := round(a, 2)
		firstSide.Accuracy = &v
	}
	if bOK {
		v := round(b, 2)
		secondSide.Accuracy = &v
	}
	rev.Turn, rev.Decisive = rev.moments()
}

// moments finds where the game turned for its winner and the loser's
// costliest move, or nils for a game without a winner.
func (rev *Review) moments() (turn, decisive *Moment) {
	var winner rules.Side
	switch rev.Winner {
	case rules.AttackersWin.String():
		winner = rules.Attackers
	case rules.DefendersWin.String():
		winner = rules.Defenders
	default:
		return nil, nil
	}
	if len(rev.Plies) == 0 {
		return nil, nil
	}
	chance := func(w WDL) float64 {
		if winner == rules.Defenders {
			w = w.Flip()
		}
		return w.WinChance()
	}
	at := 0 // the ply after which the winner stayed above 50
	if chance(rev.Plies[0].AttackersBefore) <= 50 {
		at = 1
	}
	for i, p := range rev.Plies {
		if chance(p.AttackersAfter) <= 50 && i+2 <= len(rev.Plies) {
			at = i + 2
		}
	}
	turn = &Moment{}
	if at > 0 {
		turn = moment(rev.Plies[at-1])
	}
	for _, p := range rev.Plies {
		if p.Mover != winner.String() && (decisive == nil || p.Loss > decisive.Loss) {
			decisive = moment(p)
		}
	}
	return turn, decisive
}

func moment(p Ply) *Moment {
	return &Moment{Ply: p.Ply, Mover: p.Mover, Move: p.Move, Loss: p.Loss, Label: p.Label}
}

// ReviewGame reviews game with e: Step to the end, calling onPly (if not
// nil) with each ply as it is done, and returns the review.
func ReviewGame(ctx context.Context, cfg *Config, e mcts.Evaluator, game *datasets.Game, onPly func(Ply)) (*Review, error) {
	r, err := NewReviewer(cfg, e, game)
	if err != nil {
		return nil, err
	}
	for !r.Done() {
		plies, err := r.Step(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range plies {
			if onPly != nil {
				onPly(p)
			}
		}
	}
	return r.Review(), nil
}
