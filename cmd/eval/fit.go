package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"taflab/cmd/eval/internal/fitcmd"
)

// fitOutput is the command's JSON report.
type fitOutput = fitcmd.Output

// runFit is the fit subcommand, stopped by a signal.
func runFit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runFitCtx(ctx, args, stdout, stderr)
}

// runFitCtx is runFit stopped by ctx instead of a signal.
func runFitCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return fitcmd.Run(ctx, args, stdout, stderr)
}
