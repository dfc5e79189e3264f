package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"taflab/cmd/eval/internal/suitecmd"
)

// runSuite is the suite subcommand, stopped by a signal.
func runSuite(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runSuiteCtx(ctx, args, stdout, stderr)
}

// runSuiteCtx is runSuite stopped by ctx instead of a signal.
func runSuiteCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return suitecmd.Run(ctx, args, stdout, stderr)
}
