package kernels

import "golang.org/x/sys/cpu"

// hasBN says whether the batch norm's AVX-512 passes run here.
var hasBN = cpu.X86.HasAVX512F

// The AVX-512 passes over sixteen channels (see BNSumSq and the others):
// rows rows ld floats apart, the per-channel vectors at the group's first
// channel.

//go:noescape
func bnSumSq16(z *float32, rows, ld int, mean, acc *float32)

//go:noescape
func bnApply16(z, xhat, out *float32, rows, ld int, mean, invstd, gamma, beta *float32)

//go:noescape
func bnGradSums16(dout, xhat *float32, rows, ld int, sumDy, dot *float32)

//go:noescape
func bnGradInput16(dout, xhat, dz *float32, rows, ld int, k, s, d *float32, n float32)
