package adapt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"taflab/balance"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/tomlbound"
	"taflab/loop"
	"taflab/net"
	"taflab/player"
	"taflab/rules"
)

// Plan is what a run adapts, and from what: decided as it starts, kept in
// its folder (PlanFile) and held to when it carries on.
type Plan struct {
	Variant    string           `json:"variant"`     // the rule set's name
	VariantArg string           `json:"variant_arg"` // as the user named it
	Rules      rules.Definition `json:"rules"`
	// Nearest is the shipped rule set nearest the rules (Nearest), ""
	// when none has a network; Differences the keys the rules differ from
	// it in.
	Nearest     string   `json:"nearest"`
	Differences []string `json:"differences"`
	// From is the network the run starts from, as given or found, and
	// FromHash its hash (net.Network.Hash); StartFile is its copy.
	From     string    `json:"from"`
	FromHash string    `json:"from_hash"`
	Started  time.Time `json:"started"`
	// Study is the balance study's settings as the run last used them,
	// which a run carried on takes unless told otherwise.
	Study Study `json:"study"`
}

// Study is the settings of an adaptation's balance study (Config's).
type Study struct {
	Strengths  []int   `json:"strengths"`
	Games      int     `json:"games"`
	Width      float64 `json:"width"`
	MinGames   int     `json:"min_games"`
	Confidence float64 `json:"confidence"`
	Compare    bool    `json:"compare"`
	Seed       uint64  `json:"seed"`
}

// Study returns the config's study settings.
func (c Config) Study() Study {
	return Study{Strengths: slices.Clone(c.Strengths), Games: c.Games, Width: c.Width, MinGames: c.MinGames, Confidence: c.Confidence,
		Compare: c.Compare, Seed: c.Seed}
}

// WithStudy returns the config with the study settings s.
func (c Config) WithStudy(s Study) Config {
	c.Strengths, c.Games, c.Width, c.MinGames, c.Confidence, c.Compare, c.Seed = slices.Clone(s.Strengths), s.Games, s.Width, s.MinGames,
		s.Confidence, s.Compare, s.Seed
	return c
}

// ReadPlan reads the plan of the run in folder dir (PlanFile).
func ReadPlan(dir string) (Plan, error) {
	path := filepath.Join(dir, PlanFile)
	var plan Plan
	data, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "a plan")
	if err != nil {
		return plan, fmt.Errorf("adapt: %w", err)
	}
	if err := json.Unmarshal(data, &plan); err != nil {
		return plan, fmt.Errorf("adapt: %s: %w", path, err)
	}
	return plan, nil
}

// Run adapts a network to cfg.Variant in folder dir and measures the
// rule set's balance with it, carrying on where an earlier run in dir
// stopped: the training loop (LoopDir) from its last finished stage, the
// balance study (BalanceDir) from its journal. It writes the report
// (ReportFile, ReportJSON) and returns it; stopped, it returns ctx's error
// with everything finished kept. A run that dir holds for other rules or
// another start network is refused.
func Run(ctx context.Context, dir string, cfg Config, opt Options) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	if nearest, _ := Nearest(cfg.Variant, cfg.Networks); nearest == "" && cfg.From == "" && !isFile(filepath.Join(dir, PlanFile)) {
		return Report{}, fmt.Errorf("adapt: no network to start from: no shipped network of a %dx%d rule set found (networks/NAME.safetensors), and no From",
			cfg.Variant.Size(), cfg.Variant.Size())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Report{}, fmt.Errorf("adapt: %w", err)
	}
	lock, err := fileio.LockDir(dir, "train adapt")
	if err != nil {
		return Report{}, fmt.Errorf("adapt: %w", err)
	}
	defer lock.Unlock()
	plan, err := setUp(dir, cfg)
	if err != nil {
		return Report{}, err
	}
	fmt.Fprintf(log, "adapt: %s from %s (net-%s); nearest shipped rule set %s, differing in %v\n",
		plan.Variant, plan.From, plan.FromHash, orNone(plan.Nearest), plan.Differences)
	lcfg, err := runLoop(ctx, dir, cfg, log)
	if err != nil {
		return Report{}, err
	}
	if err := keepBest(dir); err != nil {
		return Report{}, err
	}
	rep := Report{Dir: dir, Plan: plan}
	if rep.Generations, _, err = loop.Summarize(filepath.Join(dir, LoopDir), lcfg); err != nil {
		return rep, err
	}
	if cfg.Games > 0 {
		fmt.Fprintf(log, "adapt: the balance of %s at %v playouts a move, into %s\n", plan.Variant, cfg.Strengths, filepath.Join(dir, BalanceDir))
		b, err := runBalance(ctx, dir, cfg, plan, opt.BalanceProgress)
		rep.Balance = &b
		if err != nil {
			return rep, errors.Join(err, rep.write(dir))
		}
	}
	rep.fill(dir)
	return rep, rep.write(dir)
}

// orNone is name, or "none".
func orNone(name string) string {
	if name == "" {
		return "none"
	}
	return name
}

// setUp decides the run's plan once (PlanFile), copying the rule-set file
// and the start network into dir; a run that has one is held to it.
func setUp(dir string, cfg Config) (Plan, error) {
	path := filepath.Join(dir, PlanFile)
	plan, err := ReadPlan(dir)
	if err == nil {
		if err := checkPlan(path, plan, cfg); err != nil {
			return plan, err
		}
		if !reflect.DeepEqual(plan.Study, cfg.Study()) {
			plan.Study = cfg.Study()
			if err := fileio.WriteJSON(path, plan); err != nil {
				return plan, fmt.Errorf("adapt: %w", err)
			}
		}
		return plan, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return plan, err
	}
	v := cfg.Variant
	plan = Plan{Variant: v.Name(), VariantArg: cfg.VariantArg, Rules: v.Definition(), From: cfg.From, Started: time.Now().UTC(), Study: cfg.Study()}
	plan.Nearest, plan.Differences = Nearest(v, cfg.Networks)
	if plan.From == "" {
		plan.From = cfg.Networks[plan.Nearest] // Run checked there is one
	}
	n, _, err := net.Load(plan.From)
	if err != nil {
		return plan, errctx.Key("adapt", "the network to start from", err)
	}
	plan.FromHash = n.Hash()
	if err := copyFile(plan.From, filepath.Join(dir, StartFile)); err != nil {
		return plan, err
	}
	if isFile(cfg.VariantArg) {
		if err := copyFile(cfg.VariantArg, filepath.Join(dir, RulesFile)); err != nil {
			return plan, err
		}
	}
	if err := fileio.WriteJSON(path, plan); err != nil {
		return plan, fmt.Errorf("adapt: %w", err)
	}
	return plan, nil
}

// checkPlan refuses to carry a run on with other rules or another start
// network than its plan's.
func checkPlan(path string, plan Plan, cfg Config) error {
	if keys := variants.KeysDiffering(plan.Rules, cfg.Variant.Definition()); len(keys) > 0 {
		return fmt.Errorf("adapt: %s: this run adapts to %s, whose rules differ from those given in %v: give the new rules another folder", path, plan.Variant, keys)
	}
	if cfg.From != "" {
		n, _, err := net.Load(cfg.From)
		if err != nil {
			return errctx.Key("adapt", "the network to start from", err)
		}
		if n.Hash() != plan.FromHash {
			return fmt.Errorf("adapt: %s: this run started from %s (net-%s), not %s (net-%s): give another start another folder", path, plan.From, plan.FromHash, cfg.From, n.Hash())
		}
	}
	return nil
}

// runLoop runs (or carries on) the training loop in dir's LoopDir and
// returns its config.
func runLoop(ctx context.Context, dir string, cfg Config, log io.Writer) (configs.Loop, error) {
	text, name, err := loopText(dir, cfg)
	if err != nil {
		return configs.Loop{}, err
	}
	lcfg, err := configs.ParseLoop(name, text)
	if err != nil {
		return lcfg, errctx.Key("adapt", "the loop's config", err)
	}
	if cfg.Generations > 0 {
		lcfg.Generations = cfg.Generations
	}
	fmt.Fprintf(log, "adapt: self-play adapts the network, %d generations into %s\n", lcfg.Generations, filepath.Join(dir, LoopDir))
	err = loop.Run(ctx, filepath.Join(dir, LoopDir), lcfg, text, loop.Options{Log: log, ConfigName: name})
	return lcfg, err
}

// loopText is the run's loop configuration and its name: cfg.LoopText
// with the run's variant and start network set; without one, the loop's
// own (a run carried on), else the embedded adapt.toml.
func loopText(dir string, cfg Config) ([]byte, string, error) {
	text, name := cfg.LoopText, cfg.LoopName
	if text == nil {
		own := filepath.Join(dir, LoopDir, loop.ConfigFile)
		data, err := fileio.ReadFileLimit(own, tomlbound.MaxBytes, "a TOML file")
		if err == nil {
			return data, own, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, "", fmt.Errorf("adapt: %w", err)
		}
		text, name = defaultLoopText()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", fmt.Errorf("adapt: %w", err)
	}
	variant := cfg.VariantArg
	if isFile(filepath.Join(dir, RulesFile)) {
		variant = filepath.Join(abs, RulesFile)
	}
	if text, err = setKey(text, "", "variant", variant); err == nil {
		text, err = setKey(text, "train", "init", filepath.Join(abs, StartFile))
	}
	if err != nil {
		return nil, "", fmt.Errorf("adapt: %s: %w", name, err)
	}
	return text, name, nil
}

// keepBest copies the loop's best network into dir (NetworkFile): the
// adapted network.
func keepBest(dir string) error {
	p, err := loop.ReadBestPointer(filepath.Join(dir, LoopDir, loop.BestFile))
	if err != nil {
		return err
	}
	src := p.Network
	if !isFile(src) { // the run folder moved: the same place in it
		if rel, err := filepath.Rel(filepath.Dir(filepath.Dir(filepath.Dir(src))), src); err == nil {
			src = filepath.Join(dir, LoopDir, rel)
		}
	}
	return copyFile(src, filepath.Join(dir, NetworkFile))
}

// runBalance plays the balance study in dir's BalanceDir, carrying on from
// its journal, and writes its files there.
func runBalance(ctx context.Context, dir string, cfg Config, plan Plan, progress func(balance.Progress)) (balance.Report, error) {
	bdir := filepath.Join(dir, BalanceDir)
	if err := os.MkdirAll(bdir, 0o755); err != nil {
		return balance.Report{}, fmt.Errorf("adapt: %w", err)
	}
	bc := cfg.balanceConfig(cfg.Variant, plan.Nearest)
	bc.Networks = map[string]string{cfg.Variant.Name(): filepath.Join(dir, NetworkFile)}
	if len(bc.Variants) > 1 {
		bc.Networks[plan.Nearest] = cfg.Networks[plan.Nearest]
	}
	bc.Journal, bc.Progress = filepath.Join(bdir, balance.JournalFile), progress
	rep, err := balance.Run(ctx, bc)
	if rep.Runs == nil {
		return rep, err
	}
	if werr := balance.WriteFiles(bdir, rep); werr != nil {
		err = errors.Join(err, werr)
	}
	return rep, err
}

// balanceConfig is the balance study's config: v (and the nearest shipped
// rule set, with Compare) played by their own networks at each strength.
func (c Config) balanceConfig(v *rules.Variant, nearest string) balance.Config {
	bc := balance.DefaultConfig()
	bc.Variants = nil
	if v != nil {
		bc.Variants = []*rules.Variant{v}
		if c.Compare && nearest != "" && nearest != v.Name() {
			bc.Variants = append(bc.Variants, variants.MustLoad(nearest))
		}
	}
	strength := 1
	if len(c.Strengths) > 0 {
		strength = c.Strengths[0]
	}
	bc.Players = []player.Spec{player.NetworkSpec(balance.OwnNetwork, strength)}
	bc.Strengths = slices.Clone(c.Strengths)
	bc.MaxGames, bc.Width, bc.MinGames, bc.Confidence, bc.Seed = c.Games, c.Width, c.MinGames, c.Confidence, c.Seed
	if v == nil { // Validate's check of the numbers alone
		bc.Variants = []*rules.Variant{variants.MustLoad(variants.Names()[0])}
	}
	return bc
}

// copyFile copies a file whole (fileio.WriteFile), unless dst holds the
// same bytes already.
func copyFile(src, dst string) error {
	data, err := fileio.ReadFileLimit(src, fileio.MaxRunFileBytes, "this file")
	if err != nil {
		return fmt.Errorf("adapt: %w", err)
	}
	if have, err := fileio.ReadFileLimit(dst, fileio.MaxRunFileBytes, "this file"); err == nil && bytes.Equal(have, data) {
		return nil
	}
	if err := fileio.WriteFile(dst, data); err != nil {
		return fmt.Errorf("adapt: %w", err)
	}
	return nil
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
