// Package adapt fits taflab to a rule set of a designer's own: it starts
// from the shipped network whose rule set is nearest (the fewest keys of
// the rule-set file differ), adapts it by self-play (a training loop from
// it, loop.Run, with the network shown the new rule set's input planes),
// and measures the rule set's balance at strength with the adapted network
// (balance.Run), beside the nearest shipped rule set played by its own
// network. Everything is kept in one folder, and a run stopped anywhere
// carries on from it. Its main use is
//
//	v, err := configs.LoadVariant("my-variant.toml")
//	cfg := adapt.DefaultConfig()
//	cfg.Variant, cfg.VariantArg = v, "my-variant.toml"
//	cfg.Networks = player.ShippedNetworks()
//	rep, err := adapt.Run(ctx, "runs/my-variant", cfg, adapt.Options{Log: os.Stdout})
//	fmt.Print(rep.Markdown())
package adapt

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"taflab/balance"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// The files of an adaptation's folder.
const (
	PlanFile    = "adapt.json"          // what the run adapts, from what: decided once (Plan)
	RulesFile   = "rules.toml"          // a copy of the rule-set file, when a file named it
	StartFile   = "start.safetensors"   // a copy of the network it starts from
	LoopDir     = "loop"                // the training loop's run folder
	NetworkFile = "network.safetensors" // the adapted network: the loop's best
	BalanceDir  = "balance"             // the balance study's folder (balance.WriteFiles)
	ReportFile  = "report.md"           // the report (Report.Markdown)
	ReportJSON  = "report.json"         // the same figures
)

// Config is an adaptation's settings.
type Config struct {
	// Variant is the rule set to adapt to: of the network's board
	// (11x11). VariantArg is how the user named it (an embedded name,
	// otr:RULES, or a rule-set file, which the run copies as RulesFile).
	Variant    *rules.Variant
	VariantArg string
	// From is the network file to start from; "" for the nearest rule
	// set's of Networks.
	From string
	// Networks are the shipped networks by rule-set name
	// (player.ShippedNetworks): the candidates to start from, and the
	// nearest rule set's player in the balance study.
	Networks map[string]string
	// LoopText is the training loop's configuration (configs.AdaptLoopFile
	// when nil, or a run's own loop.toml when it has one), LoopName names
	// it in messages. The run sets its variant and train.init.
	LoopText []byte
	LoopName string
	// Generations, if above 0, replaces the loop config's generations (a
	// run carried on to more).
	Generations int
	// Strengths are the balance study's playouts a move, one run each, in
	// order. Default 100 and 400.
	Strengths []int
	// Games is the most games of a balance run; 0 skips the study. Width,
	// MinGames and Confidence are balance's (balance.Config). Default 400
	// games, intervals 0.1 wide (95%) after at least 50 games.
	Games      int
	Width      float64
	MinGames   int
	Confidence float64
	// Compare also plays the nearest shipped rule set, with its own
	// network, in the balance study, so that the report tests whether the
	// new rule set balances otherwise. Default true.
	Compare bool
	// Seed seeds the balance study's games. Default 1.
	Seed uint64
}

// DefaultConfig returns the defaults: the embedded adapt.toml's loop, a
// study at 100 and 400 playouts of up to 400 games a run stopping at
// intervals 0.1 wide, beside the nearest shipped rule set.
func DefaultConfig() Config {
	b := balance.DefaultConfig()
	return Config{Strengths: []int{100, 400}, Games: 400, Width: 0.1, MinGames: b.MinGames, Confidence: b.Confidence,
		Compare: true, Seed: 1}
}

// Validate checks the settings, without reading files.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("adapt: "+format, a...)) }
	if c.Variant == nil {
		bad("no Variant to adapt to")
	} else if c.Variant.Size() != net.BoardSize {
		bad("rule set %s is played on %dx%d boards, and the networks play %dx%d: none can be adapted to it",
			c.Variant.Name(), c.Variant.Size(), c.Variant.Size(), net.BoardSize, net.BoardSize)
	}
	if c.Generations < 0 || c.Games < 0 {
		bad("Generations %d, Games %d: want 0 or more", c.Generations, c.Games)
	}
	if c.Games > 0 {
		if len(c.Strengths) == 0 {
			bad("no Strengths for the balance study")
		}
		for i, n := range c.Strengths {
			if mcts.CheckPlayouts(n) != nil || slices.Contains(c.Strengths[:i], n) {
				bad("Strengths %v: %d is not a playout budget from 1 to %d given once", c.Strengths, n, mcts.MaxPlayouts)
			}
		}
		if err := c.balanceConfig(nil, "").Validate(); err != nil {
			errs = append(errs, errctx.Key("adapt", "balance", err))
		}
	}
	return errors.Join(errs...)
}

// Nearest returns the rule set of networks whose rules are nearest v's:
// the fewest keys of the rule-set file differ (the name aside), the
// shipped rule sets' order breaking ties; and those keys. Only shipped
// rule sets of v's board size count; "" when there is none.
func Nearest(v *rules.Variant, networks map[string]string) (string, []string) {
	best, bestKeys := "", []string(nil)
	for _, name := range variants.Names() {
		if networks[name] == "" {
			continue
		}
		s := variants.MustLoad(name)
		if s.Size() != v.Size() {
			continue
		}
		keys := slices.DeleteFunc(variants.KeysDiffering(v.Definition(), s.Definition()), func(k string) bool { return k == "name" })
		if best == "" || len(keys) < len(bestKeys) {
			best, bestKeys = name, keys
		}
	}
	return best, bestKeys
}

// Options are what a caller adds to a run.
type Options struct {
	// Log receives a line per step, and the training loop's lines; nil
	// discards.
	Log io.Writer
	// BalanceProgress, if set, hears of the balance study's games
	// (balance.Config.Progress).
	BalanceProgress func(balance.Progress)
}

// loopConfigName names the embedded loop configuration in messages.
const loopConfigName = "adapt.toml (embedded)"

// defaultLoopText is the loop configuration when none is given.
func defaultLoopText() ([]byte, string) { return configs.AdaptLoopFile(), loopConfigName }
