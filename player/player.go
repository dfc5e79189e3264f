package player

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"taflab/engine"
	"taflab/match"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// NetworkEvaluators loads a network file and returns a factory of
// evaluators over it, one per worker, each with the given threads, random
// symmetries on (the same choice for a position in every worker, so that
// games do not depend on which worker plays them), and the network's hash
// as their ID. planesOf, if not nil, gives the network that rule set's planes
// whatever the played one (net.Inference.PlanesOf); the ID then says so.
func NetworkEvaluators(path string, threads int, planesOf *rules.Variant) (func() (mcts.Evaluator, error), *net.Network, error) {
	if planesOf != nil && planesOf.Size() != net.BoardSize {
		return nil, nil, fmt.Errorf("player: the planes of %s: a %dx%d rule set, and the network plays %dx%d", planesOf.Name(), planesOf.Size(), planesOf.Size(), net.BoardSize, net.BoardSize)
	}
	n, _, err := net.Load(path)
	if err != nil {
		return nil, nil, err
	}
	id := "net-" + n.Hash()
	if planesOf != nil {
		id += "-as-" + planesOf.Name()
	}
	return func() (mcts.Evaluator, error) {
		in := n.NewInference(threads, id)
		in.RandomSymmetry = true
		in.PlanesOf = planesOf
		return in, nil
	}, n, nil
}

// Parse reads a player of match play: "builtin:playouts=800" (the
// network-free searcher) or "net=FILE,playouts=200" (a network file), with
// ",root=gumbel" for Gumbel root search instead of PUCT. It loads the
// network, so that a missing or wrong file is an error before any game.
// Errors name the spec and the part that is wrong.
//
// An engine program is "otep:cmd=COMMAND,movetime=MS" or
// "uci:cmd=COMMAND,movetime=MS" (or nodes=N for UCI), with optional
// limit=MS (its allowance per move, past which it loses the game; default
// the move time plus a second, or a minute without a move time) and
// name=NAME. An OTEP engine gets the move time as OpenTafl's clock; with
// clock=off it gets no clock line and budgets by its own settings
// (OpenTafl's thinktime), and movetime may be left out. The
// command is split into words at spaces (quote a word with ' to keep its
// spaces); quote the whole value with " when it holds commas.
func Parse(spec string) (match.Player, error) {
	if proto, body, ok := strings.Cut(spec, ":"); ok && (proto == engine.OTEP || proto == engine.UCI) {
		return parseEngine(spec, proto, body)
	}
	p := match.Player{Playouts: 800}
	body, builtin := strings.CutPrefix(spec, "builtin")
	if builtin {
		if body != "" && !strings.HasPrefix(body, ":") {
			return p, fmt.Errorf("player %q: want builtin:playouts=N or net=FILE,playouts=N", spec)
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
			return p, fmt.Errorf("player %q: %q is not key=value", spec, part)
		}
		switch key {
		case "playouts":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > mcts.MaxPlayouts {
				return p, fmt.Errorf("player %q: playouts=%s: want a whole number from 1 to %d", spec, value, mcts.MaxPlayouts)
			}
			p.Playouts = n
		case "root":
			if value != mcts.RootPUCT && value != mcts.RootGumbel {
				return p, fmt.Errorf("player %q: root=%s: want %s or %s", spec, value, mcts.RootPUCT, mcts.RootGumbel)
			}
			root = value
		case "net":
			if builtin {
				return p, fmt.Errorf("player %q: the builtin player takes no net", spec)
			}
			netFile = value
		default:
			return p, fmt.Errorf("player %q: unknown key %q (playouts, net, root)", spec, key)
		}
	}
	switch {
	case builtin:
		p.Name = fmt.Sprintf("builtin-%d", p.Playouts)
		p.NewEvaluator = func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }
	case netFile == "":
		return p, fmt.Errorf("player %q: want builtin:playouts=N or net=FILE,playouts=N", spec)
	default:
		factory, n, err := NetworkEvaluators(netFile, 1, nil)
		if err != nil {
			return p, fmt.Errorf("player %q: %w", spec, err)
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

// parseEngine reads the body of an engine player's spec.
func parseEngine(spec, proto, body string) (match.Player, error) {
	bad := func(format string, a ...any) (match.Player, error) {
		return match.Player{}, fmt.Errorf("player %q: %s", spec, fmt.Sprintf(format, a...))
	}
	x := engine.External{Protocol: proto}
	var limit time.Duration
	name := ""
	parts, err := splitQuoted(body, ',')
	if err != nil {
		return bad("%v", err)
	}
	for _, part := range parts {
		if part == "" {
			continue
		}
		key, value, ok := strings.Cut(part, "=")
		if !ok {
			return bad("%q is not key=value", part)
		}
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
		}
		number := func() (int, error) {
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("%s=%s: want a whole number of at least 1", key, value)
			}
			return n, nil
		}
		switch key {
		case "cmd":
			words, err := splitQuoted(value, ' ')
			if err != nil {
				return bad("cmd: %v", err)
			}
			x.Command = nil
			for _, w := range words {
				if w != "" {
					x.Command = append(x.Command, strings.Trim(w, "'"))
				}
			}
		case "movetime", "nodes", "limit":
			n, err := number()
			if err != nil {
				return bad("%v", err)
			}
			switch key {
			case "movetime":
				x.MoveTime = time.Duration(n) * time.Millisecond
			case "nodes":
				if proto != engine.UCI {
					return bad("nodes: OTEP has no node budget: give movetime")
				}
				x.Nodes = n
			default:
				limit = time.Duration(n) * time.Millisecond
			}
		case "name":
			name = value
		case "clock":
			if value != "on" && value != "off" {
				return bad("clock=%s: want on or off", value)
			}
			if proto != engine.OTEP {
				return bad("clock: only OTEP sends a clock")
			}
			x.NoClock = value == "off"
		default:
			return bad("unknown key %q (cmd, movetime, nodes, limit, clock, name)", key)
		}
	}
	if len(x.Command) == 0 {
		return bad("want %s:cmd=COMMAND,movetime=MS", proto)
	}
	if err := x.Validate(); err != nil {
		return bad("%s", strings.TrimPrefix(err.Error(), "engine: "))
	}
	if limit == 0 {
		limit = x.MoveTime + time.Second
		if x.MoveTime == 0 {
			limit = time.Minute
		}
	}
	if limit < x.MoveTime {
		return bad("limit=%d: less than the move time", limit.Milliseconds())
	}
	if name == "" {
		budget := fmt.Sprintf("%dms", x.MoveTime.Milliseconds())
		switch {
		case x.NoClock && x.MoveTime == 0:
			budget = "own"
		case x.MoveTime == 0:
			budget = fmt.Sprintf("%dn", x.Nodes)
		}
		name = fmt.Sprintf("%s-%s-%s", proto, strings.TrimSuffix(filepath.Base(x.Command[0]), ".exe"), budget)
	}
	x.Stderr = os.Stderr
	return match.Player{Name: name, NewEngine: x.Start, MoveLimit: limit, Engine: strings.Join(x.Command, " ")}, nil
}

// splitQuoted splits s at sep outside double or single quotes.
func splitQuoted(s string, sep byte) ([]string, error) {
	var parts []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%q: an unclosed quote", s)
	}
	return append(parts, s[start:]), nil
}
