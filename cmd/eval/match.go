package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"taflab/cmd/eval/internal/matchcmd"
)

// runMatch is the match subcommand, stopped by a signal.
func runMatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runMatchCtx(ctx, args, stdout, stderr)
}

// runMatchCtx is runMatch stopped by ctx instead of a signal.
func runMatchCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return matchcmd.Run(ctx, args, stdout, stderr)
}
