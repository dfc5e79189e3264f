// Command eval checks taflab from the command line: each subcommand reads
// games or positions, runs them through the engine and prints what it found,
// for people and for tests.
//
// Usage:
//
//	go run ./cmd/eval SUBCOMMAND [flags] [args]
//	go run ./cmd/eval -h              # lists the subcommands
//	go run ./cmd/eval SUBCOMMAND -h   # explains one
//
// Subcommands:
//
//	replay   replay games under a rule set and check them against its rules:
//	         go run ./cmd/eval replay -variant NAME [-start POSITION] [-moves "m1 m2 ..."] [FILE ...]
//	         prints one JSON object per game, one per line (see eval replay -h).
//	analyze  a network's value and top moves for a position, and a search's choice and line:
//	         go run ./cmd/eval analyze [-net FILE|builtin] -variant NAME [-position POS] [-moves "..."] [-playouts N]
//	review   whole games of a games file reviewed move by move (win chances, labels, best lines, accuracy):
//	         go run ./cmd/eval review [-net FILE|builtin] [-playouts N] [-game N] [-out DIR] FILE
//	match    two players in game pairs under the pentanomial SPRT, with gating:
//	         go run ./cmd/eval match -variant NAME -a PLAYER -b PLAYER [-gate] -out DIR
//	ratings  Bradley-Terry (Elo) ratings with a side advantage over recorded matches:
//	         go run ./cmd/eval ratings [-variant NAME] [-anchor PLAYER] [-prior-sd ELO] [-out DIR] PATH ...
//	balance  attacker, defender and draw rates of rule sets in self-play and in game records:
//	         go run ./cmd/eval balance [-variants a,b] [-player PLAYER] [-strengths 50,200] [-records FILE] -out DIR
//	suite    an opening suite: start positions where equal players win as either side:
//	         go run ./cmd/eval suite -variant NAME [-records FILE] [-random N] [-player PLAYER] [-size N] -out FILE
//	fit      how well a network, the built-in searcher and uniform choice predict human moves and results:
//	         go run ./cmd/eval fit [-net FILE] -records FILE [-split all|train|heldout] [-search-playouts N]
//
// Exit status: 0 when all went well, 1 when a game had an error, 2 for bad
// flags or an unknown subcommand.
package main

import (
	"fmt"
	"io"
	"os"
)

// subcommand is one entry of the dispatch table.
type subcommand struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// subcommands lists the subcommands in the order -h shows them.
var subcommands = []subcommand{
	{"replay", "replay games (-moves, or CSV game records) under a rule set; one JSON line per game", runReplay},
	{"analyze", "a network's value and moves for a position, and a search's choice", runAnalyze},
	{"review", "whole games reviewed: win chances ply by ply, mistakes, best lines, accuracy; JSON, Markdown, graphs, OpenTafl records", runReview},
	{"match", "two players in game pairs under the SPRT; -gate promotes a better network", runMatch},
	{"ratings", "Elo ratings with a side advantage over match.json files; table, JSON and chart", runRatings},
	{"balance", "rule-set balance: self-play and game-record win rates with intervals; report and chart", runBalance},
	{"suite", "an opening suite: start positions where equal players win as either side", runSuite},
	{"fit", "a network's fit to human play: move-prediction accuracy and value log loss on game records", runFit},
	{"serve", "the web page: play, replay games, analyse positions with a network, a run's charts (loopback by default)", runServe},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to the subcommand args[0] names and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "eval: missing subcommand")
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	for _, c := range subcommands {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "eval: unknown subcommand %q\n", args[0])
	usage(stderr)
	return 2
}

// usage lists the subcommands.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: eval SUBCOMMAND [flags] [args]   (eval SUBCOMMAND -h explains one)")
	fmt.Fprintln(w, "\nsubcommands:")
	for _, c := range subcommands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
}
