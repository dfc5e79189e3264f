package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"taflab/internal/errctx"
	"taflab/mcts"
	"taflab/protocol"
	"taflab/rules"
)

// uci answers one line of TaflZero's UCI-like protocol. Positions are
// taflab's notation ("fen <board> <side>"), moves "e1e2". TaflZero's
// protocol has no rules command: the rule set is the engine's (-variant)
// unless the host sets the Rules option to an OTR rules string.
func (s *server) uci(ctx context.Context, l line) error {
	cmd, args := firstWord(l.text)
	info := func(format string, a ...any) error {
		s.send("info string %s", fmt.Sprintf(format, a...))
		return nil
	}
	switch cmd {
	case "":
	case "uci":
		otr, err := protocol.RulesString(s.variant.Definition())
		if err != nil {
			otr = ""
		}
		s.send("id name %s", s.cfg.Name)
		s.send("id author taflab")
		s.send("option name Rules type string default %s", otr)
		s.send("option name Playouts type spin default %d min 1 max %d", s.cfg.Playouts, mcts.MaxPlayouts)
		s.send("uciok")
	case "isready":
		s.send("readyok")
	case "ucinewgame":
		s.setVariant(s.variant, rules.Position{})
	case "setoption":
		return s.setOption(args)
	case "position":
		return s.uciPosition(args)
	case "go":
		return s.uciGo(ctx, l, args)
	case "stop":
		// No search runs: nothing to stop.
	case "quit":
		s.quit = true
	default:
		return info("unknown command %q ignored", clip(cmd))
	}
	return nil
}

// setOption reads "setoption name <name> value <value>".
func (s *server) setOption(args string) error {
	rest, ok := strings.CutPrefix(args, "name ")
	name, value, hasValue := strings.Cut(rest, " value ")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || !hasValue {
		s.send("info string error: setoption %q: want name <name> value <value>", clip(args))
		return nil
	}
	switch strings.ToLower(name) {
	case "rules":
		def, err := protocol.CompileRules(value)
		if err == nil {
			var v *rules.Variant
			if v, err = rules.Compile(def); err == nil {
				err = s.setVariant(v, rules.Position{})
			}
		}
		if err != nil {
			s.send("info string error: setoption Rules: %s", rulesProblem(err))
		}
	case "playouts":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > mcts.MaxPlayouts {
			s.send("info string error: setoption Playouts %q: want 1 to %d", clip(value), mcts.MaxPlayouts)
			return nil
		}
		s.playouts = n
	default:
		s.send("info string error: setoption: unknown option %q (Rules, Playouts)", clip(name))
	}
	return nil
}

// rulesProblem is what a host is told of rules the engine cannot play: a
// rules string's problem (protocol.RulesError), or the error.
func rulesProblem(err error) string {
	if re, ok := err.(*protocol.RulesError); ok {
		return re.Problem()
	}
	return err.Error()
}

// uciPosition reads "position startpos|fen <board> <side> [moves m ...]".
// A position or move that is wrong leaves the engine's position as it was.
func (s *server) uciPosition(args string) error {
	f := strings.Fields(args)
	bad := func(format string, a ...any) error {
		s.send("info string error: position: %s", fmt.Sprintf(format, a...))
		return nil
	}
	if len(f) == 0 {
		return bad("want startpos or fen <board> <side>, then moves")
	}
	start := s.variant.Start()
	rest := f[1:]
	switch f[0] {
	case "startpos":
	case "fen":
		if len(f) < 3 {
			return bad("fen: want <board> <side>")
		}
		p, err := rules.ParsePosition(f[1] + " " + f[2])
		if err != nil {
			return bad("%s", errctx.Message(err))
		}
		start, rest = p, f[3:]
	default:
		return bad("%q: want startpos or fen", clip(f[0]))
	}
	if len(rest) > 0 && rest[0] != "moves" {
		return bad("%q: want moves", clip(rest[0]))
	}
	g, err := rules.NewGameFromStart(s.variant, start) // a finished game is nothing to play from
	if err != nil {
		return bad("%s", errctx.Message(err))
	}
	var moves []rules.Move
	for i, text := range rest[min(1, len(rest)):] {
		m, err := protocol.ParseUCIMove(text)
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			return bad("move %d %q: %s", i+1, clip(text), errctx.Message(err))
		}
		moves = append(moves, m)
	}
	s.start, s.game, s.moves = start, g, moves
	return nil
}

// uciGo reads "go [nodes N | movetime MS | infinite]", searches and sends
// "info ..." and "bestmove e1e2" ("bestmove (none)" when the game is over).
// During the search "stop" ends it, "isready" is answered, "quit" ends the
// session; other lines wait for after it.
func (s *server) uciGo(ctx context.Context, l line, args string) error {
	f := strings.Fields(args)
	playouts := s.cfg.Playouts
	if s.playouts > 0 {
		playouts = s.playouts
	}
	b := budget{playouts: playouts, from: l.at}
	if s.cfg.MoveTime > 0 {
		b = budget{playouts: s.timedPlayouts(), from: l.at, time: s.cfg.MoveTime}
	}
	for i := 0; i < len(f); i++ {
		number := func() (int, bool) {
			if i+1 >= len(f) {
				return 0, false
			}
			i++
			n, err := strconv.Atoi(f[i])
			return n, err == nil && n >= 1
		}
		switch f[i] {
		case "nodes":
			n, ok := number()
			if !ok || n > mcts.MaxPlayouts {
				s.send("info string error: go: nodes: want 1 to %d", mcts.MaxPlayouts)
				return nil
			}
			b = budget{playouts: n, from: l.at}
		case "movetime":
			n, ok := number()
			if !ok {
				s.send("info string error: go: movetime: want milliseconds, at least 1")
				return nil
			}
			b = budget{playouts: s.timedPlayouts(), from: l.at, time: time.Duration(min(n, maxClockMillis)) * time.Millisecond}
			if s.cfg.MoveTime > 0 && s.cfg.MoveTime < b.time {
				b.time = s.cfg.MoveTime // the engine's own limit holds too
			}
		case "infinite":
			b = budget{playouts: s.timedPlayouts(), from: l.at, infinite: true}
		default:
			s.send("info string error: go: %q: want nodes N, movetime MS or infinite", clip(f[i]))
			return nil
		}
	}
	if noMove(s.game) || !s.hasLegalMove() {
		s.send("bestmove (none)")
		return nil
	}
	res, err := s.think(ctx, b, func(in line, _ *budget) bool {
		switch c, _ := firstWord(in.text); c {
		case "stop":
			return true
		case "quit":
			s.quit = true
			return true
		case "isready":
			s.send("readyok")
			s.out.Flush()
			return false
		}
		s.enqueue(in)
		return false
	})
	if err != nil {
		return err
	}
	m := res.search.BestMove()
	ms := res.elapsed.Milliseconds()
	speed := int64(0)
	if ms > 0 {
		speed = int64(res.playouts) * 1000 / ms
	}
	if note := s.fullNote(res.search); note != "" {
		s.send("info string%s", note)
	}
	s.send("info score cp %d nodes %d time %d speed %d pv %s", valueScore(res.search.RootValue()), res.playouts, ms, speed, protocol.FormatUCIMove(m))
	s.send("bestmove %s", protocol.FormatUCIMove(m))
	return nil
}
