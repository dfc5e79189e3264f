// Package match plays two players against each other in game pairs (each
// opening twice, sides swapped, since the two sides of hnefatafl are not
// alike), many games at once with the evaluations of each player batched
// across games, and stops as soon as a sequential test decides.
//
//	res, err := match.Play(ctx, match.Config{Variant: v, A: a, B: b, Openings: book, ...}, onPair)
//
// A player is a search budget with an evaluator (a network's, or the
// built-in one); player.Parse turns a spec such as "net=FILE,playouts=200" into one. A
// player may also be an engine program (Player.NewEngine, an Engine): the
// match's rules referee its moves, and an illegal move, a move past its
// time allowance or a failure of the program loses that game for it
// (Game.Forfeit) while the match goes on.
package match

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"taflab/mcts"
	"taflab/rules"
	"taflab/stats"
)

// Player is one side of a match.
type Player struct {
	// Name identifies the player in reports and ratings.
	Name string
	// Playouts is the search budget per move, from 1 to mcts.MaxPlayouts
	// (Config.Validate checks it).
	Playouts int
	// NewEvaluator returns a worker's evaluator; each worker calls it once.
	NewEvaluator func() (mcts.Evaluator, error)
	// Network is the player's network file, "" for the built-in evaluator.
	Network string
	// Search, if set, replaces the match's search settings for this player
	// (another root search, say).
	Search *mcts.Config
	// NewEngine, if set, makes the player an engine program instead of a
	// search (Playouts and NewEvaluator are then not used): each game gets
	// an engine session, started by NewEngine and reused for later games
	// unless it forfeited one.
	NewEngine func() (Engine, error)
	// MoveLimit is an engine's time allowance per move, past which it
	// loses the game. Required with NewEngine.
	MoveLimit time.Duration
	// Engine describes the engine program (its command), for reports.
	Engine string
}

// Engine is an engine program playing games of a match, one at a time.
// Its methods are called from one goroutine at a time.
type Engine interface {
	// NewGame starts a game of v from start (the zero Position: v's
	// start), the engine playing side.
	NewGame(v *rules.Variant, start rules.Position, side rules.Side) error
	// Move returns the engine's move in g, where it is to move; g holds
	// every move since the start and does not change until Move returns.
	// Move must return soon after ctx is done (the move's allowance).
	Move(ctx context.Context, g *rules.Game) (rules.Move, error)
	// EndGame tells the engine how the game ended.
	EndGame(o rules.Outcome)
	// Close ends the engine program.
	Close() error
}

// Settler is an Engine that may need a moment before it is asked for a
// move: one that goes on writing after its last move (OpenTafl's engine
// prints its search's statistics). The match calls Settle before the
// move's allowance starts, so the wait is not counted against the engine;
// Settle must return soon after ctx is done.
type Settler interface {
	Settle(ctx context.Context)
}

// The reasons an engine forfeits a game (Game.Forfeit).
const (
	ForfeitIllegal = "illegal-move" // a move the rules refuse, or not a move
	ForfeitTime    = "timeout"      // no move within the allowance
	ForfeitCrash   = "crash"        // the program failed or exited
)

// ForfeitError is an Engine's error that names its forfeit reason; any
// other error from Move is a crash, or a timeout once the move's context is
// done.
type ForfeitError struct {
	Reason string // ForfeitIllegal, ForfeitTime or ForfeitCrash
	Err    error
}

func (e *ForfeitError) Error() string { return e.Reason + ": " + e.Err.Error() }
func (e *ForfeitError) Unwrap() error { return e.Err }

// search returns the player's search settings in a match of cfg.
func (p *Player) search(cfg *Config) *mcts.Config {
	if p.Search != nil {
		return p.Search
	}
	return &cfg.Search
}

// Config is a match's settings.
type Config struct {
	Variant *rules.Variant
	A, B    Player
	// Search holds the search settings of both players; matches play the
	// most visited move (no noise, no temperature).
	Search mcts.Config
	// Openings are the starts of the game pairs, played in order and
	// cycled; none means every pair starts from the rule set's start.
	Openings []Opening
	// MaxPairs bounds the number of game pairs.
	MaxPairs int
	// Workers is the number of worker goroutines; 0 means one per core.
	Workers int
	// GamesPerWorker is the number of games a worker plays at once.
	GamesPerWorker int
	// Played are the finished pairs of an earlier run of this same match
	// that was interrupted: Play does not play their indices again and
	// RunSPRT counts them first, so a resumed match loses no finished game.
	// Their indices are distinct and below MaxPairs.
	Played []Pair
	// Unfinished are the games of unfinished pairs that an interrupted run
	// of this same match had begun (OnMove and OnGameEnd told of them):
	// each goes on from its moves instead of from its start, and one that
	// had ended ends as it did. Their pairs are not among Played, and no
	// game comes twice.
	Unfinished []Unfinished
	// OnMove, if set, is told of every move a player makes: the game's
	// pair and half and its moves so far from its start (the opening's
	// among them), which it must not keep past the call. OnGameEnd, if
	// set, is told of every game that ends, before its pair does. The
	// workers call both from their goroutines, so they must be safe for
	// concurrent use.
	OnMove    func(pair, half int, moves []rules.Move)
	OnGameEnd func(g Game)
}

// Unfinished is a game of a pair an interrupted match left unfinished.
type Unfinished struct {
	Pair int `json:"pair"`
	Half int `json:"half"` // 0: A attacks, 1: B attacks
	// Moves are the game's moves from its start, the opening's among
	// them; the last may end it.
	Moves []rules.Move `json:"moves"`
	// Forfeit keeps a game that had ended by a forfeit (Game.Forfeit):
	// it ends so again, rather than going on.
	Forfeit *Forfeit `json:"forfeit,omitempty"`
}

// Forfeit is how a game ended outside the rules.
type Forfeit struct {
	Reason string       `json:"reason"` // ForfeitIllegal, ForfeitTime or ForfeitCrash
	Detail string       `json:"detail"`
	Winner rules.Winner `json:"winner"` // the side of the player that did not forfeit
}

// Validate reports a setting that cannot be played.
func (c *Config) Validate() error {
	var errs []error
	if c.Variant == nil {
		errs = append(errs, errors.New("match: no rule set"))
	}
	for _, p := range []*Player{&c.A, &c.B} {
		if p.NewEngine != nil {
			if p.MoveLimit <= 0 {
				errs = append(errs, fmt.Errorf("match: player %s: an engine needs a move time allowance", p.Name))
			}
			continue
		}
		if err := mcts.CheckPlayouts(p.Playouts); err != nil {
			errs = append(errs, fmt.Errorf("match: player %s: playouts = %d: want from 1 to %d", p.Name, p.Playouts, mcts.MaxPlayouts))
		}
		if p.NewEvaluator == nil {
			errs = append(errs, fmt.Errorf("match: player %s: no evaluator", p.Name))
		}
	}
	if c.MaxPairs < 1 {
		errs = append(errs, fmt.Errorf("match: max pairs = %d: want at least 1", c.MaxPairs))
	}
	if c.Variant != nil {
		for i, o := range c.Openings {
			if err := checkOpening(c.Variant, o); err != nil {
				errs = append(errs, fmt.Errorf("match: opening %d: %w", i, err))
				break
			}
		}
	}
	seen := map[int]bool{}
	for _, p := range c.Played {
		if p.Index < 0 || p.Index >= c.MaxPairs || seen[p.Index] {
			errs = append(errs, fmt.Errorf("match: played pair %d: want distinct pairs from 0 to %d", p.Index, c.MaxPairs-1))
			break
		}
		seen[p.Index] = true
	}
	if err := c.CheckUnfinished(); err != nil {
		errs = append(errs, err)
	}
	if c.Workers < 0 || c.GamesPerWorker < 0 {
		errs = append(errs, fmt.Errorf("match: workers = %d, games per worker = %d: want 0 or more", c.Workers, c.GamesPerWorker))
	}
	if err := c.Search.Validate(); err != nil {
		errs = append(errs, err)
	}
	for _, p := range []*Player{&c.A, &c.B} {
		if p.Search != nil {
			if err := p.Search.Validate(); err != nil {
				errs = append(errs, fmt.Errorf("match: player %s: %w", p.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Opening is where a game pair starts: a position (an opening suite's, or
// the zero Position for the rule set's start), then moves played for the
// players (a random book's) before they search.
type Opening struct {
	Start rules.Position
	Moves []rules.Move
}

// StartsAtStart reports whether the opening starts from the rule set's
// start.
func (o Opening) StartsAtStart() bool { return o.Start.Size == 0 }

// Game is one finished game of a match.
type Game struct {
	Pair     int  // the pair's number, from 0
	AAttacks bool // player A had the attackers
	// Start is the position the game started from, the zero Position for
	// the rule set's start; Moves are played from it, the opening's first.
	Start     rules.Position
	Moves     []rules.Move
	Captures  []rules.Bitboard
	Outcome   rules.Outcome
	OpeningOf int // the opening's index in the book
	// Forfeit is why an engine lost the game outside the rules
	// (ForfeitIllegal, ForfeitTime, ForfeitCrash), "" if the rules ended
	// it; Outcome.Winner is then its opponent's side and Outcome.Reason
	// rules.NotOver. ForfeitDetail says what happened.
	Forfeit       string
	ForfeitDetail string
}

// ScoreA returns player A's score in the game: 1, 0.5 or 0.
func (g *Game) ScoreA() float64 {
	switch g.Outcome.Winner {
	case rules.Draw, rules.NoWinner:
		return 0.5
	case rules.AttackersWin:
		if g.AAttacks {
			return 1
		}
	case rules.DefendersWin:
		if !g.AAttacks {
			return 1
		}
	}
	return 0
}

// Pair is a finished game pair: the same opening with sides swapped.
type Pair struct {
	Index int
	Games [2]Game // Games[0]: A attacks; Games[1]: B attacks
}

// ScoreA returns player A's score in the pair: 0, 0.5, 1, 1.5 or 2.
func (p *Pair) ScoreA() float64 { return p.Games[0].ScoreA() + p.Games[1].ScoreA() }

// Play plays game pairs until MaxPairs are done, ctx is done, or onPair
// returns false (the sequential test has decided). onPair sees the pairs in
// the order they finish, from one goroutine. Pairs unfinished when the match
// stops are dropped: a pair counts whole or not at all.
func Play(ctx context.Context, cfg Config, onPair func(Pair) bool) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	perWorker := cfg.GamesPerWorker
	if perWorker == 0 {
		perWorker = 8
		if cfg.A.NewEngine != nil || cfg.B.NewEngine != nil {
			// Each game in play holds a program: one pair at a time.
			perWorker = 2
		}
	}
	if cfg.Workers == 0 && (cfg.A.NewEngine != nil || cfg.B.NewEngine != nil) {
		workers = 1 // engine programs bring their own threads
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	played := make(map[int]bool, len(cfg.Played)) // immutable after this
	for _, p := range cfg.Played {
		played[p.Index] = true
	}
	var mu sync.Mutex // guards nextPair
	nextPair := 0
	takePair := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		for nextPair < cfg.MaxPairs && played[nextPair] {
			nextPair++
		}
		if nextPair >= cfg.MaxPairs {
			return 0, false
		}
		nextPair++
		return nextPair - 1, true
	}
	pairs := make(chan Pair)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wk, err := newWorker(&cfg, perWorker)
		if err != nil {
			cancel()
			wg.Wait()
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := wk.run(ctx, takePair, pairs); err != nil && !errors.Is(err, context.Canceled) {
				errs[w] = err
				cancel()
			}
		}()
	}
	go func() {
		wg.Wait()
		close(pairs)
	}()
	stopped := false
	for p := range pairs {
		if !stopped && !onPair(p) {
			stopped = true
			cancel()
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if !stopped && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

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
	idle    [2][]Engine      // sessions between games, by player
	replies chan engineReply // engines' moves, from their goroutines
	asking  int              // engine moves asked for and not yet back
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
	engines  [2]Engine       // A's and B's sessions; nil for a search
	waiting  bool            // an engine's move is being asked for
	game     Game
}

func newWorker(cfg *Config, slots int) (*worker, error) {
	w := &worker{cfg: cfg, slots: slots, replies: make(chan engineReply, slots)}
	for i, p := range []Player{cfg.A, cfg.B} {
		if p.NewEngine != nil {
			continue
		}
		eval, err := p.NewEvaluator()
		if err != nil {
			return nil, fmt.Errorf("match: player %s: %w", p.Name, err)
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

func (w *worker) run(ctx context.Context, takePair func() (int, bool), out chan<- Pair) error {
	defer w.closeEngines()
	open := map[int]*pending{}
	start := func() (bool, error) {
		p, ok := takePair()
		if !ok {
			return false, nil
		}
		open[p] = &pending{}
		for half := range 2 {
			g, err := w.newGame(p, half)
			if err != nil {
				return false, err
			}
			w.games = append(w.games, g)
		}
		return true, nil
	}
	for len(w.games)+2 <= max(w.slots, 2) {
		ok, err := start()
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
		// Each player searches where it is to move, in one batch per
		// player; engines to move are asked on their own goroutines.
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
			if err := w.collect(ctx, !searching); err != nil {
				return err
			}
		}
		for i := 0; i < len(w.games); i++ {
			g := w.games[i]
			if !g.over() {
				if g.waiting {
					continue
				}
				p := g.toMovePlayer()
				if g.engines[p] != nil {
					continue // asked next round
				}
				s := g.searches[p]
				if !s.Done() {
					continue
				}
				if err := g.play(s.BestMove()); err != nil {
					return err
				}
				w.moved(g)
				if !g.over() {
					g.startSearch(w.cfg)
					continue
				}
			}
			if g.game.Forfeit == "" {
				g.game.Outcome = g.ref.Outcome()
			}
			if w.cfg.OnGameEnd != nil {
				w.cfg.OnGameEnd(g.game)
			}
			w.endGame(g)
			pend := open[g.pair]
			pend.games[g.half] = g.game
			pend.done++
			w.games = append(w.games[:i], w.games[i+1:]...)
			i--
			if pend.done == 2 {
				delete(open, g.pair)
				select {
				case out <- Pair{Index: g.pair, Games: pend.games}:
				case <-ctx.Done():
					return ctx.Err()
				}
				if _, err := start(); err != nil {
					return err
				}
			}
		}
	}
	return nil
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
	g.engines = [2]Engine{}
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
		if player.NewEngine != nil {
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
		if player.NewEngine == nil {
			continue
		}
		var e Engine
		if n := len(w.idle[p]); n > 0 {
			e, w.idle[p] = w.idle[p][n-1], w.idle[p][:n-1]
		} else if e, err = player.NewEngine(); err != nil {
			return nil, fmt.Errorf("match: player %s: %w", player.Name, err)
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

// startGame sets up a game at an opening's start position.
func startGame(v *rules.Variant, o Opening) (*rules.Game, error) {
	if o.StartsAtStart() {
		return rules.NewGame(v), nil
	}
	return rules.NewGameFrom(v, o.Start)
}

// CheckUnfinished reports the first of c.Unfinished that cannot go on (part
// of Validate): a pair out of range or among Played, a game given twice,
// moves that do not begin with its opening's, that are not legal, or that
// end the game before the last, or a forfeit of no side's win.
func (c *Config) CheckUnfinished() error {
	played := map[int]bool{}
	for _, p := range c.Played {
		played[p.Index] = true
	}
	games := map[[2]int]bool{}
	for _, u := range c.Unfinished {
		if u.Pair < 0 || u.Pair >= c.MaxPairs || played[u.Pair] || u.Half < 0 || u.Half > 1 || games[[2]int{u.Pair, u.Half}] {
			return fmt.Errorf("match: unfinished game %d/%d: want distinct games of pairs from 0 to %d that are not played", u.Pair, u.Half, c.MaxPairs-1)
		}
		games[[2]int{u.Pair, u.Half}] = true
		if c.Variant == nil {
			continue
		}
		o := c.opening(u.Pair)
		if len(u.Moves) < len(o.Moves) || !slices.Equal(u.Moves[:len(o.Moves)], o.Moves) {
			return fmt.Errorf("match: unfinished game %d/%d: its moves do not begin with its opening's %d", u.Pair, u.Half, len(o.Moves))
		}
		last := len(u.Moves) - 1
		if err := checkOpening(c.Variant, Opening{Start: o.Start, Moves: u.Moves[:max(last, len(o.Moves))]}); err != nil {
			return fmt.Errorf("match: unfinished game %d/%d: %w", u.Pair, u.Half, err)
		}
		if last >= len(o.Moves) { // the last move may end the game
			g, _ := startGame(c.Variant, o)
			for _, m := range u.Moves[:last] {
				g.Make(m)
			}
			if err := g.Play(u.Moves[last]); err != nil {
				return fmt.Errorf("match: unfinished game %d/%d: move %d: %w", u.Pair, u.Half, last+1, err)
			}
		}
		if f := u.Forfeit; f != nil && f.Winner != rules.AttackersWin && f.Winner != rules.DefendersWin {
			return fmt.Errorf("match: unfinished game %d/%d: a forfeit won by %v: want the attackers or the defenders", u.Pair, u.Half, f.Winner)
		}
	}
	return nil
}

// opening returns the opening of a pair.
func (c *Config) opening(pair int) Opening {
	if len(c.Openings) == 0 {
		return Opening{}
	}
	return c.Openings[pair%len(c.Openings)]
}

// checkOpening reports why an opening cannot be played under v, or nil.
func checkOpening(v *rules.Variant, o Opening) error {
	if !o.StartsAtStart() {
		if err := v.CheckStart(o.Start); err != nil {
			return err
		}
	}
	g, err := startGame(v, o)
	if err != nil {
		return err
	}
	for i, m := range o.Moves {
		if err := g.Play(m); err != nil {
			return fmt.Errorf("move %d: %w", i+1, err)
		}
		if g.Outcome().Over() {
			return fmt.Errorf("move %d %s ends the game", i+1, m)
		}
	}
	return nil
}

// MaxBookPlies is the most random moves of a Book opening: random games
// last about 390 plies, and much longer openings would often find no way
// on without ending the game.
const MaxBookPlies = 100

// bookAttempts is how many openings in a row NewBook may abandon (a random
// move that ends the game is taken back and another tried, 100 times the
// plies at most) before it gives up.
const bookAttempts = 1000

// NewBook returns n openings of the given number of random legal moves from
// the start (none of which ends the game), the same for the same seed: the
// starts of a match's game pairs, so that games differ. plies must be from
// 0 (every opening the start) to MaxBookPlies and n 0 or more; it fails,
// rather than loop for ever, when bookAttempts openings in a row find no
// way on, and stops with ctx's error when ctx is done.
func NewBook(ctx context.Context, v *rules.Variant, n, plies int, seed uint64) ([]Opening, error) {
	if plies < 0 || plies > MaxBookPlies {
		return nil, fmt.Errorf("match: book: %d plies: want from 0 to %d", plies, MaxBookPlies)
	}
	if n < 0 {
		return nil, fmt.Errorf("match: book: %d openings: want 0 or more", n)
	}
	rng := rand.New(rand.NewPCG(seed, 0xb00c))
	book := make([]Opening, 0, n)
	g := rules.NewGame(v)
	var moves []rules.Move
	for failed, attempt := 0, 0; len(book) < n; attempt++ {
		if attempt%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		g.Reset()
		var opening []rules.Move
		for tries := 0; len(opening) < plies && tries < 100*plies; tries++ {
			moves = g.GenerateMoves(moves[:0])
			if len(moves) == 0 {
				// Only a start can have no move (a move's position with none
				// is over), and rules.Compile refuses such a start.
				return nil, fmt.Errorf("match: book: %s: the %v have no legal move", g.Position(), g.ToMove())
			}
			m := moves[rng.IntN(len(moves))]
			g.Make(m)
			if g.Outcome().Over() {
				g.Unmake() // an opening leaves the game to the players
				continue
			}
			opening = append(opening, m)
		}
		if len(opening) == plies {
			book = append(book, Opening{Moves: opening})
			failed = 0
		} else if failed++; failed >= bookAttempts {
			return nil, fmt.Errorf("match: book: no opening of %d random plies found in %d tries: the random games of %s end first", plies, bookAttempts, v.Name())
		}
	}
	return book, nil
}

// Book is NewBook for arguments known to be good (plies from 0 to
// MaxBookPlies, n 0 or more, as the tests and the commands' checked flags
// give it). It panics on NewBook's error, a programmer error: code that
// passes a user's numbers calls NewBook.
func Book(v *rules.Variant, n, plies int, seed uint64) []Opening {
	book, err := NewBook(context.Background(), v, n, plies, seed)
	if err != nil {
		panic(err)
	}
	return book
}

// Result is a finished match under a sequential test.
type Result struct {
	// Report is the test's state when the match stopped.
	Report stats.Report
	// Pairs are the pairs the test counted, in index order: every finished
	// pair but those that finished after the test decided.
	Pairs []Pair
	// Why the match stopped: "decided" (the test accepted a hypothesis),
	// "max-pairs" or "interrupted".
	Stopped string
}

// RunSPRT plays a match under the pentanomial SPRT test (A is the
// candidate): it stops as soon as the test decides, after cfg.MaxPairs
// pairs, or when ctx is done (Stopped says which; an interrupted match
// returns its result so far and ctx's error). The test counts the pairs in
// index order, those of cfg.Played among them, whatever order they finish
// in, so that a match decides after the same pairs on any number of
// workers; a test the played pairs already decide plays nothing more.
// onPair, if set, sees each newly played pair as it finishes (to keep it,
// say) and the report after the pairs counted so far.
func RunSPRT(ctx context.Context, cfg Config, test stats.SPRT, onPair func(Pair, stats.Report)) (Result, error) {
	if err := test.Validate(); err != nil {
		return Result{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	counter := newInOrder(test)
	for _, p := range cfg.Played {
		counter.add(p)
	}
	var err error
	if counter.report.Decision == stats.Continue && len(cfg.Played) < cfg.MaxPairs {
		err = Play(ctx, cfg, func(p Pair) bool {
			counter.add(p)
			if onPair != nil {
				onPair(p, counter.report)
			}
			return counter.report.Decision == stats.Continue
		})
		if err != nil {
			// Interrupted: the pairs past an unfinished one count too.
			counter.flush()
		}
	}
	res := Result{Report: counter.report, Pairs: counter.counted}
	switch {
	case res.Report.Decision != stats.Continue:
		res.Stopped = "decided"
	case err != nil:
		res.Stopped = "interrupted"
	default:
		res.Stopped = "max-pairs"
	}
	return res, err
}

// inOrder feeds a sequential test the pairs of a match in index order: a
// pair that finishes before one with a smaller index waits until that one
// is in (or the match is interrupted), and none is counted once the test
// has decided. With several
// workers pairs finish in an order that depends on timing; counting them
// in that order would make the decision, and the pairs behind it, differ
// between two runs of the same match.
type inOrder struct {
	test    stats.SPRT
	tally   stats.PairTally
	report  stats.Report // the test's report on the counted pairs
	counted []Pair       // in index order
	ahead   map[int]Pair // finished pairs past the first missing index
	next    int          // the index of the next pair to count in order
}

func newInOrder(test stats.SPRT) *inOrder {
	o := &inOrder{test: test, ahead: map[int]Pair{}}
	o.report = test.Report(o.tally)
	return o
}

// add takes a finished pair and counts every pair it makes countable.
func (o *inOrder) add(p Pair) {
	o.ahead[p.Index] = p
	for o.report.Decision == stats.Continue {
		next, ok := o.ahead[o.next]
		if !ok {
			return
		}
		o.next++
		delete(o.ahead, next.Index)
		o.count(next)
	}
}

// flush counts the pairs still waiting, in index order, until the test
// decides: for a match that stops with pairs missing before them.
func (o *inOrder) flush() {
	for _, i := range slices.Sorted(maps.Keys(o.ahead)) {
		if o.report.Decision != stats.Continue {
			return
		}
		o.count(o.ahead[i])
		delete(o.ahead, i)
	}
}

func (o *inOrder) count(p Pair) {
	if err := o.tally.Add(p.Games[0].ScoreA(), p.Games[1].ScoreA()); err != nil {
		panic(err) // ScoreA gives 0, 0.5 or 1
	}
	o.counted = append(o.counted, p)
	o.report = o.test.Report(o.tally)
}
