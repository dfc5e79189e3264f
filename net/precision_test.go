package net

import (
	"bytes"
	"flag"
	"math"
	"os"
	"slices"
	"testing"

	"taflab/archive"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/mcts"
	"taflab/net/kernels"
	"taflab/rules"
)

var updateCalibration = flag.Bool("update-calibration", false, "write calibration.bin from the human archive")

// calibrationPlanes returns the input planes of the calibration positions
// as the archive gives them: CalibrationPositions positions spread evenly
// over every ply of the games training does not hold out (every 10th
// record is held out), under copenhagen-classic.
func calibrationPlanes(t *testing.T) []float32 {
	t.Helper()
	v := variants.MustLoad("copenhagen-classic")
	games, err := datasets.ReadRecordGames(archive.Copenhagen, v)
	if err != nil {
		t.Fatal(err)
	}
	train, _ := datasets.SplitRecords(games, 10)
	total := 0
	for _, g := range train {
		total += len(g.Positions)
	}
	per := Squares * InputPlanes
	planes := make([]float32, CalibrationPositions*per)
	i, k := 0, 0
	for _, g := range train {
		for j := range g.Positions {
			// Position k of all is taken when it is the next of
			// CalibrationPositions evenly spaced ones.
			if i < CalibrationPositions && k == i*total/CalibrationPositions {
				if err := Encode(planes[i*per:(i+1)*per], v, &g.Positions[j]); err != nil {
					t.Fatal(err)
				}
				i++
			}
			k++
		}
	}
	if i != CalibrationPositions {
		t.Fatalf("got %d calibration positions, want %d", i, CalibrationPositions)
	}
	return planes
}

// TestCalibrationPositions checks that the embedded calibration positions
// are the archive's (go test ./net -run CalibrationPositions
// -update-calibration writes them again) and read back as written.
func TestCalibrationPositions(t *testing.T) {
	planes := calibrationPlanes(t)
	want := encodeCalibration(planes)
	if *updateCalibration {
		if err := os.WriteFile("calibration.bin", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(calibrationFile, want) {
		t.Fatalf("calibration.bin (%d bytes) is not what the archive gives (%d bytes): run go test ./net -run CalibrationPositions -update-calibration", len(calibrationFile), len(want))
	}
	got, err := decodeCalibration(calibrationFile)
	if err != nil {
		t.Fatal(err)
	}
	for i := range planes {
		if got[i] != planes[i] {
			t.Fatalf("plane value %d: got %v, want %v", i, got[i], planes[i])
		}
	}
	if _, err := decodeCalibration(calibrationFile[:len(calibrationFile)-1]); err == nil {
		t.Error("a truncated calibration file was read without an error")
	}
}

// humanNetwork loads networks/copenhagen-classic.safetensors, the network
// trained on the archive's games (the held-out ones aside), whose positions
// the precision tests evaluate.
func humanNetwork(t testing.TB) *Network {
	t.Helper()
	n, _, err := Load("../networks/copenhagen-classic.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// heldOutBatch returns a batch of n positions of the archive's held-out
// games (every 10th record: the ones training and calibration never see),
// spread evenly over their plies, with their legal moves.
func heldOutBatch(t testing.TB, n int) *mcts.Batch {
	t.Helper()
	v := variants.MustLoad("copenhagen-classic")
	games, err := datasets.ReadRecordGames(archive.Copenhagen, v)
	if err != nil {
		t.Fatal(err)
	}
	_, held := datasets.SplitRecords(games, 10)
	var all []rules.Position
	for _, g := range held {
		all = append(all, g.Positions...)
	}
	batch := &mcts.Batch{}
	for i := range n {
		p := all[i*len(all)/n]
		g, err := rules.NewGameFrom(v, p)
		if err != nil {
			t.Fatal(err)
		}
		moves := g.GenerateMoves(nil)
		batch.Variants = append(batch.Variants, v)
		batch.Positions = append(batch.Positions, p)
		batch.Moves = append(batch.Moves, moves)
		batch.Priors = append(batch.Priors, make([]float32, len(moves)))
		batch.Values = append(batch.Values, 0)
	}
	return batch
}

// evalCopy evaluates batch with in and returns copies of its priors and
// values.
func evalCopy(t testing.TB, in *Inference, batch *mcts.Batch) ([][]float32, []float32) {
	t.Helper()
	if err := in.Evaluate(batch); err != nil {
		t.Fatal(err)
	}
	priors := make([][]float32, batch.Len())
	for i, p := range batch.Priors {
		priors[i] = slices.Clone(p)
	}
	return priors, slices.Clone(batch.Values)
}

// agreement is how far a precision's evaluations are from float32's.
type agreement struct {
	maxPrior, maxValue   float64 // the largest difference of a prior, a value
	meanPrior, meanValue float64 // mean absolute differences (priors: summed over a position's moves / 2)
	sameTop              float64 // share of positions with the same most likely move
}

func compare(wantP, gotP [][]float32, wantV, gotV []float32) agreement {
	var a agreement
	for i := range wantP {
		tv, tg := 0, 0
		var tvd float64
		for j := range wantP[i] {
			d := math.Abs(float64(gotP[i][j] - wantP[i][j]))
			a.maxPrior = max(a.maxPrior, d)
			tvd += d / 2
			if wantP[i][j] > wantP[i][tv] {
				tv = j
			}
			if gotP[i][j] > gotP[i][tg] {
				tg = j
			}
		}
		a.meanPrior += tvd
		if tv == tg {
			a.sameTop++
		}
		d := math.Abs(float64(gotV[i] - wantV[i]))
		a.maxValue = max(a.maxValue, d)
		a.meanValue += d
	}
	n := float64(len(wantP))
	a.meanPrior, a.meanValue, a.sameTop = a.meanPrior/n, a.meanValue/n, a.sameTop/n
	return a
}

// TestPrecisionsAgree evaluates held-out positions of the human archive
// with the network trained on the archive (humanNetwork) in each reduced precision, on every
// implementation this CPU runs, and checks the priors and values against
// float32's within the tolerances below. The portable implementation runs
// on fewer positions: it is slow.
func TestPrecisionsAgree(t *testing.T) {
	n := humanNetwork(t)
	// tolerances per precision: the mean total-variation distance of the
	// priors, the largest difference of a prior, the mean and largest
	// difference of a value (-1 to 1), and the least share of positions
	// whose most likely move is float32's.
	type tol struct{ meanPrior, maxPrior, meanValue, maxValue, sameTop float64 }
	tols := map[Precision]tol{
		// bfloat16's values differ by 0.016 on average over 512 positions;
		// the 8 that the portable code runs under -race average 0.023.
		BF16: {0.02, 0.1, 0.03, 0.1, 0.9},
		Int8: {0.04, 0.2, 0.04, 0.2, 0.85},
	}
	for _, p := range []Precision{BF16, Int8} {
		for _, impl := range kernels.LowpImplementations(p.lowp()) {
			t.Run(p.String()+"/"+impl, func(t *testing.T) {
				if err := kernels.SetLowpImplementation(p.lowp(), impl); err != nil {
					t.Fatal(err)
				}
				defer kernels.SetLowpImplementation(p.lowp(), "")
				size := 512
				switch {
				case impl == "generic" && raceEnabled:
					size = 8
				case impl == "generic" || testing.Short() || raceEnabled:
					size = 32
				}
				batch := heldOutBatch(t, size)
				wantP, wantV := evalCopy(t, n.NewInferenceAt(1, "f32", Float32), batch)
				gotP, gotV := evalCopy(t, n.NewInferenceAt(1, "low", p), batch)
				a := compare(wantP, gotP, wantV, gotV)
				t.Logf("%d positions: priors %.4f mean (total variation), %.4f at most; values %.4f mean, %.4f at most; same top move %.1f%%",
					size, a.meanPrior, a.maxPrior, a.meanValue, a.maxValue, 100*a.sameTop)
				want := tols[p]
				if a.meanPrior > want.meanPrior || a.maxPrior > want.maxPrior || a.meanValue > want.meanValue || a.maxValue > want.maxValue || a.sameTop < want.sameTop {
					t.Errorf("got %+v, want within %+v", a, want)
				}
			})
		}
	}
}

// TestLowpThreadsBitIdentical: in each reduced precision, a batch on
// several threads gives bitwise the one-thread result, for batch sizes
// from 1 to 40 (a few under -race or -short, or on portable Go), on a
// network of odd widths; and a call allocates nothing once the buffers
// have grown.
func TestLowpThreadsBitIdentical(t *testing.T) {
	n, err := New(Config{Blocks: 2, Channels: 7, ValueChannels: 3, ValueHidden: 5}, 5)
	if err != nil {
		t.Fatal(err)
	}
	randomizeStats(n, 6)
	samples := randomSamples(t, 40, 51)
	x := make([]float32, len(samples)*Squares*InputPlanes)
	encodeAll(t, samples, x)
	for _, p := range []Precision{BF16, Int8} {
		t.Run(p.String(), func(t *testing.T) {
			one := n.NewInferenceAt(1, "one", p)
			many := map[int]*Inference{2: n.NewInferenceAt(2, "two", p), 3: n.NewInferenceAt(3, "three", p)}
			sizes := []int{1, 2, 3, 5, 16, 17, 31, 32, 33, 40}
			if raceEnabled || testing.Short() || !p.Native() {
				sizes = []int{1, 3, 17}
			}
			for _, b := range sizes {
				copy(one.Input(b), x[:b*Squares*InputPlanes])
				wantLogits, wantWDL := one.Forward(b)
				for threads, in := range many {
					copy(in.Input(b), x[:b*Squares*InputPlanes])
					logits, wdl := in.Forward(b)
					for i := range wantLogits {
						if math.Float32bits(logits[i]) != math.Float32bits(wantLogits[i]) {
							t.Fatalf("batch %d, %d threads: logit %d: got %v, want %v (one thread)", b, threads, i, logits[i], wantLogits[i])
						}
					}
					for i := range wantWDL {
						if math.Float32bits(wdl[i]) != math.Float32bits(wantWDL[i]) {
							t.Fatalf("batch %d, %d threads: wdl %d: got %v, want %v (one thread)", b, threads, i, wdl[i], wantWDL[i])
						}
					}
				}
			}
			if raceEnabled {
				return
			}
			in := many[2]
			in.Forward(40)
			for _, b := range []int{1, 7, 40} {
				if allocs := testing.AllocsPerRun(3, func() { in.Forward(b) }); allocs != 0 {
					t.Errorf("batch %d: got %v allocations per Forward, want 0", b, allocs)
				}
			}
		})
	}
}
