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

// OddsError is a ladder, or its odds, that failed after the match.
type OddsError struct{ Err error }

func (e *OddsError) Error() string { return "match: odds: " + e.Err.Error() }

func (e *OddsError) Unwrap() error { return e.Err }

// Run plays the match and, with cfg.Odds, climbs B's ladder (Ladder, Odds).
// It returns the match file (NewFile; WriteFiles writes it) and the test's
// result. Stopped by ctx, in the match or on the ladder, it returns the
// file of the pairs played, without odds, and ctx's error
// (context.Canceled). A ladder that fails returns an *OddsError and the
// match's file; any other error, no file.
func Run(ctx context.Context, cfg RunConfig) (File, Result, error) {
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
	lc := LadderConfig{Match: cfg.Match, Base: cfg.Match.B, Multipliers: cfg.Odds, Pairs: cfg.OddsPairs}
	rungs, err := Ladder(ctx, lc, cfg.OnRung)
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
