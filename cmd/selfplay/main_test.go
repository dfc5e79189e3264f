package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/configs"
	"taflab/datasets"
	"taflab/loop"
)

// gamesBySeed reads every games file of dir: each game's moves by its seed.
func gamesBySeed(t *testing.T, dir string) map[uint64]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"+datasets.GamesSuffix))
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]string{}
	for _, f := range files {
		rows, _, err := datasets.ReadGamesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out[r.Seed] = strings.Join(r.Moves, " ")
		}
	}
	return out
}

func runSelfplay(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRunWritesAndAppends(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-out", dir, "-games", "6", "-playouts", "32", "-seed", "3"}
	if code, out, errs := runSelfplay(t, args...); code != 0 {
		t.Fatalf("got exit %d, want 0\n%s%s", code, out, errs)
	}
	w, err := datasets.OpenWindow(dir, 1<<30, 1)
	if err != nil {
		t.Fatal(err)
	}
	first := w.Len()
	if first == 0 {
		t.Fatalf("got %d positions, want some", first)
	}
	if got := len(gamesBySeed(t, dir)); got != 6 {
		t.Fatalf("got %d games, want 6", got)
	}
	// Again into the same folder, another seed: the dataset grows.
	args[len(args)-1] = "4"
	if code, out, errs := runSelfplay(t, args...); code != 0 {
		t.Fatalf("second run: got exit %d, want 0\n%s%s", code, out, errs)
	}
	if w, err = datasets.OpenWindow(dir, 1<<30, 1); err != nil {
		t.Fatal(err)
	}
	if w.Len() <= first {
		t.Errorf("got %d positions after the second run, want more than %d", w.Len(), first)
	}
	if got := len(gamesBySeed(t, dir)); got != 12 {
		t.Errorf("got %d games after the second run, want 12", got)
	}
}

func TestSameSeedSameGames(t *testing.T) {
	one, two, four := t.TempDir(), t.TempDir(), t.TempDir()
	for _, c := range []struct{ dir, workers string }{{one, "1"}, {two, "1"}, {four, "2"}} {
		if code, out, errs := runSelfplay(t, "-out", c.dir, "-games", "4", "-playouts", "24", "-seed", "9", "-workers", c.workers); code != 0 {
			t.Fatalf("got exit %d, want 0\n%s%s", code, out, errs)
		}
	}
	a, b, c := gamesBySeed(t, one), gamesBySeed(t, two), gamesBySeed(t, four)
	if len(a) != 4 {
		t.Fatalf("got %d games, want 4", len(a))
	}
	for seed, moves := range a {
		if b[seed] != moves || c[seed] != moves {
			t.Errorf("seed %d: the runs differ:\n%s\n%s\n%s", seed, moves, b[seed], c[seed])
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badConfig, []byte("gamez = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no games", []string{"-games", "0"}, "games = 0"},
		{"unknown variant", []string{"-variant", "chess"}, "chess"},
		{"bad config key", []string{"-config", badConfig}, `unknown key "gamez"`},
		{"missing config", []string{"-config", filepath.Join(dir, "none.toml")}, "none.toml"},
		{"unknown flag", []string{"-gamez", "3"}, "gamez"},
		{"argument", []string{"extra"}, "extra"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runSelfplay(t, append(c.args, "-out", filepath.Join(dir, "out"))...)
			if code != 2 || !strings.Contains(errs, c.want) {
				t.Errorf("got exit %d and %q, want 2 and a message naming %q", code, errs, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Errorf("bad input created the output folder: want nothing written")
	}
}

// TestKilled runs the command as a process, stops it in the middle of a run
// (SIGTERM: a clean stop; SIGKILL: no chance to clean up) and checks that
// the folder holds only whole files the reader accepts.
func TestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin := filepath.Join(t.TempDir(), "selfplay")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, "-out", dir, "-games", "100000", "-playouts", "64", "-workers", "2")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for a shard, then stop the run in its middle.
			deadline := time.Now().Add(60 * time.Second)
			for {
				shards, _ := filepath.Glob(filepath.Join(dir, "*"+datasets.PositionsSuffix))
				if len(shards) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no shard after 60 s\n%s", out.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			w, rerr := datasets.OpenWindow(dir, 1<<30, 1)
			if rerr != nil {
				t.Fatalf("after %v: the reader refuses the folder: %v\n%s", sig, rerr, out.String())
			}
			if w.Len() == 0 {
				t.Errorf("after %v: got no positions, want the finished games' ones", sig)
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if sig == syscall.SIGTERM {
				if code := exitCode(err); code != 130 {
					t.Errorf("got exit %d after SIGTERM, want 130\n%s", code, out.String())
				}
				for _, n := range names {
					if !strings.HasSuffix(n, ".arrow") {
						t.Errorf("after SIGTERM: got %q in the folder, want only whole .arrow files", n)
					}
				}
				// Every game of the games files is complete in the positions files.
				if got, want := len(gamesBySeed(t, dir)), len(slices.DeleteFunc(names, func(n string) bool { return !strings.HasSuffix(n, datasets.GamesSuffix) })); got == 0 || want == 0 {
					t.Errorf("after SIGTERM: got %d games in %d games files, want some", got, want)
				}
			}
		})
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// TestFollowFlags: -follow takes its settings from the run, so the flags
// of a run of one's own are refused with it, and the follower's flags
// without it.
func TestFollowFlags(t *testing.T) {
	run := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"games with follow", []string{"-follow", run, "-games", "5"}, "-games with -follow"},
		{"net with follow", []string{"-follow", run, "-net", "x.safetensors"}, "-net with -follow"},
		{"shard games without follow", []string{"-shard-games", "2"}, "go with -follow"},
		{"negative shard games", []string{"-follow", run, "-shard-games", "-1"}, "want 0 or more"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runSelfplay(t, c.args...)
			if code != 2 || !strings.Contains(errs, c.want) {
				t.Errorf("got exit %d, %q%q; want 2 and %q", code, out, errs, c.want)
			}
		})
	}
}

// TestFollowExitStatus: a follower stopped before the run is done exits
// 130 (a Kubernetes Job replaces it); one whose run needs no more
// self-play (the loop's selfplay-done.json) exits 0.
func TestFollowExitStatus(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.SelfPlay.External = true
	dir := filepath.Join(t.TempDir(), "run")
	stopped, stop := context.WithCancel(context.Background())
	stop()
	if err := loop.Run(stopped, dir, cfg, configs.TinyLoopFile(), loop.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("setting up the run: got %v, want it stopped", err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(stopped, []string{"-follow", dir}, &stdout, &stderr); code != 130 || !strings.Contains(stderr.String(), "stopped before the run") {
		t.Errorf("stopped: got exit %d, %q%q; want 130", code, stdout.String(), stderr.String())
	}
	if err := os.WriteFile(filepath.Join(dir, loop.DoneFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runSelfplay(t, "-follow", dir); code != 0 || !strings.Contains(out, "needs no more self-play") {
		t.Errorf("the run done: got exit %d, %q%q; want 0", code, out, errs)
	}
}
