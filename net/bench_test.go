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
// machine runs).
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
				in := n.NewInferenceAt(runtime.GOMAXPROCS(0), "bench", p)
				encodeAll(b, samples[:batch], in.Input(batch))
				in.Forward(batch)
				cpu0 := processCPU()
				for b.Loop() {
					in.Forward(batch)
				}
				b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "positions/s")
				if cpu := processCPU() - cpu0; cpu > 0 {
					b.ReportMetric(float64(batch*b.N)/cpu.Seconds(), "positions/cpu-s")
				}
			})
		}
	}
}
