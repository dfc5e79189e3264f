package match

import (
	"context"
	"fmt"

	"taflab/mcts"
	"taflab/stats"
)

// A playout ladder measures what more search is worth to a player: the
// player at several multiples of its playouts against itself at 1x. Placed
// on it (stats.PlayoutOdds), a candidate's Elo against the player reads as
// playout odds, "the baseline needs 3 times the playouts to score level",
// which means something to a person where "+120 Elo against builtin-200"
// does not, and which stays readable when one side wins nearly every game.

// LadderConfig is a ladder to climb: Base (the reference player of a match,
// say) against itself at each of Multipliers times its playouts, Pairs game
// pairs a rung, on the match's openings and settings (Match's A and B are
// ignored).
type LadderConfig struct {
	Match       Config
	Base        Player
	Multipliers []int // each at least 2
	Pairs       int
}

// Rung is one rung of a climbed ladder.
type Rung struct {
	Multiplier int
	Player     string // the multiplied player's name
	Report     stats.Report
}

// FixedPairs is a test that never decides, for a match of a fixed number
// of pairs (Config.MaxPairs) run through RunSPRT: its bounds are out of
// reach, and its report still gives the Elo and its interval.
var FixedPairs = stats.SPRT{Elo0: 0, Elo1: 1, Alpha: 1e-12, Beta: 1e-12}

// Point returns the rung as stats.PlayoutOdds reads it.
func (r Rung) Point() stats.LadderPoint {
	return stats.LadderPoint{Multiplier: float64(r.Multiplier), Elo: r.Report.Elo, Lo: r.Report.EloLo, Hi: r.Report.EloHi}
}

// LadderError is a ladder that cannot be climbed (LadderConfig.Validate):
// fewer than one pair a rung, a base that does not search (an engine
// program, whose playouts cannot be multiplied), or a multiplier below 2
// or past what a search may have times the base's playouts.
type LadderError struct {
	Pairs      int  // the pairs a rung
	Program    bool // the base is an engine program
	Multiplier int  // the multiplier at fault; 0 for none
	Playouts   int  // the base's playouts
}

func (e *LadderError) Error() string {
	switch {
	case e.Pairs < 1:
		return fmt.Sprintf("match: ladder: %d pairs a rung: want at least 1", e.Pairs)
	case e.Program:
		return "match: ladder: the base is an engine program: a ladder multiplies a search's playouts"
	case e.Multiplier < 2:
		return fmt.Sprintf("match: ladder: multiplier %d: want at least 2", e.Multiplier)
	}
	return fmt.Sprintf("match: ladder: multiplier %d times %d playouts: want from 1 to %d playouts", e.Multiplier, e.Playouts, mcts.MaxPlayouts)
}

// Validate checks that the ladder can be climbed: at least one pair a
// rung, a base that searches, and each multiplier at least 2 and, times
// the base's playouts, at most mcts.MaxPlayouts. Its error is a
// *LadderError. The match settings are checked by the matches of the
// rungs.
func (cfg LadderConfig) Validate() error {
	if cfg.Pairs < 1 {
		return &LadderError{Pairs: cfg.Pairs}
	}
	if cfg.Base.NewProgram != nil && len(cfg.Multipliers) > 0 {
		return &LadderError{Pairs: cfg.Pairs, Program: true}
	}
	for _, k := range cfg.Multipliers {
		if k < 2 || cfg.Base.Playouts < 1 || k > mcts.MaxPlayouts/cfg.Base.Playouts {
			return &LadderError{Pairs: cfg.Pairs, Multiplier: k, Playouts: cfg.Base.Playouts}
		}
	}
	return nil
}

// Ladder climbs the ladder: for each multiplier k, Pairs pairs of Base at k
// times its playouts (as A) against Base, counted by pentanomial pairs as
// in a match. It returns the rungs climbed so far, and ctx's error if
// stopped. A ladder that cannot be climbed (Validate) is an error before
// any game.
func Ladder(ctx context.Context, cfg LadderConfig, onRung func(Rung)) ([]Rung, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var rungs []Rung
	for _, k := range cfg.Multipliers {
		mc := cfg.Match
		mc.A, mc.B = cfg.Base, cfg.Base
		mc.A.Playouts = k * cfg.Base.Playouts
		mc.A.Name = fmt.Sprintf("%s-x%d", cfg.Base.Name, k)
		mc.MaxPairs = cfg.Pairs
		mc.Played, mc.Unfinished, mc.OnMove, mc.OnGameEnd = nil, nil, nil, nil // the match's own run, not the ladder's
		res, err := RunSPRT(ctx, mc, FixedPairs, nil)
		if err != nil {
			return rungs, err
		}
		r := Rung{Multiplier: k, Player: mc.A.Name, Report: res.Report}
		rungs = append(rungs, r)
		if onRung != nil {
			onRung(r)
		}
	}
	return rungs, nil
}

// Odds places a candidate's match report against the ladder's base on the
// ladder.
func Odds(rungs []Rung, candidate stats.Report) (stats.Odds, error) {
	points := make([]stats.LadderPoint, len(rungs))
	for i, r := range rungs {
		points[i] = r.Point()
	}
	return stats.PlayoutOdds(points, candidate.Elo, candidate.EloLo, candidate.EloHi)
}
