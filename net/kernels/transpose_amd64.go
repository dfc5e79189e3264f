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

// pairsIdx are pairsRun's word permutes of two pixels' 32 channels a and b
// (a table of 64 words: a's, then b's) into a0 b0 a1 b1 ... a15 b15, then
// a16 b16 ... a31 b31.
var pairsIdx = func() (idx [64]uint16) {
	for j := range 64 {
		idx[j] = uint16(j/2 + 32*(j%2))
		if j >= 32 {
			idx[j] = uint16(16 + (j-32)/2 + 32*(j%2))
		}
	}
	return idx
}()

// pairsRun writes n pairs of consecutive pixels of src (c channels each,
// a multiple of 32) to dst as pixel pairs (LowpGrid.WritePairs).
//
//go:noescape
func pairsRun(dst, src *uint16, n, c int, idx *[64]uint16)
