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

// Ladder climbs the ladder: for each multiplier k, Pairs pairs of Base at k
// times its playouts (as A) against Base, counted by pentanomial pairs as
// in a match. It returns the rungs climbed so far, and ctx's error if
// stopped.
func Ladder(ctx context.Context, cfg LadderConfig, onRung func(Rung)) ([]Rung, error) {
	if cfg.Pairs < 1 {
		return nil, fmt.Errorf("match: ladder: %d pairs a rung: want at least 1", cfg.Pairs)
	}
	for _, k := range cfg.Multipliers {
		if k < 2 {
			return nil, fmt.Errorf("match: ladder: multiplier %d: want at least 2", k)
		}
		if cfg.Base.NewEngine == nil && (cfg.Base.Playouts < 1 || k > mcts.MaxPlayouts/cfg.Base.Playouts) {
			return nil, fmt.Errorf("match: ladder: multiplier %d times %d playouts: want from 1 to %d playouts", k, cfg.Base.Playouts, mcts.MaxPlayouts)
		}
	}
	var rungs []Rung
	for _, k := range cfg.Multipliers {
		mc := cfg.Match
		mc.A, mc.B = cfg.Base, cfg.Base
		mc.A.Playouts = k * cfg.Base.Playouts
		mc.A.Name = fmt.Sprintf("%s-x%d", cfg.Base.Name, k)
		mc.MaxPairs, mc.Played = cfg.Pairs, nil
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
