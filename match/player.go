package match

import (
	"context"
	"time"

	"taflab/mcts"
	"taflab/rules"
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
	// NewProgram, if set, makes the player an engine program instead of a
	// search (Playouts and NewEvaluator are then not used): each game gets
	// an engine session, started by NewProgram and reused for later games
	// unless it forfeited one.
	NewProgram func() (Program, error)
	// MoveLimit is an engine's time allowance per move, past which it
	// loses the game. Required with NewProgram.
	MoveLimit time.Duration
	// Command is the engine program's command line, for reports
	// (PlayerInfo.Engine in the match file).
	Command string
}

// Program is an engine program playing games of a match, one at a time.
// Its methods are called from one goroutine at a time.
type Program interface {
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

// Settler is a Program that may need a moment before it is asked for a
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

// ForfeitError is a Program's error that names its forfeit reason; any
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

// SelfPlaySearch returns the search settings of the player's self-play
// games when every move gets a full search of its playouts: its own Search
// if it has one, else base, with the zero Config meaning
// mcts.DefaultConfig(); Playouts and CheapPlayouts are set to p.Playouts
// and FullSearchProb to 1. BuildSuite and eval balance play with it, so
// that a player with Gumbel root search plays Gumbel there too.
func (p *Player) SelfPlaySearch(base mcts.Config) mcts.Config {
	cfg := base
	switch {
	case p.Search != nil:
		cfg = *p.Search
	case cfg == (mcts.Config{}):
		cfg = mcts.DefaultConfig()
	}
	cfg.Playouts, cfg.CheapPlayouts, cfg.FullSearchProb = p.Playouts, p.Playouts, 1
	return cfg
}
