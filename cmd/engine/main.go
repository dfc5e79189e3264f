// Command engine plays hnefatafl over standard input and output, as an
// engine that other programs run: OpenTafl (its engine protocol, OTEP) or
// any host of TaflZero's UCI-like protocol.
//
//	go run ./cmd/engine -protocol otep                 # the shipped network, 800 playouts a move
//	go run ./cmd/engine -protocol uci -movetime 1000   # a second a move
//	go run ./cmd/engine -protocol otep -net runs/net1/network.safetensors -playouts 200
//
// The work is in package engine; this command wires flags to it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/engine"
	"taflab/mcts"
	"taflab/net"
	"taflab/player"
	"taflab/rules"
)

const help = `usage: engine -protocol otep|uci [-net FILE|builtin] [-playouts N | -movetime MS]
              [-threads N] [-variant NAME|FILE|otr:RULES]

Plays over standard input and output, one command a line: OpenTafl's engine
protocol (-protocol otep; OpenTafl sends the rules as a rules string) or
TaflZero's UCI-like protocol (-protocol uci; the rule set is -variant, or
the Rules option, an OpenTafl rules string). Each move gets -playouts
playouts, or -movetime milliseconds, or what the host's clock allows (OTEP's
clock, UCI's go movetime / nodes); under a time budget an explicit -playouts
caps the search too, and -movetime caps the clock's budget: whichever limit
comes first ends the search. The network is -net; by default the one
that ships for -variant's rule set (networks/NAME.safetensors: copenhagen's
unless -variant names fetlar, hnefatafl11 or copenhagen-classic), else
copenhagen's, each shown its own rule set's planes whatever the host plays;
looked for in the working folder and beside the executable. Where none is
found it is the built-in network-free searcher (-net builtin chooses it).
So for a host playing Fetlar, start it with -variant fetlar. Messages go to standard
error. Exit status: 0 at the end of the session, 1 on a failure, 2 on bad
flags.

Flags:
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cli.NewFlags("engine", help, stderr)
	cli.Precision(fs.FlagSet)
	proto := fs.String("protocol", "", "`otep` or uci")
	netFile := fs.String("net", "", "network `file`, or builtin (default: the shipped network if found)")
	playouts := fs.Int("playouts", 800, cli.PlayoutsRange, "playouts a move (`N`) without a time budget, and when given the most with one")
	movetime := fs.Int("movetime", 0, cli.IntRange(0, 24*3600*1000, "0: playouts; a day at most"), "milliseconds a move (`MS`); 0 = playouts (a host's clock may set less)")
	threads := fs.Int("threads", 1, cli.IntRange(1, 256, ""), "the network's threads (`N`)")
	planes := fs.String("planes", "", "show the network the input planes of this embedded rule set (`name`) whatever the host plays; default: the rule set its file names, if any (copenhagen's in the shipped network, copenhagen-classic's in the human-trained one), else the played one")
	variantArg := fs.String("variant", "copenhagen", "rule set until the host sends one: an embedded `name`, a rule-set file or otr:RULES")
	if code, done := fs.Parse(args, nil, nil, stdout, stderr); done {
		return code
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "engine: "+format+"\n", a...)
		return 2
	}
	if *proto != engine.OTEP && *proto != engine.UCI {
		return bad("-protocol %q: want otep or uci", *proto)
	}
	v, err := configs.LoadVariant(*variantArg)
	if err != nil {
		return bad("-variant: %v", err)
	}
	cfg := engine.DefaultConfig()
	cfg.Protocol, cfg.Variant, cfg.Playouts = *proto, v, *playouts
	cfg.MoveTime = time.Duration(*movetime) * time.Millisecond
	cfg.MaxPlayouts = max(cfg.MaxPlayouts, cfg.Playouts)
	if fs.Given()["playouts"] {
		cfg.MaxPlayouts = cfg.Playouts // a cap under a clock or -movetime as well
	}

	var eval mcts.Evaluator = mcts.NewHeuristic()
	path := *netFile
	if path == "" {
		path, _ = player.NetworkOrShipped("", v) // "" where none is found
	}
	var planesOf *rules.Variant
	if *planes != "" {
		if planesOf, err = variants.Load(*planes); err != nil {
			return bad("-planes: %v", err)
		}
	}
	if path != "" && path != "builtin" {
		factory, n, err := player.NetworkEvaluators(path, *threads, planesOf)
		if err != nil {
			if *netFile != "" {
				return bad("-net: %v", err)
			}
			fmt.Fprintf(stderr, "engine: the shipped network: %v; playing with the built-in searcher\n", err)
		} else {
			e, err := factory()
			if err != nil {
				return bad("-net: %v", err)
			}
			eval = sizeFallback{net: e, other: mcts.NewHeuristic()}
			cfg.Name = "taflab-" + n.Hash()[:8]
			fmt.Fprintf(stderr, "engine: network %s\n", path)
			if planesOf == nil {
				planesOf = n.PlanesOf()
			}
			if planesOf != nil {
				fmt.Fprintf(stderr, "engine: the network is shown the planes of %s\n", planesOf.Name())
			}
		}
	} else {
		fmt.Fprintln(stderr, "engine: the built-in network-free searcher")
	}
	limitMemory(&cfg.Search)
	if err := engine.Serve(ctx, stdin, stdout, cfg, eval); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, err) // engine's errors name the package
		return 1
	}
	return 0
}

// memoryHeadroom is what the engine may hold besides one search's tree: the
// network, the input and the garbage a search leaves.
const memoryHeadroom = 192 << 20

// limitMemory sets the Go runtime's soft memory limit to the tree's budget
// plus memoryHeadroom, unless GOMEMLIMIT says
// otherwise: the tree is bounded by its budget, and the limit makes the
// collector return what a search and a flood of input lines leave behind
// before the process grows past it, where the default pacing lets the heap
// reach twice what is live.
func limitMemory(search *mcts.Config) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(search.TreeBudget() + memoryHeadroom)
}

// sizeFallback evaluates with the network on its board size and with the
// built-in evaluator on others (a host's rules string may ask for 7x7):
// one search's batches are all of one rule set.
type sizeFallback struct {
	net, other mcts.Evaluator
}

func (e sizeFallback) Evaluate(b *mcts.Batch) error {
	if b.Len() > 0 && b.Variants[0].Size() != net.BoardSize {
		return e.other.Evaluate(b)
	}
	return e.net.Evaluate(b)
}

func (e sizeFallback) ID() string { return e.net.ID() }
