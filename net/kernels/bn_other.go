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

// hasTranspose is false outside amd64: TransposeBF16 runs in Go.
const hasTranspose = false

func transpose16x16(src *uint16, srcStride int, dst *uint16, dstStride int, idx *[8][16]uint16) {
	panic("kernels: no AVX-512")
}

var transposeIdx [8][16]uint16
