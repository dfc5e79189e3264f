// Package player turns the player specs of match play ("builtin:playouts=200",
// "net=FILE,playouts=800,root=gumbel", "otep:cmd=PROGRAM,movetime=MS") into
// values: a Spec is parsed once, changed as a value, and loaded into a
// match.Player by a Loader that reads each network file once. Its main use is
//
//	spec, err := player.ParseSpec("net=networks/copenhagen.safetensors,playouts=200")
//	var loader player.Loader
//	for _, n := range []int{200, 800, 3200} {
//		p, err := loader.Load(spec.WithPlayouts(n)) // one network in memory
//		...
//	}
package player

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"taflab/configs/variants"
	"taflab/engine"
	"taflab/internal/errctx"
	"taflab/match"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// NetworkEvaluators loads a network file and returns a factory of its
// evaluators (Evaluators) and the network.
func NetworkEvaluators(path string, threads int, planesOf *rules.Variant) (func() (mcts.Evaluator, error), *net.Network, error) {
	if err := checkPlanes(planesOf); err != nil {
		return nil, nil, err
	}
	n, _, err := net.Load(path)
	if err != nil {
		return nil, nil, err
	}
	return Evaluators(n, threads, planesOf), n, nil
}

// checkPlanes refuses planes of a rule set of another board size than the
// network's.
func checkPlanes(planesOf *rules.Variant) error {
	if planesOf != nil && planesOf.Size() != net.BoardSize {
		return errctx.Errorf("player", "the planes of %s: a %dx%d rule set, and the network plays %dx%d", planesOf.Name(), planesOf.Size(), planesOf.Size(), net.BoardSize, net.BoardSize)
	}
	return nil
}

// Evaluators returns a factory of evaluators over n, one per worker, each
// with the given threads, random symmetries on (the same choice for a
// position in every worker, so that games do not depend on which worker
// plays them), and the network's hash as their ID. planesOf, if not nil
// (a rule set of the network's board size), gives the network that rule
// set's planes whatever the played one (net.Inference.PlanesOf); the ID then
// says so. If nil, the network's own (net.Network.PlanesOf) are shown, or
// else the played rule set's.
func Evaluators(n *net.Network, threads int, planesOf *rules.Variant) func() (mcts.Evaluator, error) {
	return PrecisionEvaluators(n, threads, planesOf, net.DefaultPrecision())
}

// PrecisionEvaluators is Evaluators in precision p (Evaluators takes the
// process's default, net.DefaultPrecision).
func PrecisionEvaluators(n *net.Network, threads int, planesOf *rules.Variant, p net.Precision) func() (mcts.Evaluator, error) {
	id := "net-" + n.Hash()
	if planesOf != nil {
		id += "-as-" + planesOf.Name()
	}
	return func() (mcts.Evaluator, error) {
		in := n.NewInferenceAt(threads, id, p)
		in.RandomSymmetry = true
		if planesOf != nil {
			in.PlanesOf = planesOf
		}
		return in, nil
	}
}

// Kind is what plays for a Spec.
type Kind int

// The kinds of player.
const (
	Builtin Kind = iota // the network-free searcher (mcts.NewHeuristic)
	Network             // a search over a network file
	Program             // an engine program over OTEP or UCI
)

// Spec is a player of match play as its spec names it, parsed once and
// then changed as a value (WithPlayouts), never as text. Load turns it into
// a match.Player.
type Spec struct {
	Kind Kind
	// Playouts is a search's budget per move (Builtin and Network), 1 to
	// mcts.MaxPlayouts.
	Playouts int
	// Net is a Network player's network file.
	Net string
	// Root is the root search, "" for the default (PUCT) or mcts.RootGumbel.
	Root string
	// Precision is a Network player's inference precision (net.Precision's
	// names), "" for the process's default (net.DefaultPrecision: the
	// commands' -precision).
	Precision string
	// Planes is the embedded rule set whose input planes a Network
	// player's network is shown whatever rule set is played; "" for the
	// rule set its file names (net.Network.PlanesOf: a network trained on
	// one rule set's game records alone knows their planes and no other),
	// else the played one's.
	Planes string
	// Tactics is the search's mcts.Config.TacticalWeight (Builtin and
	// Network): the weight of the implicit minimax value of material and
	// game ends in its choices, 0 (the default) to 1.
	Tactics float64
	// Program is a Program player's program and protocol settings, and
	// MoveLimit its allowance per move, past which it loses the game.
	Program   engine.External
	MoveLimit time.Duration
	// Name is a Program player's name; "" for the others, whose names come
	// from the network and the playouts (Load).
	Name string
}

// BuiltinSpec is the network-free searcher with the given playouts.
func BuiltinSpec(playouts int) Spec { return Spec{Kind: Builtin, Playouts: playouts} }

// NetworkSpec is a search over the network file with the given playouts.
func NetworkSpec(file string, playouts int) Spec {
	return Spec{Kind: Network, Net: file, Playouts: playouts}
}

// WithPlayouts returns the spec with another search budget. A Program
// spec is returned as it is: its budget is its move time.
func (s Spec) WithPlayouts(n int) Spec {
	if s.Kind != Program {
		s.Playouts = n
	}
	return s
}

// String returns the spec as ParseSpec reads it (an engine's command
// quoted as given words).
func (s Spec) String() string {
	var b strings.Builder
	switch s.Kind {
	case Builtin:
		fmt.Fprintf(&b, "builtin:playouts=%d", s.Playouts)
	case Network:
		fmt.Fprintf(&b, "net=%s,playouts=%d", s.Net, s.Playouts)
		if s.Planes != "" {
			b.WriteString(",planes=" + s.Planes)
		}
		if s.Precision != "" {
			b.WriteString(",precision=" + s.Precision)
		}
	default:
		fmt.Fprintf(&b, "%s:cmd=\"%s\"", s.Program.Protocol, strings.Join(s.Program.Command, " "))
		if s.Program.MoveTime > 0 {
			fmt.Fprintf(&b, ",movetime=%d", s.Program.MoveTime.Milliseconds())
		}
		if s.Program.Nodes > 0 {
			fmt.Fprintf(&b, ",nodes=%d", s.Program.Nodes)
		}
		if s.Program.NoClock {
			b.WriteString(",clock=off")
		}
		fmt.Fprintf(&b, ",limit=%d,name=%s", s.MoveLimit.Milliseconds(), s.Name)
	}
	if s.Root != "" {
		b.WriteString(",root=" + s.Root)
	}
	if s.Tactics > 0 {
		b.WriteString(",tactics=" + strconv.FormatFloat(s.Tactics, 'g', -1, 64))
	}
	return b.String()
}

// ParseSpec reads a player of match play: "builtin:playouts=800" (the
// network-free searcher) or "net=FILE,playouts=200" (a network file), with
// ",root=gumbel" for Gumbel root search instead of PUCT, ",tactics=W" for
// implicit minimax backups of material and game ends with weight W
// (mcts.Config.TacticalWeight), and a network
// ",planes=NAME" to show it the input planes of the embedded rule set NAME
// whatever is played, and ",precision=P" to run its network in precision P
// (auto, float32, bf16, int8: net.ParsePrecision) whatever the command's
// -precision. Errors name the spec and the part that is wrong.
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
func ParseSpec(text string) (Spec, error) {
	if proto, body, ok := strings.Cut(text, ":"); ok && (proto == engine.OTEP || proto == engine.UCI) {
		return parseEngine(text, proto, body)
	}
	s := Spec{Kind: Network, Playouts: 800}
	body, builtin := strings.CutPrefix(text, "builtin")
	if builtin {
		if body != "" && !strings.HasPrefix(body, ":") {
			return s, fmt.Errorf("player %q: want builtin:playouts=N or net=FILE,playouts=N", text)
		}
		body = strings.TrimPrefix(body, ":")
		s.Kind = Builtin
	}
	for _, part := range strings.Split(body, ",") {
		if part == "" {
			continue
		}
		key, value, ok := strings.Cut(part, "=")
		if !ok {
			return s, fmt.Errorf("player %q: %q is not key=value", text, part)
		}
		switch key {
		case "playouts":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > mcts.MaxPlayouts {
				return s, fmt.Errorf("player %q: playouts=%s: want a whole number from 1 to %d", text, value, mcts.MaxPlayouts)
			}
			s.Playouts = n
		case "root":
			if value != mcts.RootPUCT && value != mcts.RootGumbel {
				return s, fmt.Errorf("player %q: root=%s: want %s or %s", text, value, mcts.RootPUCT, mcts.RootGumbel)
			}
			if value == mcts.RootGumbel {
				s.Root = value
			}
		case "tactics":
			w, err := strconv.ParseFloat(value, 64)
			if err != nil || !(w >= 0 && w <= 1) {
				return s, fmt.Errorf("player %q: tactics=%s: want a weight from 0 to 1", text, value)
			}
			s.Tactics = w
		case "planes":
			if builtin {
				return s, fmt.Errorf("player %q: the builtin player takes no planes", text)
			}
			if _, err := variants.Load(value); err != nil {
				return s, fmt.Errorf("player %q: planes=%s: want an embedded rule set (%s)", text, value, strings.Join(variants.Names(), ", "))
			}
			s.Planes = value
		case "net":
			if builtin {
				return s, fmt.Errorf("player %q: the builtin player takes no net", text)
			}
			s.Net = value
		case "precision":
			if builtin {
				return s, fmt.Errorf("player %q: the builtin player takes no precision", text)
			}
			p, err := net.ParsePrecision(value)
			if err == nil {
				err = p.Check()
			}
			if err != nil {
				return s, fmt.Errorf("player %q: %w", text, err)
			}
			s.Precision = value
		default:
			return s, fmt.Errorf("player %q: unknown key %q (playouts, net, root, planes, precision, tactics)", text, key)
		}
	}
	if s.Kind == Network && s.Net == "" {
		return s, fmt.Errorf("player %q: want builtin:playouts=N or net=FILE,playouts=N", text)
	}
	return s, nil
}

// Parse reads a player spec (ParseSpec) and loads it (Loader.Load), so that
// a missing or wrong network file is an error before any game.
func Parse(text string) (match.Player, error) {
	s, err := ParseSpec(text)
	if err != nil {
		return match.Player{}, err
	}
	return new(Loader).Load(s) // a network file's error is net's, naming the file
}

// Loader turns specs into players, loading each network file once however
// many specs name it (a balance run's budgets, a loop's gates). The zero
// Loader is ready; it is safe for concurrent use.
type Loader struct {
	// EngineStderr is where engine programs' standard error goes; nil:
	// os.Stderr.
	EngineStderr io.Writer

	mu   sync.Mutex              // guards nets
	nets map[string]*net.Network // by file name; a loaded network is immutable
}

// Network returns the network in file, loading it the first time.
func (l *Loader) Network(file string) (*net.Network, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.nets[file]; ok {
		return n, nil
	}
	n, _, err := net.Load(file)
	if err != nil {
		return nil, err
	}
	if l.nets == nil {
		l.nets = map[string]*net.Network{}
	}
	l.nets[file] = n
	return n, nil
}

// Load makes the match player of a spec. Its errors are the network
// file's (net.Load's, naming the file).
func (l *Loader) Load(s Spec) (match.Player, error) {
	var p match.Player
	switch s.Kind {
	case Program:
		x := s.Program
		x.Stderr = l.EngineStderr
		if x.Stderr == nil {
			x.Stderr = os.Stderr
		}
		return match.Player{Name: s.Name, NewProgram: x.Start, MoveLimit: s.MoveLimit, Command: strings.Join(x.Command, " ")}, nil
	case Builtin:
		p.Name = fmt.Sprintf("builtin-%d", s.Playouts)
		p.NewEvaluator = func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }
	default:
		n, err := l.Network(s.Net)
		if err != nil {
			return p, err // net's, naming the file
		}
		p.Name = fmt.Sprintf("%s-%s-%d", strings.TrimSuffix(filepath.Base(s.Net), ".safetensors"), n.Hash()[:6], s.Playouts)
		var planesOf *rules.Variant
		if s.Planes != "" {
			if planesOf, err = variants.Load(s.Planes); err != nil {
				return p, errctx.Key("player", "planes="+s.Planes, err)
			}
			p.Name += "-as-" + s.Planes
		}
		prec := net.DefaultPrecision()
		if s.Precision != "" {
			if prec, err = net.ParsePrecision(s.Precision); err != nil {
				return p, err // net's, naming the precision
			}
			p.Name += "-" + s.Precision
		}
		p.NewEvaluator = PrecisionEvaluators(n, 1, planesOf, prec)
		p.Network = s.Net
	}
	p.Playouts = s.Playouts
	if s.Root == mcts.RootGumbel || s.Tactics > 0 {
		cfg := mcts.DefaultConfig()
		if s.Root == mcts.RootGumbel {
			cfg.RootSearch = s.Root
			p.Name += "-gumbel"
		}
		if s.Tactics > 0 {
			cfg.TacticalWeight = s.Tactics
			p.Name += "-tactics" + strconv.FormatFloat(s.Tactics, 'g', -1, 64)
		}
		p.Search = &cfg
	}
	return p, nil
}

// parseEngine reads the body of an engine player's spec.
func parseEngine(spec, proto, body string) (Spec, error) {
	bad := func(format string, a ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("player %q: %s", spec, fmt.Sprintf(format, a...))
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
		return bad("%s", errctx.MessageOf("engine", err))
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
	return Spec{Kind: Program, Program: x, MoveLimit: limit, Name: name}, nil
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
