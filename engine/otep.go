package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"taflab/internal/errctx"
	"taflab/protocol"
	"taflab/rules"
)

// Clock is OTEP's clock command: "clock <attacker ms>[*] <defender ms>[*]
// <overtime s> <attacker overtimes> <defender overtimes>". A '*' says the
// side's main time is spent and the figure is what is left of its current
// overtime period.
type Clock struct {
	Millis    [2]int64 // by side: main time left, or the period's time with InPeriod
	InPeriod  [2]bool
	Overtime  time.Duration // one overtime period
	Overtimes [2]int        // overtime periods left, by side
}

// maxClockMillis is the most a clock figure may say: larger ones (a host's
// 9223372036854775807, say) are read as this, about 11.6 days, so that no
// sum of them overflows a time.Duration.
const maxClockMillis = 1_000_000_000

// maxOvertimes is the most overtime periods a clock may count; more are
// read as this.
const maxOvertimes = 1_000_000

// ParseClock reads the arguments of a clock command. Figures past the
// ranges a game can use are clamped: milliseconds to maxClockMillis,
// overtime seconds to maxClockMillis/1000, periods to maxOvertimes.
func ParseClock(args string) (Clock, error) {
	c, err := parseClock(args)
	if err != nil {
		return Clock{}, errctx.Errorf("engine", "clock %w", err)
	}
	return c, nil
}

// parseClock is ParseClock, its errors the clock's arguments quoted and
// what is wrong with them.
func parseClock(args string) (Clock, error) {
	f := strings.Fields(args)
	if len(f) != 5 {
		return Clock{}, fmt.Errorf("%q: want <attacker ms>[*] <defender ms>[*] <overtime s> <attacker overtimes> <defender overtimes>", clip(args))
	}
	var c Clock
	for side := range 2 {
		text, star := strings.CutSuffix(f[side], "*")
		ms, err := strconv.ParseInt(text, 10, 64)
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(text, "-") {
			ms, err = maxClockMillis, nil
		}
		if err != nil || ms < -1 {
			return Clock{}, fmt.Errorf("%q: %s time %q: want milliseconds (-1 for none)", clip(args), rules.Side(side), f[side])
		}
		c.Millis[side], c.InPeriod[side] = min(ms, maxClockMillis), star
	}
	ot, err := strconv.ParseInt(f[2], 10, 64)
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(f[2], "-") {
		ot, err = maxClockMillis/1000, nil
	}
	if err != nil || ot < 0 {
		return Clock{}, fmt.Errorf("%q: overtime %q: want seconds, 0 or more", clip(args), f[2])
	}
	c.Overtime = time.Duration(min(ot, maxClockMillis/1000)) * time.Second
	for side := range 2 {
		n, err := strconv.ParseInt(f[3+side], 10, 64)
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(f[3+side], "-") {
			n, err = maxOvertimes, nil
		}
		if err != nil || n < 0 {
			return Clock{}, fmt.Errorf("%q: %s overtimes %q: want a count, 0 or more", clip(args), rules.Side(side), f[3+side])
		}
		c.Overtimes[side] = int(min(n, maxOvertimes))
	}
	return c, nil
}

// ClockBudget is the time the engine gives a move of side under clock c,
// or 0 when the clock says nothing (OpenTafl's -1 for untimed games). The
// clock counts overtime periods as OpenTafl does: the count includes the
// period in progress, a move made within a period leaves it whole for the
// next, and main time that runs out during a move carries on into the
// first period. So:
//   - in an overtime period (a '*'), nine tenths of what is left of it, less
//     50 ms for the line to travel;
//   - in main time, a thirtieth of it, plus half an overtime period when
//     periods are left; never more than nine tenths of what the move may
//     take without losing the game or a period (the main time left, and one
//     period when there are any), less 50 ms;
//
// and at least 10 ms. The engine's search stops when the budget, counted
// from the moment the play command arrived, would run out within its next
// step.
func ClockBudget(c Clock, side rules.Side) time.Duration {
	ms := c.Millis[side]
	if ms < 0 {
		return 0
	}
	const travel = 50 * time.Millisecond
	left := time.Duration(ms) * time.Millisecond
	if c.InPeriod[side] {
		return max(left*9/10-travel, 10*time.Millisecond)
	}
	b, most := left/30, left
	if c.Overtimes[side] > 0 && c.Overtime > 0 {
		b += c.Overtime / 2
		most += c.Overtime
	}
	return max(min(b, most*9/10-travel), 10*time.Millisecond)
}

// otep answers one line of OpenTafl's engine protocol.
func (s *server) otep(ctx context.Context, l line) error {
	cmd, args := firstWord(l.text)
	bad := func(format string, a ...any) error {
		s.send("error 0 %s: %s", cmd, fmt.Sprintf(format, a...))
		return nil
	}
	switch cmd {
	case "":
	case "hello", "start":
		// The host says it is there, or that the game began: nothing to do.
	case "rules":
		if args == "" {
			return bad("missing the rules string")
		}
		def, err := protocol.CompileRules(args)
		if err != nil {
			// The engine cannot play these rules: a critical error ends
			// the game on the host's side.
			s.send("error -1 cannot play these rules: %s", rulesProblem(err))
			return nil
		}
		v, err := rules.Compile(def)
		if err != nil {
			s.send("error -1 cannot play these rules: %v", err)
			return nil
		}
		if err := s.setVariant(v, rules.Position{}); err != nil {
			s.send("error -1 cannot play these rules: %v", err)
			return nil
		}
		s.status("rules %s", def.Name)
	case "position":
		toMove := s.start.ToMove
		if s.sideSet {
			toMove = s.side
		}
		p, err := protocol.ParseBoard(args, toMove)
		if err != nil {
			return bad("%s", errctx.Message(err))
		}
		if err := s.variant.CheckStart(p); err != nil { // a finished game is nothing to play from
			return bad("%s", errctx.Message(err))
		}
		if err := s.setVariant(s.variant, p); err != nil {
			return bad("%v", err)
		}
	case "side":
		side, ok := parseSide(args)
		if !ok {
			return bad("%q: want attackers or defenders", clip(args))
		}
		s.side, s.sideSet = side, true
	case "clock":
		c, err := parseClock(args)
		if err != nil {
			return bad("%v", err)
		}
		s.clock = &c
	case "opponent-move":
		return s.opponentMove(args)
	case "move":
		// The host accepted our move; its position is the board after it.
		p, err := protocol.ParseBoard(args, s.game.ToMove())
		if err != nil {
			return bad("%s", errctx.Message(err))
		}
		s.ownReady = false
		s.resync("move", p, s.game.ToMove())
	case "error":
		code, _ := firstWord(args)
		if s.ownReady {
			s.undo() // the host refused our move
			s.ownReady = false
		}
		s.status("the host refused the last move (error %s)", clip(code))
	case "play":
		side, ok := parseSide(args)
		if !ok {
			return bad("%q: want attackers or defenders", clip(args))
		}
		return s.otepPlay(ctx, l, side)
	case "analyze":
		return s.otepAnalyze(ctx, l, args)
	case "finish":
		if code, err := strconv.Atoi(args); err != nil || code < 0 || code > 3 {
			return bad("%q: want 0 to 3", clip(args))
		}
	case "goodbye":
		s.quit = true
	default:
		s.status("unknown command %q ignored", clip(cmd))
	}
	return nil
}

func (s *server) status(format string, a ...any) { s.send("status "+format, a...) }

func parseSide(text string) (rules.Side, bool) {
	switch text {
	case "attackers":
		return rules.Attackers, true
	case "defenders":
		return rules.Defenders, true
	}
	return 0, false
}

// opponentMove plays "opponent-move <move>[|<move>...] <position>": each
// move if it is legal, then the position has the last word: if the board
// differs (a move the engine's rules refused, a game it lost track of),
// the engine starts again from the host's position. The whole line is read
// before anything is played: a malformed one changes nothing.
func (s *server) opponentMove(args string) error {
	f := strings.Fields(args)
	if len(f) != 2 {
		s.send("error 0 opponent-move: %q: want <moves> <position>", clip(args))
		return nil
	}
	texts := strings.Split(f[0], "|") // as many as maxLineBytes holds
	moves := make([]rules.Move, len(texts))
	for i, text := range texts {
		m, _, err := protocol.ParseMove(text)
		if err != nil {
			s.send("error 0 opponent-move: %s", errctx.Message(err))
			return nil
		}
		moves[i] = m
	}
	p, err := protocol.ParseBoard(f[1], s.game.ToMove()) // resync sets the side to move
	if err != nil {
		s.send("error 0 opponent-move: %s", errctx.Message(err))
		return nil
	}
	s.ownReady = false
	mover := s.game.ToMove()
	for _, m := range moves {
		if s.game.IsLegal(m) {
			mover = s.game.ToMove()
			s.play(m)
		}
	}
	s.resync("opponent-move", p, mover.Opponent())
	return nil
}

// resync makes the host's board the engine's: the host is the referee, so
// when its board after cmd differs from the one taflab's rules made (a
// capture or an ending judged otherwise, a game the engine lost track of),
// the game starts again from the host's, toMove to move, and a status line
// says so. The repetition history starts again with it.
func (s *server) resync(cmd string, p rules.Position, toMove rules.Side) {
	if protocol.SameBoard(p, s.game.Position()) {
		return
	}
	p.ToMove = toMove
	if err := s.setVariant(s.variant, p); err != nil {
		s.send("error 0 %s: %v", cmd, err)
		return
	}
	s.status("the host's position after %s differs from taflab's: following the host's (repetitions counted from here)", cmd)
}

// otepPlay searches for side and sends the move.
func (s *server) otepPlay(ctx context.Context, l line, side rules.Side) error {
	if s.game.ToMove() != side || s.game.Outcome().Over() {
		// The host's word stands: the same board, side to move, judged
		// afresh.
		p := s.game.Position()
		p.ToMove = side
		if err := s.setVariant(s.variant, p); err != nil {
			s.send("error 0 play: %v", err)
			return nil
		}
	}
	if noMove(s.game) || !s.hasLegalMove() {
		s.send("error 0 play: the %s have no legal move", side)
		return nil
	}
	b := s.otepBudget(l.at, side)
	abandoned := false // the game the search was for is gone
	res, err := s.think(ctx, b, func(in line, b *budget) bool {
		cmd, args := firstWord(in.text)
		switch cmd {
		case "clock":
			// Sent right after play: the budget comes from it.
			if c, err := ParseClock(args); err == nil {
				s.clock = &c
				*b = s.otepBudget(b.from, side)
			}
			return false
		case "goodbye":
			s.quit = true
			return true
		case "finish", "rules", "position":
			s.enqueue(in)
			abandoned = true
			return true
		}
		s.enqueue(in)
		return false
	})
	if err != nil {
		return err
	}
	if s.quit || abandoned {
		return nil
	}
	m := res.search.BestMove()
	s.send("status %d playouts in %d ms, value %d%s", res.playouts, res.elapsed.Milliseconds(), valueScore(res.search.RootValue()), s.fullNote(res.search))
	s.send("move %s", protocol.FormatMove(m))
	s.play(m)
	s.ownMove, s.ownReady = m, true
	return nil
}

// otepBudget is a search's budget for side: the clock's (ClockBudget) and
// the configured move time, the smaller; playouts without either.
func (s *server) otepBudget(from time.Time, side rules.Side) budget {
	t := s.cfg.MoveTime
	if s.clock != nil {
		if cb := ClockBudget(*s.clock, side); cb > 0 && (t == 0 || cb < t) {
			t = cb
		}
	}
	if t > 0 {
		return budget{playouts: s.timedPlayouts(), from: from, time: t}
	}
	return budget{playouts: s.cfg.Playouts, from: from}
}

// otepAnalyze answers "analyze <n> <seconds>" with the n best moves of a
// search of up to that time: "analysis <k> <move> <eval> ...", eval from
// -1000 (lost) to 1000 (won) for the side to move.
func (s *server) otepAnalyze(ctx context.Context, l line, args string) error {
	f := strings.Fields(args)
	var n, secs int
	var err1, err2 error
	if len(f) == 2 {
		n, err1 = strconv.Atoi(f[0])
		secs, err2 = strconv.Atoi(f[1])
	}
	if len(f) != 2 || err1 != nil || err2 != nil || n < 1 || secs < 0 {
		s.send("error 0 analyze: %q: want <number of moves> <seconds>", clip(args))
		return nil
	}
	if noMove(s.game) || !s.hasLegalMove() {
		s.send("error 0 analyze: the game is over")
		return nil
	}
	b := budget{playouts: s.cfg.Playouts, from: l.at}
	if t := time.Duration(min(secs, maxClockMillis/1000)) * time.Second; t > 0 {
		b = budget{playouts: s.timedPlayouts(), from: l.at, time: t}
		if s.cfg.MoveTime > 0 && s.cfg.MoveTime < t {
			b.time = s.cfg.MoveTime
		}
	}
	res, err := s.think(ctx, b, func(in line, b *budget) bool {
		s.enqueue(in)
		c, _ := firstWord(in.text)
		if c == "goodbye" {
			return true
		}
		return false
	})
	if err != nil {
		return err
	}
	top := topMoves(res.search, n)
	parts := []string{"analysis", strconv.Itoa(len(top))}
	for _, st := range top {
		parts = append(parts, protocol.FormatMove(st.Move), strconv.Itoa(valueScore(st.Value)))
	}
	s.send("%s", strings.Join(parts, " "))
	return nil
}

func (s *server) hasLegalMove() bool {
	var buf [rules.MaxMoves]rules.Move
	return len(s.game.GenerateMoves(buf[:0])) > 0
}
