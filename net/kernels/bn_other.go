//go:build !amd64

package kernels

// hasBN is false outside amd64: the batch norm's passes run in Go.
const hasBN = false

func bnSumSq16(z *float32, rows, ld int, mean, acc *float32) { panic("kernels: no AVX-512") }
func bnApply16(z, xhat, out *float32, rows, ld int, mean, invstd, gamma, beta *float32) {
	panic("kernels: no AVX-512")
}
func bnGradSums16(dout, xhat *float32, rows, ld int, sumDy, dot *float32) {
	panic("kernels: no AVX-512")
}
func bnGradInput16(dout, xhat, dz *float32, rows, ld int, k, s, d *float32, n float32) {
	panic("kernels: no AVX-512")
}
