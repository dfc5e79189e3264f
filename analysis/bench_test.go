package analysis_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"taflab/analysis"
	"taflab/archive"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/player"
)

// BenchmarkReview reviews the first 150 plies of the human archive's first
// game that long with the shipped network at 400 playouts a position (on
// every core), with and without tree reuse. The target: under 60 s
// on 2 cores.
//
//	go test ./analysis -run '^$' -bench Review -benchtime 1x -count 3
func BenchmarkReview(b *testing.B) {
	file := filepath.Join("..", "networks", "copenhagen.safetensors")
	if _, err := os.Stat(file); err != nil {
		b.Skipf("the shipped network: %v", err)
	}
	a, _ := archive.Lookup(archive.Copenhagen)
	v := variants.MustLoad(a.Variant)
	games, err := datasets.ParseRecordGames(a.Name, a.Data(), v)
	if err != nil {
		b.Fatal(err)
	}
	var game analysis.Game
	for _, g := range games {
		if len(g.Moves) >= 150 {
			game = analysis.Game{Variant: v, Start: g.Positions[0], Moves: g.Moves[:150]}
			break
		}
	}
	if game.Moves == nil {
		b.Fatal("no game of 150 plies in the archive")
	}
	factory, _, err := player.NetworkEvaluators(file, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, reuse := range []bool{true, false} {
		name := "reuse"
		if !reuse {
			name = "no-reuse"
		}
		b.Run(name, func(b *testing.B) {
			e, err := factory()
			if err != nil {
				b.Fatal(err)
			}
			cfg := analysis.DefaultConfig()
			cfg.Search.TreeReuse = reuse
			playouts := 0
			for b.Loop() {
				rev, err := analysis.ReviewGame(context.Background(), &cfg, e, game, nil)
				if err != nil {
					b.Fatal(err)
				}
				playouts = 0
				for _, p := range rev.Plies {
					playouts += p.Playouts
				}
			}
			b.ReportMetric(float64(playouts), "playouts/review")
		})
	}
}
