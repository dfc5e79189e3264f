package mcts

import (
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// BenchmarkPlayouts measures the tree's own work per playout (select,
// expand, backup) with a free evaluator: 800-playout searches from the start
// position, one core.
func BenchmarkPlayouts(b *testing.B) {
	v := variants.MustLoad("copenhagen")
	cfg := DefaultConfig()
	r := NewRunner(Uniform{})
	playouts := 0
	g := rules.NewGame(v)
	s := NewSearch(&cfg, g, 1)
	for b.Loop() {
		s.Reset(g, 1)
		if err := r.Search(s, 800); err != nil {
			b.Fatal(err)
		}
		playouts += s.Playouts()
	}
	b.ReportMetric(float64(playouts)/b.Elapsed().Seconds(), "playouts/s")
}
