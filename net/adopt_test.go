package net

import (
	"math"
	"testing"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/rules"
)

// TestAdoptPlanes: after AdoptPlanes(from, to), positions labelled to give
// what they gave labelled from before, and labelled from still give the
// same, for every pair of shipped rule sets; before it, to's planes give
// something else (so the test can fail).
func TestAdoptPlanes(t *testing.T) {
	names := variants.Names()
	const positions = 4
	evaluate := func(t *testing.T, n *Network, v *rules.Variant) *mcts.Batch {
		t.Helper()
		in := n.NewInference(1, "adopt")
		in.PlanesOf = nil // the network's own: none
		batch := planesBatch(t, v, positions)
		if err := in.Evaluate(batch); err != nil {
			t.Fatal(err)
		}
		return batch
	}
	close := func(a, b *mcts.Batch) (float64, bool) {
		worst := 0.0
		for i := range a.Values {
			worst = max(worst, math.Abs(float64(a.Values[i]-b.Values[i])))
			for j := range a.Priors[i] {
				worst = max(worst, math.Abs(float64(a.Priors[i][j]-b.Priors[i][j])))
			}
		}
		return worst, worst < 1e-4
	}
	for _, fromName := range names {
		for _, toName := range names {
			if fromName == toName {
				continue
			}
			t.Run(fromName+" to "+toName, func(t *testing.T) {
				from, to := variants.MustLoad(fromName), variants.MustLoad(toName)
				n, err := New(Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 5)
				if err != nil {
					t.Fatal(err)
				}
				wantFrom := evaluate(t, n, from)
				before := evaluate(t, n, to)
				adopted := n.Clone()
				if err := adopted.AdoptPlanes(from, to); err != nil {
					t.Fatal(err)
				}
				if adopted.PlanesOf() != nil {
					t.Errorf("got PlanesOf %v, want nil", adopted.PlanesOf().Name())
				}
				if d, ok := close(evaluate(t, adopted, to), wantFrom); !ok {
					t.Errorf("labelled %s after adopting: differs by %g from %s before, want within 1e-4", toName, d, fromName)
				}
				if d, ok := close(evaluate(t, adopted, from), wantFrom); !ok {
					t.Errorf("labelled %s after adopting: differs by %g from before, want within 1e-4", fromName, d)
				}
				if d, ok := close(before, wantFrom); ok {
					t.Errorf("labelled %s before adopting: within %g of %s, want the planes to matter", toName, d, fromName)
				}
			})
		}
	}
}
