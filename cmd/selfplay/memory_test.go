package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/configs"
	"taflab/internal/proctest"
	"taflab/mcts"
)

const memoryChildEnv = "TAFLAB_SELFPLAY_MEMORY_CHILD" // the child's selfplay arguments, as JSON

// TestSelfPlayMemoryProcess is TestMemorySelfPlay's selfplay, in a process
// of its own so that its peak memory is its own; SIGTERM stops it as it
// stops the command.
func TestSelfPlayMemoryProcess(t *testing.T) {
	js := os.Getenv(memoryChildEnv)
	if js == "" {
		t.Skip("the selfplay process of TestMemorySelfPlay; it runs only as that test's child")
	}
	var args []string
	if err := json.Unmarshal([]byte(js), &args); err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, args, os.Stdout, os.Stderr))
}

// memoryBudget is memory_bytes of TestMemorySelfPlay: 64 MiB, as many games
// at once as it allows (configs.MinGameBytes each).
const memoryBudget = 64 << 20

// TestMemorySelfPlay runs selfplay at the largest settings its memory
// budget allows: memory_bytes 64 MiB, the most games at once it takes (2
// workers x 29 games), every search of mcts.MaxPlayouts playouts (each tree
// would take its 256 MiB of tree_bytes: some 15 GB together), and checks
// that the process's peak resident memory stays within memory_bytes and
// the headroom the command gives the rest (memoryHeadroom, 256 MiB): its
// soft memory limit. Before the budget, 2 workers of 1,024 games at 2,000
// playouts passed 2 GB in 3.8 s.
func TestMemorySelfPlay(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies memory: the bound is checked without -race")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the peak memory is read from /proc/PID/status")
	}
	search := mcts.DefaultConfig()
	perWorker := int(memoryBudget / configs.MinGameBytes(search) / 2)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "big.toml")
	text := fmt.Sprintf("games = %d\nworkers = 2\ngames_per_worker = %d\nmemory_bytes = %d\nshard_games = 8\n[search]\nplayouts = %d\ncheap_playouts = %d\n",
		2*perWorker, perWorker, memoryBudget, mcts.MaxPlayouts, mcts.MaxPlayouts)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal([]string{"-config", cfg, "-out", filepath.Join(dir, "out")})
	cmd := exec.Command(os.Args[0], "-test.run=^TestSelfPlayMemoryProcess$", "-test.v=false")
	cmd.Env = append(os.Environ(), memoryChildEnv+"="+string(args))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Some moves of every game: the trees fill the budget at once, and
	// again after every move.
	var peak int64
	for end := time.Now().Add(12 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		p, err := proctest.PeakRSS(cmd.Process.Pid)
		if err != nil {
			break // it ended
		}
		peak = p
		if peak > memoryBudget+memoryHeadroom {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGTERM) // the child this test started
	err := cmd.Wait()
	t.Logf("2 workers x %d games at %d playouts, memory_bytes %d MiB: peak resident memory %d MiB (bound %d MiB)\n%s",
		perWorker, mcts.MaxPlayouts, memoryBudget>>20, peak>>20, (memoryBudget+memoryHeadroom)>>20, out.String())
	if code := exitCode(err); code != 130 && code != 0 {
		t.Errorf("got exit %d, want 130 (stopped) or 0", code)
	}
	if peak == 0 || peak > memoryBudget+memoryHeadroom {
		t.Errorf("got a peak resident memory of %d MiB, want at most %d MiB", peak>>20, (memoryBudget+memoryHeadroom)>>20)
	}
}

// TestIssue36SelfPlaySettings: issue 36's finding 8 for self-play, as it
// was run: 2 workers of 1,024 games at once (2,000 playouts passed 2 GB in
// 3.8 s) need more than the default memory_bytes leaves them and are
// refused, exit 2, naming the key and what would do; with memory_bytes
// raised they are taken (TestMemorySelfPlay runs a budget's most).
func TestIssue36SelfPlaySettings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	over := write("over.toml", "games = 1\nworkers = 2\ngames_per_worker = 1024\n[search]\nplayouts = 2000\n")
	raised := write("raised.toml", "games = 1\nworkers = 2\ngames_per_worker = 1024\nmemory_bytes = 2147483648\n[search]\nplayouts = 8\ncheap_playouts = 8\n")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"2 workers x 1,024 games at the default budget", []string{"-config", over, "-out", filepath.Join(dir, "a")}, 2,
			"memory_bytes = 1073741824: want at least 1184759808: 2 workers x 1024 games_per_worker = 2048 games at once, each 578496 bytes at least: raise it, or play fewer games at once"},
		{"with memory_bytes raised", []string{"-config", raised, "-out", filepath.Join(dir, "b")}, 0, "selfplay: 1 games"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runSelfplay(t, c.args...)
			if code != c.code || !strings.Contains(stdout+stderr, c.want) {
				t.Errorf("got exit %d and %q, want %d and %q", code, stdout+stderr, c.code, c.want)
			}
		})
	}
}
