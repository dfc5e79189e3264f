package analysis

import (
	"errors"

	"taflab/internal/errctx"
	"taflab/mcts"
)

// Config holds the settings of an analysis and of a review. DefaultConfig
// returns the defaults; units and ranges are in the field comments.
type Config struct {
	// Playouts is each position's search budget, in root visits (those a
	// reused tree already holds count): from 1 to mcts.MaxPlayouts, or 0
	// for an analysis without a search (a review needs one). Default 400.
	Playouts int `json:"playouts"`
	// Top is how many moves an analysis lists by prior and by visits,
	// from 1 to 100. Default 8.
	Top int `json:"top"`
	// PVMoves is the most moves of a principal variation, from 1 to 100.
	// Default 10.
	PVMoves int `json:"pv_moves"`
	// Search is the search's settings. Its TreeReuse (default true) keeps
	// the subtree of the move played for the next position's search; a
	// review never adds noise and always reads the search's best move.
	// Default mcts.DefaultConfig().
	Search mcts.Config `json:"-"`
	// Parallel is how many stretches of a game a review searches side by
	// side, their leaves evaluated in one batch (a network evaluates a
	// batch of many positions faster a position than one of a few); the
	// first search of each stretch has no tree to reuse. From 1 to 64.
	// Default 8.
	Parallel int `json:"parallel"`
	// Thresholds label a move by the win chance it lost. Default
	// DefaultThresholds (lichess's).
	Thresholds Thresholds `json:"thresholds"`
	// Seed fixes what is random in an analysis: an evaluator with random
	// board symmetries (a network's) draws them from it. A review with the
	// same seed, settings and evaluator gives the same report. Default 1.
	Seed uint64 `json:"seed"`
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{Playouts: 400, Top: 8, PVMoves: 10, Parallel: 8, Search: mcts.DefaultConfig(), Thresholds: DefaultThresholds(), Seed: 1}
}

// Validate reports every setting out of range.
func (c *Config) Validate() error {
	var errs []error
	if c.Playouts < 0 || c.Playouts > mcts.MaxPlayouts {
		errs = append(errs, errctx.Errorf("analysis", "playouts %d: want 0 (no search) to %d", c.Playouts, mcts.MaxPlayouts))
	}
	if c.Top < 1 || c.Top > 100 {
		errs = append(errs, errctx.Errorf("analysis", "top %d: want 1 to 100 moves", c.Top))
	}
	if c.PVMoves < 1 || c.PVMoves > 100 {
		errs = append(errs, errctx.Errorf("analysis", "pv moves %d: want 1 to 100", c.PVMoves))
	}
	if c.Parallel < 1 || c.Parallel > 64 {
		errs = append(errs, errctx.Errorf("analysis", "parallel %d: want 1 to 64 stretches", c.Parallel))
	}
	if err := c.Search.Validate(); err != nil {
		errs = append(errs, errctx.Key("analysis", "search", err))
	}
	errs = append(errs, c.Thresholds.Validate())
	return errors.Join(errs...)
}
