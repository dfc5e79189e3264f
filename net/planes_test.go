package net

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/rules"
)

// planesBatch is a batch of positions a few random moves into copenhagen,
// every one labelled with rule set v.
func planesBatch(t *testing.T, v *rules.Variant, n int) *mcts.Batch {
	t.Helper()
	copenhagen := variants.MustLoad("copenhagen")
	rng := rand.New(rand.NewPCG(9, 9))
	g := rules.NewGame(copenhagen)
	batch := &mcts.Batch{}
	var moves []rules.Move
	for i := range n {
		g.Reset()
		for g.Ply() < 2*i+1 && !g.Outcome().Over() {
			moves = g.GenerateMoves(moves[:0])
			g.Make(moves[rng.IntN(len(moves))])
		}
		if g.Outcome().Over() {
			t.Fatalf("position %d: the game ended in its opening", i)
		}
		legal := g.GenerateMoves(nil)
		batch.Variants = append(batch.Variants, v)
		batch.Positions = append(batch.Positions, g.Position())
		batch.Moves = append(batch.Moves, legal)
		batch.Priors = append(batch.Priors, make([]float32, len(legal)))
		batch.Values = append(batch.Values, 0)
	}
	return batch
}

// TestPlanesOf: copenhagen positions evaluated with PlanesOf =
// copenhagen-classic give exactly what the same positions labelled
// copenhagen-classic give without it, with and without random symmetries;
// and, for a random network, not what copenhagen's own planes give.
func TestPlanesOf(t *testing.T) {
	n, err := New(Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 3)
	if err != nil {
		t.Fatal(err)
	}
	copenhagen, classic := variants.MustLoad("copenhagen"), variants.MustLoad("copenhagen-classic")
	const positions = 5
	evaluate := func(t *testing.T, batch *mcts.Batch, planesOf *rules.Variant, symmetry bool) *mcts.Batch {
		t.Helper()
		in := n.NewInference(1, "planes")
		in.RandomSymmetry = symmetry
		in.Seed(17)
		in.PlanesOf = planesOf
		if err := in.Evaluate(batch); err != nil {
			t.Fatalf("got error %v, want none", err)
		}
		return batch
	}
	for _, symmetry := range []bool{false, true} {
		name := "identity"
		if symmetry {
			name = "random symmetries"
		}
		t.Run(name, func(t *testing.T) {
			borrowed := evaluate(t, planesBatch(t, copenhagen, positions), classic, symmetry)
			labelled := evaluate(t, planesBatch(t, classic, positions), nil, symmetry)
			own := evaluate(t, planesBatch(t, copenhagen, positions), nil, symmetry)
			// PlanesOf set to the positions' own rule set changes nothing.
			ownAgain := evaluate(t, planesBatch(t, copenhagen, positions), copenhagen, symmetry)
			differs := false
			for i := range positions {
				if !slices.Equal(borrowed.Priors[i], labelled.Priors[i]) || borrowed.Values[i] != labelled.Values[i] {
					t.Errorf("position %d: got priors %v and value %v, want copenhagen-classic's %v and %v",
						i, borrowed.Priors[i][:3], borrowed.Values[i], labelled.Priors[i][:3], labelled.Values[i])
				}
				if !slices.Equal(ownAgain.Priors[i], own.Priors[i]) || ownAgain.Values[i] != own.Values[i] {
					t.Errorf("position %d: got value %v with its own rule set's planes borrowed, want %v", i, ownAgain.Values[i], own.Values[i])
				}
				if !slices.Equal(borrowed.Priors[i], own.Priors[i]) || borrowed.Values[i] != own.Values[i] {
					differs = true
				}
			}
			if !differs {
				t.Errorf("got the same priors and values with copenhagen-classic's planes as with copenhagen's, want them to differ")
			}
		})
	}
	t.Run("planes of another board size", func(t *testing.T) {
		data, err := variants.File("copenhagen-classic")
		if err != nil {
			t.Fatal(err)
		}
		small, err := variants.Parse("small.toml", []byte(strings.NewReplacer(`name = "copenhagen-classic"`, `name = "small"`, "size = 11", "size = 7",
			"3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a", "7/7/7/1d1k3/7/7/1ad4 a").Replace(string(data))))
		if err != nil {
			t.Fatal(err)
		}
		in := n.NewInference(1, "planes")
		in.PlanesOf = small
		if err := in.Evaluate(planesBatch(t, copenhagen, 1)); err == nil || !strings.Contains(err.Error(), "11x11") {
			t.Errorf("got error %v, want one saying the network plays 11x11 boards", err)
		}
	})
}

// TestNetworkPlanesOf: a network's own rule set (SetPlanesOf) survives Save
// and Load and Clone, and its inferences show it by default: copenhagen
// positions then evaluate as with PlanesOf = copenhagen-classic set by
// hand. A file whose planes_of is not a rule set, or one of another board
// size, is refused with the key named.
func TestNetworkPlanesOf(t *testing.T) {
	copenhagen, classic := variants.MustLoad("copenhagen"), variants.MustLoad("copenhagen-classic")
	n, err := New(Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 3)
	if err != nil {
		t.Fatal(err)
	}
	n.SetPlanesOf(classic)
	path := filepath.Join(t.TempDir(), "n.safetensors")
	if err := n.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	loaded, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*Network{"loaded": loaded, "cloned": loaded.Clone()} {
		t.Run(name, func(t *testing.T) {
			if got := m.PlanesOf(); got == nil || got.Definition() != classic.Definition() {
				t.Fatalf("got PlanesOf %v, want copenhagen-classic", got)
			}
			byDefault := m.NewInference(1, "own")
			byHand := m.NewInference(1, "hand")
			byHand.PlanesOf = classic
			own := m.NewInference(1, "played")
			own.PlanesOf = copenhagen
			a, b, c := planesBatch(t, copenhagen, 3), planesBatch(t, copenhagen, 3), planesBatch(t, copenhagen, 3)
			for _, e := range []struct {
				in *Inference
				b  *mcts.Batch
			}{{byDefault, a}, {byHand, b}, {own, c}} {
				if err := e.in.Evaluate(e.b); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(a.Values, b.Values) || slices.Equal(a.Values, c.Values) {
				t.Errorf("got values %v by default, want copenhagen-classic's planes' %v, not copenhagen's %v", a.Values, b.Values, c.Values)
			}
		})
	}

	ts, meta, err := ReadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	small := variants.MustLoad("copenhagen").Definition()
	small.Name, small.Size, small.Start = "small", 7, "3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a"
	smallJSON, _ := json.Marshal(small)
	// Issue 36: a shipped name with other rules was taken.
	changed := copenhagen.Definition()
	changed.EdgeFort = !changed.EdgeFort
	changedJSON, _ := json.Marshal(changed)
	for _, c := range []struct{ bad, want string }{
		{`{"Name":`, "not the JSON of a rule set"},
		{`{"Colour":"red"}`, "not the JSON of a rule set"},
		{string(smallJSON), "rule set small is 7x7; the network plays 11x11"},
		{string(changedJSON), `rule set "copenhagen" is a shipped rule set's name, but the rules differ from it in edge_fort: a network file names a shipped rule set only with its rules`},
	} {
		t.Run(c.bad, func(t *testing.T) {
			meta[MetaPlanesOf] = c.bad
			file := filepath.Join(t.TempDir(), "bad.safetensors")
			if err := WriteSafetensors(file, ts, meta); err != nil {
				t.Fatal(err)
			}
			if _, _, err := Load(file); err == nil || !strings.Contains(err.Error(), MetaPlanesOf+": "+c.want) {
				t.Errorf("got %v, want an error naming %s: %s", err, MetaPlanesOf, c.want)
			}
		})
	}
}
