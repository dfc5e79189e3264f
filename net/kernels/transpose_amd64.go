package kernels

import "golang.org/x/sys/cpu"

// hasTranspose says whether transpose16x16 runs here (AVX-512 BW and VL:
// word permutes of Y registers, Y16-Y24 among them).
var hasTranspose = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL

// transposeIdx are transpose16x16's index vectors, two a stage (see
// gen_transpose.go): for b = 8, 4, 2, 1, the new first row's and the new
// second row's.
var transposeIdx = func() (idx [8][16]uint16) {
	for stage, b := range []int{8, 4, 2, 1} {
		for c := range 16 {
			if c&b == 0 {
				idx[2*stage][c], idx[2*stage+1][c] = uint16(c), uint16(c+b)
			} else {
				idx[2*stage][c], idx[2*stage+1][c] = uint16(16+c-b), uint16(16+c)
			}
		}
	}
	return idx
}()

// transpose16x16 writes the 16×16 block of 16-bit values at src (rows
// srcStride bytes apart) transposed to dst (rows dstStride bytes apart).
//
//go:noescape
func transpose16x16(src *uint16, srcStride int, dst *uint16, dstStride int, idx *[8][16]uint16)
