package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
	"taflab/protocol"
	"taflab/rules"
)

// transcriptDir holds the transcripts of real OpenTafl sessions with
// taflab (../shared/data/opentafl, beside the repository).
const transcriptDir = "../../shared/data/opentafl"

// transcriptLine is one line of a transcript: when, who (">" the host, "<"
// the engine, "" a note) and the text.
type transcriptLine struct {
	at   float64
	dir  string
	text string
}

// readTranscript reads a transcript file, or skips the test without one.
func readTranscript(t *testing.T, name string) []transcriptLine {
	t.Helper()
	path := filepath.Join(transcriptDir, name)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("%s is not there (../shared beside the repository): skipped", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []transcriptLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		at, rest, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		secs, err := strconv.ParseFloat(at, 64)
		if err != nil {
			t.Fatalf("%s: %q: no time", path, sc.Text())
		}
		l := transcriptLine{at: secs, text: rest}
		if d, text, ok := strings.Cut(rest, " "); ok && (d == ">" || d == "<") {
			l.dir, l.text = d, text
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// clockFormat is the clock line OpenTafl's host sends (with a trailing
// space, which ParseClock ignores).
var clockFormat = regexp.MustCompile(`^clock -?\d+\*? -?\d+\*? \d+ \d+ \d+ ?$`)

// TestOpenTaflHostsTaflab feeds the engine every line OpenTafl's host sent
// in a real session (opentafl-hosts-taflab.txt: opponent-move, then clock,
// then play; clock 20 s + 3 x 2 s overtime) with an explicit playout cap,
// as cmd/engine sets it for -playouts: every play gets a legal move in the
// host's position, within the cap and within the clock's budget, and the
// budgets near the end of main time keep to the overtime periods.
func TestOpenTaflHostsTaflab(t *testing.T) {
	lines := readTranscript(t, "opentafl-hosts-taflab.txt")
	const playoutCap = 48
	cfg := testConfig(OTEP)
	cfg.MaxPlayouts = playoutCap
	h := newHost(t, cfg, mcts.NewHeuristic())
	h.expect("hello")
	h.expect("simple-moves on")
	var v *rules.Variant
	var board rules.Position // the host's board before the play
	var clock *Clock
	plays := 0
	for _, l := range lines {
		if l.dir != ">" {
			continue
		}
		cmd, args := firstWord(l.text)
		h.send(l.text)
		switch cmd {
		case "rules":
			def, err := protocol.CompileRules(args)
			if err != nil {
				t.Fatal(err)
			}
			if v, err = rules.Compile(def); err != nil {
				t.Fatal(err)
			}
			h.expect("status rules copenhagen")
		case "opponent-move":
			_, text, _ := strings.Cut(args, " ")
			p, err := protocol.ParseBoard(text, rules.Defenders)
			if err != nil {
				t.Fatalf("%q: %v", l.text, err)
			}
			board = p
		case "clock":
			if !clockFormat.MatchString(l.text) {
				t.Fatalf("%q: not the clock format", l.text)
			}
			c, err := ParseClock(args)
			if err != nil {
				t.Fatal(err)
			}
			clock = &c
			// OpenTafl counts the period in progress: with periods left,
			// a move may take half of one whatever main time is left.
			if b := ClockBudget(c, rules.Defenders); c.Overtimes[rules.Defenders] > 0 && b < c.Overtime/2 {
				t.Errorf("%q: budget %v, want at least half a period (%v)", l.text, b, c.Overtime/2)
			}
		case "play":
			plays++
			var status string
			for status == "" || strings.HasPrefix(status, "status the host's position") {
				status = h.expect("status ")
			}
			var n, ms int
			if _, err := fmt.Sscanf(status, "status %d playouts in %d ms", &n, &ms); err != nil {
				t.Fatalf("%q: %v", status, err)
			}
			if n < 1 || n > playoutCap {
				t.Errorf("play %d: %d playouts, want 1 to %d (the cap holds under a clock)", plays, n, playoutCap)
			}
			if budget := ClockBudget(*clock, rules.Defenders); time.Duration(ms)*time.Millisecond > budget {
				t.Errorf("play %d: %d ms, over the clock's budget %v", plays, ms, budget)
			}
			legalIn(t, v, board, strings.TrimPrefix(h.expect("move "), "move "), otepMove)
		}
	}
	if plays < 20 {
		t.Fatalf("got %d plays, want the transcript's whole game", plays)
	}
	h.end()
}

// hostSession plays part of a game through External against the good test
// engine, which logs every line it receives, and returns those lines. The
// engine plays side; the host's own moves are the first legal ones.
func hostSession(t *testing.T, x External, side rules.Side, plies int) []string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "received.txt")
	x.Command = []string{misbehave(t), "-mode", "good", "-protocol", OTEP, "-log", log}
	e, err := x.Start()
	if err != nil {
		t.Fatal(err)
	}
	v := variants.MustLoad("copenhagen")
	if err := e.NewGame(v, rules.Position{}, side); err != nil {
		t.Fatal(err)
	}
	g := rules.NewGame(v)
	for range plies {
		var m rules.Move
		if g.ToMove() == side {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			m, err = e.Move(ctx, g)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
		} else {
			m = g.GenerateMoves(nil)[0]
		}
		if err := g.Play(m); err != nil {
			t.Fatalf("ply %d: %v", g.Ply(), err)
		}
	}
	e.EndGame(rules.Outcome{Winner: rules.DefendersWin})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// commands returns each line's first word.
func commands(lines []string) []string {
	var cmds []string
	for _, l := range lines {
		c, _ := firstWord(l)
		cmds = append(cmds, c)
	}
	return cmds
}

// TestHostSendsOpenTaflOrder: taflab as the host (External) sends an OTEP
// engine what OpenTafl's own host sends, in its order and format, as the
// transcript of OpenTafl hosting taflab shows them: rules, then for each
// move the opponent's moves, the clock and play; no side and no start; a
// clock line of OpenTafl's shape; with NoClock, no clock at all.
func TestHostSendsOpenTaflOrder(t *testing.T) {
	var real []string
	for _, l := range readTranscript(t, "opentafl-hosts-taflab.txt") {
		if l.dir == ">" {
			real = append(real, l.text)
		}
	}
	// The command pairs OpenTafl's host sent one after the other.
	realPairs := map[[2]string]bool{}
	realCmds := commands(real)
	for i := 1; i < len(realCmds); i++ {
		realPairs[[2]string{realCmds[i-1], realCmds[i]}] = true
	}
	// The transcript's game ended on the engine's move; OpenTafl's host
	// sends finish at any end (ExternalEnginePlayer.stop), after the
	// board of the engine's last move when the opponent's move ends it.
	realPairs[[2]string{"move", "finish"}] = true
	for _, c := range []struct {
		name    string
		noClock bool
		side    rules.Side
	}{
		{"defenders", false, rules.Defenders},
		{"attackers", false, rules.Attackers},
		{"defenders, no clock", true, rules.Defenders},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := External{Protocol: OTEP, MoveTime: 30 * time.Millisecond, NoClock: c.noClock}
			got := hostSession(t, x, c.side, 8)
			cmds := commands(got)
			if cmds[0] != "rules" {
				t.Fatalf("got %q first, want rules", got[0])
			}
			if c.side == rules.Attackers {
				// OpenTafl's transcript has the engine as the defenders; as
				// the attackers, the first move is asked for at once.
				want := []string{"rules", "clock", "play"}
				if c.noClock {
					want = []string{"rules", "play"}
				}
				if fmt.Sprint(cmds[:len(want)]) != fmt.Sprint(want) {
					t.Errorf("got %q first, want %q", cmds[:len(want)], want)
				}
			}
			plays, clocks := 0, 0
			for i, l := range got {
				switch cmds[i] {
				case "side", "start":
					t.Errorf("line %d: %q: OpenTafl's host sends an engine that plays a game no %s", i+1, l, cmds[i])
				case "clock":
					clocks++
					if want := OpenTaflClock(x.MoveTime); l != want || !clockFormat.MatchString(l) {
						t.Errorf("line %d: got %q, want %q, of the transcript's shape", i+1, l, want)
					}
				case "play":
					plays++
				}
				if i > 0 && !(c.side == rules.Attackers && i <= 2) && !(c.noClock && cmds[i-1] == "opponent-move" && cmds[i] == "play") {
					if pair := [2]string{cmds[i-1], cmds[i]}; !realPairs[pair] {
						t.Errorf("line %d: %q after %q: OpenTafl's host never sends these in this order", i+1, cmds[i], cmds[i-1])
					}
				}
			}
			if want := 4; plays != want {
				t.Errorf("got %d plays, want %d", plays, want)
			}
			if wantClocks := map[bool]int{false: plays, true: 0}[c.noClock]; clocks != wantClocks {
				t.Errorf("got %d clock lines, want %d", clocks, wantClocks)
			}
			if last := cmds[len(cmds)-2:]; fmt.Sprint(last) != "[finish goodbye]" {
				t.Errorf("got %q last, want finish, goodbye", last)
			}
		})
	}
}

// TestOpenTaflClockReadByOpenTafl checks the host's clock line against how
// OpenTafl's engine reads it (ExternalEngineClient.handleClockCommand, then
// AiWorkspace.planTimeUsage): the first clock is the time control (main
// time, period, count), and with a count above 1 and no main time left the
// engine budgets the period less 750 ms; a count of 0 (taflab's old line,
// in the clock-crash transcript) is a control without overtime.
func TestOpenTaflClockReadByOpenTafl(t *testing.T) {
	for _, l := range readTranscript(t, "taflab-hosts-opentafl-clock-crash.txt") {
		if cmd, _ := firstWord(l.text); l.dir == ">" && cmd == "clock" {
			c, err := ParseClock(strings.TrimPrefix(l.text, "clock "))
			if err != nil {
				t.Fatal(err)
			}
			if c.Overtimes[rules.Defenders] != 0 {
				t.Fatalf("the crash transcript's clock %q: want the old count of 0", l.text)
			}
		}
	}
	for _, mt := range []time.Duration{time.Second, 1500 * time.Millisecond, 3 * time.Second, 20 * time.Millisecond} {
		line := OpenTaflClock(mt)
		if !clockFormat.MatchString(line) {
			t.Fatalf("%q: not OpenTafl's clock format", line)
		}
		c, err := ParseClock(strings.TrimPrefix(line, "clock "))
		if err != nil {
			t.Fatal(err)
		}
		for side := range 2 {
			if !c.InPeriod[side] || c.Overtimes[side] < 2 || c.Overtime < mt || c.Millis[side] != mt.Milliseconds() {
				t.Errorf("%v: %q: got %+v, want both sides in a period of %v with the period in progress and one more counted", mt, line, c, mt)
			}
		}
		// OpenTafl's engine: "overtime only", period left less 750 ms.
		if plan := c.Millis[rules.Attackers] - 750; mt >= time.Second && plan < mt.Milliseconds()-750 {
			t.Errorf("%v: OpenTafl would plan %d ms", mt, plan)
		}
	}
}

// TestBadLinesChangeNothing: every malformed line the issue names, and the
// rest of each protocol's, gets an error that says what is wrong, and the
// engine's game, clock, side and options stay as they were.
func TestBadLinesChangeNothing(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	after := func(moves ...string) string {
		g := rules.NewGame(v)
		for _, text := range moves {
			m, _, err := protocol.ParseMove(text)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Play(m); err != nil {
				t.Fatal(err)
			}
		}
		return protocol.FormatBoard(g.Position())
	}
	otr, err := protocol.RulesString(v.Definition())
	if err != nil {
		t.Fatal(err)
	}
	long := line{tooLong: maxLineBytes + 1}
	for _, c := range []struct {
		protocol string
		setup    []string
		bad      []line
		want     string // the answer's start
	}{
		{OTEP, []string{"rules " + otr, "opponent-move d1-d3 " + after("d1-d3"), "clock 60000 60000 0 0 0", "side defenders"}, []line{
			{text: "opponent-move f4-c4 /x/"},
			{text: "opponent-move f4-c4|zz-q9 " + after("d1-d3", "f4-c4")},
			{text: "opponent-move f4-c4"},
			{text: "opponent-move f4-c4 " + after("d1-d3", "f4-c4") + " extra"},
			{text: "position /x/"},
			{text: "position /K10/11/11/11/11/11/11/11/11/5t5/3ttttt3/"}, // the king on a corner: over
			{text: "move /3ttttt3/"},
			{text: "side up"},
			{text: "play sideways"},
			{text: "clock 1 2 3"},
			{text: "clock -5 0 0 0 0"},
			{text: "clock 1000 1000 x 0 0"},
			{text: "analyze -1 5"},
			{text: "analyze 3"},
			{text: "rules"},
			{text: "finish 7"},
			long,
		}, "error 0 "},
		{OTEP, []string{"rules " + otr, "opponent-move d1-d3 " + after("d1-d3")}, []line{
			{text: "rules dim:99 start:/3t3/"},
			{text: "rules dim:11 tfr:w wibble:y start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"},
		}, "error -1 cannot play these rules: "},
		{UCI, []string{"setoption name Playouts value 20", "position startpos moves d1d3"}, []line{
			{text: "position startpos moves d1d3 zz"},
			{text: "position startpos moves d1d3 d1d3"},
			{text: "position fen xyz a"},
			{text: "position fen k10/11/11/11/11/11/11/11/11/5a5/3aaaaa3 a"}, // the king on a corner: over
			{text: "position fen 11/11/11/11/11/5k5/11/11/11/11/11 a"},       // no attacker left
			{text: "position startpos d1d3"},
			{text: "position"},
			{text: "go movetime abc"},
			{text: "go nodes 0"},
			{text: "go nodes 99999999999999999999"},
			{text: "go sideways"},
			{text: "setoption name Playouts value 0"},
			{text: "setoption name Rules value dim:99"},
			{text: "setoption name Colour value red"},
			{text: "setoption Playouts 3"},
			long,
		}, "info string error: "},
	} {
		t.Run(c.protocol+"/"+c.want, func(t *testing.T) {
			cfg := testConfig(c.protocol)
			var out strings.Builder
			s := newServer(cfg, &out, nil, mcts.NewHeuristic())
			answer := func(l line) string {
				t.Helper()
				out.Reset()
				var err error
				switch {
				case l.tooLong > 0:
					s.complain("a line of %d bytes: want at most %d; ignored", l.tooLong, maxLineBytes)
				case c.protocol == OTEP:
					err = s.otep(context.Background(), l)
				default:
					err = s.uci(context.Background(), l)
				}
				if err != nil {
					t.Fatalf("%q: %v", l.text, err)
				}
				s.out.Flush()
				return out.String()
			}
			for _, l := range c.setup {
				answer(line{text: l})
			}
			state := func() string {
				clock := "none"
				if s.clock != nil {
					clock = fmt.Sprint(*s.clock)
				}
				return fmt.Sprint(s.variant.Definition(), s.start, s.moves, s.game.Position(), clock, s.side, s.sideSet, s.playouts, s.ownReady)
			}
			before := state()
			if len(s.moves) != 1 {
				t.Fatalf("the set-up played %d moves, want 1", len(s.moves))
			}
			for _, l := range c.bad {
				got := answer(l)
				if !strings.HasPrefix(got, c.want) || strings.Count(got, "\n") != 1 {
					t.Errorf("%q: got %q, want one line starting %q", clip(l.text), got, c.want)
				}
				if now := state(); now != before {
					t.Errorf("%q changed the engine's state:\n got %s\nwant %s", clip(l.text), now, before)
				}
			}
		})
	}
}

// TestInputBounds: a line past maxLineBytes is answered with an error and
// the session goes on; lines that arrive during a search wait for its end
// up to maxQueuedLines, and the rest are dropped with one complaint.
func TestInputBounds(t *testing.T) {
	t.Run("a long line", func(t *testing.T) {
		h := newHost(t, testConfig(OTEP), mcts.NewHeuristic())
		h.expect("hello")
		h.expect("simple-moves on")
		h.send("position " + strings.Repeat("x", 3*maxLineBytes))
		h.expect(fmt.Sprintf("error 0 a line of %d bytes: want at most %d; ignored", 3*maxLineBytes+len("position ")+1, maxLineBytes))
		h.quiet("finish 9", `error 0 finish: "9": want 0 to 3`)
		h.send("goodbye")
		h.end()
	})
	t.Run("a flood during a search", func(t *testing.T) {
		cfg := testConfig(UCI)
		cfg.MaxPlayouts = 1000
		h := newHost(t, cfg, mcts.NewHeuristic())
		h.send("position startpos")
		h.send("go infinite")
		const flood = 3 * maxQueuedLines
		for range flood {
			h.send("ucinewgame")
		}
		h.send("stop")
		h.expect("info score")
		h.expect("bestmove ")
		h.expect(fmt.Sprintf("info string error: %d lines sent during the search were dropped: at most %d wait for its end", flood-maxQueuedLines, maxQueuedLines))
		h.quiet("isready", "readyok")
		h.send("quit")
		h.end()
	})
}

// TestHostSettles: an OTEP engine that goes on writing after its move (as
// OpenTafl's engine prints its search's statistics), ending with a stray
// move line, plays whole games: the host waits for its output to settle,
// outside the move's allowance, and reads past what it wrote before the
// next play, so the stray line is never taken for an answer.
func TestHostSettles(t *testing.T) {
	x := External{Protocol: OTEP, Command: []string{misbehave(t), "-mode", "chatty", "-protocol", OTEP}, MoveTime: 30 * time.Millisecond}
	cfg := match.Config{Variant: variants.MustLoad("copenhagen"),
		A:      match.Player{Name: "chatty", NewProgram: x.Start, MoveLimit: 2 * time.Second},
		B:      builtin(16),
		Search: mcts.DefaultConfig(), MaxPairs: 1}
	var pairs []match.Pair
	if err := match.Play(context.Background(), cfg, func(p match.Pair) bool { pairs = append(pairs, p); return true }); err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		for half, g := range p.Games {
			if g.Forfeit != "" {
				t.Errorf("game %d: forfeit %q (%s), want none", half, g.Forfeit, g.ForfeitDetail)
			}
			if len(g.Moves) < 4 {
				t.Errorf("game %d: %d plies, want a game of several engine moves", half, len(g.Moves))
			}
		}
	}
}

// TestHostSettlesBeforeGameEnd: an OTEP engine that crashes when told of a
// game's end, or of the next game's rules, while it still writes after its
// move (as OpenTafl's engine can) plays on: a game its own move ends gets
// its finish once the engine has settled. From a start where the side to
// move escapes at once, the engine ends its defending games with its first
// move, and the next pair's games reuse its sessions.
func TestHostSettlesBeforeGameEnd(t *testing.T) {
	escapeInOne, err := rules.ParsePosition("3aaaaa3/5a5/11/a9a/a9a/aa7aa/a9a/a3ddd3a/k4d5/11/3aaaaa3 d")
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder // written by the programs' output copiers: guarded by mu
	var mu sync.Mutex
	x := External{Protocol: OTEP, Command: []string{misbehave(t), "-mode", "fragile", "-protocol", OTEP}, MoveTime: 30 * time.Millisecond,
		Stderr: writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return stderr.Write(p) })}
	cfg := match.Config{Variant: variants.MustLoad("copenhagen"),
		A:        match.Player{Name: "fragile", NewProgram: x.Start, MoveLimit: 2 * time.Second},
		B:        builtin(16),
		Search:   mcts.DefaultConfig(),
		Openings: []match.Opening{{Start: escapeInOne}},
		MaxPairs: 2, Workers: 1, GamesPerWorker: 1}
	var pairs []match.Pair
	if err := match.Play(context.Background(), cfg, func(p match.Pair) bool { pairs = append(pairs, p); return true }); err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 {
		t.Fatalf("got %d pairs, want 2", len(pairs))
	}
	mu.Lock()
	defer mu.Unlock()
	if stderr.Len() > 0 {
		t.Errorf("got %q on the engines' standard error, want nothing: no engine crashed", stderr.String())
	}
	for _, p := range pairs {
		for half, g := range p.Games {
			if g.Forfeit != "" {
				t.Errorf("pair %d game %d: forfeit %q (%s), want none", p.Index, half, g.Forfeit, g.ForfeitDetail)
			}
			if len(g.Moves) != 1 || g.Outcome.Winner != rules.DefendersWin {
				t.Errorf("pair %d game %d: %d plies, %v; want the defenders' escape in one", p.Index, half, len(g.Moves), g.Outcome.Winner)
			}
		}
	}
}

// writerFunc is an io.Writer of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
