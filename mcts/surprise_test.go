package mcts

import (
	"math"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// TestSurprise: the target's KL divergence from the prior at a hand-made
// root, the prior before noise where noise was mixed in.
func TestSurprise(t *testing.T) {
	target := []rules.MoveProb{{Prob: 0.9}, {Prob: 0.1}}
	cases := []struct {
		name  string
		raw   []float32 // the priors before noise; nil: no noise
		prior [2]float32
		want  float64
	}{
		// 0.9 ln(0.9/0.5) + 0.1 ln(0.1/0.5)
		{"no noise", nil, [2]float32{0.5, 0.5}, 0.9*math.Log(1.8) + 0.1*math.Log(0.2)},
		// The noised priors are 0.5 each; the raw ones 0.8 and 0.2.
		{"noised", []float32{0.8, 0.2}, [2]float32{0.5, 0.5}, 0.9*math.Log(0.9/0.8) + 0.1*math.Log(0.1/0.2)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			s := NewSearch(&cfg, rules.NewGame(variants.MustLoad("copenhagen")), 1)
			first := s.tree.alloc(2, s.limit())
			root := s.tree.at(0)
			root.firstChild, root.numChildren = first, 2
			*s.tree.at(first) = child(c.prior[0], 9, 0)
			*s.tree.at(first + 1) = child(c.prior[1], 1, 0)
			if c.raw != nil {
				s.rawPriors, s.noised = c.raw, true
			}
			if got := float64(s.Surprise(target)); math.Abs(got-c.want) > 1e-6 {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestSurpriseAfterNoise: a full search with root noise measures the
// surprise against the evaluator's own priors, not the noised ones.
func TestSurpriseAfterNoise(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	start := rules.NewGame(v).Position()
	eval := &tableEvaluator{root: start, rootPriors: []float32{0.5, 0.2, 0.1}}
	cfg := DefaultConfig()
	s := NewSearch(&cfg, rules.NewGame(v), 5)
	s.Start(200, true)
	r := NewRunner(eval)
	for !s.Done() {
		if err := r.Step([]*Search{s}); err != nil {
			t.Fatal(err)
		}
	}
	target := s.Policy(nil)
	children := s.tree.children(s.tree.at(0))
	rest := float64(0.2) / float64(len(children)-3)
	want := 0.0
	for i, mp := range target {
		p := rest
		if i < 3 {
			p = float64(eval.rootPriors[i])
		}
		if mp.Prob > 0 {
			want += float64(mp.Prob) * math.Log(float64(mp.Prob)/p)
		}
	}
	if got := float64(s.Surprise(target)); math.Abs(got-want) > 1e-4 {
		t.Errorf("got %v, want %v (against the priors before noise)", got, want)
	}
	noisedDiffers := false
	for i := range children {
		if math.Abs(float64(children[i].prior-s.rawPriors[i])) > 1e-6 {
			noisedDiffers = true
		}
	}
	if !noisedDiffers {
		t.Errorf("the root's priors have no noise in them: the test shows nothing")
	}
	if err := s.Advance(s.BestMove()); err != nil {
		t.Fatal(err)
	}
	if s.noised {
		t.Errorf("after Advance: the old root's raw priors still stand for the new root's")
	}
}
