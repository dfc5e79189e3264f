package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"taflab/cmd/eval/internal/reviewcmd"
)

// runReview is the review subcommand, stopped by a signal.
func runReview(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runReviewCtx(ctx, args, stdout, stderr)
}

// runReviewCtx is runReview stopped by ctx instead of a signal.
func runReviewCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return reviewcmd.Run(ctx, args, stdout, stderr)
}
