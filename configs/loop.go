package configs

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"taflab/mcts"
	"taflab/net"
	"taflab/stats"
)

//go:embed loop.toml
var loopFile []byte

//go:embed tiny.toml
var tinyFile []byte

//go:embed adapt.toml
var adaptFile []byte

// Loop is the training loop's configuration: loop.toml documents every key;
// DefaultLoop returns its values.
type Loop struct {
	// Variant names an embedded rule set or a rule-set file.
	Variant string `toml:"variant"`
	// Generations is the number of generations to reach.
	Generations int `toml:"generations"`
	// Seed fixes every random choice of the run.
	Seed uint64 `toml:"seed"`

	SelfPlay LoopSelfPlay `toml:"selfplay"`
	Train    LoopTrain    `toml:"train"`
	Gate     LoopGate     `toml:"gate"`
	Baseline LoopBaseline `toml:"baseline"`
}

// LoopSelfPlay is the self-play stage of a generation.
type LoopSelfPlay struct {
	// SelfPlayGames are its games (Games: per generation), as a self-play
	// run's.
	SelfPlayGames
	// External leaves a generation's games to followers (selfplay -follow
	// RUN, on any machines that share the run folder): the loop waits until
	// the data folder holds Games new games of the current best network.
	// Default false: the loop plays them in its own process.
	External bool `toml:"external"`
}

// LoopTrain is the training stage of a generation.
type LoopTrain struct {
	// Training is its training (Steps: per generation), as a training
	// run's.
	Training
	FromBest bool `toml:"from_best"` // start each candidate from the best network
	// FromLast starts each candidate from the last generation's candidate,
	// promoted or not, so that training goes on across generations (as in
	// KataGo and Leela Chess Zero, where the gate only picks the network
	// that plays); the first candidate starts as FromBest says.
	FromLast bool `toml:"from_last"`
	// PretrainSteps trains a generation-0 network on the records alone
	// before the first generation, from which the first candidate starts
	// and which plays the first self-play (shown the planes of the records'
	// rule set where the run plays another); 0: none.
	PretrainSteps int `toml:"pretrain_steps"`
	// Init is a network file that is generation 0 (the shipped
	// networks/copenhagen.safetensors, say), read from the loop's working
	// folder once, when the run starts: the best network from the start,
	// so that it plays the first self-play, the first candidate trains
	// from it and every gate plays it until a candidate beats it. A
	// network whose file names another rule set's planes than the run's
	// adopts the run's (net.Network.AdoptPlanes): shown them, it plays as
	// it did shown its own. With PretrainSteps it first trains that many
	// steps on the records. "": none (generation 0 from the records, if
	// any; else the network-free searcher is the first best).
	Init string `toml:"init"`
}

// LoopGate is the gating match of a generation.
type LoopGate struct {
	MaxGames     int     `toml:"max_games"`
	Elo0         float64 `toml:"elo0"`
	Elo1         float64 `toml:"elo1"`
	Alpha        float64 `toml:"alpha"`
	Beta         float64 `toml:"beta"`
	Playouts     int     `toml:"playouts"`
	Openings     string  `toml:"openings"`      // "suite", "suite:NAME", "random" or a suite file (openings.Openings)
	OpeningPlies int     `toml:"opening_plies"` // moves of a random opening
}

// SPRT returns the gate's test.
func (g LoopGate) SPRT() stats.SPRT {
	return stats.SPRT{Elo0: g.Elo0, Elo1: g.Elo1, Alpha: g.Alpha, Beta: g.Beta}
}

// LoopBaseline is the rating match of each generation against the
// network-free searcher.
type LoopBaseline struct {
	Games    int `toml:"games"` // 0: no rating matches
	Playouts int `toml:"playouts"`
	// Opponent is whom each generation's network plays in its rating
	// games, and whose playout ladder is climbed: "builtin", the
	// network-free searcher at Playouts (default), or "start", generation
	// 0's network at Playouts (train.init, or the records' network), so
	// that a run from a strong network rates every generation against
	// where it started. The run's ratings are anchored at it.
	Opponent string `toml:"opponent"`
	// Odds are the multipliers of the baseline's playout ladder, climbed
	// once per run, on which each generation's rating reads as playout
	// odds; empty: none.
	// At most MaxOddsRungs.
	Odds      []int `toml:"odds"`
	OddsPairs int   `toml:"odds_pairs"` // game pairs per rung
	// Outside are other programs' players (OpenTafl's AI, say) that
	// every generation's network plays at the baseline's playouts, so
	// that the run's ratings place the generations against them; empty:
	// none. They need baseline games, whose opponent anchors the ratings.
	Outside []LoopOutside `toml:"outside"`
}

// LoopOutside is one player of LoopBaseline.Outside.
type LoopOutside struct {
	// Player is a match player's spec (player.ParseSpec), such as
	// `otep:cmd=opentafl-engine,clock=off,name=opentafl`;
	// its name names its match folder (gen-NNN/outside/NAME) and its row
	// in the ratings, so the players' names must differ.
	Player string `toml:"player"`
	// Games per generation, in pairs on the gate's openings, each opening
	// played with either side: an even number, at least 2.
	Games int `toml:"games"`
	// Variant is the rule set of these games, as the run's variant key
	// reads it: an OpenTafl rules string ("otr:...") so that OpenTafl
	// referees its games as taflab does; "" for the run's own.
	Variant string `toml:"variant"`
}

func zeroLoop() Loop {
	var c Loop
	c.SelfPlay.Search = mcts.DefaultConfig()
	c.SelfPlay.Mix = DefaultGameMix()
	c.Gate.Openings = "suite"
	c.Baseline.Opponent = BaselineBuiltin
	c.Train.Network = net.DefaultConfig()
	c.Train.Optimizer = net.DefaultTrainConfig()
	return c
}

// DefaultLoop returns the embedded loop configuration (loop.toml).
func DefaultLoop() Loop {
	c, err := parseOver("loop.toml (embedded)", loopFile, zeroLoop())
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return c
}

// LoopFile returns the embedded loop.toml; TinyLoopFile the embedded
// tiny.toml (the end-to-end test's configuration).
func LoopFile() []byte { return loopFile }

// TinyLoopFile returns the embedded tiny.toml.
func TinyLoopFile() []byte { return tinyFile }

// AdaptLoopFile returns the embedded adapt.toml: the training loop of
// train adapt, which sets its variant and train.init.
func AdaptLoopFile() []byte { return adaptFile }

// ParseLoop reads a loop configuration file over the embedded one: keys the
// file leaves out keep their embedded values. Unknown keys, values of the
// wrong type and values out of range are refused, naming the key and file.
func ParseLoop(file string, data []byte) (Loop, error) {
	return parseOver(file, data, DefaultLoop())
}

// Validate reports every key out of range.
func (c *Loop) Validate() error { return prefixed(c.check()) }

// check is Validate without the package prefix.
func (c *Loop) check() error {
	var errs []error
	bad := func(key string, value any, want string) {
		errs = append(errs, keyError(key, value, want))
	}
	if c.Variant == "" {
		bad("variant", `""`, "name a rule set")
	}
	if c.Generations < 1 {
		bad("generations", c.Generations, "want at least 1")
	}
	errs = append(errs, c.SelfPlay.validate("selfplay.")...)
	if c.Train.Steps < 1 {
		bad("train.steps", c.Train.Steps, "want at least 1")
	}
	errs = append(errs, c.Train.validate("train.")...)
	if c.Gate.MaxGames < 2 {
		bad("gate.max_games", c.Gate.MaxGames, "want at least 2 (one pair)")
	}
	errs = append(errs, inTable("gate", c.Gate.SPRT().Validate())...)
	if mcts.CheckPlayouts(c.Gate.Playouts) != nil {
		bad("gate.playouts", c.Gate.Playouts, playoutRange)
	}
	if c.Gate.OpeningPlies < 0 || c.Gate.OpeningPlies > MaxOpeningPlies {
		bad("gate.opening_plies", c.Gate.OpeningPlies, fmt.Sprintf("want from 0 to %d", MaxOpeningPlies))
	}
	if c.Train.PretrainSteps < 0 || c.Train.PretrainSteps > 0 && !c.Train.Records.Enabled() {
		bad("train.pretrain_steps", c.Train.PretrainSteps, "want 0, or more with [train.records] file and share set")
	}
	switch c.Baseline.Opponent {
	case BaselineBuiltin:
	case BaselineStart:
		if c.Train.Init == "" && (c.Train.PretrainSteps == 0 || c.Train.Records.Optional) {
			bad("baseline.opponent", strconv.Quote(c.Baseline.Opponent), "want a generation 0: train.init, or train.pretrain_steps with records that are not optional")
		}
	default:
		bad("baseline.opponent", strconv.Quote(c.Baseline.Opponent), fmt.Sprintf("want %q or %q", BaselineBuiltin, BaselineStart))
	}
	if c.Gate.Openings == "" {
		bad("gate.openings", `""`, `want "suite", "random" or a suite file`)
	}
	seen := map[int]bool{}
	if n := len(c.Baseline.Odds); n > MaxOddsRungs {
		bad("baseline.odds", fmt.Sprintf("[%d multipliers]", n), fmt.Sprintf("want at most %d rungs", MaxOddsRungs))
	}
	for i, k := range c.Baseline.Odds[:min(len(c.Baseline.Odds), MaxOddsRungs)] {
		// The entry is named, not the list: a list of thousands made an
		// error of hundreds of KB.
		if k < 2 || seen[k] {
			bad(fmt.Sprintf("baseline.odds[%d]", i), k, "want distinct multipliers of at least 2")
			break
		}
		if c.Baseline.Playouts >= 1 && k > mcts.MaxPlayouts/c.Baseline.Playouts {
			bad(fmt.Sprintf("baseline.odds[%d]", i), k, fmt.Sprintf("want multipliers that keep baseline.playouts (%d) times each within %d playouts", c.Baseline.Playouts, mcts.MaxPlayouts))
			break
		}
		seen[k] = true
	}
	if len(c.Baseline.Odds) > 0 && c.Baseline.OddsPairs < 1 {
		bad("baseline.odds_pairs", c.Baseline.OddsPairs, "want at least 1")
	}
	if c.Baseline.Games < 0 || c.Baseline.Games == 1 {
		bad("baseline.games", c.Baseline.Games, "want 0 or at least 2 games")
	}
	if mcts.CheckPlayouts(c.Baseline.Playouts) != nil {
		bad("baseline.playouts", c.Baseline.Playouts, playoutRange)
	}
	for i, o := range c.Baseline.Outside {
		key := fmt.Sprintf("baseline.outside[%d].", i)
		if strings.TrimSpace(o.Player) == "" {
			bad(key+"player", strconv.Quote(o.Player), "want a player spec, such as otep:cmd=PROGRAM,name=NAME")
		}
		if o.Games < 2 || o.Games%2 != 0 {
			bad(key+"games", o.Games, "want an even number, at least 2 (pairs of games)")
		}
	}
	if len(c.Baseline.Outside) > 0 && c.Baseline.Games == 0 {
		bad("baseline.games", 0, "want at least 2 with baseline.outside: the baseline's searcher anchors the ratings that place the outside players")
	}
	return errors.Join(errs...)
}

// The values of baseline.opponent (LoopBaseline.Opponent).
const (
	BaselineBuiltin = "builtin" // the network-free searcher
	BaselineStart   = "start"   // generation 0's network
)

// MaxOpeningPlies is the most moves of a random opening (gate.opening_plies),
// the one bound of a random opening: openings.MaxBookPlies is this.
const MaxOpeningPlies = 100

// MaxOddsRungs bounds a playout ladder's rungs (baseline.odds, eval match
// -odds): each is a match, and 32 doublings pass mcts.MaxPlayouts.
const MaxOddsRungs = 32

// playoutRange is what a playouts key wants.
var playoutRange = fmt.Sprintf("want from 1 to %d (mcts.MaxPlayouts)", mcts.MaxPlayouts)
