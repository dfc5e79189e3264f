package mcts

import (
	"fmt"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// BenchmarkPlayouts measures the tree's own work per playout (select,
// expand, backup, the leaf proofs) with a free evaluator: 800-playout
// searches from the start position, where the king is walled in, and from
// a middle game of self-play, where he is near the edge and the escape
// solver works at many leaves; and both with implicit minimax backups
// (Config.TacticalWeight 0.3), whose scan makes every move of every leaf;
// one core.
func BenchmarkPlayouts(b *testing.B) {
	const kingFree = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/2ad2d3a/6d3a/3k7/1a3aad1a1/a7a2/2a4a3 a"
	b.Run("start", func(b *testing.B) { benchmarkPlayouts(b, "", maxEscapeDepth, 0) })
	for depth := 1; depth <= maxEscapeDepth; depth++ {
		b.Run(fmt.Sprintf("king-free/escape-%d", depth), func(b *testing.B) {
			benchmarkPlayouts(b, kingFree, depth, 0)
		})
	}
	b.Run("start/tactical-0.3", func(b *testing.B) { benchmarkPlayouts(b, "", maxEscapeDepth, 0.3) })
	b.Run(fmt.Sprintf("king-free/escape-%d/tactical-0.3", maxEscapeDepth), func(b *testing.B) {
		benchmarkPlayouts(b, kingFree, maxEscapeDepth, 0.3)
	})
}

func benchmarkPlayouts(b *testing.B, position string, escapeDepth int, tactical float64) {
	v := variants.MustLoad("copenhagen")
	cfg := DefaultConfig()
	cfg.EscapeDepth, cfg.TacticalWeight = escapeDepth, tactical
	r := NewRunner(Uniform{})
	playouts := 0
	g := rules.NewGame(v)
	if position != "" {
		g = mustGame(b, "copenhagen", position)
	}
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

// BenchmarkEvaluate measures one evaluation of a mid-game position by each
// built-in evaluator.
func BenchmarkEvaluate(b *testing.B) {
	v := variants.MustLoad("copenhagen")
	g := rules.NewGame(v)
	for _, m := range []string{"h1-h3", "f8-i8", "f10-i10", "d6-d3", "a4-b4", "e5-c5"} {
		mv, _, _ := rules.ParseMove(m)
		if err := g.Play(mv); err != nil {
			b.Fatal(err)
		}
	}
	moves := g.GenerateMoves(nil)
	batch := &Batch{
		Variants: []*rules.Variant{v}, Positions: []rules.Position{g.Position()},
		Moves: [][]rules.Move{moves}, Priors: [][]float32{make([]float32, len(moves))}, Values: []float32{0},
	}
	for _, e := range []Evaluator{NewHeuristic(), NewPlayouts(1, 200, 1)} {
		b.Run(e.ID(), func(b *testing.B) {
			for b.Loop() {
				if err := e.Evaluate(batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
