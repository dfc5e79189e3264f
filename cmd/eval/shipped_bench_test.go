package main

import (
	"os"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/net"
	"taflab/openings"
	"taflab/rules"
)

// BenchmarkShippedMove measures what one move of the shipped network costs
// in match play, on one core: a search of 1,000 playouts (the playouts
// scripts/opentafl-ladder.sh gives it at the top) with the match player's settings
// (mcts.DefaultConfig, one inference thread), from every position of the
// copenhagen opening suite in turn. It reports the mean and the slowest
// search over the positions; run it with -cpu 1 (TAFLAB_BENCH_NET=FILE
// measures another network):
//
//	go test ./cmd/eval -run '^$' -bench ShippedMove -cpu 1 -benchtime 2x
func BenchmarkShippedMove(b *testing.B) {
	const playouts = 1000
	file := shippedNetwork
	if f := os.Getenv("TAFLAB_BENCH_NET"); f != "" {
		file = f
	}
	n, _, err := net.Load(file)
	if err != nil {
		b.Fatal(err)
	}
	v := variants.MustLoad("copenhagen")
	suite, err := openings.LoadSuite("", v)
	if err != nil {
		b.Fatal(err)
	}
	cfg := mcts.DefaultConfig()
	runner := mcts.NewRunner(n.NewInference(1, "shipped"))
	var slowest, total time.Duration
	searches := 0
	for b.Loop() {
		for _, e := range suite {
			g, err := rules.NewGameFrom(v, e.Position)
			if err != nil {
				b.Fatal(err)
			}
			s := mcts.NewSearch(&cfg, g, 1)
			start := time.Now()
			if err := runner.Search(s, playouts); err != nil {
				b.Fatal(err)
			}
			took := time.Since(start)
			total += took
			slowest = max(slowest, took)
			searches++
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(searches), "ms/move")
	b.ReportMetric(float64(slowest.Milliseconds()), "slowest-ms/move")
	b.ReportMetric(0, "ns/op")
}
