//go:build !amd64

package kernels

// platformLowp returns the assembly implementations of the reduced
// precisions: none outside amd64, where the portable Go path runs.
func platformLowp(p Lowp) []*lowpImpl { return nil }

// platformWeightGrad returns nil outside amd64: LowpWeightGrad runs in
// portable Go.
func platformWeightGrad() func(*WeightGradArgs, []float32) { return nil }
