package match

import (
	"context"
	"errors"
	"fmt"

	"taflab/internal/errctx"
	"taflab/mcts"
	"taflab/rules"
)

// worker plays several games at once, each searching player's searches
// batched through that player's runner; an engine player's moves are asked
// for on goroutines of their own, so that a slow engine does not hold up
// the searches of the other games.
type worker struct {
	cfg     *Config
	runners [2]*mcts.Runner // A's and B's; nil for an engine
	games   []*liveGame
	slots   int
	batch   [2][]*mcts.Search
	idle    [2][]Program     // sessions between games, by player
	replies chan engineReply // engines' moves, from their goroutines
	asking  int              // engine moves asked for and not yet back
	// takePair hands out the match's next pair (shared by the workers,
	// safe for concurrent use); open holds this worker's pairs in play.
	takePair func() (int, bool)
	open     map[int]*pending
}

// engineReply is an engine's answer for one game.
type engineReply struct {
	game    *liveGame
	move    rules.Move
	err     error
	timeout bool // the move's allowance ran out
}

// liveGame is a game in progress: the referee's game, and per player
// either a search with its own copy of the game (a player's tree stays its
// own) or an engine session.
type liveGame struct {
	pair     int
	half     int             // 0: A attacks, 1: B attacks
	ref      *rules.Game     // the referee's game
	searches [2]*mcts.Search // A's and B's; nil for an engine
	engines  [2]Program      // A's and B's sessions; nil for a search
	waiting  bool            // an engine's move is being asked for
	game     Game
}

func newWorker(cfg *Config, slots int, takePair func() (int, bool)) (*worker, error) {
	w := &worker{cfg: cfg, slots: slots, replies: make(chan engineReply, slots), takePair: takePair, open: map[int]*pending{}}
	for i, p := range []Player{cfg.A, cfg.B} {
		if p.NewProgram != nil {
			continue
		}
		eval, err := p.NewEvaluator()
		if err != nil {
			return nil, errctx.Key("match", "player "+p.Name, err)
		}
		w.runners[i] = mcts.NewRunner(eval)
	}
	return w, nil
}

// pending holds the halves of a pair until both are done.
type pending struct {
	games [2]Game
	done  int
}

// run plays pairs until there are no more to take, sending each finished
// pair to out.
func (w *worker) run(ctx context.Context, out chan<- Pair) error {
	defer w.closeEngines()
	for len(w.games)+2 <= max(w.slots, 2) {
		ok, err := w.startPair()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
	}
	for len(w.games) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.step(ctx); err != nil {
			return err
		}
		if err := w.advance(ctx, out); err != nil {
			return err
		}
	}
	return nil
}

// startPair takes the next pair and starts both its games; false when
// there is none left.
func (w *worker) startPair() (bool, error) {
	p, ok := w.takePair()
	if !ok {
		return false, nil
	}
	w.open[p] = &pending{}
	for half := range 2 {
		g, err := w.newGame(p, half)
		if err != nil {
			return false, err
		}
		w.games = append(w.games, g)
	}
	return true, nil
}

// step moves every game on: each player searches where it is to move, in
// one batch per player; engines to move are asked on their own
// goroutines, and the moves that are back are played.
func (w *worker) step(ctx context.Context) error {
	w.batch[0], w.batch[1] = w.batch[0][:0], w.batch[1][:0]
	for _, g := range w.games {
		if !g.over() && !g.waiting {
			p := g.toMovePlayer()
			if g.engines[p] != nil {
				w.ask(ctx, g, p)
			} else {
				w.batch[p] = append(w.batch[p], g.searches[p])
			}
		}
	}
	searching := false
	for p := range 2 {
		if len(w.batch[p]) > 0 {
			searching = true
			if err := w.runners[p].Step(w.batch[p]); err != nil {
				return err
			}
		}
	}
	if w.asking > 0 {
		return w.collect(ctx, !searching)
	}
	return nil
}

// advance plays the moves of the searches that are done, and ends the
// games that are over: a pair whose two games are over goes to out, and
// the next pair starts in its place.
func (w *worker) advance(ctx context.Context, out chan<- Pair) error {
	for i := 0; i < len(w.games); i++ {
		g := w.games[i]
		over, err := w.playSearched(g)
		if err != nil {
			return err
		}
		if !over {
			continue
		}
		w.games = append(w.games[:i], w.games[i+1:]...)
		i--
		if err := w.finish(ctx, g, out); err != nil {
			return err
		}
	}
	return nil
}

// playSearched plays the move of the searching player to move in g, once
// its search is done, and reports whether g is over.
func (w *worker) playSearched(g *liveGame) (over bool, err error) {
	if g.over() {
		return true, nil
	}
	if g.waiting {
		return false, nil
	}
	p := g.toMovePlayer()
	if g.engines[p] != nil {
		return false, nil // asked next round
	}
	s := g.searches[p]
	if !s.Done() {
		return false, nil
	}
	if err := g.play(s.BestMove()); err != nil {
		return false, err
	}
	w.moved(g)
	if !g.over() {
		g.startSearch(w.cfg)
		return false, nil
	}
	return true, nil
}

// finish ends a game that is over: it tells Config.OnGameEnd and the
// engines, and once both games of its pair are over sends the pair to out
// and starts the next.
func (w *worker) finish(ctx context.Context, g *liveGame, out chan<- Pair) error {
	if g.game.Forfeit == "" {
		g.game.Outcome = g.ref.Outcome()
	}
	if w.cfg.OnGameEnd != nil {
		w.cfg.OnGameEnd(g.game)
	}
	w.endGame(g)
	pend := w.open[g.pair]
	pend.games[g.half] = g.game
	pend.done++
	if pend.done < 2 {
		return nil
	}
	delete(w.open, g.pair)
	select {
	case out <- Pair{Index: g.pair, Games: pend.games}:
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err := w.startPair()
	return err
}

// ask asks player p's engine for its move in g, on a goroutine of its own,
// within the player's allowance.
func (w *worker) ask(ctx context.Context, g *liveGame, p int) {
	player := w.player(p)
	g.waiting = true
	w.asking++
	go func() {
		if s, ok := g.engines[p].(Settler); ok {
			s.Settle(ctx)
		}
		mctx, cancel := context.WithTimeout(ctx, player.MoveLimit)
		defer cancel()
		m, err := g.engines[p].Move(mctx, g.ref)
		timeout := err != nil && mctx.Err() == context.DeadlineExceeded
		w.replies <- engineReply{game: g, move: m, err: err, timeout: timeout}
	}()
}

// collect plays the engines' moves that are back, waiting for one if wait
// is set (no search has work meanwhile). The referee judges each: a move
// the rules refuse, no move in time, or a failure forfeits the game.
func (w *worker) collect(ctx context.Context, wait bool) error {
	for w.asking > 0 {
		var r engineReply
		if wait {
			select {
			case r = <-w.replies:
			case <-ctx.Done():
				return ctx.Err()
			}
			wait = false
		} else {
			select {
			case r = <-w.replies:
			default:
				return nil
			}
		}
		w.asking--
		g := r.game
		g.waiting = false
		p := g.toMovePlayer()
		var fe *ForfeitError
		switch {
		case r.timeout:
			g.forfeit(p, ForfeitTime, fmt.Sprintf("no move within %v", w.player(p).MoveLimit))
		case errors.As(r.err, &fe):
			g.forfeit(p, fe.Reason, fe.Err.Error())
		case r.err != nil:
			g.forfeit(p, ForfeitCrash, r.err.Error())
		case !g.ref.IsLegal(r.move):
			g.forfeit(p, ForfeitIllegal, g.ref.Play(r.move).Error())
		default:
			if err := g.play(r.move); err != nil {
				return err
			}
			w.moved(g)
			if !g.over() {
				g.startSearch(w.cfg)
			}
		}
	}
	return nil
}

// moved tells Config.OnMove of a player's move in g.
func (w *worker) moved(g *liveGame) {
	if w.cfg.OnMove != nil {
		w.cfg.OnMove(g.pair, g.half, g.game.Moves)
	}
}

// player returns player p's settings: 0 for A, 1 for B.
func (w *worker) player(p int) *Player {
	if p == 0 {
		return &w.cfg.A
	}
	return &w.cfg.B
}

// endGame tells the game's engines how it ended and keeps their sessions
// for the next game, but for one that forfeited: its state is unknown (it
// may hang, or be gone), so it is closed and the next game starts another.
func (w *worker) endGame(g *liveGame) {
	for p, e := range g.engines {
		if e == nil {
			continue
		}
		forfeited := g.game.Forfeit != "" && g.game.Outcome.Winner != winnerOf(p, g.half)
		if forfeited {
			e.Close()
			continue
		}
		e.EndGame(g.game.Outcome)
		w.idle[p] = append(w.idle[p], e)
	}
	g.engines = [2]Program{}
}

func (w *worker) closeEngines() {
	// Moves still asked for: their games are dropped, but their sessions
	// must not be closed under them.
	for ; w.asking > 0; w.asking-- {
		<-w.replies
	}
	for _, g := range w.games {
		for _, e := range g.engines {
			if e != nil {
				e.Close()
			}
		}
	}
	for p := range w.idle {
		for _, e := range w.idle[p] {
			e.Close()
		}
		w.idle[p] = nil
	}
}

// winnerOf returns the win of player p (0 A, 1 B) in a game's half.
func winnerOf(p, half int) rules.Winner {
	if (p == 0) == (half == 0) {
		return rules.AttackersWin
	}
	return rules.DefendersWin
}

// forfeit ends the game: player p loses it for reason.
func (g *liveGame) forfeit(p int, reason, detail string) {
	g.game.Forfeit, g.game.ForfeitDetail = reason, detail
	g.game.Outcome = rules.Outcome{Winner: winnerOf(1-p, g.half), Ply: int32(len(g.game.Moves))}
}

// newGame sets up one half of a pair: the opening played, each searching
// player's search at the first position the players choose in, each
// engine told the game.
func (w *worker) newGame(pair, half int) (*liveGame, error) {
	cfg := w.cfg
	opening := cfg.opening(pair)
	index := 0
	if len(cfg.Openings) > 0 {
		index = pair % len(cfg.Openings)
	}
	g := &liveGame{pair: pair, half: half}
	g.game = Game{Pair: pair, AAttacks: half == 0, OpeningOf: index, Start: opening.Start}
	seed := uint64(pair)*2 + uint64(half)
	ref, err := startGame(cfg.Variant, opening)
	if err != nil {
		panic(err) // Validate checked the openings
	}
	g.ref = ref
	for p := range 2 {
		player := w.player(p)
		if player.NewProgram != nil {
			continue
		}
		game, err := startGame(cfg.Variant, opening)
		if err != nil {
			panic(err) // Validate checked the openings
		}
		g.searches[p] = mcts.NewSearch(player.search(cfg), game, seed)
	}
	moves := opening.Moves
	var forfeit *Forfeit
	for _, u := range cfg.Unfinished {
		if u.Pair == pair && u.Half == half {
			moves, forfeit = u.Moves, u.Forfeit // the opening's, then the players' before the interruption
		}
	}
	for _, m := range moves {
		if g.over() {
			break
		}
		if err := g.play(m); err != nil {
			panic(err) // Validate checked the openings and the unfinished games
		}
	}
	if forfeit != nil {
		g.game.Forfeit, g.game.ForfeitDetail = forfeit.Reason, forfeit.Detail
		g.game.Outcome = rules.Outcome{Winner: forfeit.Winner, Ply: int32(len(g.game.Moves))}
	}
	for p := range 2 {
		player := w.player(p)
		if player.NewProgram == nil {
			continue
		}
		var e Program
		if n := len(w.idle[p]); n > 0 {
			e, w.idle[p] = w.idle[p][n-1], w.idle[p][:n-1]
		} else if e, err = player.NewProgram(); err != nil {
			return nil, errctx.Key("match", "player "+player.Name, err)
		}
		g.engines[p] = e
		side := rules.Attackers
		if winnerOf(p, half) == rules.DefendersWin {
			side = rules.Defenders
		}
		if err := e.NewGame(cfg.Variant, opening.Start, side); err != nil {
			g.forfeit(p, ForfeitCrash, "starting the game: "+err.Error())
			return g, nil
		}
	}
	if !g.over() {
		g.startSearch(cfg)
	}
	return g, nil
}

// toMovePlayer returns 0 if player A is to move, 1 if B.
func (g *liveGame) toMovePlayer() int {
	attackersToMove := g.ref.ToMove() == rules.Attackers
	if attackersToMove == (g.half == 0) {
		return 0
	}
	return 1
}

func (g *liveGame) over() bool { return g.game.Forfeit != "" || g.ref.Outcome().Over() }

// play makes m, which must be legal, on the referee's game and every search.
func (g *liveGame) play(m rules.Move) error {
	if err := g.ref.Play(m); err != nil {
		return err
	}
	for _, s := range g.searches {
		if s == nil {
			continue
		}
		if err := s.Advance(m); err != nil {
			return err
		}
	}
	_, captured := g.ref.LastMove()
	g.game.Moves = append(g.game.Moves, m)
	g.game.Captures = append(g.game.Captures, captured)
	return nil
}

// startSearch starts the search of the player to move, if it searches.
func (g *liveGame) startSearch(cfg *Config) {
	p := g.toMovePlayer()
	if g.searches[p] == nil {
		return
	}
	playouts := cfg.A.Playouts
	if p == 1 {
		playouts = cfg.B.Playouts
	}
	g.searches[p].Start(playouts, false)
}
