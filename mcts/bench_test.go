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
