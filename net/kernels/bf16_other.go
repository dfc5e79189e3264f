//go:build !amd64

package kernels

// hasCvtBF16 is false outside amd64: ToBF16Slice runs ToBF16.
const hasCvtBF16 = false

func cvtBF16(n int, src *float32, dst *uint16) { panic("kernels: cvtBF16 without AVX512-BF16") }
