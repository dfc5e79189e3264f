package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/internal/fileio"
	"taflab/internal/tomlbound"
	"taflab/loop"
)

const loopUsage = `usage: train loop [-run DIR] [-config FILE] [-generations N] [-external]

The whole cycle in one command: generations of self-play (with the best
network so far; the network-free searcher before the first), training of a
candidate on the newest positions, gating it against the best with an SPRT
match, and rating it against the network-free searcher. With no flags it
runs the small embedded default (configs/loop.toml; print it with
-print-config) into runs/loop, which shows progress within a minute.

Stopping it (Ctrl-C, SIGTERM, even SIGKILL) and running it again on the
same folder carries on where it stopped: no finished game, checkpoint or
match result is lost (a match cut short is played again). The run folder
records everything the run used: loop.toml, variant.toml, manifest.json
(versions, seeds); summary.md and summary.png show the run, with each
generation's rating from one fit over all the run's gate and baseline
games, where the gates place the generations against each other, and
outside players ([[baseline.outside]] in the config: OpenTafl at a named
depth, say) rated on the same scale. A run folder keeps its own loop.toml:
-config on an existing run must be the same file.

With -external (or selfplay.external in the config) the loop plays no
self-play itself: each generation waits until followers (selfplay -follow
DIR, on any machines that share the run folder) have written its games
with the best network, showing the count and the rate, then trains and
gates as usual. The run records the mode in its mode.json (also when
-external chose it): a resumed run keeps it, and a start that would change
it is refused.
Exit status: 0 done, 1 failed, 2 bad flags or config, 130 stopped by a
signal.

Flags:
`

func runLoop(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := cli.NewFlags("train loop", loopUsage, stderr)
	cli.Precision(fs.FlagSet)
	runDir := fs.String("run", "runs/loop", "the run `folder`")
	configFile := fs.String("config", "", "a loop config `file` (TOML, as configs/loop.toml); default: the run's own, or the embedded one")
	printConfig := fs.Bool("print-config", false, "print the embedded config file and exit")
	bind := cli.Bind[configs.Loop](fs)
	bind.Int("generations", 0, cli.IntRange(0, 10_000, "0: the config's"), "run until this many `generations` are done (default: the config's)",
		func(c *configs.Loop, n int) {
			if n > 0 {
				c.Generations = n
			}
		})
	bind.Bool("external", false, "wait for followers' self-play (selfplay -follow RUN) instead of playing it (default: the config's selfplay.external)",
		func(c *configs.Loop, external bool) { c.SelfPlay.External = external })
	if code, done := fs.Parse(args, printConfig, configs.LoopFile(), stdout, stderr); done {
		return code
	}
	name, text, err := loopConfig(*runDir, *configFile)
	if err != nil {
		fmt.Fprintf(stderr, "train loop: %v\n", err)
		return 2
	}
	cfg, err := configs.ParseLoop(name, text)
	if err != nil {
		fmt.Fprintln(stderr, "train loop:", err)
		return 2
	}
	// The self-play mode: the flag's, else the one the run recorded as it
	// started (which a flag may have chosen), else the config's. loop.Run
	// refuses a config or mode other than the run's own.
	have, where, err := loop.ReadMode(*runDir)
	if err != nil {
		fmt.Fprintln(stderr, "train loop:", err)
		return 2
	}
	if !fs.Given()["external"] && where != "" {
		cfg.SelfPlay.External = have.External
	}
	bind.Apply(&cfg)
	mode := "self-play in this process"
	if cfg.SelfPlay.External {
		mode = "self-play by followers: selfplay -follow " + *runDir
	}
	fmt.Fprintf(stdout, "train loop: %s, %d generations into %s (config %s; %s)\n", cfg.Variant, cfg.Generations, *runDir, name, mode)
	err = loop.Run(ctx, *runDir, cfg, text, loop.Options{Log: stdout, ConfigName: name})
	switch {
	case errors.Is(err, loop.ErrRunKept):
		fmt.Fprintln(stderr, "train loop:", err)
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "train loop: stopped; run again to carry on: go run ./cmd/train loop -run %s\n", *runDir)
		return 130
	case err != nil:
		fmt.Fprintln(stderr, "train loop:", err)
		return 1
	}
	fmt.Fprintf(stdout, "train loop: done; summary in %s\n", filepath.Join(*runDir, "summary.md"))
	return 0
}

// loopConfig returns the config text of the run in folder run and its
// name: -config's file, else the run's own loop.toml, else the embedded
// one. Errors say which.
func loopConfig(run, configFile string) (name string, text []byte, err error) {
	name, text = "loop.toml (embedded)", configs.LoopFile()
	own := filepath.Join(run, loop.ConfigFile)
	ownText, ownErr := fileio.ReadFileLimit(own, tomlbound.MaxBytes, "a TOML file")
	if ownErr != nil && !errors.Is(ownErr, os.ErrNotExist) {
		return "", nil, fmt.Errorf("the run's %s: %w", loop.ConfigFile, ownErr)
	}
	if ownErr == nil {
		name, text = own, ownText
	}
	if configFile != "" {
		data, err := fileio.ReadFileLimit(configFile, tomlbound.MaxBytes, "a TOML file")
		if err != nil {
			return "", nil, fmt.Errorf("-config: %w", err)
		}
		name, text = configFile, data
	}
	return name, text, nil
}
