// Command train trains policy/value networks on self-play datasets, and
// exports them.
//
// Usage:
//
//	go run ./cmd/train -data DIR -out DIR [-config FILE] [-steps N] [-resume]
//	go run ./cmd/train export -net FILE -format onnx|safetensors -out FILE
//	go run ./cmd/train loop [-run DIR] [-config FILE] [-generations N]
//	go run ./cmd/train adapt -variant FILE [-run DIR]
//
// Training reads a shuffled window of the newest positions of the dataset
// (each in a random board symmetry), minimizes policy cross-entropy (full
// searches only) + value cross-entropy + L2, and writes into the run folder:
// checkpoint.safetensors (weights, optimizer state, step and data position;
// every checkpoint_every steps and at the end, written whole then renamed),
// network.safetensors (the weights alone, for selfplay -net and export),
// metrics.csv (one line per step) and loss.png (the loss curves). -resume
// carries on exactly from the checkpoint: killing the command at any moment
// loses at most the steps since the last checkpoint. Ctrl-C or SIGTERM writes
// a checkpoint and exits with 130.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"taflab/cmd/train/internal/adaptcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches: "export" exports, "loop" runs the training loop,
// "adapt" adapts a shipped network to a rule set and measures its
// balance, anything else trains.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "export":
			return runExport(args[1:], stdout, stderr)
		case "loop":
			return runLoop(ctx, args[1:], stdout, stderr)
		case "adapt":
			return adaptcmd.Run(ctx, args[1:], stdout, stderr)
		case "help", "-h", "-help", "--help":
			// The usage with the training flags, on stdout: asked for.
			return runTrain(ctx, []string{"-h"}, stdout, stdout)
		}
	}
	return runTrain(ctx, args, stdout, stderr)
}
