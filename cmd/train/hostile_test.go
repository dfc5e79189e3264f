package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/datasets"
	"taflab/internal/fileio"
	"taflab/training"
)

// TestIssue36TOMLAndFIFO: issue 36's findings 1 and 2 for train, as they
// were run: a loop config of inline tables 8,000 deep (32 KB; 2,635 MB
// before) is refused before it is decoded, exit 2, naming the line and the
// bound; a named pipe called *.positions.arrow in train -data (training
// hung on it, deaf to SIGTERM) is refused at once, exit 1, naming it.
func TestIssue36TOMLAndFIFO(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep.toml")
	if err := os.WriteFile(deep, []byte("x = "+strings.Repeat("{a=", 8000)+"1"+strings.Repeat("}", 8000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(data, datasets.ShardName(time.Now(), "h", 1)+datasets.PositionsSuffix)
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"finding 1: a loop config 8,000 inline tables deep", []string{"loop", "-config", deep, "-run", filepath.Join(dir, "run")}, 2,
			"configs: " + deep + ": line 1: a value nested 17 deep, past the most a TOML file may nest (16 tables, arrays and inline tables)"},
		{"finding 2: a named pipe as a shard in -data", []string{"-data", data, "-out", filepath.Join(dir, "out"), "-steps", "1"}, 1,
			fifo + ": a named pipe (FIFO), not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := runTrainCmd(t, c.args...)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("got exit %d and %q, want %d and %q", code, out, c.code, c.want)
			}
		})
	}
}

const (
	lockChildEnv = "TAFLAB_TRAIN_LOCK_CHILD" // the run folder the child holds
	lockWhatEnv  = "TAFLAB_TRAIN_LOCK_WHAT"  // and what it says holds it ("training" unless set)
)

// TestTrainingFolderHolder is TestIssue36Training's other process: it
// holds a training run folder's lock as a train run does (training.Run
// takes it first), says "held", and keeps it until its standard input
// closes.
func TestTrainingFolderHolder(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("the other process of TestIssue36Training; it runs only as that test's child")
	}
	what := os.Getenv(lockWhatEnv)
	if what == "" {
		what = "training"
	}
	l, err := fileio.LockDir(dir, what)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("held")
	bufio.NewReader(os.Stdin).ReadString('\n')
	l.Unlock()
}

// holdFolder starts a process that holds dir as a training run does (or
// what says) and returns it and the function that ends it.
func holdFolder(t *testing.T, dir string, what ...string) (pid int, release func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTrainingFolderHolder$", "-test.v=false")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	if len(what) > 0 {
		cmd.Env = append(cmd.Env, lockWhatEnv+"="+what[0])
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "held\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the holder said %q, want held", line)
	}
	return cmd.Process.Pid, func() { stdin.Close(); cmd.Wait() }
}

// TestIssue36Training: issue 36's findings 5, 6 and 9 for train, as they
// were run. Finding 5: a second train -resume on a run folder another
// process trains in (both once exited 0, and metrics.csv lost the steps of
// one) is refused, exit 1, naming the other process; once it is gone the
// resume runs and the metrics hold every step. Finding 6: a run resumed
// from another working folder (its checkpoint once kept its shards' paths
// relative to where the run began: "datasets: open sp/...: no such file")
// carries on. Finding 9: a resume whose config asks for another network
// (once silently kept the checkpoint's) is refused, exit 2, naming the
// keys; -steps 10 on a step-20 checkpoint (once "loss 0.0000", exit 0) is
// refused, exit 2; -steps 20 on it says there is nothing to train, exit 0.
func TestIssue36Training(t *testing.T) {
	base := t.TempDir()
	if err := os.Symlink(tinyData(t), filepath.Join(base, "sp")); err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig(t, 4)
	other := filepath.Join(t.TempDir(), "other.toml")
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(strings.Replace(string(text), "channels = 8", "channels = 16", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(base)
	// The run begins here, with paths relative to this folder.
	if code, out := runTrainCmd(t, "-data", "sp", "-out", "run", "-config", cfg, "-steps", "8"); code != 0 {
		t.Fatalf("the first run: got exit %d, want 0\n%s", code, out)
	}
	elsewhere := t.TempDir()
	t.Chdir(elsewhere)
	run := filepath.Join(base, "run")
	data := filepath.Join(base, "sp")

	pid, release := holdFolder(t, run)
	code, out := runTrainCmd(t, "-data", data, "-out", run, "-config", cfg, "-steps", "12", "-resume")
	release()
	want := fmt.Sprintf("train: training: run folder %s: in use by another process: training, process %d on ", run, pid)
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("finding 5, a second process on the folder: got exit %d and %q, want 1 and %q", code, out, want)
	}

	for _, c := range []struct {
		name   string
		args   []string
		code   int
		want   string
		metric int // the last step metrics.csv holds after it
	}{
		{"finding 6: a resume from another working folder", []string{"-data", data, "-out", run, "-config", cfg, "-steps", "12", "-resume"}, 0,
			"train: steps 8 to 12 on ", 12},
		{"finding 5: the resume after the other process", []string{"-data", data, "-out", run, "-config", cfg, "-steps", "16", "-resume"}, 0,
			"train: steps 12 to 16 on ", 16},
		{"finding 9: a resume with another network in its config", []string{"-data", data, "-out", run, "-config", other, "-steps", "20", "-resume"}, 2,
			"cannot carry the run on: the run trains another network than the config's [network]: channels = 8 (the config asks for 16): set [network] to the run's, or start a new run", 16},
		{"finding 9: fewer steps than the run has done", []string{"-data", data, "-out", run, "-config", cfg, "-steps", "10", "-resume"}, 2,
			"cannot carry the run on: the run is at step 16, and the config asks for 10 steps in all: give more (-steps) to train on", 16},
		{"finding 9: as many steps as the run has done", []string{"-data", data, "-out", run, "-config", cfg, "-steps", "16", "-resume"}, 0,
			"train: the run is at step 16 already, the 16 steps asked for: nothing to train; network " + filepath.Join(run, "network.safetensors"), 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := runTrainCmd(t, c.args...)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Fatalf("got exit %d and %q, want %d and %q", code, out, c.code, c.want)
			}
			if strings.Contains(out, "loss 0.0000") {
				t.Errorf("got %q, want no losses of steps not made", out)
			}
			steps, err := training.ReadMetrics(filepath.Join(run, training.MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(steps) != c.metric || steps[len(steps)-1].Step != c.metric {
				t.Errorf("metrics.csv: got %d lines to step %d, want every step to %d", len(steps), steps[len(steps)-1].Step, c.metric)
			}
		})
	}
}

// TestIssue36Loop: issue 36's finding 4, as it was run: a second train
// loop on a run folder another loop runs in (one once exited 0, the other
// 1, the data folder held two generation-1 shards and the summary counted
// 16 self-play games where the config asks for 8) is refused, exit 1,
// naming the other process, and writes nothing; once that one is gone the
// run goes on, each generation with the games its config asks for.
func TestIssue36Loop(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	pid, release := holdFolder(t, run, "train loop")
	code, out := runTrainCmd(t, "loop", "-config", filepath.Join("..", "..", "configs", "tiny.toml"), "-run", run)
	release()
	want := fmt.Sprintf("train loop: loop: run folder %s: in use by another process: train loop, process %d on ", run, pid)
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("a second loop on the folder: got exit %d and %q, want 1 and %q", code, out, want)
	}
	if entries, _ := os.ReadDir(run); len(entries) != 1 || entries[0].Name() != fileio.LockFile {
		t.Errorf("a refused loop: got %d entries in the run folder, want only the lock file", len(entries))
	}
	if code, out := runTrainCmd(t, "loop", "-config", filepath.Join("..", "..", "configs", "tiny.toml"), "-run", run); code != 0 {
		t.Fatalf("the loop once the other is gone: got exit %d, want 0\n%s", code, out)
	}
	sum, err := os.ReadFile(filepath.Join(run, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gens struct {
		Generations []struct {
			Games int `json:"selfplay_games"`
		} `json:"generations"`
	}
	if err := json.Unmarshal(sum, &gens); err != nil || len(gens.Generations) != 2 {
		t.Fatalf("summary.json: %v, %d generations; want 2", err, len(gens.Generations))
	}
	for i, g := range gens.Generations {
		if g.Games != 8 {
			t.Errorf("generation %d: got %d self-play games, want the 8 the config asks for", i+1, g.Games)
		}
	}
}
