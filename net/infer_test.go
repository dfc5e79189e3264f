package net

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"taflab/mcts"
	"taflab/rules"
)

// TestInferenceThreadsBitIdentical: a batch cut into chunks that run on
// several threads gives bitwise the one-thread result, for every batch size
// from 1 to 65, with every kernel implementation of this CPU, on a network
// of odd widths. Under -race or -short, a subset of the sizes: the race
// detector makes the full sweep take minutes.
func TestInferenceThreadsBitIdentical(t *testing.T) {
	n, err := New(Config{Blocks: 2, Channels: 7, ValueChannels: 3, ValueHidden: 5}, 5)
	if err != nil {
		t.Fatal(err)
	}
	randomizeStats(n, 6)
	samples := randomSamples(t, 65, 51)
	x := make([]float32, len(samples)*Squares*InputPlanes)
	encodeAll(t, samples, x)
	for impl := range eachImplementation(t) {
		one := n.NewInference(1, "one")
		many := map[int]*Inference{2: n.NewInference(2, "two"), 3: n.NewInference(3, "three")}
		for b := 1; b <= 65; b++ {
			if (raceEnabled || testing.Short()) && b > 5 && b != 16 && b != 31 && b != 64 && b != 65 {
				continue
			}
			copy(one.Input(b), x[:b*Squares*InputPlanes])
			wantLogits, wantWDL := one.Forward(b)
			for threads, in := range many {
				copy(in.Input(b), x[:b*Squares*InputPlanes])
				logits, wdl := in.Forward(b)
				for i := range wantLogits {
					if math.Float32bits(logits[i]) != math.Float32bits(wantLogits[i]) {
						t.Fatalf("%s, batch %d, %d threads: logit %d: got %v, want %v (one thread)", impl, b, threads, i, logits[i], wantLogits[i])
					}
				}
				for i := range wantWDL {
					if math.Float32bits(wdl[i]) != math.Float32bits(wantWDL[i]) {
						t.Fatalf("%s, batch %d, %d threads: wdl %d: got %v, want %v (one thread)", impl, b, threads, i, wdl[i], wantWDL[i])
					}
				}
			}
		}
	}
}

// symmetricBatch returns a batch of every sample in each of the 8 board
// symmetries.
func symmetricBatch(t *testing.T, samples []Sample) *mcts.Batch {
	t.Helper()
	batch := &mcts.Batch{}
	for y := range rules.Symmetry(rules.NumSymmetries) {
		for _, s := range samples {
			p := y.Position(s.Position)
			g, err := rules.NewGameFrom(s.Variant, p)
			if err != nil {
				t.Fatal(err)
			}
			moves := g.GenerateMoves(nil)
			batch.Variants = append(batch.Variants, s.Variant)
			batch.Positions = append(batch.Positions, p)
			batch.Moves = append(batch.Moves, moves)
			batch.Priors = append(batch.Priors, make([]float32, len(moves)))
			batch.Values = append(batch.Values, 0)
		}
	}
	return batch
}

// TestEvaluatorThreadsSymmetries: Evaluate on positions in all 8
// symmetries, with and without random symmetries, gives bitwise the same
// priors and values on 1, 2 and 5 threads.
func TestEvaluatorThreadsSymmetries(t *testing.T) {
	n, err := New(Config{Blocks: 1, Channels: 5, ValueChannels: 2, ValueHidden: 3}, 7)
	if err != nil {
		t.Fatal(err)
	}
	randomizeStats(n, 8)
	for _, sym := range []bool{false, true} {
		var want *mcts.Batch
		for _, threads := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("random=%v/threads=%d", sym, threads), func(t *testing.T) {
				in := n.NewInference(threads, "sym")
				in.RandomSymmetry = sym
				in.Seed(9)
				got := symmetricBatch(t, randomSamples(t, 3, 61))
				if err := in.Evaluate(got); err != nil {
					t.Fatal(err)
				}
				if threads == 1 {
					want = got
					return
				}
				for i := range got.Len() {
					if math.Float32bits(got.Values[i]) != math.Float32bits(want.Values[i]) {
						t.Fatalf("position %d: got value %v, want %v (one thread)", i, got.Values[i], want.Values[i])
					}
					for j := range got.Priors[i] {
						if math.Float32bits(got.Priors[i][j]) != math.Float32bits(want.Priors[i][j]) {
							t.Fatalf("position %d, move %v: got prior %v, want %v (one thread)", i, got.Moves[i][j], got.Priors[i][j], want.Priors[i][j])
						}
					}
				}
			})
		}
	}
}

// TestInferenceThreadsAllocs: Evaluate and Forward on several threads
// allocate nothing once the buffers exist, for batch sizes that cut into
// equal and unequal chunks, and after a smaller batch than the largest.
func TestInferenceThreadsAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under -race: counts mean nothing")
	}
	n, err := New(tinyConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	batch := symmetricBatch(t, randomSamples(t, 2, 71)) // 16 positions
	for _, threads := range []int{2, 3} {
		in := n.NewInference(threads, "allocs")
		in.RandomSymmetry = true
		if err := in.Evaluate(batch); err != nil {
			t.Fatal(err)
		}
		if allocs := testing.AllocsPerRun(5, func() { in.Evaluate(batch) }); allocs != 0 {
			t.Errorf("%d threads: got %v allocations per Evaluate, want 0", threads, allocs)
		}
		in.Forward(65)
		for _, b := range []int{1, 2, 7, 64, 65} {
			if allocs := testing.AllocsPerRun(3, func() { in.Forward(b) }); allocs != 0 {
				t.Errorf("%d threads, batch %d: got %v allocations per Forward, want 0", threads, b, allocs)
			}
		}
	}
}

// TestWinogradMatchesDirect: inference with the 3x3 convolutions as
// Winograd F(4x4, 3x3) gives the direct (im2col) path's logits and
// win/draw/loss within float32 tolerance, for every batch size from 1 to 65
// (a subset under -race or -short), every kernel implementation of this CPU
// and 1 and 2 threads, on a network of odd widths; and Evaluate on
// positions in all 8 symmetries gives the direct path's priors and values.
func TestWinogradMatchesDirect(t *testing.T) {
	n, err := New(Config{Blocks: 2, Channels: 13, ValueChannels: 3, ValueHidden: 5}, 15)
	if err != nil {
		t.Fatal(err)
	}
	randomizeStats(n, 16)
	samples := randomSamples(t, 65, 17)
	x := make([]float32, len(samples)*Squares*InputPlanes)
	encodeAll(t, samples, x)
	for impl := range eachImplementation(t) {
		for _, threads := range []int{1, 2} {
			direct, wino := n.NewInference(threads, "direct"), n.NewInference(threads, "wino")
			direct.direct = true
			for b := 1; b <= 65; b++ {
				if (raceEnabled || testing.Short()) && b > 3 && b != 17 && b != 65 {
					continue
				}
				copy(direct.Input(b), x[:b*Squares*InputPlanes])
				copy(wino.Input(b), x[:b*Squares*InputPlanes])
				wantLogits, wantWDL := direct.Forward(b)
				logits, wdl := wino.Forward(b)
				for i := range wantLogits {
					if !close32(float64(logits[i]), float64(wantLogits[i]), 1e-4) {
						t.Fatalf("%s, %d threads, batch %d: logit %d: got %v, want %v (direct)", impl, threads, b, i, logits[i], wantLogits[i])
					}
				}
				for i := range wantWDL {
					if math.Abs(float64(wdl[i]-wantWDL[i])) > 1e-5 {
						t.Fatalf("%s, %d threads, batch %d: wdl %d: got %v, want %v (direct)", impl, threads, b, i, wdl[i], wantWDL[i])
					}
				}
			}
		}
	}
	for _, threads := range []int{1, 2} {
		direct, wino := n.NewInference(threads, "direct"), n.NewInference(threads, "wino")
		direct.direct = true
		want := symmetricBatch(t, randomSamples(t, 3, 18))
		got := symmetricBatch(t, randomSamples(t, 3, 18))
		if err := direct.Evaluate(want); err != nil {
			t.Fatal(err)
		}
		if err := wino.Evaluate(got); err != nil {
			t.Fatal(err)
		}
		for i := range got.Len() {
			if math.Abs(float64(got.Values[i]-want.Values[i])) > 1e-5 {
				t.Fatalf("%d threads, position %d: got value %v, want %v (direct)", threads, i, got.Values[i], want.Values[i])
			}
			for j := range got.Priors[i] {
				if math.Abs(float64(got.Priors[i][j]-want.Priors[i][j])) > 1e-5 {
					t.Fatalf("%d threads, position %d, move %v: got prior %v, want %v (direct)", threads, i, got.Moves[i][j], got.Priors[i][j], want.Priors[i][j])
				}
			}
		}
	}
}

// TestOnePositionSplit: one position with its 3x3 layers split over 2 or 3
// threads gives bitwise the one-thread result and allocates nothing, with
// the split forced on and off, with every kernel implementation.
func TestOnePositionSplit(t *testing.T) {
	n, err := New(Config{Blocks: 2, Channels: 37, ValueChannels: 3, ValueHidden: 5}, 19)
	if err != nil {
		t.Fatal(err)
	}
	randomizeStats(n, 20)
	samples := randomSamples(t, 3, 21)
	x := make([]float32, len(samples)*Squares*InputPlanes)
	encodeAll(t, samples, x)
	for impl := range eachImplementation(t) {
		one := n.NewInference(1, "one")
		for _, threads := range []int{2, 3} {
			for _, force := range []int{1, -1} {
				in := n.NewInference(threads, "split")
				in.split.force = force
				for p := range samples {
					copy(one.Input(1), x[p*Squares*InputPlanes:(p+1)*Squares*InputPlanes])
					copy(in.Input(1), x[p*Squares*InputPlanes:(p+1)*Squares*InputPlanes])
					wantLogits, wantWDL := one.Forward(1)
					logits, wdl := in.Forward(1)
					for i := range wantLogits {
						if math.Float32bits(logits[i]) != math.Float32bits(wantLogits[i]) {
							t.Fatalf("%s, %d threads, split %d, position %d: logit %d: got %v, want %v (one thread)", impl, threads, force, p, i, logits[i], wantLogits[i])
						}
					}
					for i := range wantWDL {
						if math.Float32bits(wdl[i]) != math.Float32bits(wantWDL[i]) {
							t.Fatalf("%s, %d threads, split %d, position %d: wdl %d: got %v, want %v (one thread)", impl, threads, force, p, i, wdl[i], wantWDL[i])
						}
					}
				}
				if raceEnabled {
					continue
				}
				if allocs := testing.AllocsPerRun(5, func() { in.Forward(1) }); allocs != 0 {
					t.Errorf("%s, %d threads, split %d: got %v allocations per Forward, want 0", impl, threads, force, allocs)
				}
			}
		}
	}
}

// TestSplitChooser: the chooser measures both ways first, then takes the
// faster, trying the slower once in splitProbe calls, and follows a change
// of which is faster.
func TestSplitChooser(t *testing.T) {
	var s splitChooser
	cost := map[bool]time.Duration{true: 3 * time.Millisecond, false: time.Millisecond}
	run := func(calls int) (splits int) {
		for range calls {
			split := s.choose(2) == 2
			if split {
				splits++
			}
			s.record(split, cost[split])
		}
		return splits
	}
	if got := run(2); got != 1 {
		t.Fatalf("first 2 calls: got %d split, want 1 (each way measured once)", got)
	}
	if got, want := run(10*splitProbe), 10; got != want {
		t.Errorf("split slower: got %d of %d calls split, want %d (the probes)", got, 10*splitProbe, want)
	}
	cost[true], cost[false] = time.Millisecond, 3*time.Millisecond
	run(10 * splitProbe) // the probes see the change
	if got, want := run(10*splitProbe), 10*splitProbe-10; got != want {
		t.Errorf("split faster: got %d of %d calls split, want %d", got, 10*splitProbe, want)
	}
}

// TestTrainerWinogradMatchesDirect: a training step's losses and gradients
// with the 3x3 convolutions (forward, and backward to the input) as
// Winograd convolutions match the im2col path's, on 1 and 2 threads, with
// every kernel implementation of this CPU.
func TestTrainerWinogradMatchesDirect(t *testing.T) {
	cfg := Config{Blocks: 1, Channels: 11, ValueChannels: 2, ValueHidden: 5}
	batch := randomSamples(t, 5, 23)
	for impl := range eachImplementation(t) {
		for _, threads := range []int{1, 2} {
			grads := make([][]float32, 2)
			var losses [2]Losses
			for i, direct := range []bool{true, false} {
				n, err := New(cfg, 24)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := NewTrainer(n, DefaultTrainConfig(), threads)
				if err != nil {
					t.Fatal(err)
				}
				tr.direct = direct
				// Two steps: the second runs on weights the first changed.
				if _, err := tr.TrainStep(batch); err != nil {
					t.Fatal(err)
				}
				if losses[i], err = tr.Gradients(batch); err != nil {
					t.Fatal(err)
				}
				grads[i] = append([]float32(nil), n.Grads()...)
			}
			if !close32(losses[1].Total(), losses[0].Total(), 1e-5) {
				t.Fatalf("%s, %d threads: got loss %v, want %v (direct)", impl, threads, losses[1].Total(), losses[0].Total())
			}
			scale := 0.0
			for _, g := range grads[0] {
				scale = max(scale, math.Abs(float64(g)))
			}
			for i := range grads[0] {
				if d := math.Abs(float64(grads[1][i] - grads[0][i])); d > 1e-4*scale {
					t.Fatalf("%s, %d threads: gradient %d: got %v, want %v (direct; largest gradient %v)", impl, threads, i, grads[1][i], grads[0][i], scale)
				}
			}
		}
	}
}

// TestTrainerThreadsBitIdentical: a training step's losses and gradients
// are bitwise the same on 1, 2 and 3 threads (the batch norms sum in the
// same blocks of rows on any, the GEMMs and convolutions compute each
// element the same way), with every kernel implementation of this CPU.
func TestTrainerThreadsBitIdentical(t *testing.T) {
	cfg := Config{Blocks: 1, Channels: 9, ValueChannels: 2, ValueHidden: 5}
	batch := randomSamples(t, 11, 25)
	for impl := range eachImplementation(t) {
		var want []float32
		var wantLoss float64
		for _, threads := range []int{1, 2, 3} {
			n, err := New(cfg, 26)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := NewTrainer(n, DefaultTrainConfig(), threads)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tr.TrainStep(batch); err != nil {
				t.Fatal(err)
			}
			losses, err := tr.Gradients(batch)
			if err != nil {
				t.Fatal(err)
			}
			if threads == 1 {
				want, wantLoss = append([]float32(nil), n.Grads()...), losses.Total()
				continue
			}
			if losses.Total() != wantLoss {
				t.Fatalf("%s, %d threads: got loss %v, want %v (one thread)", impl, threads, losses.Total(), wantLoss)
			}
			sameGradients(t, fmt.Sprintf("%s, %d threads", impl, threads), n.Grads(), want, "one thread")
		}
	}
}

// TestRandomSymmetryOrderFree: with random symmetries, a position's priors
// and value do not depend on what else is in its batch or where (a worker's
// batches depend on which games it plays), but do on the seed; and the
// symmetries chosen over many positions are not all one.
func TestRandomSymmetryOrderFree(t *testing.T) {
	n, err := New(Config{Blocks: 1, Channels: 5, ValueChannels: 2, ValueHidden: 3}, 7)
	if err != nil {
		t.Fatal(err)
	}
	randomizeStats(n, 8)
	batch := symmetricBatch(t, randomSamples(t, 3, 83)) // 24 positions
	evaluate := func(seed uint64, order []int) *mcts.Batch {
		b := &mcts.Batch{}
		for _, i := range order {
			b.Variants = append(b.Variants, batch.Variants[i])
			b.Positions = append(b.Positions, batch.Positions[i])
			b.Moves = append(b.Moves, batch.Moves[i])
			b.Priors = append(b.Priors, make([]float32, len(batch.Moves[i])))
			b.Values = append(b.Values, 0)
		}
		in := n.NewInference(1, "order")
		in.RandomSymmetry = true
		in.Seed(seed)
		if err := in.Evaluate(b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	all := make([]int, batch.Len())
	for i := range all {
		all[i] = i
	}
	want := evaluate(1, all)
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	cases := []struct {
		name  string
		order []int
	}{
		{"reversed", reversed},
		{"alone", []int{5}},
		{"a few, shuffled", []int{17, 3, 5, 11}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := evaluate(1, c.order)
			for k, i := range c.order {
				if math.Float32bits(got.Values[k]) != math.Float32bits(want.Values[i]) {
					t.Errorf("position %d: got value %v, want %v (the whole batch in order)", i, got.Values[k], want.Values[i])
				}
				if !slices.Equal(got.Priors[k], want.Priors[i]) {
					t.Errorf("position %d: got priors %v, want %v", i, got.Priors[k], want.Priors[i])
				}
			}
		})
	}
	t.Run("seed and spread", func(t *testing.T) {
		seen := map[rules.Symmetry]bool{}
		for i := range batch.Len() {
			seen[symmetryOf(&batch.Positions[i], 1)] = true
		}
		if len(seen) < 4 {
			t.Errorf("got %d distinct symmetries over %d positions, want at least 4", len(seen), batch.Len())
		}
		other := evaluate(2, all)
		same := 0
		for i := range all {
			if math.Float32bits(other.Values[i]) == math.Float32bits(want.Values[i]) {
				same++
			}
		}
		if same == len(all) {
			t.Errorf("got the same %d values with seeds 1 and 2, want the seed to change some symmetries", same)
		}
	})
}
