package main

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"taflab/internal/proctest"
)

// TestEngineMemoryUnderLoad runs the engine program under the loads of
// issue 23 and reads its peak resident memory after each:
//   - 300 MB of lines sent during a search (go infinite, then stop): the
//     lines past the queue's 256 are dropped, and the collector returns
//     the rest, so the peak stays under floodBound (the unbounded queue
//     grew by the whole 300 MB and more);
//   - go nodes 200000: the tree's memory budget (mcts.Config.TreeBytes,
//     256 MiB) ends the search early with its move, and the engine's soft
//     memory limit (limitMemory) keeps the garbage under the rest of
//     searchBound (the peak was 1.4 GB).
//
// Linux only (VmHWM); bounded in time by the engine's own budgets.
func TestEngineMemoryUnderLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from Linux's /proc: skipped")
	}
	const (
		floodBytes  = 300 << 20
		floodBound  = 128 << 20
		searchBound = 512 << 20
	)
	bin := filepath.Join(t.TempDir(), "engine")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Run("a flood during a search", func(t *testing.T) {
		// A search capped at 5,000 playouts, so that its tree is small and
		// the peak is the input's.
		e := startEngine(t, bin, "-protocol", "uci", "-net", "builtin", "-playouts", "5000")
		e.send("uci")
		e.expect("uciok")
		before := e.peak()
		e.send("position startpos", "go infinite")
		line := "ucinewgame " + strings.Repeat("x", 1000) + "\n"
		chunk := strings.Repeat(line, 1024)
		for sent := 0; sent < floodBytes; sent += len(chunk) {
			if _, err := io.WriteString(e.in, chunk); err != nil {
				t.Fatal(err)
			}
		}
		e.send("stop")
		e.expect("bestmove ")
		dropped := e.expect("info string error: ")
		e.send("isready")
		e.expect("readyok")
		after := e.peak()
		t.Logf("peak resident memory: %d MB at start, %d MB after %d MB of lines during a search (%s)", before>>20, after>>20, floodBytes>>20, dropped)
		if after > floodBound {
			t.Errorf("got a peak of %d MB after the flood, want at most %d MB", after>>20, floodBound>>20)
		}
		e.send("quit")
	})
	t.Run("go nodes 200000", func(t *testing.T) {
		e := startEngine(t, bin, "-protocol", "uci", "-net", "builtin")
		e.send("position startpos", "go nodes 200000")
		full := e.expect("info string")
		if !strings.Contains(full, "memory budget of 256 MiB") {
			t.Errorf("got %q, want the note that the tree's budget ended the search", full)
		}
		info := e.expect("info score")
		e.expect("bestmove ")
		after := e.peak()
		t.Logf("peak resident memory after go nodes 200000: %d MB (%s)", after>>20, info)
		if after > searchBound {
			t.Errorf("got a peak of %d MB after go nodes 200000, want at most %d MB", after>>20, searchBound>>20)
		}
		e.send("quit")
	})
}

// engineProcess is the engine program, run by a test.
type engineProcess struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startEngine starts the engine program, and ends it when the test ends.
func startEngine(t *testing.T, bin string, args ...string) *engineProcess {
	t.Helper()
	cmd := exec.Command(bin, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return &engineProcess{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
}

// expect reads up to the next line that starts with prefix.
func (e *engineProcess) expect(prefix string) string {
	e.t.Helper()
	for e.out.Scan() {
		if strings.HasPrefix(e.out.Text(), prefix) {
			return e.out.Text()
		}
	}
	e.t.Fatalf("the engine's output ended, want %q", prefix)
	return ""
}

func (e *engineProcess) send(lines ...string) {
	e.t.Helper()
	if _, err := io.WriteString(e.in, strings.Join(lines, "\n")+"\n"); err != nil {
		e.t.Fatal(err)
	}
}

// peak is the program's peak resident memory so far.
func (e *engineProcess) peak() int64 {
	e.t.Helper()
	n, err := proctest.PeakRSS(e.cmd.Process.Pid)
	if err != nil {
		e.t.Skipf("%v: skipped", err)
	}
	return n
}
