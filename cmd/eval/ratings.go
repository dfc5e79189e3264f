package main

import (
	"context"
	"io"

	"taflab/cmd/eval/internal/ratingscmd"
	"taflab/ratings"
)

// groupJSON is one group of ratings.json.
type groupJSON = ratings.Group

// ratingsJSON is ratings.json as the tests read it: ratings.Report, with
// its first group named groupJSON (it hides Report's own Group, one level
// further down, which stays empty).
type ratingsJSON struct {
	ratings.Report
	groupJSON
}

// The most match files ratings reads, and the most bytes of them (vars
// for the tests).
var (
	maxMatchFiles       = ratings.DefaultMaxFiles
	maxMatchBytes int64 = ratings.DefaultMaxBytes
)

// runRatings is the ratings subcommand.
func runRatings(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return ratingscmd.Run(context.Background(), args, stdout, stderr, maxMatchFiles, maxMatchBytes)
}
