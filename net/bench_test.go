package net

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkInference is Forward of the default 6x64 network at the batch
// sizes of bench/compare-pytorch, in each precision this CPU runs natively,
// on GOMAXPROCS threads (-cpu 1 for one thread, -cpu 2 for two), in
// positions per second of wall time, and per second of the process's CPU
// time (positions/cpu-s: with -cpu 1, what one core does whatever else the
// machine runs); the threads metric says how many ran.
//
// The timed loop is over b.N, not b.Loop: the testing package makes a
// sub-benchmark's first call before it sets GOMAXPROCS to -cpu's first
// value (golang/go#49980), and a b.Loop benchmark is timed entirely in that
// call, so `-cpu 1,2` would time its first figures on the default
// GOMAXPROCS. Over b.N the timed calls come after it is set.
func BenchmarkInference(b *testing.B) {
	n, err := New(DefaultConfig(), 1)
	if err != nil {
		b.Fatal(err)
	}
	samples := randomSamples(b, 256, 2026)
	for _, p := range []Precision{Float32, BF16, Int8} {
		if !p.Native() {
			continue
		}
		for _, batch := range []int{1, 16, 64, 256} {
			b.Run(fmt.Sprintf("%v/b%d", p, batch), func(b *testing.B) {
				threads := runtime.GOMAXPROCS(0)
				in := n.NewInferenceAt(threads, "bench", p)
				encodeAll(b, samples[:batch], in.Input(batch))
				in.Forward(batch)
				cpu0 := processCPU()
				b.ResetTimer()
				for range b.N { // not b.Loop: see BenchmarkInference
					in.Forward(batch)
				}
				b.ReportMetric(float64(threads), "threads")
				b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "positions/s")
				if cpu := processCPU() - cpu0; cpu > 0 {
					b.ReportMetric(float64(batch*b.N)/cpu.Seconds(), "positions/cpu-s")
				}
			})
		}
	}
}

// BenchmarkTrainStep is one training step (forward, backward, Adam) of the
// default 6x64 network at batch 256, in each precision its convolutions
// run natively here, on GOMAXPROCS threads, in samples per second of wall
// time and of the process's CPU time.
func BenchmarkTrainStep(b *testing.B) {
	samples := randomSamples(b, 256, 2026)
	for _, p := range []Precision{Float32, BF16} {
		if !p.Native() {
			continue
		}
		b.Run(p.String(), func(b *testing.B) {
			n, err := New(DefaultConfig(), 1)
			if err != nil {
				b.Fatal(err)
			}
			threads := runtime.GOMAXPROCS(0)
			tr, err := NewTrainer(n, DefaultTrainConfig(), threads)
			if err != nil {
				b.Fatal(err)
			}
			if err := tr.SetPrecision(p); err != nil {
				b.Fatal(err)
			}
			if _, err := tr.TrainStep(samples); err != nil {
				b.Fatal(err)
			}
			cpu0 := processCPU()
			b.ResetTimer()
			for range b.N { // not b.Loop: see BenchmarkInference
				if _, err := tr.TrainStep(samples); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(threads), "threads")
			b.ReportMetric(float64(len(samples)*b.N)/b.Elapsed().Seconds(), "samples/s")
			if cpu := processCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(len(samples)*b.N)/cpu.Seconds(), "samples/cpu-s")
			}
		})
	}
}
