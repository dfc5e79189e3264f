// Hot file: float32 to bfloat16 conversion of whole activations, run on
// every training step's convolutions in bfloat16. Keep ToBF16Slice and
// LowpGrid.WriteBF16 allocation-free; measure with BenchmarkToBF16Slice.

package kernels

// ToBF16Slice rounds each value of src to bfloat16 into dst, as ToBF16
// does, bit for bit (with AVX512-BF16's VCVTNE2PS2BF16 where the CPU has
// it). It panics if dst is shorter than src.
func ToBF16Slice(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	n := 0
	if hasCvtBF16 {
		n = len(src) &^ 31
		if n > 0 {
			cvtBF16(n, &src[0], &dst[0])
		}
	}
	for i := n; i < len(src); i++ {
		dst[i] = ToBF16(src[i])
	}
}

// WriteBF16 writes images i0 to i1-1 of x (pixel by pixel, row by row, cin
// channels a pixel; x holds image 0 on) into dst, a bfloat16 grid of c ≥
// cin channels, rounded to bfloat16. Only the images' pixels and their
// first cin channels are written: the layout's zero pixels and channels
// past cin keep what they hold, zeros in a grid only ever written this
// way, so that callers may write disjoint ranges of images at once. It
// panics if a slice is too short.
func (g LowpGrid) WriteBF16(dst []uint16, c int, x []float32, cin, i0, i1 int) {
	_ = x[:i1*g.H*g.W*cin]
	_ = dst[:g.Pixels(i1)*c]
	for i := i0; i < i1; i++ {
		for y := range g.H {
			src := x[(i*g.H+y)*g.W*cin:][:g.W*cin]
			d := dst[g.Pixel(i, y, 0)*c:]
			if c == cin {
				ToBF16Slice(d[:g.W*cin], src)
				continue
			}
			for xx := range g.W {
				ToBF16Slice(d[xx*c:][:cin], src[xx*cin:][:cin])
			}
		}
	}
}
