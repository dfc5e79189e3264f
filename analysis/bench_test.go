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
	"taflab/net"
	"taflab/player"
)

// BenchmarkReview reviews the first 150 plies of the human archive's first
// game that long with the network trained on the archive
// (networks/copenhagen-classic.safetensors, the archive's rule set's) at 400 playouts a position (on
// every core, the review's default settings), with and without tree
// reuse, in float32 (what every CPU runs) and in the precision the
// commands choose on this CPU (auto: bf16 where it has AMX). The issue's
// target: under 60 s on 2 cores.
//
//	go test ./analysis -run '^$' -bench Review -benchtime 1x -count 3
func BenchmarkReview(b *testing.B) {
	file := filepath.Join("..", "networks", "copenhagen-classic.safetensors")
	if _, err := os.Stat(file); err != nil {
		b.Skipf("the network trained on the archive: %v", err)
	}
	a, _ := archive.Lookup(archive.Copenhagen)
	v := variants.MustLoad(a.Variant)
	games, err := datasets.ParseRecordGames(a.Name, a.Data(), v)
	if err != nil {
		b.Fatal(err)
	}
	var game *datasets.Game
	for _, g := range games {
		if len(g.Moves) >= 150 {
			game = &g
			game.Moves = g.Moves[:150]
			break
		}
	}
	if game == nil {
		b.Fatal("no game of 150 plies in the archive")
	}
	n, _, err := net.Load(file)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		precision net.Precision
		reuse     bool
	}{{net.Float32, true}, {net.Float32, false}, {net.Auto, true}, {net.Auto, false}} {
		name := "reuse"
		if !c.reuse {
			name = "no-reuse"
		}
		reuse := c.reuse
		b.Run(c.precision.Resolve().String()+"/"+name, func(b *testing.B) {
			e, err := player.PrecisionEvaluators(n, 0, nil, c.precision)()
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
