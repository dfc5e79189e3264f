package taflab

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"taflab/balance"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/loop"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
	"taflab/stats"
)

// TestStagesAsLibraries runs a balance study, a match and two generations
// of the loop through the library packages alone, as a program of the
// user's would: no command, no flags, values in and values out.
func TestStagesAsLibraries(t *testing.T) {
	ctx := context.Background()
	v := variants.MustLoad("copenhagen")

	t.Run("balance", func(t *testing.T) {
		cfg := balance.DefaultConfig()
		cfg.Variants = []*rules.Variant{v, variants.MustLoad("fetlar")}
		cfg.Players = []player.Spec{player.BuiltinSpec(4)}
		cfg.MaxGames, cfg.MinGames, cfg.Width, cfg.Workers, cfg.Seed = 6, 0, 0, 2, 3
		rep, err := balance.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) != 2 {
			t.Fatalf("got %d runs, want one per rule set, 2", len(rep.Runs))
		}
		for _, r := range rep.Runs {
			if got := r.Attackers.Wins + r.Defenders.Wins + r.Draws.Wins; got != r.Games || r.Games != 6 {
				t.Errorf("%s: got %d wins and draws in %d games, want 6 and 6", r.Variant, got, r.Games)
			}
		}
	})

	t.Run("match", func(t *testing.T) {
		var loader player.Loader
		a, err := loader.Load(player.BuiltinSpec(32))
		if err != nil {
			t.Fatal(err)
		}
		b, err := loader.Load(player.BuiltinSpec(2))
		if err != nil {
			t.Fatal(err)
		}
		cfg := match.Config{Variant: v, A: a, B: b, Search: mcts.DefaultConfig(), MaxPairs: 3, Workers: 1, GamesPerWorker: 6,
			Openings: openings.Book(v, 3, 4, 5)}
		res, err := match.RunSPRT(ctx, cfg, stats.SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Pairs) != 3 || res.Report.Pairs != 3 {
			t.Fatalf("got %d pairs (report %d), want 3", len(res.Pairs), res.Report.Pairs)
		}
		file := match.NewFile(v, a, b, stats.SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05}, res)
		dir := t.TempDir()
		if err := match.WriteFiles(dir, file); err != nil {
			t.Fatal(err)
		}
		back, err := match.ReadFile(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Games) != 6 || back.A.Name != a.Name || back.Decision != file.Decision {
			t.Errorf("read back %d games, A %q, decision %q; want 6, %q, %q", len(back.Games), back.A.Name, back.Decision, a.Name, file.Decision)
		}
	})

	t.Run("two loop generations", func(t *testing.T) {
		text := configs.TinyLoopFile()
		cfg, err := configs.ParseLoop("tiny.toml", text)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Generations = 2
		run := filepath.Join(t.TempDir(), "run")
		var sum loop.RunSummary
		calls := 0
		onGeneration := func(s loop.RunSummary) { sum, calls = s, calls+1 }
		if err := loop.Run(ctx, run, cfg, text, loop.Options{OnGeneration: onGeneration}); err != nil {
			t.Fatal(err)
		}
		if calls != 2 {
			t.Errorf("got %d summaries, want one a generation, 2", calls)
		}
		if _, err := os.Stat(filepath.Join(loop.GenDir(run, 0), "train", "network.safetensors")); err != nil {
			t.Errorf("generation 0: %v; want a network trained on the embedded human archive", err)
		}
		gens, ratings := sum.Generations, sum.Ratings
		if len(gens) != 2 {
			t.Fatalf("got %d generations summarized, want 2", len(gens))
		}
		for _, g := range gens {
			if g.Games != cfg.SelfPlay.Games || g.Gate == "" || g.BaselineGames != cfg.Baseline.Games || g.Loss <= 0 {
				t.Errorf("generation %d: got %d self-play games, gate %q, %d baseline games, loss %v; want %d, a gate decision, %d, a loss",
					g.Generation, g.Games, g.Gate, g.BaselineGames, g.Loss, cfg.SelfPlay.Games, cfg.Baseline.Games)
			}
		}
		if ratings == nil {
			t.Errorf("got no ratings over the run's games, want the generations rated")
		}
	})
}
