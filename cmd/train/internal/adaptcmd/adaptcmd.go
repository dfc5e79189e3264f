// Package adaptcmd is the train adapt subcommand: its flags become an
// adapt.Config, it shows the run's progress, prints the report and sets
// the exit status. The work is package adapt's.
package adaptcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"taflab/adapt"
	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/tomlbound"
	"taflab/loop"
	"taflab/player"
)

const help = `usage: train adapt -variant NAME|FILE|otr:RULES [-run DIR] [-from FILE] [-config FILE]
                   [-generations N] [-strengths N,N] [-games N] [-width W] [-compare=false]

A rule set of your own, at strength, in one command: copy a rule set
(configs/variants/), change a switch or the start and its name, and

    go run ./cmd/train adapt -variant my-variant.toml

starts from the shipped network of the rule set nearest yours (the fewest
keys of the file differ; -from FILE names another), shows it your rule
set's input planes, adapts it by self-play (a training loop from it:
configs/adapt.toml, print it with -print-config; -config FILE a copy you
changed), and measures your rule set's balance at strength: the adapted
network against itself at each of -strengths playouts a move, from the
start, up to -games games a run, each stopping once its intervals are at
most -width wide; beside the nearest shipped rule set played by its own
network (-compare), with the test of whether their defender rates differ.

Everything goes into -run (default runs/adapt-NAME): adapt.json (the rule
set and the network it started from), rules.toml and start.safetensors
(their copies), loop/ (the training loop's run folder, summary.md),
network.safetensors (the adapted network: the loop's best), balance/
(the study: balance.md, balance.png, games.jsonl) and report.md with
report.json. Stopped at any point (Ctrl-C, SIGTERM, even SIGKILL), the
same command, or just -run DIR, carries it on where it stopped;
-generations N carries a finished run on to N generations. A folder keeps
its rules and its start network. Networks play 11x11 boards only.

Exit status: 0 done, 1 failed, 2 bad flags or input, 130 stopped by a
signal (what was finished is kept).

Flags:
`

// Run is the train adapt subcommand, stopped by ctx.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, dir, code := parseFlags(args, stdout, stderr)
	if dir == "" {
		return code
	}
	fmt.Fprintf(stdout, "train adapt: %s into %s\n", cfg.Variant.Name(), dir)
	rep, err := adapt.Run(ctx, dir, cfg, adapt.Options{Log: stdout, BalanceProgress: cli.BalanceProgress(stdout)})
	switch {
	case errors.Is(err, loop.ErrRunKept):
		fmt.Fprintln(stderr, "train adapt:", errctx.Message(err))
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "train adapt: stopped; run again to carry on: go run ./cmd/train adapt -run %s\n", dir)
		return 130
	case err != nil:
		fmt.Fprintln(stderr, "train adapt:", errctx.Message(err))
		return 1
	}
	fmt.Fprint(stdout, "\n"+rep.Markdown())
	fmt.Fprintf(stdout, "\ntrain adapt: done; the report is %s\n", filepath.Join(dir, adapt.ReportFile))
	return 0
}

// flags are the flags of train adapt its config does not hold.
type flags struct {
	variant, run, from, config, strengths string
}

// parseFlags reads and checks the flags into a config and the run folder,
// or "" and the exit status when the command should stop.
func parseFlags(args []string, stdout, stderr io.Writer) (adapt.Config, string, int) {
	cfg := adapt.DefaultConfig()
	var f flags
	fs := cli.NewFlags("train adapt", help, stderr)
	cli.Precision(fs.FlagSet)
	printConfig := fs.Bool("print-config", false, "print the embedded loop config (configs/adapt.toml) and exit")
	fs.StringVar(&f.variant, "variant", "", "the rule set to adapt to: a rule-set `file`, an embedded name or otr:RULES (default: the run's)")
	fs.StringVar(&f.run, "run", "", "the run's `folder` (default runs/adapt-NAME)")
	fs.StringVar(&f.from, "from", "", "the network `file` to start from (default: the shipped one of the nearest rule set)")
	fs.StringVar(&f.config, "config", "", "a loop config `file` (as configs/adapt.toml; default: the run's own, or the embedded one)")
	fs.IntVar(&cfg.Generations, "generations", 0, cli.IntRange(0, 10_000, "0: the config's"), "run until this many `generations` are done (default: the config's)")
	fs.StringVar(&f.strengths, "strengths", "100,400", "comma-separated playout `budgets` of the balance study, one run each")
	fs.IntVar(&cfg.Games, "games", cfg.Games, cli.IntRange(0, 1_000_000, "0: no balance study"), "the most `games` of each balance run")
	fs.Float64Var(&cfg.Width, "width", cfg.Width, cli.Range{Min: 0, Max: 1, Note: "0: never stop early"}, "stop a balance run when every interval is at most `W` wide")
	fs.IntVar(&cfg.MinGames, "min-games", cfg.MinGames, cli.IntRange(0, 1_000_000, ""), "`games` a balance run plays before it may stop early")
	fs.BoolVar(&cfg.Compare, "compare", cfg.Compare, "play the nearest shipped rule set in the study too, and test the difference")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, cli.FullUint64, "`seed` of the balance study's games")
	if code, done := fs.Parse(args, printConfig, configs.AdaptLoopFile(), stdout, stderr); done {
		return cfg, "", code
	}
	bad := func(format string, a ...any) (adapt.Config, string, int) {
		fmt.Fprintf(stderr, "train adapt: "+format+"\n", a...)
		return cfg, "", 2
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q (flags only)", fs.Arg(0))
	}
	if msg := f.load(&cfg); msg != "" {
		return bad("%s", msg)
	}
	if plan, err := adapt.ReadPlan(f.run); err == nil { // carried on: the study's settings as it last had them
		cfg = keepStudy(cfg, plan.Study, fs.Given())
	}
	if err := cfg.Validate(); err != nil {
		return bad("%s", errctx.Message(err))
	}
	return cfg, f.run, 0
}

// load reads the rule set (the run's, without -variant), the strengths,
// the loop config and the shipped networks into cfg: what is wrong, or "".
func (f *flags) load(cfg *adapt.Config) string {
	var err error
	if cfg.Strengths, err = cli.ParseInts(f.strengths, 1); err != nil {
		return "-strengths: " + err.Error()
	}
	if f.variant == "" && f.run != "" {
		if f.variant, err = runVariant(f.run); err != nil {
			return err.Error()
		}
	}
	if f.variant == "" {
		return "-variant is required (or -run of a run to carry on)"
	}
	if cfg.Variant, err = configs.LoadVariant(f.variant); err != nil {
		return "-variant: " + errctx.Message(err)
	}
	cfg.VariantArg, cfg.From = f.variant, f.from
	if f.run == "" {
		f.run = filepath.Join("runs", "adapt-"+cfg.Variant.Name())
	}
	if f.config != "" {
		if cfg.LoopText, err = fileio.ReadFileLimit(f.config, tomlbound.MaxBytes, "a TOML file"); err != nil {
			return "-config: " + err.Error()
		}
		cfg.LoopName = f.config
	}
	cfg.Networks = player.ShippedNetworks()
	return ""
}

// keepStudy returns cfg with the settings of the run's study for those of
// its flags not given.
func keepStudy(cfg adapt.Config, kept adapt.Study, given map[string]bool) adapt.Config {
	s := cfg.Study()
	if len(kept.Strengths) == 0 { // a plan of no study
		return cfg
	}
	for flag, keep := range map[string]func(){
		"strengths": func() { s.Strengths = kept.Strengths }, "games": func() { s.Games = kept.Games },
		"width": func() { s.Width = kept.Width }, "min-games": func() { s.MinGames = kept.MinGames },
		"compare": func() { s.Compare = kept.Compare }, "seed": func() { s.Seed = kept.Seed },
	} {
		if !given[flag] {
			keep()
		}
	}
	s.Confidence = kept.Confidence
	return cfg.WithStudy(s)
}

// runVariant is the rule set of the run in folder run: its copy of the
// rule-set file, else as its plan names it.
func runVariant(run string) (string, error) {
	if rules := filepath.Join(run, adapt.RulesFile); fileExists(rules) {
		return rules, nil
	}
	data, err := fileio.ReadFileLimit(filepath.Join(run, adapt.PlanFile), fileio.MaxConfigBytes, "a plan")
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("-run %s holds no run to carry on: give -variant", run)
	}
	if err != nil {
		return "", err
	}
	var plan adapt.Plan
	if err := json.Unmarshal(data, &plan); err != nil {
		return "", fmt.Errorf("%s: %v", filepath.Join(run, adapt.PlanFile), err)
	}
	return plan.VariantArg, nil
}

// fileExists reports whether path is a regular file.
func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
