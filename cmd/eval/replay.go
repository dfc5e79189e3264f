package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"taflab/cmd/eval/internal/replaycmd"
)

// gameReport is the JSON line of one game.
type gameReport = replaycmd.GameReport

// runReplay is the replay subcommand, stopped by a signal.
func runReplay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runReplayCtx(ctx, args, stdin, stdout, stderr)
}

// runReplayCtx is runReplay stopped by ctx instead of a signal.
func runReplayCtx(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return replaycmd.Run(ctx, args, stdin, stdout, stderr)
}
