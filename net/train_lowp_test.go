package net

import (
	"fmt"
	"math"
	"testing"
)

// skipWithoutBF16 skips a test of the bfloat16 training path where the CPU
// does not run it (SetPrecision refuses it there).
func skipWithoutBF16(t *testing.T) {
	t.Helper()
	if !BF16.Native() {
		t.Skip("this CPU (or its operating system) has no AMX-BF16 tiles: bfloat16 training is refused here")
	}
}

// trainerIn returns a trainer of a new network of cfg (seed 24) in p on
// threads threads.
func trainerIn(t *testing.T, cfg Config, p Precision, threads int) (*Network, *Trainer) {
	t.Helper()
	n, err := New(cfg, 24)
	if err != nil {
		t.Fatal(err)
	}
	tc := DefaultTrainConfig()
	tc.Precision = p.String()
	tr, err := NewTrainer(n, tc, threads)
	if err != nil {
		t.Fatal(err)
	}
	return n, tr
}

// TestTrainerBF16MatchesFloat32: a step's losses and gradients in
// bfloat16 are float32's within what rounding the convolutions' inputs
// and weights to 8 bits of mantissa allows: the loss within 1%, the
// gradient within 8% of its norm and pointing the same way (cosine at
// least 0.995), on a network of one block of 64 channels and an odd one.
// The rounding compounds with depth (at initialization, the gradient of
// 3 blocks of 64 channels is 9% off, of 6 blocks 15-18%): the whole
// network's check is that it learns alike (TestTrainerBF16Learns).
func TestTrainerBF16MatchesFloat32(t *testing.T) {
	skipWithoutBF16(t)
	batch := randomSamples(t, 16, 23)
	for _, cfg := range []Config{{Blocks: 1, Channels: 64, ValueChannels: 4, ValueHidden: 64}, {Blocks: 1, Channels: 40, ValueChannels: 2, ValueHidden: 5}} {
		t.Run(fmt.Sprintf("%dx%d", cfg.Blocks, cfg.Channels), func(t *testing.T) {
			var grads [2][]float32
			var losses [2]Losses
			for i, p := range []Precision{Float32, BF16} {
				n, tr := trainerIn(t, cfg, p, 2)
				if got := tr.Precision(); got != p {
					t.Fatalf("Precision(): got %v, want %v", got, p)
				}
				// Two steps: the second on weights the first changed.
				if _, err := tr.TrainStep(batch); err != nil {
					t.Fatal(err)
				}
				var err error
				if losses[i], err = tr.Gradients(batch); err != nil {
					t.Fatal(err)
				}
				grads[i] = append([]float32(nil), n.Grads()...)
			}
			if !close32(losses[1].Total(), losses[0].Total(), 0.01) {
				t.Errorf("loss: got %v, want %v (float32) within 1%%", losses[1].Total(), losses[0].Total())
			}
			var dot, n0, n1, diff float64
			for i := range grads[0] {
				a, b := float64(grads[0][i]), float64(grads[1][i])
				dot, n0, n1, diff = dot+a*b, n0+a*a, n1+b*b, diff+(a-b)*(a-b)
			}
			if cos := dot / math.Sqrt(n0*n1); !(cos >= 0.995) {
				t.Errorf("gradients' cosine: got %v, want at least 0.995", cos)
			}
			if rel := math.Sqrt(diff / n0); !(rel <= 0.08) {
				t.Errorf("gradient's relative error: got %v, want at most 0.08", rel)
			}
		})
	}
}

// TestTrainerBF16ThreadsBitIdentical: in bfloat16 too a step is bitwise
// the same on 1, 2 and 3 threads (each pixel's dot products and each block
// of pixels' weight gradient are summed alike on any), also after a
// larger batch has left its values in the trainer's grids.
func TestTrainerBF16ThreadsBitIdentical(t *testing.T) {
	skipWithoutBF16(t)
	cfg := Config{Blocks: 1, Channels: 32, ValueChannels: 2, ValueHidden: 5}
	big, batch := randomSamples(t, 13, 26), randomSamples(t, 11, 25)
	var want []float32
	var wantLoss float64
	for _, threads := range []int{1, 2, 3} {
		n, tr := trainerIn(t, cfg, BF16, threads)
		if _, err := tr.Gradients(big); err != nil {
			t.Fatal(err)
		}
		losses, err := tr.Gradients(batch)
		if err != nil {
			t.Fatal(err)
		}
		if threads == 1 {
			want, wantLoss = append([]float32(nil), n.Grads()...), losses.Total()
			// And the same as a trainer that never saw the larger batch.
			n2, tr2 := trainerIn(t, cfg, BF16, 1)
			if l2, err := tr2.Gradients(batch); err != nil || l2.Total() != wantLoss {
				t.Fatalf("after a larger batch: got loss %v, want %v (a fresh trainer's; err %v)", wantLoss, l2.Total(), err)
			}
			sameGradients(t, "after a larger batch", want, n2.Grads(), "a fresh trainer's")
			continue
		}
		if losses.Total() != wantLoss {
			t.Fatalf("%d threads: got loss %v, want %v (one thread)", threads, losses.Total(), wantLoss)
		}
		sameGradients(t, fmt.Sprintf("%d threads", threads), n.Grads(), want, "one thread")
	}
}

// sameGradients fails t unless got and want are bitwise the same, naming
// the case (what) and where want came from (of).
func sameGradients(t *testing.T, what string, got, want []float32, of string) {
	t.Helper()
	for i, g := range got {
		if math.Float32bits(g) != math.Float32bits(want[i]) {
			t.Fatalf("%s: gradient %d: got %v, want %v (%s)", what, i, g, want[i], of)
		}
	}
}

// TestTrainerBF16Learns: sixty steps on one batch bring its loss down in
// bfloat16 as in float32, to within 5% of float32's, on a network of
// three blocks of 64 channels.
func TestTrainerBF16Learns(t *testing.T) {
	skipWithoutBF16(t)
	cfg := Config{Blocks: 3, Channels: 64, ValueChannels: 4, ValueHidden: 32}
	batch := randomSamples(t, 16, 27)
	var first, last [2]float64
	for i, p := range []Precision{Float32, BF16} {
		_, tr := trainerIn(t, cfg, p, 2)
		for step := range 60 {
			l, err := tr.TrainStep(batch)
			if err != nil {
				t.Fatal(err)
			}
			if step == 0 {
				first[i] = l.Policy + l.Value
			}
			last[i] = l.Policy + l.Value
		}
	}
	if !(last[0] < 0.8*first[0]) {
		t.Fatalf("float32: loss went from %v to %v, want below 80%% of the first", first[0], last[0])
	}
	if !(last[1] < 0.8*first[1]) || math.Abs(last[1]-last[0]) > 0.05*last[0] {
		t.Errorf("bf16: loss went from %v to %v, want below 80%% of the first and within 5%% of float32's %v", first[1], last[1], last[0])
	}
}

// TestTrainConfigPrecision: the precisions a training config takes, and
// the one it refuses.
func TestTrainConfigPrecision(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{{"", true}, {"float32", true}, {"auto", true}, {"bf16", true}, {"int8", false}, {"fp16", false}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultTrainConfig()
			cfg.Precision = c.name
			if err := cfg.Validate(); (err == nil) != c.ok {
				t.Errorf("Validate(): got %v, want ok %v", err, c.ok)
			}
		})
	}
}
