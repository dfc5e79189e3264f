package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/internal/progress"
	"taflab/net"
	"taflab/training"
)

const trainUsage = `usage: train -data DIR -out DIR [-config FILE] [-steps N] [-resume]
       train -records FILE [-records-share S] [-data DIR] -out DIR ...
       train export -net FILE -format onnx|safetensors -out FILE
       train loop [-run DIR] [-config FILE] [-generations N]   (train loop -h)
       train adapt -variant FILE [-run DIR]                     (train adapt -h)

Trains a policy/value network on a self-play dataset (-data, written by
selfplay) into a run folder (-out): checkpoint.safetensors, network.safetensors,
metrics.csv and loss.png. -records adds game records (the CSV that eval
replay reads, or archive:copenhagen, the 876 people's games that ship
inside taflab): each position's
policy target is the move played and its value target the recorded result;
-records-share is the share of each batch they make up (1: the records
alone, no -data needed). Every 10th record is held out of training
([records] in the config), for eval fit -split heldout. The settings are
configs/train.toml's (print them
with -print-config); flags override its keys. -resume carries on from the
run folder's checkpoint exactly: weights, optimizer state, step and data
position; the run keeps its network, and a config that asks for another
(or for fewer steps than the run has done) is refused. One process at a
time trains in a run folder: another is refused, naming it. Exit status: 0
done, 1 failed, 2 bad flags or config, 130 stopped by a signal (after
writing a checkpoint).

Flags:
`

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := cli.NewFlags("train", trainUsage, stderr)
	configFile := fs.String("config", "", "a training config `file` (TOML, as configs/train.toml); default: the embedded one")
	printConfig := fs.Bool("print-config", false, "print the embedded config file and exit")
	bind := cli.Bind[configs.Train](fs)
	bind.String("data", "", "the dataset `folder`", func(c *configs.Train, dir string) { c.Data = dir })
	bind.String("out", "", "the run `folder`", func(c *configs.Train, dir string) { c.Out = dir })
	bind.Int("steps", 0, cli.IntRange(0, 1_000_000_000, "0: no step, the network as it starts"), "train until this many optimizer `steps` in all",
		func(c *configs.Train, n int) { c.Steps = n })
	resume := fs.Bool("resume", false, "carry on from the run folder's checkpoint")
	initNet := fs.String("init", "", "start from this network `file`'s weights (its architecture replaces [network])")
	bind.String("records", "", "a game-record `file` to train on, or archive:copenhagen (records.file)", func(c *configs.Train, file string) { c.Records.File = file })
	bind.Float64("records-share", 0, cli.Range{Min: 0, Max: 1}, "the `share` of each batch from the records, 0 to 1 (records.share)",
		func(c *configs.Train, share float64) { c.Records.Share = share })
	if code, done := fs.Parse(args, printConfig, configs.TrainFile(), stdout, stderr); done {
		return code
	}
	cfg, err := cli.ReadConfig("train", *configFile, configs.DefaultTrain(), configs.ParseTrain)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	bind.Apply(&cfg)
	set := fs.Given()
	if cfg.Records.Only() && !set["data"] && cfg.Data == configs.DefaultTrain().Data {
		cfg.Data = "" // the embedded default folder is not wanted
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "train: flags: %v\n", err)
		return 2
	}
	if cfg.Data != "" && !cfg.Records.Only() {
		if _, err := os.Stat(cfg.Data); err != nil {
			fmt.Fprintf(stderr, "train: -data: %v\n", err)
			return 2
		}
	}

	var init *net.Network
	if *initNet != "" {
		if init, _, err = net.Load(*initNet); err != nil {
			fmt.Fprintf(stderr, "train: -init: %v\n", err)
			return 2
		}
	}
	progress := progress.New(stdout, cfg.Steps, "steps", 5*time.Second)
	sum, err := training.Run(ctx, cfg, training.Options{
		Resume: *resume,
		Init:   init,
		Log:    stderr,
		OnStep: func(s training.Step) {
			progress.Update(s.Step, fmt.Sprintf("loss %.3f (policy %.3f, value %.3f), %.0f samples/s",
				s.Losses.Total(), s.Losses.Policy, s.Losses.Value, s.SamplesPerSec))
		},
	})
	progress.Finish()
	if errors.Is(err, training.ErrInitWithResume) {
		fmt.Fprintln(stderr, "train: -init and -resume: a resumed run keeps its own weights")
		return 2
	}
	if errors.Is(err, training.ErrResume) {
		fmt.Fprintln(stderr, "train:", err)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "train:", err)
		return 1
	}
	if sum.LastStep == sum.FirstStep && !sum.Interrupted {
		fmt.Fprintf(stdout, "train: the run is at step %d already, the %d steps asked for: nothing to train; network %s\n", sum.LastStep, cfg.Steps, sum.Network)
		return 0
	}
	fmt.Fprintf(stdout, "train: steps %d to %d on %d self-play positions and %d record positions; loss %.4f (policy %.4f, value %.4f); network %s\n",
		sum.FirstStep, sum.LastStep, sum.Positions, sum.RecordPositions, sum.Last.Total(), sum.Last.Policy, sum.Last.Value, sum.Network)
	if sum.Interrupted {
		fmt.Fprintf(stderr, "train: stopped at step %d; the checkpoint is written: resume with -resume\n", sum.LastStep)
		return 130
	}
	return 0
}
