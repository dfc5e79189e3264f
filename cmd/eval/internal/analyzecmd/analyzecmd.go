// Package analyzecmd is "eval analyze": what a network (or the built-in
// searcher) and a search make of a position, as one JSON object, through
// package analysis.
package analyzecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"taflab/analysis"
	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/datasets"
	"taflab/player"
	"taflab/rules"
)

const help = `usage: eval analyze [-net FILE|builtin] [-variant NAME|FILE|otr:RULES] [-position POS] [-moves "m1 m2 ..."] [-playouts N] [-top K]

Prints one JSON object about a position (package analysis): the network's
win, draw and loss for the side to move, its value and its top moves by
prior, and with -playouts a search's: its value, its win, draw and loss, its
best move with the principal variation, and its top moves by visits.

  {"position": POS, "to_move": "attackers"|"defenders", "evaluator": ID,
   "planes_of": RULE-SET, "wdl": {"win": W, "draw": D, "loss": L} | null,
   "value": V, "policy": [{"move": "d1-d3", "from": "d1", "to": "d3", "prior": P}, ...],
   "search": null | {"playouts": N, "visits": N, "best_move": M, "value": V,
                     "wdl": {...}, "pv": [M, ...],
                     "moves": [{"move": M, ..., "visits": N, "value": V}, ...]}}

-net defaults to the network that ships for -variant (networks/NAME.safetensors,
in the working folder or beside the executable), or to copenhagen's
(networks/copenhagen.safetensors) when none ships for it; -net builtin analyses with the
network-free searcher (no win/draw/loss, uniform priors). -position defaults
to the rule set's start; -moves are played from it first, so that
repetitions count as in the game. Values are for the side to move, from -1
(lost) to +1 (won).

Exit status: 0, 1 on a failure, 2 for bad flags, a bad position or a network
file that cannot be used.

Flags:
`

// Run runs "eval analyze" with its arguments and returns the exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := cli.NewFlags("eval analyze", help, stderr)
	cli.Precision(fs.FlagSet)
	netFile := fs.String("net", "", "the network `file`, or builtin (default: the one that ships for the rule set)")
	variantArg := fs.String("variant", "copenhagen", "rule set: an embedded `name`, a rule-set file or otr:RULES (an OpenTafl rules string)")
	position := fs.String("position", "", "the `position` in notation (default: the start)")
	movesArg := fs.String("moves", "", "`moves` played from the position first, \"d1-d3 e5-e2\"")
	playouts := fs.Int("playouts", 0, cli.IntRange(0, cli.MaxPlayouts, "0: no search"), "search this many `playouts` (0: no search)")
	top := fs.Int("top", 5, cli.IntRange(1, 100, ""), "how many moves to list")
	seed := fs.Uint64("seed", 1, cli.FullUint64, "the `seed` of the network's board symmetries")
	if code, done := fs.Parse(args, nil, nil, stdout, stderr); done {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "eval analyze: "+format+"\n", a...)
		return code
	}
	v, err := configs.LoadVariant(*variantArg)
	if err != nil {
		return fail(2, "-variant: %v", err)
	}
	game := &datasets.Game{Variant: v, Start: v.Start()}
	if *position != "" {
		if game.Start, err = rules.ParsePosition(*position); err != nil {
			return fail(2, "-position: %v", err)
		}
	}
	if _, err := rules.NewGameFromStart(v, game.Start); err != nil { // a finished game, or no move, is refused
		return fail(2, "-position: %v", err)
	}
	if game.Moves, err = rules.ParseMoves(*movesArg); err != nil {
		return fail(2, "-moves: %v", err)
	}
	eval, _, err := player.AnalysisEvaluator(*netFile, v, 0)
	if err != nil {
		return fail(2, "-net: %v", err)
	}
	cfg := analysis.DefaultConfig()
	cfg.Playouts, cfg.Top, cfg.Seed = *playouts, *top, *seed
	rep, err := analysis.Analyze(context.Background(), &cfg, eval, game)
	if err != nil {
		return fail(1, "%v", err)
	}
	enc := json.NewEncoder(stdout)
	if err := enc.Encode(rep); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}
