package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/datasets"
	"taflab/loop"
)

// loopFiles checks a finished tiny run's folder: the files the README
// promises, per generation and for the run.
func loopFiles(t *testing.T, run string, generations int) {
	t.Helper()
	want := []string{loop.ConfigFile, loop.VariantFile, loop.ManifestFile, "summary.md", "summary.json", "summary.png"}
	for g := 1; g <= generations; g++ {
		gen := filepath.Base(loop.GenDir(run, g))
		for _, f := range []string{"selfplay.json", "selfplay.done", "train/checkpoint.safetensors", "train/network.safetensors",
			"train/metrics.csv", "train/loss.png", "train.done", "gate/match.json", "gate/games.csv", "gate/match.md", "gate.done",
			"baseline/match.json", "baseline.done"} {
			want = append(want, filepath.Join(gen, f))
		}
	}
	for _, f := range want {
		if info, err := os.Stat(filepath.Join(run, f)); err != nil || info.IsDir() {
			t.Errorf("%s: got %v, want the file", f, err)
		}
	}
	summary, err := os.ReadFile(filepath.Join(run, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The first table has a line per generation; the second, by kind of
	// game, a line per kind and generation.
	var tables []int
	inTable := false
	for _, line := range strings.Split(string(summary), "\n") {
		if strings.HasPrefix(line, "| ") {
			if !inTable {
				tables = append(tables, 0)
			}
			tables[len(tables)-1]++
		}
		inTable = strings.HasPrefix(line, "| ")
	}
	// The third, by worker host: this one host, the loop's own self-play.
	if len(tables) != 3 || tables[0] != generations+2 || tables[1] < generations+2 || tables[2] != 3 {
		t.Errorf("summary.md: got tables of %v lines, want a header, a rule and %d generations in each of two, and one host in the third\n%s", tables, generations, summary)
	}
}

// gamesPerGeneration counts the self-play games of the dataset by
// generation, and fails on a seed played twice.
func gamesPerGeneration(t *testing.T, run string) map[string]int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(run, loop.DataDir, "*"+datasets.GamesSuffix))
	counts, seen := map[string]int{}, map[uint64]bool{}
	for _, f := range files {
		rows, _, err := datasets.ReadGamesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		gen := "?"
		if i := strings.Index(filepath.Base(f), "-gen-"); i >= 0 {
			gen = filepath.Base(f)[i+1 : i+8] // "gen-001"
		}
		for _, r := range rows {
			if seen[r.Seed] {
				t.Errorf("game seed %d played twice", r.Seed)
			}
			seen[r.Seed] = true
			counts[gen]++
		}
	}
	return counts
}

// TestLoopTinyResumes runs the tiny loop (configs/tiny.toml) one
// generation, then carries the same run on to two: the first generation is
// not played again and the second completes.
func TestLoopTinyResumes(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	if code, out := runTrainCmd(t, "loop", "-config", "../../configs/tiny.toml", "-run", run, "-generations", "1"); code != 0 {
		t.Fatalf("got exit %d, want 0\n%s", code, out)
	}
	loopFiles(t, run, 1)
	if code, out := runTrainCmd(t, "loop", "-run", run); code != 0 {
		t.Fatalf("resume: got exit %d, want 0\n%s", code, out)
	} else if strings.Contains(out, "generation 1:") {
		t.Errorf("resume played generation 1 again:\n%s", out)
	}
	loopFiles(t, run, 2)
	if got := gamesPerGeneration(t, run); got["gen-001"] != 8 || got["gen-002"] != 8 || len(got) != 2 {
		t.Errorf("got games by generation %v, want 8 in gen-001 and gen-002", got)
	}
	if code, out := runTrainCmd(t, "loop", "-run", run, "-config", "../../configs/loop.toml"); code != 2 || !strings.Contains(out, "differs") {
		t.Errorf("another config on an existing run: got exit %d, want 2 and a refusal\n%s", code, out)
	}
	// The run's mode is in its loop.toml: -external cannot switch it.
	if code, out := runTrainCmd(t, "loop", "-run", run, "-external"); code != 2 || !strings.Contains(out, "selfplay.external = false") {
		t.Errorf("-external on an in-process run: got exit %d, want 2 and a refusal naming selfplay.external\n%s", code, out)
	}
}

// TestLoopKilled kills the loop (SIGKILL) in the middle of a generation and
// runs it again: it finishes, every self-play game of the run is played
// once, and each generation has its games.
func TestLoopKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin := buildTrain(t)
	run := filepath.Join(t.TempDir(), "run")
	args := []string{"loop", "-config", "../../configs/tiny.toml", "-run", run}
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(loop.GenDir(run, 1), "train", "checkpoint.safetensors")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no checkpoint after 60 s\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	again := exec.Command(bin, args...)
	if b, err := again.CombinedOutput(); err != nil {
		t.Fatalf("after SIGKILL: %v\n%s", err, b)
	}
	loopFiles(t, run, 2)
	if got := gamesPerGeneration(t, run); got["gen-001"] != 8 || got["gen-002"] != 8 || len(got) != 2 {
		t.Errorf("got games by generation %v, want 8 in gen-001 and gen-002", got)
	}
}
