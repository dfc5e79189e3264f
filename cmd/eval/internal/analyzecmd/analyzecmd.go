// Package analyzecmd is "eval analyze": a network's value and top moves
// for a position, and a search's choice, as one JSON object.
package analyzecmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

const help = `usage: eval analyze -net FILE [-variant NAME|FILE|otr:RULES] [-position POS] [-playouts N] [-top K]

Prints one JSON object about a position: the network's value for the side to
move (win/draw/loss probabilities), its top moves with their probabilities
(softmax over the legal moves), and with -playouts the choice of a search of
that many playouts with the network:

  {"position": POS, "to_move": "attackers"|"defenders",
   "value": {"win": W, "draw": D, "loss": L},
   "top_moves": [{"move": "d1-d3", "prior": P}, ...],
   "search": null | {"playouts": N, "best_move": M, "value": V,
                     "moves": [{"move": M, "visits": N, "prior": P, "value": V}, ...]}}

-position defaults to the rule set's start. Exit status: 0, 1 on a failure,
2 for bad flags, a bad position or a network file that cannot be used.

Flags:
`

// Report is the JSON object the command prints.
type Report struct {
	Position string  `json:"position"`
	ToMove   string  `json:"to_move"`
	Value    WDL     `json:"value"`
	Top      []Move  `json:"top_moves"`
	Search   *Search `json:"search"`
}

// WDL is the network's value for the side to move.
type WDL struct {
	Win  float64 `json:"win"`
	Draw float64 `json:"draw"`
	Loss float64 `json:"loss"`
}

// Move is one of the network's or the search's moves.
type Move struct {
	Move   string   `json:"move"`
	Prior  float64  `json:"prior"`
	Visits *int     `json:"visits,omitempty"`
	Value  *float64 `json:"value,omitempty"`
}

// Search is the choice of a search with the network.
type Search struct {
	Playouts int     `json:"playouts"`
	BestMove string  `json:"best_move"`
	Value    float64 `json:"value"`
	Moves    []Move  `json:"moves"`
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Run runs "eval analyze" with its arguments and returns the exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("eval analyze", help, stderr)
	netFile := fs.String("net", "", "the network `file`")
	variantArg := fs.String("variant", "copenhagen", "rule set: an embedded `name`, a rule-set file or otr:RULES (an OpenTafl rules string)")
	position := fs.String("position", "", "the `position` in notation (default: the start)")
	playouts := fs.Int("playouts", 0, "search this many `playouts` with the network (0: no search)")
	top := fs.Int("top", 5, "how many of the network's moves to list")
	if code, done := cli.ParseRanged(fs, args, nil, nil, stdout, stderr); done {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "eval analyze: "+format+"\n", a...)
		return code
	}
	switch {
	case *netFile == "":
		return fail(2, "-net is required")
	case *playouts < 0 || *top < 1:
		return fail(2, "-playouts %d, -top %d: want 0 or more playouts and at least one move", *playouts, *top)
	}
	v, err := configs.LoadVariant(*variantArg)
	if err != nil {
		return fail(2, "-variant: %v", err)
	}
	pos := v.Start()
	if *position != "" {
		if pos, err = rules.ParsePosition(*position); err != nil {
			return fail(2, "-position: %v", err)
		}
	}
	g, err := rules.NewGameFromStart(v, pos) // a finished game, or no move, is refused
	if err != nil {
		return fail(2, "-position: %v", err)
	}
	n, _, err := net.Load(*netFile)
	if err != nil {
		return fail(2, "-net: %v", err)
	}
	in := n.NewInference(1, "net-"+n.Hash())
	policy, _, err := mcts.EvaluatePosition(in, v, pos, g.GenerateMoves(nil), *top)
	if err != nil {
		return fail(1, "%v", err)
	}
	wdl := in.WDL(0)
	rep := Report{Position: pos.String(), ToMove: pos.ToMove.String(),
		Value: WDL{round(float64(wdl[0])), round(float64(wdl[1])), round(float64(wdl[2]))}}
	for _, mp := range policy {
		rep.Top = append(rep.Top, Move{Move: mp.Move.String(), Prior: round(float64(mp.Prob))})
	}
	if *playouts > 0 {
		cfg := mcts.DefaultConfig()
		s := mcts.NewSearch(&cfg, g, 1)
		if err := mcts.NewRunner(in).Search(s, *playouts); err != nil {
			return fail(1, "%v", err)
		}
		sr := &Search{Playouts: s.Playouts(), BestMove: s.BestMove().String(), Value: round(float64(s.RootValue()))}
		for _, st := range s.TopStats(*top) {
			visits, value := st.Visits, round(float64(st.Value))
			sr.Moves = append(sr.Moves, Move{Move: st.Move.String(), Prior: round(float64(st.Prior)), Visits: &visits, Value: &value})
		}
		rep.Search = sr
	}
	enc := json.NewEncoder(stdout)
	if err := enc.Encode(rep); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}
