package match

import (
	"context"
	"errors"

	"taflab/stats"
)

// RunConfig is a match played to its end, as "eval match" plays one: the
// pairs under a sequential test, then, with Odds, B's playout ladder.
type RunConfig struct {
	// Match is the match: rule set, players, openings, the most pairs.
	Match Config
	// Test stops the match as soon as it decides.
	Test stats.SPRT
	// Openings says where the pairs started (File.Openings).
	Openings string
	// Odds are the multiples of B's playouts (each at least 2) of a ladder
	// climbed after the match, OddsPairs game pairs a rung; File.Odds then
	// places A on it. None: no ladder.
	Odds      []int
	OddsPairs int
	// OnPair is called after each pair with the test's state; OnLadder
	// once the test has ended, before the ladder (only with Odds); OnRung
	// after each rung. Each may be nil.
	OnPair   func(Pair, stats.Report)
	OnLadder func(Result)
	OnRung   func(Rung)
}

// OddsError is a ladder, or its odds, that failed after the match. Its
// text is Err's, which names its package.
type OddsError struct{ Err error }

func (e *OddsError) Error() string { return e.Err.Error() }

func (e *OddsError) Unwrap() error { return e.Err }

// ladder returns the configuration of B's ladder.
func (cfg *RunConfig) ladder() LadderConfig {
	return LadderConfig{Match: cfg.Match, Base: cfg.Match.B, Multipliers: cfg.Odds, Pairs: cfg.OddsPairs}
}

// Validate checks the test, the match and, with Odds, B's ladder
// (LadderConfig.Validate: its error is a *LadderError), so that a caller
// can refuse them before any game. Run checks them first too.
func (cfg *RunConfig) Validate() error {
	if err := cfg.Test.Validate(); err != nil {
		return err
	}
	if err := cfg.Match.Validate(); err != nil {
		return err
	}
	if len(cfg.Odds) > 0 {
		return cfg.ladder().Validate()
	}
	return nil
}

// Run plays the match and, with cfg.Odds, climbs B's ladder (Ladder, Odds).
// Settings that cannot be played (Validate) are an error before any game.
// It returns the match file (NewFile; WriteFiles writes it) and the test's
// result. Stopped by ctx, in the match or on the ladder, it returns the
// file of the pairs played, without odds, and ctx's error
// (context.Canceled). A ladder that fails returns an *OddsError and the
// match's file; any other error, no file.
func Run(ctx context.Context, cfg RunConfig) (File, Result, error) {
	if err := cfg.Validate(); err != nil {
		return File{}, Result{}, err
	}
	res, err := RunSPRT(ctx, cfg.Match, cfg.Test, cfg.OnPair)
	if err != nil && !errors.Is(err, context.Canceled) {
		return File{}, res, err
	}
	f := NewFile(cfg.Match.Variant, cfg.Match.A, cfg.Match.B, cfg.Test, res)
	f.Openings = cfg.Openings
	if err != nil || len(cfg.Odds) == 0 {
		return f, res, err
	}
	if cfg.OnLadder != nil {
		cfg.OnLadder(res)
	}
	rungs, err := Ladder(ctx, cfg.ladder(), cfg.OnRung)
	if errors.Is(err, context.Canceled) {
		return f, res, err
	}
	if err != nil {
		return f, res, &OddsError{err}
	}
	odds, err := Odds(rungs, res.Report)
	if err != nil {
		return f, res, &OddsError{err}
	}
	f.Odds = NewOddsInfo(rungs, odds)
	return f, res, nil
}
