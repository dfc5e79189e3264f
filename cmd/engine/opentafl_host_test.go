package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/protocol"
	"taflab/rules"
)

// TestOpenTaflHostsEngine has OpenTafl host this engine (-protocol otep)
// for one full game of Copenhagen in each colour, on a private OpenTafl
// server with two headless clients (scripts/opentafl-host.sh). It needs
// OpenTafl and root, and skips without them:
//
//	TAFLAB_OPENTAFL_CP      OpenTafl's Java classpath (required)
//	TAFLAB_OPENTAFL_ENGINE  the opponent: an OTEP engine's command line, such
//	                        as OpenTafl's own engine wrapper; default: this
//	                        engine again (-net builtin -movetime 500)
//	TAFLAB_OPENTAFL_NET     this engine's -net: builtin or a file; default:
//	                        the shipped network if it is there, else builtin
//	TAFLAB_OPENTAFL_WORKDIR a folder to keep each game's files in (its
//	                        attackers-1/, defenders-1/, ...: transcripts,
//	                        saved games, logs); default: temporary
//
// Each game takes a few minutes (at most 20, the script's limit, or the
// test's time shared among the games left); give go test the time:
//
//	TAFLAB_OPENTAFL_CP=... go test -run TestOpenTaflHostsEngine -timeout 45m -v ./cmd/engine
//
// It asserts that the game ended by the rules (not by a resignation, a
// crash or a clock of taflab's), that the engine printed no error line,
// that the host refused none of its moves and always asked it for its own
// side, and that the moves it sent are the game record's moves of its
// side, in order. Status lines saying the host's position differs are
// counted and logged, and so are the engine's times. A game the opponent
// spoils (its engine exits or hangs, its client leaves) is no failure: it
// is played once more if there is time.
func TestOpenTaflHostsEngine(t *testing.T) {
	cp := os.Getenv("TAFLAB_OPENTAFL_CP")
	if cp == "" {
		t.Skip("TAFLAB_OPENTAFL_CP is not set (OpenTafl's Java classpath): OpenTafl is not here")
	}
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux namespaces (unshare)")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: the OpenTafl server runs in a private network namespace (unshare --net --pid), which needs root")
	}
	for _, c := range []string{"bash", "unshare", "ip", "ss", "timeout", "java"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s is not here: %v", c, err)
		}
	}
	if out, err := exec.Command("unshare", "--net", "--pid", "--fork", "--mount-proc", "--kill-child=SIGKILL",
		"ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Skipf("unshare does not work here: %v %s", err, bytes.TrimSpace(out))
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "opentafl-host.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the hosting script: %v", err)
	}

	bin := filepath.Join(t.TempDir(), "engine")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	netArg := os.Getenv("TAFLAB_OPENTAFL_NET")
	if netArg == "" {
		netArg = "builtin"
		if p, err := filepath.Abs(filepath.Join("..", "..", "networks", "copenhagen.safetensors")); err == nil {
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
				netArg = p
			}
		}
	} else if netArg != "builtin" {
		// OpenTafl runs the engine in a folder of its own.
		if netArg, err = filepath.Abs(netArg); err != nil {
			t.Fatal(err)
		}
	}
	const moveTime = 500 // ms a move
	taflab := fmt.Sprintf("%s -protocol otep -net %s -movetime %d", bin, netArg, moveTime)
	opponent := os.Getenv("TAFLAB_OPENTAFL_ENGINE")
	if opponent == "" {
		opponent = fmt.Sprintf("%s -protocol otep -net builtin -movetime %d", bin, moveTime)
	}
	if strings.ContainsAny(bin+netArg, " \t\n") {
		// The script splits command lines on blanks.
		t.Skipf("a path with a blank cannot go into the script's command lines: %q", taflab)
	}
	t.Logf("taflab: %s", taflab)
	t.Logf("opponent: %s", opponent)

	sides := []string{"attackers", "defenders"}
	for i, side := range sides {
		t.Run(side, func(t *testing.T) {
			// A game the opponent spoils (it crashes, hangs, loses on
			// time) is played once more if there is time.
			for attempt := 1; attempt <= 2; attempt++ {
				workdir := t.TempDir()
				if keep := os.Getenv("TAFLAB_OPENTAFL_WORKDIR"); keep != "" {
					workdir = filepath.Join(keep, fmt.Sprintf("%s-%d", side, attempt))
				}
				spoiled := othostGame(t, othostRun{
					script: script, cp: cp, taflab: taflab, opponent: opponent,
					side: side, workdir: workdir, gamesLeft: len(sides) - i, moveTime: moveTime,
					last: attempt == 2,
				})
				if !spoiled || t.Failed() {
					return
				}
				t.Logf("NOTE: the opponent spoiled game %d (no rules ending, not taflab's fault)", attempt)
			}
		})
	}
}

type othostRun struct {
	script, cp, taflab, opponent, side, workdir string
	gamesLeft                                   int
	moveTime                                    int  // ms
	last                                        bool // no retry after this game
}

// othostGame plays one game with the script and checks it. It reports
// whether the opponent spoiled the game: it did not end by the rules, and
// not by taflab's fault (the opponent's engine exited or hung, its client
// left); then taflab's side of the protocol is still checked, and the
// game's end is not. It skips when too little time is left for a game,
// unless it is a retry, which is then left out.
func othostGame(t *testing.T, r othostRun) (spoiled bool) {
	// Twenty minutes a game, or the test's time shared among the games
	// left, keeping half a minute to report.
	limit := 20 * time.Minute
	if dl, ok := t.Deadline(); ok {
		if share := (time.Until(dl) - 30*time.Second) / time.Duration(r.gamesLeft); share < limit {
			limit = share
		}
	}
	if limit < 3*time.Minute {
		if r.last {
			t.Logf("only %v left: no second game", limit.Round(time.Second))
			return false
		}
		t.Skipf("only %v left for this game: run go test with -timeout 45m", limit.Round(time.Second))
	}
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "OPENTAFL_CP", "TAFLAB_ENGINE", "OPPONENT_ENGINE", "SIDE", "WORKDIR", "CLOCK", "MATCH_TIMEOUT":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "OPENTAFL_CP="+r.cp, "TAFLAB_ENGINE="+r.taflab, "OPPONENT_ENGINE="+r.opponent,
		"SIDE="+r.side, "WORKDIR="+r.workdir, "MATCH_TIMEOUT="+strconv.Itoa(int(limit.Seconds())))

	// The script stops everything at MATCH_TIMEOUT; this is the backstop:
	// its whole process group (the script, timeout, unshare) is killed,
	// and the namespace's processes die with unshare.
	ctx, cancel := context.WithTimeout(context.Background(), limit+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", r.script)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	wall := time.Since(start)
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // nothing of the group stays
	}
	t.Logf("taflab on the %s, %v, files in %s; the script said:\n%s", r.side, wall.Round(time.Second), r.workdir, out.String())

	summary := othostSummary(out.String())
	// Whose fault a game without a rules ending is.
	fault := ""
	switch {
	case summary == nil:
		fault = "script"
	case summary["reason"] == "rules":
	case summary["exited"] == "taflab" || summary["exited"] == "both":
		fault = "taflab"
	case summary["exited"] == "opponent":
		fault = "opponent"
	case summary["taflab"] == "won":
		fault = "opponent" // its clock ran out, or its client left
	default:
		fault = "taflab"
	}
	switch fault {
	case "script":
		t.Errorf("the game did not complete: %v; no summary", runErr)
	case "taflab":
		t.Errorf("the game did not end by the rules, by taflab's fault: %v", summary)
	case "opponent":
		t.Logf("NOTE: the game did not end by the rules, by the opponent's fault: %v", summary)
		othostTail(t, filepath.Join(r.workdir, "opponent.otep"), 15)
	case "":
		if runErr != nil {
			t.Errorf("the script failed: %v", runErr)
		}
		switch summary["winner"] {
		case "attackers", "defenders", "draw":
		default:
			t.Errorf("no winner: %v", summary)
		}
	}
	if fault == "script" || fault == "taflab" {
		othostTail(t, filepath.Join(r.workdir, "taflab.otep"), 30)
		othostTail(t, filepath.Join(r.workdir, "taflab.stderr"), 10)
		othostTail(t, filepath.Join(r.workdir, "taflab-client.out"), 15)
		othostTail(t, filepath.Join(r.workdir, "opponent-client.out"), 15)
	}
	if fault == "script" {
		return false
	}
	spoiled = fault == "opponent"

	tr, err := othostReadTranscript(filepath.Join(r.workdir, "taflab.otep"))
	if err != nil {
		t.Fatalf("taflab's transcript: %v", err)
	}
	tr.check(t, r.side, r.moveTime, fault == "")
	if t.Failed() && fault != "taflab" {
		othostTail(t, filepath.Join(r.workdir, "taflab.otep"), 30)
		othostTail(t, filepath.Join(r.workdir, "taflab.stderr"), 10)
	}

	record, recErr := othostRecord(r.workdir)
	if recErr != nil {
		if !spoiled {
			t.Errorf("the game record: %v", recErr)
		}
		return spoiled
	}
	if plies, _ := strconv.Atoi(summary["plies"]); plies != len(record) {
		t.Errorf("the summary counts %d plies, the record has %d", plies, len(record))
	}
	// The engine's moves are the record's moves of its side, in order.
	first := 0
	if r.side == "defenders" {
		first = 1
	}
	var own []string
	for i := first; i < len(record); i += 2 {
		own = append(own, record[i])
	}
	if len(own) != len(tr.moves) {
		t.Errorf("taflab sent %d moves, the record has %d for the %s", len(tr.moves), len(own), r.side)
	}
	for i := range min(len(own), len(tr.moves)) {
		a, _, err1 := protocol.ParseMove(own[i])
		b, _, err2 := protocol.ParseMove(tr.moves[i])
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("taflab's move %d: sent %q, the record has %q (out of step)", i+1, tr.moves[i], own[i])
			break
		}
	}

	// taflab's rules judge the record too: a note, not a failure, when
	// they judge it otherwise than OpenTafl (a rules difference, not a
	// protocol one).
	if tr.rules == "" {
		t.Errorf("the host sent no rules")
		return spoiled
	}
	def, err := protocol.CompileRules(tr.rules)
	if err != nil {
		t.Errorf("the host's rules: %v", err)
		return spoiled
	}
	v, err := rules.Compile(def)
	if err != nil {
		t.Errorf("the host's rules: %v", err)
		return spoiled
	}
	g := rules.NewGame(v)
	for i, text := range record {
		m, _, err := protocol.ParseMove(text)
		if err == nil && !g.IsLegal(m) {
			err = errors.New("illegal by taflab's rules")
		}
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			t.Logf("NOTE: replaying the record with taflab's rules: ply %d %s: %v", i+1, text, err)
			return spoiled
		}
	}
	o := g.Outcome()
	t.Logf("OpenTafl: winner %s (%s) after %d plies; taflab's rules replaying the record: %v", summary["winner"], summary["reason"], len(record), o)
	if summary["reason"] == "rules" && (!o.Over() || o.Winner.String() != summary["winner"]) {
		t.Logf("NOTE: taflab's rules judge the record otherwise than OpenTafl")
	}
	return spoiled
}

// othostSummary reads the script's "result: k=v ..." line, or nil.
func othostSummary(out string) map[string]string {
	var m map[string]string
	for _, l := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(l, "result: ")
		if !ok {
			continue
		}
		m = map[string]string{}
		for _, f := range strings.Fields(rest) {
			if k, v, ok := strings.Cut(f, "="); ok {
				m[k] = v
			}
		}
	}
	return m
}

// othostTranscript is what the script's wrapper recorded of taflab's
// engine: lines "<seconds> > <line>" (host to engine), "<seconds> <
// <line>" (engine to host) and notes.
type othostTranscript struct {
	lines []othostLine
	moves []string // the moves the engine sent
	rules string   // the rules string the host sent
}

type othostLine struct {
	at   float64 // seconds since the wrapper started
	dir  string  // ">", "<" or "" for the wrapper's notes
	text string
}

func othostReadTranscript(path string) (*othostTranscript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tr := &othostTranscript{}
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		at, rest, _ := strings.Cut(l, " ")
		sec, err := strconv.ParseFloat(at, 64)
		if err != nil {
			continue
		}
		line := othostLine{at: sec, text: rest}
		if d, text, ok := strings.Cut(rest, " "); ok && (d == ">" || d == "<") {
			line.dir, line.text = d, text
		}
		tr.lines = append(tr.lines, line)
		switch {
		case line.dir == "<" && strings.HasPrefix(line.text, "move "):
			tr.moves = append(tr.moves, strings.TrimSpace(strings.TrimPrefix(line.text, "move ")))
		case line.dir == ">" && strings.HasPrefix(line.text, "rules ") && tr.rules == "":
			tr.rules = strings.TrimSpace(strings.TrimPrefix(line.text, "rules "))
		}
	}
	if len(tr.lines) == 0 {
		return nil, errors.New("empty")
	}
	return tr, nil
}

// check asserts the protocol's side of the game and logs the timing;
// ended: the game ended normally (the host sent finish, no play was left
// unanswered).
func (tr *othostTranscript) check(t *testing.T, side string, moveTime int, ended bool) {
	t.Helper()
	var hello, finish bool
	var differs, clocks, plays int
	var lastClock string
	var playAt float64 = -1
	var thinks []float64 // ms from play to move
	var searches []int   // ms the status lines report
	for i, l := range tr.lines {
		word, args, _ := strings.Cut(l.text, " ")
		switch l.dir {
		case "<":
			switch word {
			case "hello":
				hello = true
			case "error":
				t.Errorf("taflab's engine printed an error (line %d): %s", i+1, l.text)
			case "move":
				if playAt < 0 {
					t.Errorf("taflab's engine moved unasked (line %d): %s", i+1, l.text)
				} else {
					thinks = append(thinks, (l.at-playAt)*1000)
				}
				playAt = -1
			case "status":
				if strings.Contains(args, "differs") {
					differs++
					t.Logf("out of step, followed the host (line %d): %s", i+1, l.text)
				}
				// "status N playouts in M ms, value V"
				if f := strings.Fields(args); len(f) >= 5 && f[1] == "playouts" && f[2] == "in" {
					if ms, err := strconv.Atoi(f[3]); err == nil {
						searches = append(searches, ms)
					}
				}
			}
		case ">":
			switch word {
			case "error":
				t.Errorf("the host refused taflab's move (line %d): %s", i+1, l.text)
			case "play":
				plays++
				if args != side {
					t.Errorf("the host asked taflab for the %s, who plays the %s (line %d)", args, side, i+1)
				}
				if playAt >= 0 {
					t.Errorf("a second play before taflab's move (line %d)", i+1)
				}
				playAt = l.at
			case "clock":
				clocks++
				lastClock = args
			case "finish":
				finish = true
			}
		}
	}
	if !hello {
		t.Errorf("taflab's engine never said hello")
	}
	if ended && !finish {
		t.Errorf("the host never sent finish")
	}
	if ended && playAt >= 0 {
		t.Errorf("taflab's engine did not answer the last play")
	}
	if ended && plays != len(tr.moves) {
		t.Errorf("%d plays, %d moves", plays, len(tr.moves))
	}
	t.Logf("%d moves, %d clock lines (the last: clock %s), %d status lines saying the host's position differs",
		len(tr.moves), clocks, strings.TrimSpace(lastClock), differs)
	if len(thinks) > 0 {
		sort.Float64s(thinks)
		over := 0
		for _, d := range thinks {
			if d > float64(moveTime)+100 {
				over++
			}
		}
		t.Logf("play to move: median %.0f ms, 90th percentile %.0f ms, max %.0f ms; %d of %d over the %d ms budget by more than 100 ms",
			thinks[len(thinks)/2], thinks[len(thinks)*9/10], thinks[len(thinks)-1], over, len(thinks), moveTime)
	}
	if len(searches) > 0 {
		sort.Ints(searches)
		t.Logf("searches (status lines): median %d ms, max %d ms", searches[len(searches)/2], searches[len(searches)-1])
	}
}

// othostRecord returns the moves of the game OpenTafl saved: the joining
// client's copy, else the creating client's.
func othostRecord(workdir string) ([]string, error) {
	var files []string
	for _, c := range []string{"opponent-client", "taflab-client"} {
		files, _ = filepath.Glob(filepath.Join(workdir, c, "saved-games", "headless-ai", "*.otg"))
		if len(files) > 0 {
			break
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no saved game")
	}
	sort.Strings(files)
	data, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		return nil, err
	}
	// After the [tag:value] lines: "1. d1-d3 Kf6-g6xg7" lines, each
	// followed by a "[clock|clock]" comment line.
	var moves []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			continue
		}
		for _, f := range strings.Fields(l) {
			if strings.HasSuffix(f, ".") || !strings.Contains(f, "-") {
				continue // a move number
			}
			moves = append(moves, f)
		}
	}
	if len(moves) == 0 {
		return nil, fmt.Errorf("%s: no moves", files[len(files)-1])
	}
	return moves, nil
}

// othostTail logs the last n lines of a file.
func othostTail(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Logf("%s: %v", path, err)
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	t.Logf("the end of %s:\n%s", path, strings.Join(lines, "\n"))
}
