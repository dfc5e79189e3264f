package cli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"taflab/match"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// NetworkEvaluators loads a network file and returns a factory of
// evaluators over it, one per worker, each with the given threads, random
// symmetries on (seeded by the worker's number), and the network's hash as
// their ID. planesOf, if not nil, gives the network that rule set's planes
// whatever the played one (net.Inference.PlanesOf); the ID then says so.
func NetworkEvaluators(path string, threads int, planesOf *rules.Variant) (func() (mcts.Evaluator, error), *net.Network, error) {
	if planesOf != nil && planesOf.Size() != net.BoardSize {
		return nil, nil, fmt.Errorf("cli: the planes of %s: a %dx%d rule set, and the network plays %dx%d", planesOf.Name(), planesOf.Size(), planesOf.Size(), net.BoardSize, net.BoardSize)
	}
	n, _, err := net.Load(path)
	if err != nil {
		return nil, nil, err
	}
	id := "net-" + n.Hash()
	if planesOf != nil {
		id += "-as-" + planesOf.Name()
	}
	var workers atomic.Uint64
	return func() (mcts.Evaluator, error) {
		in := n.NewInference(threads, id)
		in.RandomSymmetry = true
		in.PlanesOf = planesOf
		in.Seed(workers.Add(1))
		return in, nil
	}, n, nil
}

// ParsePlayer reads a player of match play: "builtin:playouts=800" (the
// network-free searcher) or "net=FILE,playouts=200" (a network file), with
// ",root=gumbel" for Gumbel root search instead of PUCT. It loads the
// network, so that a missing or wrong file is an error before any game.
// Errors name the spec and the part that is wrong.
func ParsePlayer(spec string) (match.Player, error) {
	p := match.Player{Playouts: 800}
	body, builtin := strings.CutPrefix(spec, "builtin")
	if builtin {
		if body != "" && !strings.HasPrefix(body, ":") {
			return p, fmt.Errorf("cli: player %q: want builtin:playouts=N or net=FILE,playouts=N", spec)
		}
		body = strings.TrimPrefix(body, ":")
	}
	netFile, root := "", ""
	for _, part := range strings.Split(body, ",") {
		if part == "" {
			continue
		}
		key, value, ok := strings.Cut(part, "=")
		if !ok {
			return p, fmt.Errorf("cli: player %q: %q is not key=value", spec, part)
		}
		switch key {
		case "playouts":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return p, fmt.Errorf("cli: player %q: playouts=%s: want a whole number of at least 1", spec, value)
			}
			p.Playouts = n
		case "root":
			if value != mcts.RootPUCT && value != mcts.RootGumbel {
				return p, fmt.Errorf("cli: player %q: root=%s: want %s or %s", spec, value, mcts.RootPUCT, mcts.RootGumbel)
			}
			root = value
		case "net":
			if builtin {
				return p, fmt.Errorf("cli: player %q: the builtin player takes no net", spec)
			}
			netFile = value
		default:
			return p, fmt.Errorf("cli: player %q: unknown key %q (playouts, net, root)", spec, key)
		}
	}
	switch {
	case builtin:
		p.Name = fmt.Sprintf("builtin-%d", p.Playouts)
		p.NewEvaluator = func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }
	case netFile == "":
		return p, fmt.Errorf("cli: player %q: want builtin:playouts=N or net=FILE,playouts=N", spec)
	default:
		factory, n, err := NetworkEvaluators(netFile, 1, nil)
		if err != nil {
			return p, fmt.Errorf("cli: player %q: %w", spec, err)
		}
		p.Name = fmt.Sprintf("%s-%s-%d", strings.TrimSuffix(filepath.Base(netFile), ".safetensors"), n.Hash()[:6], p.Playouts)
		p.NewEvaluator = factory
		p.Network = netFile
	}
	if root == mcts.RootGumbel {
		cfg := mcts.DefaultConfig()
		cfg.RootSearch = root
		p.Search = &cfg
		p.Name += "-gumbel"
	}
	return p, nil
}
