// Package engine puts taflab on both sides of the tafl engine protocols.
//
// As an engine, Serve plays over a line stream (a program's standard input
// and output) in OpenTafl's engine protocol (OTEP) or TaflZero's UCI-like
// protocol, searching with the mcts package and whatever Evaluator it is
// given (a network's, or the built-in one), to a budget of playouts or of
// time per move (from the host's clock where the protocol sends one):
//
//	cfg := engine.DefaultConfig()
//	cfg.Protocol, cfg.MoveTime = engine.OTEP, 500*time.Millisecond
//	err := engine.Serve(ctx, os.Stdin, os.Stdout, cfg, mcts.NewHeuristic())
//
// As a host, External runs another engine program as a match player
// (match.Program): match.Play referees its games, so an illegal move, a move
// past its time or a crash loses the game for the engine.
//
// The package never imports a network: cmd/engine wires one in.
package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"taflab/internal/errctx"
	"taflab/mcts"
	"taflab/rules"
)

// The protocols Serve speaks.
const (
	OTEP = "otep" // OpenTafl's engine protocol
	UCI  = "uci"  // TaflZero's UCI-like protocol
)

// Config is an engine's settings. Units and defaults are in the field
// comments; DefaultConfig returns the defaults.
type Config struct {
	// Protocol is OTEP or UCI.
	Protocol string
	// Variant is the rule set played until the host says otherwise (OTEP's
	// rules command, UCI's Rules option). Default: none; Validate requires
	// one.
	Variant *rules.Variant
	// Playouts is the search budget per move when there is no time budget
	// (no MoveTime, no clock from the host, no movetime in UCI's go).
	// Default 800.
	Playouts int
	// MoveTime is the time budget per move; 0 means playouts. A host's
	// clock gives a budget of its own (ClockBudget); with both, the
	// smaller holds.
	MoveTime time.Duration
	// MaxPlayouts caps the playouts of a timed search. Default 200,000,
	// at most mcts.MaxPlayouts; the tree's memory budget (Search.TreeBytes,
	// about 3 KB a playout) may end a search sooner. A host's explicit
	// count (UCI's Playouts option, go nodes) may be up to
	// mcts.MaxPlayouts, as the documentation says, under the same memory
	// budget.
	MaxPlayouts int
	// Search is the search's settings; the engine plays the most visited
	// move, without noise. Default mcts.DefaultConfig().
	Search mcts.Config
	// Name is the engine's name in UCI's id line. Default "taflab".
	Name string
	// Seed fixes the search's random choices (ties only, without noise).
	Seed uint64
}

// DefaultConfig returns the defaults (Protocol and Variant unset).
func DefaultConfig() Config {
	return Config{Playouts: 800, MaxPlayouts: 200_000, Search: mcts.DefaultConfig(), Name: "taflab", Seed: 1}
}

// Validate reports a setting that cannot be served.
func (c *Config) Validate() error {
	var errs []error
	if c.Protocol != OTEP && c.Protocol != UCI {
		errs = append(errs, errctx.Errorf("engine", "protocol %q: want %s or %s", c.Protocol, OTEP, UCI))
	}
	if c.Variant == nil {
		errs = append(errs, errctx.Errorf("engine", "no rule set"))
	}
	if c.Playouts < 1 || c.MaxPlayouts < 1 || c.Playouts > mcts.MaxPlayouts || c.MaxPlayouts > mcts.MaxPlayouts {
		errs = append(errs, errctx.Errorf("engine", "playouts %d, max playouts %d: want 1 to %d", c.Playouts, c.MaxPlayouts, mcts.MaxPlayouts))
	}
	if c.MoveTime < 0 {
		errs = append(errs, errctx.Errorf("engine", "move time %v: want 0 (playouts) or more", c.MoveTime))
	}
	if err := c.Search.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// line is one line from the host and when it arrived: a protocol's time
// runs from the moment the host sends its command.
type line struct {
	text    string
	at      time.Time
	tooLong int // the line's length when it was past maxLineBytes (its text is then empty)
}

// Input bounds: a host that floods the engine costs it a bounded amount of
// memory. Protocol lines are short (a rules string for 19x19 is under 1 KB).
const (
	maxLineBytes   = 64 << 10 // a longer line is dropped with an error
	maxQueuedLines = 256      // lines held during a search, for after it; more are dropped
)

// readLines sends in's lines to lines until the input ends (nil), a read
// fails, or ctx is done. A line past maxLineBytes is read to its end but not
// kept: it is sent as its length alone.
func readLines(ctx context.Context, in io.Reader, lines chan<- line) error {
	r := bufio.NewReaderSize(in, 4096)
	var buf []byte
	length := 0 // of the line so far
	for {
		chunk, err := r.ReadSlice('\n')
		length += len(chunk)
		if length <= maxLineBytes {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if length > 0 && (err == nil || errors.Is(err, io.EOF)) {
			l := line{at: time.Now()}
			if length > maxLineBytes {
				l.tooLong = length
			} else {
				l.text = strings.TrimRight(string(buf), "\r\n")
			}
			select {
			case lines <- l:
			case <-ctx.Done():
				return nil
			}
		}
		buf, length = buf[:0], 0
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// server is one engine session: the game as the host described it, and the
// search. It runs on one goroutine (Serve's); only the reader goroutine
// besides it, which owns the input and hands lines over a channel.
type server struct {
	cfg     Config
	out     *bufio.Writer
	lines   <-chan line // closed at the end of the input
	queue   []line      // lines read during a search, for after it; at most maxQueuedLines
	dropped int         // lines dropped since the last report, the queue being full
	eof     bool
	quit    bool
	runner  *mcts.Runner
	seq     uint64 // searches so far, for their seeds

	variant *rules.Variant
	start   rules.Position // the game's start
	moves   []rules.Move   // played since start
	game    *rules.Game    // start + moves

	// OTEP's state.
	side     rules.Side // the side the host says the engine plays
	sideSet  bool
	clock    *Clock     // the last clock, nil if none
	ownMove  rules.Move // our last move, until the host accepts or refuses it
	ownReady bool

	// UCI's state.
	playouts int // the Playouts option; 0 for Config.Playouts
}

// Serve plays one engine session: it reads commands from in, one a line,
// and writes answers to out, until the input ends, the host says goodbye
// (OTEP) or quit (UCI), or ctx is done. Malformed and unknown lines get an
// answer saying so and change nothing; Serve returns an error only for a
// bad Config, a failing evaluator or a failed read or write.
func Serve(ctx context.Context, in io.Reader, out io.Writer, cfg Config, eval mcts.Evaluator) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	lines := make(chan line, 64)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readLines(ctx, in, lines)
		close(lines)
	}()
	s := newServer(cfg, out, lines, eval)
	var err error
	if cfg.Protocol == OTEP {
		s.send("hello")
		s.send("simple-moves on")
		if err := s.out.Flush(); err != nil {
			return errctx.Errorf("engine", "write: %w", err)
		}
	}
	for !s.quit && err == nil {
		l, ok := s.next(ctx)
		if !ok {
			break
		}
		switch {
		case l.tooLong > 0:
			s.complain("a line of %d bytes: want at most %d; ignored", l.tooLong, maxLineBytes)
		case cfg.Protocol == OTEP:
			err = s.otep(ctx, l)
		default:
			err = s.uci(ctx, l)
		}
		if s.dropped > 0 {
			s.complain("%d lines sent during the search were dropped: at most %d wait for its end", s.dropped, maxQueuedLines)
			s.dropped = 0
		}
		if ferr := s.out.Flush(); err == nil && ferr != nil {
			err = errctx.Errorf("engine", "write: %w", ferr)
		}
	}
	if err != nil {
		return err
	}
	if s.eof {
		select {
		case rerr := <-readErr:
			if rerr != nil {
				return errctx.Errorf("engine", "read: %w", rerr)
			}
		default:
		}
	}
	return ctx.Err()
}

// newServer is a session in its first state, answering lines to out.
func newServer(cfg Config, out io.Writer, lines <-chan line, eval mcts.Evaluator) *server {
	s := &server{cfg: cfg, out: bufio.NewWriter(out), lines: lines, runner: mcts.NewRunner(eval)}
	s.setVariant(cfg.Variant, rules.Position{})
	return s
}

// next returns the next line, a queued one first; false at the end of the
// input or when ctx is done.
func (s *server) next(ctx context.Context) (line, bool) {
	if len(s.queue) > 0 {
		l := s.queue[0]
		s.queue = s.queue[1:]
		return l, true
	}
	if s.eof {
		return line{}, false
	}
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.eof = true
		}
		return l, ok
	case <-ctx.Done():
		return line{}, false
	}
}

// enqueue keeps a line that arrived during a search for after it, unless
// maxQueuedLines already wait: then it is dropped, and counted for a
// complaint after the search.
func (s *server) enqueue(l line) {
	if len(s.queue) >= maxQueuedLines {
		s.dropped++
		return
	}
	s.queue = append(s.queue, l)
}

// complain reports a line the engine did not act on, as the protocol
// reports errors: OTEP's non-critical "error 0", UCI's "info string error:".
func (s *server) complain(format string, a ...any) {
	if s.cfg.Protocol == OTEP {
		s.send("error 0 %s", fmt.Sprintf(format, a...))
		return
	}
	s.send("info string error: %s", fmt.Sprintf(format, a...))
}

// send writes one line of answer.
func (s *server) send(format string, args ...any) {
	fmt.Fprintf(s.out, format, args...)
	s.out.WriteByte('\n')
}

// setVariant starts a game under v from p (the zero Position: v's start).
func (s *server) setVariant(v *rules.Variant, p rules.Position) error {
	if p.Size == 0 {
		p = v.Start()
	}
	g, err := rules.NewGameFrom(v, p)
	if err != nil {
		return err
	}
	s.variant, s.start, s.moves, s.game = v, p, s.moves[:0], g
	s.ownReady = false
	return nil
}

// play plays m on the game, which must be legal.
func (s *server) play(m rules.Move) error {
	if err := s.game.Play(m); err != nil {
		return err
	}
	s.moves = append(s.moves, m)
	return nil
}

// undo takes back the last move.
func (s *server) undo() {
	if len(s.moves) > 0 {
		s.game.Unmake()
		s.moves = s.moves[:len(s.moves)-1]
	}
}

// budget is what one search may spend.
type budget struct {
	playouts int
	from     time.Time     // when the host asked
	time     time.Duration // 0: no time limit
	infinite bool          // until stop (UCI's go infinite)
}

// result is a finished search.
type result struct {
	search   *mcts.Search
	playouts int
	elapsed  time.Duration
	stopped  bool // a stop or quit line ended it
}

// think searches the game's position within b. Lines that arrive meanwhile
// are handed to during, which says whether the search must stop now; the
// rest wait in the queue for after the search.
func (s *server) think(ctx context.Context, b budget, during func(l line, b *budget) (stop bool)) (result, error) {
	g, err := rules.NewGameFrom(s.variant, s.start)
	if err != nil {
		return result{}, err
	}
	for _, m := range s.moves {
		g.Make(m)
	}
	s.seq++
	search := mcts.NewSearch(&s.cfg.Search, g, s.cfg.Seed+s.seq)
	search.Start(b.playouts, false)
	var step time.Duration // the last step's time: the next one's estimate
	res := result{search: search}
	for {
		if search.Visits() > 0 {
			if !b.infinite && search.Done() {
				break
			}
			if b.time > 0 && time.Since(b.from)+step >= b.time {
				break
			}
		}
		if b.infinite && search.Done() {
			// The tree is as large as it may grow: wait for stop.
			var l line
			ok := false
			select {
			case l, ok = <-s.lines:
			case <-ctx.Done():
			}
			if !ok {
				s.eof = ctx.Err() == nil
				s.quit = true
				break
			}
			if during(l, &b) {
				res.stopped = true
				break
			}
			continue
		}
		t := time.Now()
		if err := s.runner.Step([]*mcts.Search{search}); err != nil {
			return res, err
		}
		step = time.Since(t)
		if stop := s.poll(&b, during); stop {
			res.stopped = true
			if search.Visits() > 0 {
				break
			}
		}
		if ctx.Err() != nil {
			s.quit = true
			break
		}
	}
	res.playouts, res.elapsed = search.Visits(), time.Since(b.from)
	return res, nil
}

// poll hands the lines that have arrived to during, without waiting.
func (s *server) poll(b *budget, during func(l line, b *budget) bool) bool {
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				s.eof = true
				return true
			}
			if during(l, b) {
				return true
			}
		default:
			return false
		}
	}
}

// timedPlayouts is the playout cap of a search with a time budget.
func (s *server) timedPlayouts() int { return s.cfg.MaxPlayouts }

// fullNote says, after a search's figures, that its tree filled its memory
// budget (mcts.Config.TreeBytes) and ended it early; "" when it did not.
func (s *server) fullNote(search *mcts.Search) string {
	if !search.Full() {
		return ""
	}
	return fmt.Sprintf(" (the tree filled its memory budget of %d MiB: stopped early)", s.cfg.Search.TreeBudget()>>20)
}

// valueScore turns a value for the side to move (-1 to 1) into an integer
// score from -1000 to 1000: what OTEP's analysis and UCI's "score cp" show.
func valueScore(v float32) int { return int(math.Round(float64(v) * 1000)) }

// topMoves returns the root's moves with the most visits, best first.
func topMoves(search *mcts.Search, n int) []mcts.MoveStat {
	stats := search.Stats(nil)
	best := search.BestMove()
	for i := range stats {
		if stats[i].Move == best {
			stats[0], stats[i] = stats[i], stats[0]
		}
	}
	rest := stats[1:]
	for i := 1; i < len(rest); i++ { // insertion sort by visits: small lists
		for j := i; j > 0 && rest[j].Visits > rest[j-1].Visits; j-- {
			rest[j], rest[j-1] = rest[j-1], rest[j]
		}
	}
	if n < len(stats) {
		stats = stats[:n]
	}
	return stats
}

// firstWord splits a line into its command and the rest.
func firstWord(text string) (string, string) {
	text = strings.TrimSpace(text)
	cmd, rest, _ := strings.Cut(text, " ")
	return cmd, strings.TrimSpace(rest)
}

// clip shortens a line quoted back to the host.
func clip(text string) string {
	if len(text) > 80 {
		return text[:80] + "..."
	}
	return text
}

// moveOK reports a search that found no move: the game is over.
func noMove(g *rules.Game) bool { return g.Outcome().Over() }
