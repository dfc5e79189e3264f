package loop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs"
	"taflab/configs/variants"
)

// TestReadMode: a new run has no mode; a run records the mode it starts
// in (ModeFile), whatever its loop.toml says, and keeps it; a run set up
// before there was a ModeFile has its loop.toml's.
func TestReadMode(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	if m, where, err := ReadMode(run); err != nil || where != "" || m.External {
		t.Errorf("a new run: got %+v from %q, %v; want no mode", m, where, err)
	}
	ext := cfg
	ext.SelfPlay.External = true
	if err := setUp(run, ext, configs.TinyLoopFile(), variants.MustLoad(cfg.Variant)); err != nil {
		t.Fatal(err)
	}
	if m, where, err := ReadMode(run); err != nil || where != filepath.Join(run, ModeFile) || !m.External {
		t.Errorf("a run started with external self-play: got %+v from %q, %v; want external from %s", m, where, err, ModeFile)
	}
	if err := setUp(run, cfg, configs.TinyLoopFile(), variants.MustLoad(cfg.Variant)); err != nil {
		t.Fatal(err)
	}
	if m, _, err := ReadMode(run); err != nil || !m.External {
		t.Errorf("set up again: got %+v, %v; want the mode kept", m, err)
	}

	old := filepath.Join(t.TempDir(), "old")
	text := strings.Replace(string(configs.TinyLoopFile()), "external = false", "external = true", 1)
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, ConfigFile), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, where, err := ReadMode(old); err != nil || where != filepath.Join(old, ConfigFile) || !m.External {
		t.Errorf("a run of loop.toml alone: got %+v from %q, %v; want external from its loop.toml", m, where, err)
	}
}

// TestRunKeepsItsMode: a run started in one mode records it in its
// loop.toml, and carrying it on in the other is refused, naming the key,
// before any work; so is a run whose generations' self-play says so (a run
// set up before loop.toml recorded the mode).
func TestRunKeepsItsMode(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	ext := cfg
	ext.SelfPlay.External = true
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // set up, then stop at the first stage
	if err := Run(ctx, run, ext, configs.TinyLoopFile(), Options{}); err == nil {
		t.Fatal("got no error from a stopped run, want the context's")
	}
	if own, _, err := ReadMode(run); err != nil || !own.External {
		t.Fatalf("the run's mode: got external %v (%v), want true", own.External, err)
	}
	err = Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{})
	if err == nil || !strings.Contains(err.Error(), "selfplay.external = true") || !strings.Contains(err.Error(), ConfigFile) || !errors.Is(err, ErrRunKept) {
		t.Errorf("in-process on an external run: got %v, want a refusal (ErrRunKept) naming selfplay.external and loop.toml", err)
	}

	// A generation's selfplay.json of the other mode.
	old := filepath.Join(t.TempDir(), "old")
	if err := os.MkdirAll(GenDir(old, 1), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(GenDir(old, 1), "selfplay.json"), []byte(`{"games": 3, "external": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkMode(old, cfg); err == nil || !strings.Contains(err.Error(), "gen-001") {
		t.Errorf("in-process on a run whose generation 1 was external: got %v, want a refusal naming gen-001", err)
	}
	if err := checkMode(old, ext); err != nil {
		t.Errorf("external on it: got %v, want none", err)
	}
}

// TestRunKeepsItsConfig: a run carried on with another config text than
// its loop.toml is refused before any work, naming both, and its loop.toml
// stays; the same text carries it on.
func TestRunKeepsItsConfig(t *testing.T) {
	text := configs.TinyLoopFile()
	cfg, err := configs.ParseLoop("tiny.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	stopped, stop := context.WithCancel(context.Background())
	stop() // set up, then stop at the first stage
	if err := Run(stopped, run, cfg, text, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("setting up: got %v, want it stopped", err)
	}
	other := append([]byte("# another\n"), text...)
	err = Run(stopped, run, cfg, other, Options{ConfigName: "mine.toml"})
	want := "loop: mine.toml differs from the run's own " + filepath.Join(run, ConfigFile) + ": a run keeps its config"
	if !errors.Is(err, ErrRunKept) || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("another config: got %v, want an ErrRunKept %q", err, want)
	}
	if own, err := os.ReadFile(filepath.Join(run, ConfigFile)); err != nil || string(own) != string(text) {
		t.Errorf("the run's %s: got %q, %v; want the text it started with", ConfigFile, own, err)
	}
	if err := Run(stopped, run, cfg, text, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("the same config: got %v, want the run carried on (and stopped)", err)
	}
}
