package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"taflab/internal/errctx"
	"taflab/match"
	"taflab/protocol"
	"taflab/rules"
)

// External is another engine program as a match player: how to start it and
// what budget to give it per move. Start returns a session (a
// match.Program); the match referees its moves.
type External struct {
	// Protocol is OTEP or UCI.
	Protocol string
	// Command is the program and its arguments (no shell).
	Command []string
	// Dir is the program's working folder; "" for the current one.
	Dir string
	// MoveTime is the time the engine is given per move: OTEP's clock, as
	// OpenTafl's host would send it for a game with no main time and
	// overtime periods of this length (rounded up to whole seconds in the
	// clock's period field), or UCI's "go movetime".
	MoveTime time.Duration
	// NoClock sends OTEP engines no clock line at all: the engine then
	// budgets its moves by its own settings (OpenTafl's thinktime), and
	// MoveTime, if set, is only the host's expectation.
	NoClock bool
	// Nodes is UCI's "go nodes" budget, used when MoveTime is 0.
	Nodes int
	// StartTimeout bounds the wait for the program's greeting (hello, or
	// uciok). Default (0) 30 s: "go run" compiles first.
	StartTimeout time.Duration
	// Stderr receives the program's standard error; nil discards it.
	Stderr io.Writer
}

// Validate reports a setting that cannot be played.
func (x *External) Validate() error {
	switch {
	case x.Protocol != OTEP && x.Protocol != UCI:
		return errctx.Errorf("engine", "protocol %q: want %s or %s", x.Protocol, OTEP, UCI)
	case len(x.Command) == 0 || x.Command[0] == "":
		return errctx.Errorf("engine", "no command")
	case x.MoveTime < 0 || x.Nodes < 0:
		return errctx.Errorf("engine", "move time %v, nodes %d: want 0 or more", x.MoveTime, x.Nodes)
	case x.NoClock && x.Protocol != OTEP:
		return errctx.Errorf("engine", "%s: no clock is an OTEP setting", x.Protocol)
	case x.Protocol == OTEP && x.MoveTime == 0 && !x.NoClock:
		return errctx.Errorf("engine", "%s needs a move time, or no clock", x.Protocol)
	case x.Protocol == UCI && x.MoveTime == 0 && x.Nodes == 0:
		return errctx.Errorf("engine", "%s needs a move time or nodes", x.Protocol)
	}
	return nil
}

// session is one running engine program.
type session struct {
	x     *External
	cmd   *exec.Cmd
	in    *os.File    // the program's standard input: a pipe with write deadlines
	lines chan string // the program's output; closed when it ends
	// lastOutput is when the program last wrote a line (Unix nanoseconds):
	// written by the output reader, read by settle. Atomic.
	lastOutput atomic.Int64
	exit       chan struct{}
	err        error // how the program ended; set before exit is closed
	once       sync.Once

	// lastLines are the program's last lines (at most keptLines, each
	// clipped), read or left unread when it ended: a program that crashes
	// says why in them (OpenTafl prints its exception), and the forfeit's
	// error carries them. Used by the session's methods, which the match
	// calls one at a time.
	lastLines []string

	options map[string]bool // UCI options the engine offers
	variant *rules.Variant
	start   rules.Position
	side    rules.Side
	known   int // moves of the game the engine has been told of
}

// writeTimeout bounds a write to the program outside a move (whose own
// allowance bounds it there): a program that stops reading its input
// must not hang the match.
const writeTimeout = 5 * time.Second

// Start starts the program and waits for its greeting: "hello" (OTEP) or
// "uciok" after "uci" (UCI). The program gets a process group of its own
// (where the system has them), so that Close ends whatever it started too:
// an engine run by a shell script, say, whose children hold its output.
func (x *External) Start() (match.Program, error) {
	if err := x.Validate(); err != nil {
		return nil, err
	}
	cmd := exec.Command(x.Command[0], x.Command[1:]...)
	cmd.Dir = x.Dir
	cmd.Stderr = x.Stderr
	ownProcessGroup(cmd)
	inR, in, err := os.Pipe()
	if err != nil {
		return nil, errctx.Errorf("engine", "%w", err)
	}
	cmd.Stdin = inR
	out, err := cmd.StdoutPipe()
	if err != nil {
		inR.Close()
		in.Close()
		return nil, errctx.Errorf("engine", "%w", err)
	}
	err = cmd.Start()
	inR.Close() // the program has its own copy
	if err != nil {
		in.Close()
		return nil, errctx.Errorf("engine", "start %s: %w", x.Command[0], err)
	}
	s := &session{x: x, cmd: cmd, in: in, lines: make(chan string, 256), exit: make(chan struct{}), options: map[string]bool{}}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			s.lastOutput.Store(time.Now().UnixNano())
			s.lines <- strings.TrimRight(sc.Text(), "\r")
		}
		if sc.Err() != nil {
			// A line past 1 MB, or a failed read: the program no longer
			// speaks the protocol, and nobody would read what it writes
			// next. End it, so that Wait returns.
			killProcessGroup(cmd)
		}
		close(s.lines)
		s.err = cmd.Wait()
		close(s.exit)
	}()
	timeout := x.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	want := "hello"
	if x.Protocol == UCI {
		want = "uciok"
		if err := s.send("uci"); err != nil {
			s.Close()
			return nil, err
		}
	}
	for {
		l, err := s.read(ctx)
		if err != nil {
			s.Close()
			return nil, errctx.Errorf("engine", "%s: waiting for %q: %w", x.Command[0], want, err)
		}
		if name, ok := strings.CutPrefix(l, "option name "); ok {
			if n, _, ok := strings.Cut(name, " type "); ok {
				s.options[strings.ToLower(strings.TrimSpace(n))] = true
			}
		}
		if strings.TrimSpace(l) == want {
			return s, nil
		}
	}
}

func (s *session) send(lines ...string) error {
	return s.sendBy(time.Now().Add(writeTimeout), lines...)
}

// sendCtx sends within ctx's deadline, if it is sooner than writeTimeout.
func (s *session) sendCtx(ctx context.Context, lines ...string) error {
	by := time.Now().Add(writeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(by) {
		by = d
	}
	return s.sendBy(by, lines...)
}

// sendBy writes lines, one command each, giving up at the deadline (a
// program that does not read its input has a full pipe).
func (s *session) sendBy(deadline time.Time, lines ...string) error {
	s.in.SetWriteDeadline(deadline) // not every system's pipes have deadlines: then none
	if _, err := io.WriteString(s.in, strings.Join(lines, "\n")+"\n"); err != nil {
		reason := match.ForfeitCrash
		if errors.Is(err, os.ErrDeadlineExceeded) {
			reason = match.ForfeitTime
			err = errors.New("the engine does not read its input")
		}
		return &match.ForfeitError{Reason: reason, Err: fmt.Errorf("writing to the engine: %w", s.exited(err))}
	}
	return nil
}

// read returns the program's next line.
func (s *session) read(ctx context.Context) (string, error) {
	select {
	case l, ok := <-s.lines:
		if !ok {
			// Its output has ended; it may still be running (it closed
			// its output, or was ended for a line past 1 MB).
			select {
			case <-s.exit:
			case <-ctx.Done():
			}
			return "", &match.ForfeitError{Reason: match.ForfeitCrash, Err: s.exited(errors.New("the engine closed its output"))}
		}
		s.keep(l)
		return l, nil
	case <-ctx.Done():
		return "", &match.ForfeitError{Reason: match.ForfeitTime, Err: ctx.Err()}
	}
}

// keptLines and keptLineBytes bound what a session keeps of the
// program's last lines.
const (
	keptLines     = 6
	keptLineBytes = 200
)

// keep adds l to the program's last lines.
func (s *session) keep(l string) {
	if len(l) > keptLineBytes {
		l = l[:keptLineBytes] + "..."
	}
	if len(s.lastLines) == keptLines {
		s.lastLines = append(s.lastLines[:0], s.lastLines[1:]...)
	}
	s.lastLines = append(s.lastLines, l)
}

// exited says how the program ended, if it has, with its last lines.
func (s *session) exited(fallback error) error {
	select {
	case <-s.exit:
		for l := range s.lines { // closed before exit: what it wrote last, unread
			s.keep(l)
		}
		said := ""
		if len(s.lastLines) > 0 {
			said = fmt.Sprintf("; its last lines: %q", s.lastLines)
		}
		if s.err != nil {
			return fmt.Errorf("the engine exited: %v%s", s.err, said)
		}
		return fmt.Errorf("the engine exited%s", said)
	case <-time.After(100 * time.Millisecond):
		return fallback
	}
}

// NewGame implements match.Program: OTEP gets the rules, with the game's
// start as their start position, and nothing more (OpenTafl's host sends
// an engine that plays a game no side or start: play names the side);
// UCI gets the Rules option if the engine offers it, and ucinewgame.
func (s *session) NewGame(v *rules.Variant, start rules.Position, side rules.Side) error {
	if start.Size == 0 {
		start = v.Start()
	}
	s.variant, s.start, s.side, s.known = v, start, side, 0
	def := v.Definition()
	def.Start = start.String()
	otr, err := protocol.RulesString(def)
	if err != nil {
		return err
	}
	if s.x.Protocol == OTEP {
		return s.send("rules " + otr)
	}
	if s.options["rules"] {
		if err := s.send("setoption name Rules value " + otr); err != nil {
			return err
		}
	}
	return s.send("ucinewgame")
}

// Move implements match.Program.
func (s *session) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	if s.x.Protocol == OTEP {
		return s.otepMove(ctx, g)
	}
	return s.uciMove(ctx, g)
}

func (s *session) otepMove(ctx context.Context, g *rules.Game) (rules.Move, error) {
	// In the order OpenTafl's host uses (ExternalEnginePlayer.getNextMove):
	// the moves since the engine's last, in one line joined by '|', with
	// the board after them; the clock; play.
	var lines []string
	moves := g.Moves(nil)
	replay, err := rules.NewGameFrom(s.variant, s.start) // g's game with its history, for after the engine's move
	if err != nil {
		return rules.NoMove, err
	}
	texts := make([]string, 0, len(moves)-min(s.known, len(moves)))
	for i, m := range moves {
		replay.Make(m)
		if i >= s.known {
			texts = append(texts, protocol.FormatMove(m))
		}
	}
	if len(texts) > 0 {
		lines = append(lines, "opponent-move "+strings.Join(texts, "|")+" "+protocol.FormatBoard(replay.Position()))
	}
	s.known = len(moves)
	if !s.x.NoClock {
		lines = append(lines, OpenTaflClock(s.x.MoveTime))
	}
	lines = append(lines, "play "+g.ToMove().String())
	if err := s.sendCtx(ctx, lines...); err != nil {
		return rules.NoMove, err
	}
	for {
		l, err := s.read(ctx)
		if err != nil {
			return rules.NoMove, err
		}
		cmd, args := firstWord(l)
		switch cmd {
		case "move":
			m, _, err := protocol.ParseMove(args)
			if err != nil {
				return rules.NoMove, &match.ForfeitError{Reason: match.ForfeitIllegal, Err: err}
			}
			if g.IsLegal(m) {
				// Accepted: the board after it, unless it ended the game
				// (OpenTafl's host then sends only finish).
				replay.Make(m)
				if !replay.Outcome().Over() {
					s.send("move " + protocol.FormatBoard(replay.Position()))
				}
				s.known = len(moves) + 1
			}
			return m, nil // the referee judges it
		case "error":
			if code, msg := firstWord(args); code == "-1" {
				return rules.NoMove, &match.ForfeitError{Reason: match.ForfeitCrash, Err: fmt.Errorf("the engine gave up: %s", msg)}
			}
		case "rules":
			// The engine asks for the rules again.
			def := s.variant.Definition()
			def.Start = s.start.String()
			if otr, err := protocol.RulesString(def); err == nil {
				s.send("rules " + otr)
			}
		}
		// status, analysis, simple-moves and the like: nothing to do.
	}
}

func (s *session) uciMove(ctx context.Context, g *rules.Game) (rules.Move, error) {
	var b strings.Builder
	b.WriteString("position fen " + s.start.String())
	moves := g.Moves(nil)
	if len(moves) > 0 {
		b.WriteString(" moves")
		for _, m := range moves {
			b.WriteString(" " + protocol.FormatUCIMove(m))
		}
	}
	goLine := fmt.Sprintf("go nodes %d", s.x.Nodes)
	if s.x.MoveTime > 0 {
		goLine = fmt.Sprintf("go movetime %d", s.x.MoveTime.Milliseconds())
	}
	if err := s.sendCtx(ctx, b.String(), goLine); err != nil {
		return rules.NoMove, err
	}
	for {
		l, err := s.read(ctx)
		if err != nil {
			return rules.NoMove, err
		}
		if text, ok := strings.CutPrefix(l, "bestmove "); ok {
			text, _ = firstWord(text)
			m, err := protocol.ParseUCIMove(text)
			if err != nil {
				return rules.NoMove, &match.ForfeitError{Reason: match.ForfeitIllegal, Err: err}
			}
			return m, nil
		}
	}
}

// OpenTaflClock is the clock line OpenTafl's host sends, before play, in a
// game with no main time and overtime periods of moveTime: both sides in a
// period, the one to move with all of it left (the other side's figure is
// not tracked: the same), the period's whole seconds rounded up, and two
// periods each. OpenTafl counts the period in progress, and its engine
// treats a count of 1 as an emergency (it budgets the period less a
// second, nothing at all for a one-second period), so the count is 2: the
// period in progress and the grace the match's move limit gives.
func OpenTaflClock(moveTime time.Duration) string {
	ms := max(moveTime.Milliseconds(), 1)
	secs := (ms + 999) / 1000
	return fmt.Sprintf("clock %d* %d* %d 2 2", ms, ms, secs)
}

// settleQuiet and settleMost bound settle's wait.
const (
	settleQuiet = 100 * time.Millisecond
	settleMost  = 2 * time.Second
)

// Settle implements match.Settler: for OTEP, it waits until the program
// has written nothing for settleQuiet (at most settleMost, or until ctx is
// done), reading past what it writes meanwhile: OpenTafl's engine goes on
// printing its search's statistics after its move, and a command that
// arrives before it has finished can find it between states. The match
// calls it before the move's allowance starts.
func (s *session) Settle(ctx context.Context) {
	if s.x.Protocol != OTEP {
		return
	}
	until := time.Now().Add(settleMost)
	for {
		quiet := time.Since(time.Unix(0, s.lastOutput.Load()))
		if quiet >= settleQuiet || !time.Now().Before(until) {
			for { // what it wrote before: none of it answers what comes next
				select {
				case l, ok := <-s.lines:
					if !ok {
						return
					}
					s.keep(l)
				default:
					return
				}
			}
		}
		select {
		case l, ok := <-s.lines:
			if !ok {
				return
			}
			s.keep(l)
		case <-time.After(settleQuiet - quiet):
		case <-ctx.Done():
			return
		}
	}
}

// EndGame implements match.Program. An OTEP engine is let settle first: a
// game its own move ended gets its finish (and the next game its rules)
// only once it has stopped writing, for OpenTafl's engine, told of a new
// game while it still prints its last search's statistics, can crash. The
// wait (settleQuiet after its last line, at most settleMost) holds up the
// match's worker, whose other games are engines' games too.
func (s *session) EndGame(o rules.Outcome) {
	if s.x.Protocol == OTEP {
		s.Settle(context.Background()) // at most settleMost
		code := map[rules.Winner]int{rules.Draw: 1, rules.AttackersWin: 2, rules.DefendersWin: 3}[o.Winner]
		s.send(fmt.Sprintf("finish %d", code))
	}
}

// Close implements match.Program: it says goodbye (quit), and kills the
// program and its process group if it has not exited within a second. It
// returns once the program has been waited for, or with an error if even
// the kill did not end its output within closeTimeout (a child that left
// the group holds it): then a goroutine still waits for it.
func (s *session) Close() error {
	var err error
	s.once.Do(func() {
		bye := "goodbye"
		if s.x.Protocol == UCI {
			bye = "quit"
		}
		s.sendBy(time.Now().Add(100*time.Millisecond), bye)
		s.in.Close()
		go func() {
			for range s.lines { // let the reader reach the end
			}
		}()
		select {
		case <-s.exit:
			return
		case <-time.After(time.Second):
		}
		killProcessGroup(s.cmd)
		select {
		case <-s.exit:
		case <-time.After(closeTimeout):
			err = errctx.Errorf("engine", "%s: killed, but its output is still open after %v", s.x.Command[0], closeTimeout)
		}
	})
	return err
}

// closeTimeout bounds Close's wait after the kill.
const closeTimeout = 10 * time.Second
