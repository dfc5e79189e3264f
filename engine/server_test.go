package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/protocol"
	"taflab/rules"
)

const openTaflCopenhagen = "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"

// host is a scripted host talking to Serve over pipes.
type host struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
	done  chan error
	sent  time.Time // when the last line was sent
}

func newHost(t *testing.T, cfg Config, eval mcts.Evaluator) *host {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &host{t: t, in: inW, lines: make(chan string, 256), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := Serve(ctx, inR, outW, cfg, eval)
		outW.Close()
		h.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
	})
	return h
}

func (h *host) send(line string) {
	h.t.Helper()
	h.sent = time.Now()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("send %q: %v", line, err)
	}
}

// expect reads the next line and checks that it starts with prefix.
func (h *host) expect(prefix string) string {
	h.t.Helper()
	select {
	case l, ok := <-h.lines:
		if !ok {
			h.t.Fatalf("the engine's output ended, want %q", prefix)
		}
		if !strings.HasPrefix(l, prefix) {
			h.t.Fatalf("got %q, want a line starting %q", l, prefix)
		}
		return l
	case <-time.After(20 * time.Second):
		h.t.Fatalf("no answer, want %q", prefix)
	}
	return ""
}

// quiet checks that the engine says nothing to what was sent: it sends a
// command that always gets an answer and expects that answer first.
func (h *host) quiet(probe, answer string) {
	h.t.Helper()
	h.send(probe)
	h.expect(answer)
}

// end checks that Serve returns nil after the session's last line.
func (h *host) end() {
	h.t.Helper()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Fatalf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		h.t.Fatal("Serve did not return")
	}
}

func testConfig(protocolName string) Config {
	cfg := DefaultConfig()
	cfg.Protocol = protocolName
	cfg.Variant = variants.MustLoad("copenhagen")
	cfg.Playouts = 64
	return cfg
}

// legalIn parses an engine's move and checks it is legal in p under v.
func legalIn(t *testing.T, v *rules.Variant, p rules.Position, text string, parse func(string) (rules.Move, error)) (rules.Move, rules.Position) {
	t.Helper()
	m, err := parse(text)
	if err != nil {
		t.Fatalf("move %q: %v", text, err)
	}
	g, err := rules.NewGameFrom(v, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Play(m); err != nil {
		t.Fatalf("the engine's move %q in %s: %v", text, p, err)
	}
	return m, g.Position()
}

func otepMove(s string) (rules.Move, error) {
	m, _, err := protocol.ParseMove(s)
	return m, err
}

// TestOTEPTranscript sends every OTEP command, the four rule sets' and
// OpenTafl's rules strings, rules to refuse, malformed and unknown lines,
// and checks every answer.
func TestOTEPTranscript(t *testing.T) {
	h := newHost(t, testConfig(OTEP), mcts.NewHeuristic())
	h.expect("hello")
	h.expect("simple-moves on")
	h.send("hello")
	// A finish with a bad code is an error that always answers: the probe
	// that shows the lines before it got no answer.
	probe, probeAnswer := "finish 9", "error 0 finish: \"9\": want 0 to 3"

	t.Run("rules", func(t *testing.T) {
		h.t = t
		h.send("rules " + openTaflCopenhagen)
		h.expect("status rules copenhagen")
		// OpenTafl's Fetlar leaves tfr out: its default, a draw by repetition.
		h.send("rules dim:11 name:Fetlar atkf:n start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/")
		h.expect("status rules fetlar")
		for _, name := range variants.Names() {
			otr, err := protocol.RulesString(variants.MustLoad(name).Definition())
			if err != nil {
				t.Fatal(err)
			}
			h.send("rules " + otr)
			h.expect("status rules " + name)
		}
		for _, bad := range []struct{ otr, key string }{
			{"dim:11 name:Fetlar atkf:n tfr:l start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/", "tfr"},
			{"dim:11 tfr:w esc:e start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/", "esc"},
			{"dim:7 tfr:w ks:n cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", "ks"},
			{"dim:11 tfr:w ber:c start:/3ttttt3/5c5/11/t4T4t/t3NTT3t/tc1TTKTT1ct/t3TTT3t/t4T4t/11/5c5/3ttttt3/", "start"}, // berserk pieces
			{"dim:11 tfr:w wibble:y start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/", "wibble"},
			{"dim:11 tfr:w start:/3t3/", "start"},
		} {
			h.send("rules " + bad.otr)
			h.expect("error -1 cannot play these rules: key " + bad.key + ":")
		}
		h.send("rules")
		h.expect("error 0 rules: missing the rules string")
	})

	t.Run("malformed and unknown lines", func(t *testing.T) {
		h.t = t
		for _, c := range []struct{ line, answer string }{
			{"xyzzy plugh", "status unknown command \"xyzzy\" ignored"},
			{"side sideways", "error 0 side:"},
			{"play", "error 0 play:"},
			{"clock 1000 1000", "error 0 clock:"},
			{"clock a b 0 0 0", "error 0 clock:"},
			{"position /3t3/", "error 0 position:"},
			{"position 3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a", "error 0 position:"},
			{"opponent-move e1", "error 0 opponent-move:"},
			{"opponent-move e1 /3ttttt3/", "error 0 opponent-move:"},
			{"analyze x 1", "error 0 analyze:"},
			{"analyze 3", "error 0 analyze:"},
			{"move /x/", "error 0 move:"},
			{probe, probeAnswer},
		} {
			h.send(c.line)
			h.expect(c.answer)
		}
		h.send("") // an empty line is no command
		h.send("start")
		h.quiet(probe, probeAnswer)
	})

	v := variants.MustLoad("copenhagen")
	otr, err := protocol.RulesString(v.Definition())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a game", func(t *testing.T) {
		h.t = t
		h.send("rules " + otr)
		h.expect("status rules copenhagen")
		h.send("side defenders")
		h.send("start")
		// The attackers open d1-d3; OpenTafl sends the move and the board.
		p := v.Start()
		_, p = legalIn(t, v, p, "d1-d3", otepMove)
		h.send("opponent-move d1-d3 " + protocol.FormatBoard(p))
		h.send("play defenders")
		h.send("clock 60000 60000 0 0 0")
		h.expect("status ")
		_, after := legalIn(t, v, p, strings.TrimPrefix(h.expect("move "), "move "), otepMove)
		// The host refuses it (error 2), then repeats the prior move and
		// the board, and asks again: the engine plays from the host's board.
		h.send("error 2")
		h.expect("status the host refused the last move")
		h.send("opponent-move d1-d3 " + protocol.FormatBoard(p))
		h.send("play defenders")
		h.expect("status ")
		_, after = legalIn(t, v, p, strings.TrimPrefix(h.expect("move "), "move "), otepMove)
		h.send("move " + protocol.FormatBoard(after))
		h.quiet(probe, probeAnswer) // accepted: nothing to say
		// A reply in full notation, with the king's symbol and an info
		// symbol, is read as well.
		g, _ := rules.NewGameFrom(v, after)
		moves := g.GenerateMoves(nil)
		g.Make(moves[0])
		h.send("opponent-move t" + protocol.FormatMove(moves[0]) + "+ " + protocol.FormatBoard(g.Position()))
		h.send("play defenders")
		h.expect("status ")
		legalIn(t, v, g.Position(), strings.TrimPrefix(h.expect("move "), "move "), otepMove)
		h.send("finish 3")
		h.quiet(probe, probeAnswer)
	})

	t.Run("a position, the wrong side, analysis", func(t *testing.T) {
		h.t = t
		h.send("rules " + openTaflCopenhagen)
		h.expect("status rules copenhagen")
		// An OpenTafl position, rank 1 first: the king alone near a1.
		board := "/11/1K9/11/11/11/11/11/11/11/5t5/3ttttt3/"
		h.send("side defenders")
		h.send("position " + board)
		h.send("play defenders")
		h.expect("status ")
		p, err := protocol.ParseBoard(board, rules.Defenders)
		if err != nil {
			t.Fatal(err)
		}
		cv, err := rules.Compile(mustCompile(t, openTaflCopenhagen))
		if err != nil {
			t.Fatal(err)
		}
		m, _ := legalIn(t, cv, p, strings.TrimPrefix(h.expect("move "), "move "), otepMove)
		if m.From().String() != "b2" {
			t.Errorf("got %v, want a king's move (the king on b2 escapes in two)", m)
		}
		// play for the side not to move: the host's word stands.
		h.send("position " + board)
		h.send("play attackers")
		h.expect("status ")
		p.ToMove = rules.Attackers
		legalIn(t, cv, p, strings.TrimPrefix(h.expect("move "), "move "), otepMove)
		h.send("position " + board)
		h.send("side defenders")
		h.send("analyze 3 0")
		p.ToMove = rules.Defenders
		a := strings.Fields(h.expect("analysis 3 "))
		if len(a) != 2+3*2 {
			t.Fatalf("got %q, want 3 moves with evaluations", a)
		}
		for i := 2; i < len(a); i += 2 {
			legalIn(t, cv, p, a[i], otepMove)
			if _, err := fmt.Sscan(a[i+1], new(int)); err != nil {
				t.Errorf("evaluation %q: %v", a[i+1], err)
			}
		}
	})
	h.t = t
	h.send("goodbye")
	h.end()
}

func mustCompile(t *testing.T, otr string) rules.Definition {
	t.Helper()
	def, err := protocol.CompileRules(otr)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// TestUCITranscript sends every command of TaflZero's protocol, malformed
// and unknown lines, and checks every answer.
func TestUCITranscript(t *testing.T) {
	h := newHost(t, testConfig(UCI), mcts.NewHeuristic())
	v := variants.MustLoad("copenhagen")
	h.send("uci")
	h.expect("id name taflab")
	h.expect("id author ")
	otr := strings.TrimPrefix(h.expect("option name Rules type string default "), "option name Rules type string default ")
	if def := mustCompile(t, otr); def != v.Definition() {
		t.Errorf("the Rules option's default: got %+v, want copenhagen's", def)
	}
	// Issue 36: it advertised max 200000, where the documentation says
	// (and go nodes takes) 16,777,216.
	h.expect(fmt.Sprintf("option name Playouts type spin default %d min 1 max %d", testConfig(UCI).Playouts, mcts.MaxPlayouts))
	h.expect("uciok")
	h.send("isready")
	h.expect("readyok")
	probe, probeAnswer := "isready", "readyok"

	for _, c := range []struct{ line, answer string }{
		{"xyzzy", "info string unknown command \"xyzzy\" ignored"},
		{"setoption name Hash value 64", "info string error: setoption: unknown option"},
		{"setoption Playouts 5", "info string error: setoption"},
		{"setoption name Playouts value 0", "info string error: setoption Playouts"},
		{"setoption name Playouts value 16777217", "info string error: setoption Playouts \"16777217\": want 1 to 16777216"},
		{"go nodes 16777217", "info string error: go: nodes: want 1 to 16777216"},
		{"setoption name Rules value dim:11 tfr:l start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/", "info string error: setoption Rules: key tfr:"},
		{"position", "info string error: position:"},
		{"position sideways", "info string error: position:"},
		{"position fen 3aaaaa3/5a5/11", "info string error: position: fen"},
		{"position fen 3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 x", "info string error: position:"},
		{"position startpos d1d3", "info string error: position: \"d1d3\": want moves"},
		{"position startpos moves d1d9", "info string error: position: move 1 \"d1d9\""},
		{"position startpos moves d1d3 d3", "info string error: position: move 2 \"d3\""},
		{"go nodes", "info string error: go: nodes"},
		{"go nodes -5", "info string error: go: nodes"},
		{"go movetime x", "info string error: go: movetime"},
		{"go sideways", "info string error: go: \"sideways\""},
	} {
		h.send(c.line)
		h.expect(c.answer)
	}
	h.send("stop") // no search: nothing to stop
	h.send("setoption name Playouts value 40")
	h.quiet(probe, probeAnswer)

	t.Run("startpos and moves", func(t *testing.T) {
		h.t = t
		h.send("ucinewgame")
		h.send("position startpos moves d1d3 f4f3")
		h.send("go nodes 50")
		info := h.expect("info score cp ")
		if !strings.Contains(info, " nodes 50 ") {
			t.Errorf("got %q, want 50 nodes", info)
		}
		p := v.Start()
		_, p = legalIn(t, v, p, "d1-d3", protocol.ParseUCIMove)
		_, p = legalIn(t, v, p, "f4-f3", protocol.ParseUCIMove)
		legalIn(t, v, p, strings.TrimPrefix(h.expect("bestmove "), "bestmove "), protocol.ParseUCIMove)
	})
	t.Run("fen, movetime, infinite", func(t *testing.T) {
		h.t = t
		fen := "11/11/11/11/11/11/11/11/3aaaaa3/1k9/11 d"
		p, err := rules.ParsePosition(fen)
		if err != nil {
			t.Fatal(err)
		}
		h.send("position fen " + fen)
		h.send("go movetime 50")
		h.expect("info ")
		m, _ := legalIn(t, v, p, strings.TrimPrefix(h.expect("bestmove "), "bestmove "), protocol.ParseUCIMove)
		if m.From().String() != "b2" {
			t.Errorf("got %v, want a king's move", m)
		}
		h.send("go infinite")
		time.Sleep(50 * time.Millisecond)
		h.send("isready")
		h.expect("readyok") // answered during the search
		h.send("stop")
		h.expect("info ")
		legalIn(t, v, p, strings.TrimPrefix(h.expect("bestmove "), "bestmove "), protocol.ParseUCIMove)
	})
	t.Run("rules option and game over", func(t *testing.T) {
		h.t = t
		h.send("setoption name Rules value dim:7 tfr:w start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/")
		h.send("position startpos moves d1c1")
		h.send("go nodes 20")
		h.expect("info ")
		h.expect("bestmove ")
		// The king on a corner: the game is over.
		h.send("position fen K6/7/7/3a3/7/7/7 a")
		h.expect("info string error: position:") // k, not K
		h.send("position fen 7/6k/3a3/7/7/7/7 d moves g6g7")
		h.send("go nodes 20")
		h.expect("bestmove (none)")
	})
	h.t = t
	h.send("quit")
	h.end()
}

// slowEval is the built-in evaluator made as slow as a network: each batch
// costs a few milliseconds, so that a search's steps are as coarse as they
// are with a network.
type slowEval struct{ mcts.Heuristic }

func (e slowEval) Evaluate(b *mcts.Batch) error {
	time.Sleep(3 * time.Millisecond)
	return e.Heuristic.Evaluate(b)
}

// runDelay is the time this process's threads have spent runnable but
// waiting for a CPU, summed over the threads (Linux's
// /proc/self/task/*/schedstat, second field); 0 where there is no such
// file. It is how TestMoveTime tells the machine's stalls from the engine's.
func runDelay() time.Duration {
	paths, _ := filepath.Glob("/proc/self/task/*/schedstat")
	var sum time.Duration
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(data)); len(f) >= 2 {
			if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				sum += time.Duration(ns)
			}
		}
	}
	return sum
}

// TestMoveTime checks the bound: with a clock (OTEP) or a movetime
// (UCI), no move takes more than its budget plus 100 ms, measured at the
// host from sending the command to reading the move. A timed assertion,
// which the issue demands; the budgets are short so that the test is fast,
// and each search's steps cost 3 ms as a network's do, so the bound is
// about how the engine stops, not how fast this machine is.
//
// On a loaded machine (two cores shared with other jobs, the tests at nice
// 19) the process may wait hundreds of milliseconds for a CPU. A move over
// the bound fails the test at once unless the time the process's threads
// waited for a CPU meanwhile (runDelay) covers the excess; then the
// machine, not the engine, is to blame, and the session is played again,
// up to moveTimeAttempts times. The test passes only on a session where
// every move kept to the plain bound, so an engine that overruns its
// budget fails whatever the load.
func TestMoveTime(t *testing.T) {
	const moveTimeAttempts = 4
	v := variants.MustLoad("copenhagen")
	otepSession := func(t *testing.T, check func(what string, took, budget, delay time.Duration)) {
		cfg := testConfig(OTEP)
		cfg.Playouts = 1 << 20 // only the clock stops the search
		cfg.MaxPlayouts = 1 << 20
		h := newHost(t, cfg, slowEval{})
		h.expect("hello")
		h.expect("simple-moves on")
		otr, _ := protocol.RulesString(v.Definition())
		h.send("rules " + otr)
		h.expect("status rules")
		clocks := []string{"6000 6000 0 0 0", "400* 400* 1 1 1", "3000 3000 4 2 2", "250* 300* 2 0 0"}
		p := v.Start()
		for i, c := range clocks {
			side := p.ToMove
			clock, err := ParseClock(c)
			if err != nil {
				t.Fatal(err)
			}
			h.send("side " + side.String())
			h.send("play " + side.String())
			delay := runDelay()
			h.send("clock " + c)
			h.expect("status ")
			text := strings.TrimPrefix(h.expect("move "), "move ")
			took, delay := time.Since(h.sent), runDelay()-delay
			budget := ClockBudget(clock, side)
			check(fmt.Sprintf("move %d (clock %s)", i+1, c), took, budget, delay)
			if took < budget/2 {
				t.Errorf("move %d (clock %s): took %v, budget %v: the clock was not used", i+1, c, took, budget)
			}
			_, p = legalIn(t, v, p, text, otepMove)
			h.send("move " + protocol.FormatBoard(p))
		}
		h.send("goodbye")
		h.end()
	}
	uciSession := func(t *testing.T, check func(what string, took, budget, delay time.Duration)) {
		cfg := testConfig(UCI)
		cfg.Playouts, cfg.MaxPlayouts = 1<<20, 1<<20
		h := newHost(t, cfg, slowEval{})
		for _, ms := range []int{50, 200, 120} {
			h.send("position startpos")
			delay := runDelay()
			h.send(fmt.Sprintf("go movetime %d", ms))
			h.expect("info ")
			h.expect("bestmove ")
			took, delay := time.Since(h.sent), runDelay()-delay
			check(fmt.Sprintf("movetime %d", ms), took, time.Duration(ms)*time.Millisecond, delay)
		}
		h.send("quit")
		h.end()
	}
	for _, c := range []struct {
		name    string
		session func(*testing.T, func(string, time.Duration, time.Duration, time.Duration))
	}{{"otep clock", otepSession}, {"uci movetime", uciSession}} {
		t.Run(c.name, func(t *testing.T) {
			for attempt := 1; ; attempt++ {
				var stalled []string
				c.session(t, func(what string, took, budget, delay time.Duration) {
					const slack = 100 * time.Millisecond
					t.Logf("attempt %d, %s: took %v, budget %v, waited for a CPU %v", attempt, what, took, budget, delay)
					switch over := took - budget - slack; {
					case over <= 0:
					case delay >= over:
						stalled = append(stalled, fmt.Sprintf("%s: took %v, budget %v, waited for a CPU %v", what, took, budget, delay))
					default:
						t.Errorf("%s: took %v, budget %v (waited for a CPU %v): want at most the budget + %v", what, took, budget, delay, slack)
					}
				})
				if t.Failed() || len(stalled) == 0 {
					return
				}
				if attempt == moveTimeAttempts {
					t.Fatalf("every one of %d sessions had a move over the bound while the machine withheld the CPU; the last: %s",
						moveTimeAttempts, strings.Join(stalled, "; "))
				}
				t.Logf("attempt %d: the machine withheld the CPU (%s): again", attempt, strings.Join(stalled, "; "))
			}
		})
	}
}

func TestClockBudget(t *testing.T) {
	tests := []struct {
		clock string
		side  rules.Side
		want  time.Duration
	}{
		{"60000 30000 0 0 0", rules.Attackers, 2 * time.Second},
		{"60000 30000 0 0 0", rules.Defenders, time.Second},
		{"3000 3000 4 2 2", rules.Attackers, 2100 * time.Millisecond}, // 100 + 2000, under 2650
		// Main time that runs out mid-move carries on into a period, which
		// a move inside keeps whole: 100 ms + 15 s, under 0.9 x 33 s.
		{"3000 3000 30 2 2", rules.Attackers, 15100 * time.Millisecond},
		{"3000 3000 30 0 0", rules.Attackers, 100 * time.Millisecond},
		// Near the end of main time with periods left (OpenTafl's host,
		// clock 20 s + 3 x 2 s): half a period, not 90% of 59 ms.
		{"59 10298 2 3 3", rules.Attackers, 59*time.Millisecond/30 + time.Second},
		{"4288 576 2 3 3", rules.Defenders, 576*time.Millisecond/30 + time.Second},
		{"59 10298 2 0 0", rules.Attackers, 10 * time.Millisecond},
		{"400* 400* 1 1 1", rules.Defenders, 310 * time.Millisecond},
		{"20* 20* 1 0 0", rules.Attackers, 10 * time.Millisecond},
		{"-1 -1 0 0 0", rules.Attackers, 0},
		// Figures past any game are clamped, not overflowed.
		{"9223372036854775807 1 0 0 0", rules.Attackers, maxClockMillis * time.Millisecond / 30},
		{"99999999999999999999* 1 0 0 0", rules.Attackers, maxClockMillis*time.Millisecond*9/10 - 50*time.Millisecond},
		{"1000 1000 9223372036854775807 99999999999999999999 1", rules.Attackers, time.Second/30 + maxClockMillis*time.Millisecond/2},
	}
	for _, tt := range tests {
		t.Run(tt.clock, func(t *testing.T) {
			c, err := ParseClock(tt.clock)
			if err != nil {
				t.Fatal(err)
			}
			if got := ClockBudget(c, tt.side); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "1 2 3 4", "x 1 0 0 0", "1 1 -1 0 0", "1 1 0 x 0", "-5 1 0 0 0", "-99999999999999999999 1 0 0 0", "1 1 0 0 -99999999999999999999"} {
		if _, err := ParseClock(bad); err == nil || !strings.HasPrefix(err.Error(), "engine: clock") {
			t.Errorf("clock %q: got %v, want an error", bad, err)
		}
	}
}

// FuzzServe feeds arbitrary lines to both protocols: Serve must neither
// panic nor hang, and every line it writes must be one of the protocol's
// answers.
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		"rules " + openTaflCopenhagen + "\nside attackers\nplay attackers\nclock 100 100 0 0 0\nfinish 2\ngoodbye",
		"position /11/1K9/11/11/11/11/11/11/11/5t5/3ttttt3/\nanalyze 2 0\nopponent-move a1-a2|b2-b3 /x/\nerror 2\nmove /3/",
		"uci\nisready\nposition startpos moves d1d3\ngo nodes 5\nsetoption name Rules value dim:7 tfr:w start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/\ngo infinite\nstop\nquit",
		"position fen 6k/7/3a3/7/7/7/7 d moves g7g6\ngo movetime 5\n\x00\xff\n",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, input string, uci bool) {
		cfg := testConfig(OTEP)
		answers := []string{"hello", "simple-moves ", "status ", "error ", "move ", "analysis "}
		if uci {
			cfg.Protocol = UCI
			answers = []string{"id ", "option ", "uciok", "readyok", "info ", "bestmove "}
		}
		cfg.Playouts, cfg.MaxPlayouts = 4, 64
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// A go movetime or analyze in the input may ask for long searches:
		// cap them by the config's move time.
		cfg.MoveTime = 5 * time.Millisecond
		var out strings.Builder
		if err := Serve(ctx, strings.NewReader(input), &out, cfg, mcts.NewHeuristic()); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if out.Len() == 0 {
				break
			}
			ok := false
			for _, a := range answers {
				ok = ok || strings.HasPrefix(l, a)
			}
			if !ok {
				t.Fatalf("answer %q is not a protocol answer", l)
			}
		}
	})
}

// TestOTEPFollowsTheHost: the host referees. When the position it sends
// with opponent-move or move differs from the one taflab's rules made (here
// a host that takes pieces taflab would not), the engine says so in a
// status line and plays on from the host's position.
func TestOTEPFollowsTheHost(t *testing.T) {
	h := newHost(t, testConfig(OTEP), mcts.NewHeuristic())
	h.expect("hello")
	h.expect("simple-moves on")
	probe, probeAnswer := "finish 9", "error 0 finish: \"9\": want 0 to 3"
	cv, err := rules.Compile(mustCompile(t, openTaflCopenhagen))
	if err != nil {
		t.Fatal(err)
	}
	h.send("rules " + openTaflCopenhagen)
	h.expect("status rules copenhagen")
	h.send("side defenders")

	// A board the host and the engine agree on: nothing to say.
	p := cv.Start()
	_, p = legalIn(t, cv, p, "d1-d3", otepMove)
	h.send("opponent-move d1-d3 " + protocol.FormatBoard(p))
	h.quiet(probe, probeAnswer)

	// The engine's move; the host accepts it, but its board after it
	// lacks the attacker on a6.
	h.send("play defenders")
	h.expect("status ")
	_, after := legalIn(t, cv, p, strings.TrimPrefix(h.expect("move "), "move "), otepMove)
	after.Attackers = after.Attackers.Without(mustSquareT(t, "a6"))
	h.send("move " + protocol.FormatBoard(after))
	h.expect("status the host's position after move differs from taflab's: following the host's")

	// The attackers' reply, after which the host's board lacks a
	// defender as well.
	g, err := rules.NewGameFrom(cv, after)
	if err != nil {
		t.Fatal(err)
	}
	reply := g.GenerateMoves(nil)[0]
	g.Make(reply)
	host := g.Position()
	gone := host.Defenders.First()
	host.Defenders = host.Defenders.Without(gone)
	h.send("opponent-move " + protocol.FormatMove(reply) + " " + protocol.FormatBoard(host))
	h.expect("status the host's position after opponent-move differs from taflab's: following the host's")
	h.send("play defenders")
	h.expect("status ")
	m, next := legalIn(t, cv, host, strings.TrimPrefix(h.expect("move "), "move "), otepMove)
	if m.From() == gone {
		t.Fatalf("got %v, a move of the piece the host took", m)
	}
	// From here they agree again: no status line.
	h.send("move " + protocol.FormatBoard(next))
	h.quiet(probe, probeAnswer)
	h.send("goodbye")
	h.end()
}

func mustSquareT(t *testing.T, name string) rules.Square {
	t.Helper()
	s, err := rules.ParseSquare(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
