package loop

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"taflab/configs"
	"taflab/internal/fileio"
)

// census is a loop stage as docs/DEVELOPING.md's recipe adds one: a method
// of generation that reads what the stages before it left in the
// generation's folder and writes its own file there.
func (g *generation) census(ctx context.Context) error {
	st, err := readSelfplayStats(g.dir)
	if err != nil {
		return err
	}
	g.logf("census of %d self-play games", st.Games)
	return fileio.WriteJSON(filepath.Join(g.dir, "census.json"), map[string]int{"games": st.Games})
}

// TestNewStage follows the recipe for a new loop stage: the census stage,
// added to steps after the gate, runs in every generation and is marked
// done; a run stopped in generation 2's census carries on and runs the
// stage only where it is not done.
func TestNewStage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tiny loop")
	}
	calls := map[int]int{}
	stopped := errors.New("stopped in generation 2's census")
	census := step{Stage: "census", Run: func(g *generation, ctx context.Context) error {
		calls[g.n]++
		if g.n == 2 && calls[2] == 1 {
			return stopped // the first attempt, as a kill would
		}
		return g.census(ctx)
	}}
	defer func(saved []step) { steps = saved }(steps)
	at := slices.IndexFunc(steps, func(s step) bool { return s.Stage == StageGate }) + 1
	steps = slices.Insert(slices.Clone(steps), at, census)

	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Baseline.Games, cfg.Baseline.Odds = 0, nil
	run := filepath.Join(t.TempDir(), "run")
	if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{}); !errors.Is(err, stopped) {
		t.Fatalf("first run: got %v, want the census's stop", err)
	}
	if !done(GenDir(run, 1), "census") || done(GenDir(run, 2), "census") {
		t.Fatalf("after the stop: census done in generation 1 %v, 2 %v; want 1 only", done(GenDir(run, 1), "census"), done(GenDir(run, 2), "census"))
	}
	if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{}); err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	if want := map[int]int{1: 1, 2: 2}; !maps.Equal(calls, want) {
		t.Errorf("census calls by generation: got %v, want %v (generation 1's once, generation 2's again on resume)", calls, want)
	}
	for g := 1; g <= cfg.Generations; g++ {
		data, err := os.ReadFile(filepath.Join(GenDir(run, g), "census.json"))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]int
		if err := json.Unmarshal(data, &got); err != nil || got["games"] != cfg.SelfPlay.Games {
			t.Errorf("generation %d: got census %s (%v), want %d games", g, data, err, cfg.SelfPlay.Games)
		}
		if !done(GenDir(run, g), "census") || !done(GenDir(run, g), StageGate) {
			t.Errorf("generation %d: got the census or the gate not marked done, want both", g)
		}
	}
}
