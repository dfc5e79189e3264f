package selfplay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/fileio"
)

// TestRunRemovesStaleTemps: the hidden temporary files of shards that a
// killed writer left (issue 23 item 8) go when self-play starts in the
// folder; a fresh one, the shards and other files stay.
func TestRunRemovesStaleTemps(t *testing.T) {
	cfg := configs.DefaultSelfPlay()
	cfg.Games, cfg.Workers, cfg.GamesPerWorker, cfg.Seed = 1, 1, 1, 3
	cfg.Search.Playouts, cfg.Search.CheapPlayouts = 8, 4
	cfg.Out = t.TempDir()
	old := time.Now().Add(-2 * fileio.StaleTempAge)
	files := map[string]bool{ // name: want it removed
		".x-1.positions.arrow.tmp-2718281828": true,
		".x-1.games.arrow.tmp-31415":          true,
		".x-2.games.arrow.tmp-42":             false, // fresh: a running writer's
		"notes.txt":                           false,
	}
	for name, stale := range files {
		path := filepath.Join(cfg.Out, name)
		if err := os.WriteFile(path, []byte("half a shard"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale || name == "notes.txt" {
			os.Chtimes(path, old, old)
		}
	}
	if _, err := Run(context.Background(), cfg, variants.MustLoad("copenhagen"), Options{WorkerName: "stale"}); err != nil {
		t.Fatal(err)
	}
	for name, remove := range files {
		_, err := os.Stat(filepath.Join(cfg.Out, name))
		if gone := err != nil; gone != remove {
			t.Errorf("%s: got removed %v, want %v", name, gone, remove)
		}
	}
	if shards, _ := filepath.Glob(filepath.Join(cfg.Out, "*"+datasets.GamesSuffix)); len(shards) != 1 {
		t.Errorf("got shards %v, want the one written", shards)
	}
}

// TestRunRefusesWorkers: a config's workers past configs.MaxWorkers (issue
// 23 item 8: -workers 100000 took 1.4 GB) are refused before any game.
func TestRunRefusesWorkers(t *testing.T) {
	cfg := configs.DefaultSelfPlay()
	cfg.Games, cfg.Workers, cfg.Out = 1, 100000, t.TempDir()
	_, err := Run(context.Background(), cfg, variants.MustLoad("copenhagen"), Options{})
	if want := "workers = 100000"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("to %d", configs.MaxWorkers)) {
		t.Errorf("got %v, want an error naming %q and the range", err, want)
	}
}
