package configs

import (
	_ "embed"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"taflab/mcts"
	"taflab/rules"
)

//go:embed selfplay.toml
var selfPlayFile []byte

// The bounds of self-play's parallelism, for config keys and flags alike.
const (
	// MaxWorkers is the most self-play workers (workers; 0 is one per
	// core): each is a goroutine with evaluators of its own.
	MaxWorkers = 256
	// MaxGamesPerWorker is the most games a worker plays at once
	// (games_per_worker): each holds a search tree.
	MaxGamesPerWorker = 1024
	// MinMemoryBytes and MaxMemoryBytes bound memory_bytes, the memory the
	// games in play share: 16 MiB and 1 TiB.
	MinMemoryBytes = 16 << 20
	MaxMemoryBytes = 1 << 40
)

// MinGameBytes returns the least share of memory_bytes a game at once
// needs: its two tree arenas' first chunks (56 KiB) and a round's leaves
// (search.RoundBytes), and some 450 plies of its positions (about 1 KB a
// ply): 512 KiB and the round's bytes.
func MinGameBytes(search mcts.Config) int64 { return 512<<10 + search.RoundBytes() }

// CheckGamesAtOnce reports whether workers x gamesPerWorker games at once
// fit in memory bytes (MinGameBytes each), naming the keys of table ("" or
// "selfplay.") when they do not. workers is the resolved count (not 0).
func CheckGamesAtOnce(table string, workers, gamesPerWorker int, memory int64, search mcts.Config) error {
	n := int64(workers) * int64(gamesPerWorker)
	if need := n * MinGameBytes(search); need > memory {
		return keyError(table+"memory_bytes", memory, fmt.Sprintf("want at least %d: %d workers x %d games_per_worker = %d games at once, each %d bytes at least: raise it, or play fewer games at once",
			need, workers, gamesPerWorker, n, MinGameBytes(search)))
	}
	return nil
}

// SelfPlay is a self-play run's configuration. The toml tags are the keys of
// selfplay.toml, which documents each one; DefaultSelfPlay returns its values.
type SelfPlay struct {
	// Variant names an embedded rule set or a rule-set file. Default
	// "copenhagen".
	Variant string `toml:"variant"`
	// SelfPlayGames: the games (default 24), the workers and the games
	// each plays at once (default 8), the mix and the search settings.
	SelfPlayGames
	// Seed fixes every random choice of the run. Default 1.
	Seed uint64 `toml:"seed"`
	// Out is the dataset folder. Default "data/selfplay".
	Out string `toml:"out"`
	// ShardGames is the number of finished games per shard file. Default 16.
	ShardGames int `toml:"shard_games"`
	// ShardSeconds bounds the time between shards, in seconds. Default 30.
	ShardSeconds float64 `toml:"shard_seconds"`
	// Net is the network file to evaluate with; "" means the built-in
	// heuristic evaluator. Default "".
	Net string `toml:"net"`
	// NetPlanes names a rule set whose rule-set planes the network sees
	// instead of the played one's (net.Inference.PlanesOf): a network that
	// learnt another rule set, from game records say, making the first
	// self-play of this one. "" for the played rule set's. Default "".
	NetPlanes string `toml:"net_planes"`
}

// SelfPlayGames are the games self-play plays and how: the keys a
// self-play run (selfplay.toml) and the loop's self-play stage ([selfplay]
// of loop.toml) share.
type SelfPlayGames struct {
	// Games is the number of games.
	Games int `toml:"games"`
	// Workers is the number of worker goroutines; 0 means one per core.
	Workers int `toml:"workers"`
	// GamesPerWorker is the number of games a worker plays at once.
	GamesPerWorker int `toml:"games_per_worker"`
	// MemoryBytes is the memory the games in play share, in bytes: their
	// search trees (each at most Search.TreeBytes, and together within
	// this) and their positions until a shard holds them
	// (mcts.Budget). A search that finds it full ends with the playouts
	// it has. Default 1 GiB; from MinMemoryBytes to MaxMemoryBytes, and at
	// least MinGameBytes for each game at once (workers x
	// games_per_worker).
	MemoryBytes int64 `toml:"memory_bytes"`
	// Mix says where games start and which give one side odds.
	Mix GameMix `toml:"mix"`
	// Search holds the search settings.
	Search mcts.Config `toml:"search"`
}

// keyError is the error of a key out of range: "KEY = VALUE: WANT", to
// which parseOver or Validate adds the package prefix.
func keyError(key string, value any, want string) error {
	return fmt.Errorf("%s = %v: %s", key, value, want)
}

// validate reports every key out of range; table is the keys' table in
// the errors: "" for a self-play run's, "selfplay." for the loop's.
func (g *SelfPlayGames) validate(table string) (errs []error) {
	if g.Games < 1 {
		errs = append(errs, keyError(table+"games", g.Games, "want at least 1"))
	}
	if g.Workers < 0 || g.Workers > MaxWorkers {
		errs = append(errs, keyError(table+"workers", g.Workers, fmt.Sprintf("want 0 (one per core) to %d", MaxWorkers)))
	}
	if g.GamesPerWorker < 1 || g.GamesPerWorker > MaxGamesPerWorker {
		errs = append(errs, keyError(table+"games_per_worker", g.GamesPerWorker, fmt.Sprintf("want from 1 to %d", MaxGamesPerWorker)))
	}
	switch {
	case g.MemoryBytes < MinMemoryBytes || g.MemoryBytes > MaxMemoryBytes:
		errs = append(errs, keyError(table+"memory_bytes", g.MemoryBytes, fmt.Sprintf("want from %d to %d bytes", int64(MinMemoryBytes), int64(MaxMemoryBytes))))
	case g.Workers >= 1 && g.GamesPerWorker >= 1 && g.GamesPerWorker <= MaxGamesPerWorker && g.Workers <= MaxWorkers:
		if err := CheckGamesAtOnce(table, g.Workers, g.GamesPerWorker, g.MemoryBytes, g.Search); err != nil {
			errs = append(errs, err) // with workers = 0, the run checks the cores' count
		}
	}
	if err := errors.Join(g.Mix.check(), g.Mix.checkPlayouts(g.Search.Playouts)); err != nil {
		if table != "" {
			err = fmt.Errorf("[%s]: %w", strings.TrimSuffix(table, "."), err)
		}
		errs = append(errs, err)
	}
	return append(errs, inTable(table+"search", g.Search.Validate())...)
}

// GameMix says where self-play games start and which give one side more
// playouts than the other. Games from the rule set's start with equal
// playouts are what balance figures are made of; the others are for
// learning: starts from an opening suite show the network positions its
// own play rarely reaches (Go-Exploit), and odds give the side that loses
// most self-play games some wins to learn from (KataGo's asymmetric
// playouts). Every game's choice comes from its seed.
type GameMix struct {
	// SuiteShare is the share of games, 0 to 1, that start from a position
	// of the opening suite (one drawn at random). Default 0.
	SuiteShare float64 `toml:"suite_share"`
	// Suite is an opening-suite file; "" means the rule set's own
	// (configs/openings/NAME.txt). Default "".
	Suite string `toml:"suite"`
	// OddsShare is the share of games, 0 to 1, in which the Favoured side
	// has Odds times the playouts of the other. Default 0.
	OddsShare float64 `toml:"odds_share"`
	// Odds is the playout ratio of those games, at least 2. Default 4.
	Odds int `toml:"odds"`
	// Favoured is the side with more playouts: "attackers", "defenders",
	// or "either" (drawn for each game). Default "attackers".
	Favoured string `toml:"favoured"`
}

// Game sets up game index of a run from its seed under the mix: whether a
// side has odds, and suiteIndex, the suite position (of suiteLen) the game
// starts from, or -1 for the rule set's start; the caller puts that
// position in spec.Start. The draws are the same whatever the shares, so a
// game's set-up depends on its seed and the mix alone, in every program
// that plays the run's games.
func (m GameMix) Game(index int, seed uint64, suiteLen int) (spec mcts.GameSpec, suiteIndex int) {
	spec = mcts.GameSpec{Index: index, Seed: seed}
	rng := rand.New(rand.NewPCG(seed, 0x313c))
	fromSuite, pick := rng.Float64() < m.SuiteShare, rng.IntN(max(suiteLen, 1))
	odds, coin := rng.Float64() < m.OddsShare, rng.IntN(2)
	suiteIndex = -1
	if fromSuite && suiteLen > 0 {
		suiteIndex = pick
	}
	if odds {
		spec.Odds, spec.Favoured = m.Odds, rules.Attackers
		if m.Favoured == "defenders" || m.Favoured == "either" && coin == 1 {
			spec.Favoured = rules.Defenders
		}
	}
	return spec, suiteIndex
}

// Validate reports every key out of range.
func (m GameMix) Validate() error { return prefixed(m.check()) }

// check is Validate without the package prefix.
func (m GameMix) check() error {
	var errs []error
	bad := func(key string, value any, want string) {
		errs = append(errs, keyError("mix."+key, value, want))
	}
	if !(m.SuiteShare >= 0 && m.SuiteShare <= 1) {
		bad("suite_share", m.SuiteShare, "want 0 to 1")
	}
	if !(m.OddsShare >= 0 && m.OddsShare <= 1) {
		bad("odds_share", m.OddsShare, "want 0 to 1")
	}
	if m.Odds < 2 || m.Odds > 1024 {
		bad("odds", m.Odds, "want from 2 to 1024")
	}
	if m.Favoured != "attackers" && m.Favoured != "defenders" && m.Favoured != "either" {
		bad("favoured", fmt.Sprintf("%q", m.Favoured), `want "attackers", "defenders" or "either"`)
	}
	return errors.Join(errs...)
}

// CheckPlayouts reports whether games with odds can be given with full
// searches of playouts: the weaker side's budget must be exactly
// playouts/Odds, since a game's kind is read back from the two sides'
// budgets (a rounded one would read as other odds).
func (m GameMix) CheckPlayouts(playouts int) error { return prefixed(m.checkPlayouts(playouts)) }

// checkPlayouts is CheckPlayouts without the package prefix.
func (m GameMix) checkPlayouts(playouts int) error {
	if m.OddsShare > 0 && playouts%m.Odds != 0 {
		return fmt.Errorf("mix.odds = %d: want a divisor of the playouts (%d), so that the weaker side gets exactly 1/%d of them", m.Odds, playouts, m.Odds)
	}
	return nil
}

// DefaultSelfPlay returns the embedded self-play configuration.
func DefaultSelfPlay() SelfPlay {
	c, err := parseOver("selfplay.toml (embedded)", selfPlayFile, SelfPlay{SelfPlayGames: SelfPlayGames{Search: mcts.DefaultConfig(), Mix: DefaultGameMix()}})
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return c
}

// DefaultGameMix returns the mix that plays every game from the rule set's
// start with equal playouts.
func DefaultGameMix() GameMix {
	return GameMix{Odds: 4, Favoured: "attackers"}
}

// SelfPlayFile returns the embedded configuration file, for users to copy.
func SelfPlayFile() []byte { return selfPlayFile }

// ParseSelfPlay reads a self-play configuration file over the embedded one:
// keys the file leaves out keep their embedded values. Unknown keys, values
// of the wrong type and values out of range are refused, naming the key and
// file.
func ParseSelfPlay(file string, data []byte) (SelfPlay, error) {
	return parseOver(file, data, DefaultSelfPlay())
}

// Validate reports every key out of range.
func (c *SelfPlay) Validate() error { return prefixed(c.check()) }

// check is Validate without the package prefix.
func (c *SelfPlay) check() error {
	var errs []error
	bad := func(key string, value any, want string) {
		errs = append(errs, keyError(key, value, want))
	}
	if c.Variant == "" {
		bad("variant", `""`, "name a rule set")
	}
	errs = append(errs, c.SelfPlayGames.validate("")...)
	if c.Out == "" {
		bad("out", `""`, "name a folder")
	}
	if c.ShardGames < 1 {
		bad("shard_games", c.ShardGames, "want at least 1")
	}
	if c.ShardSeconds <= 0 {
		bad("shard_seconds", c.ShardSeconds, "want more than 0")
	}
	return errors.Join(errs...)
}
