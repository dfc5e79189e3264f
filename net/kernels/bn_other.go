//go:build !amd64

package kernels

// hasBN is false outside amd64: the batch norm's passes run in Go (a
// variable, as on amd64, so that tests may set it).
var hasBN = false

func bnSumRun(z *float32, n, c int, acc *float32)         { panic("kernels: no AVX-512") }
func bnSumSqRun(z *float32, n, c int, mean, acc *float32) { panic("kernels: no AVX-512") }
func bnApplyRun(a *bnApplyArgs)                           { panic("kernels: no AVX-512") }
func bnGradSumsRun(a *bnSumsArgs)                         { panic("kernels: no AVX-512") }
func bnGradInputRun(a *bnInputArgs)                       { panic("kernels: no AVX-512") }

// hasTranspose is false outside amd64: TransposeBF16 runs in Go (a
// variable for the tests, as hasBN).
var hasTranspose = false

func transpose16x16(src *uint16, srcStride int, dst *uint16, dstStride int, idx *[8][16]uint16) {
	panic("kernels: no AVX-512")
}

var transposeIdx [8][16]uint16

func pairsRun(dst, src *uint16, n, c int, idx *[64]uint16) { panic("kernels: no AVX-512") }

var pairsIdx [64]uint16
