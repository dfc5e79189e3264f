// Hot file: float32 to bfloat16 conversion of whole activations, run on
// every training step's convolutions in bfloat16. Keep ToBF16Slice and
// LowpGrid.WriteBF16 allocation-free; measure with BenchmarkToBF16Slice.

package kernels

import (
	"fmt"
	"unsafe"
)

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
// way (or by BNApply and BNGrad, which keep the same rule), so that
// callers may write disjoint ranges of images at once. It panics if a
// slice is too short.
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

// TransposeBF16 writes pixels p0 to p1-1 of src, a grid of c channels a
// pixel, into dst transposed: channel ch of pixel p to dst[ch·ld + p]: on
// AVX-512 16×16 blocks at a time where c is a multiple of 16, else (and
// for the last pixels) 32 pixels at a time, so that each of dst's rows
// gets whole cache lines. It panics if a slice is too short.
func TransposeBF16(dst []uint16, ld int, src []uint16, c, p0, p1 int) {
	if p1 <= p0 {
		return
	}
	_ = src[:p1*c]
	_ = dst[:(c-1)*ld+p1]
	b := p0
	if hasTranspose && c%16 == 0 {
		// 16×16 blocks on AVX-512.
		for ; b+16 <= p1; b += 16 {
			for ch := 0; ch < c; ch += 16 {
				transpose16x16(&src[b*c+ch], 2*c, &dst[ch*ld+b], 2*ld, &transposeIdx)
			}
		}
	}
	for ; b < p1; b += 32 {
		e := min(b+32, p1)
		ch := 0
		if e-b == 32 {
			// Four channels of a pixel as one 64-bit load, scattered to
			// four rows.
			for ; ch+4 <= c; ch += 4 {
				d0, d1 := dst[ch*ld+b:][:32], dst[(ch+1)*ld+b:][:32]
				d2, d3 := dst[(ch+2)*ld+b:][:32], dst[(ch+3)*ld+b:][:32]
				s := src[b*c+ch : (b+31)*c+ch+4]
				for i := range 32 {
					v := *(*uint64)(unsafe.Pointer(&s[i*c]))
					d0[i], d1[i], d2[i], d3[i] = uint16(v), uint16(v>>16), uint16(v>>32), uint16(v>>48)
				}
			}
		}
		for ; ch < c; ch++ {
			d := dst[ch*ld+b : ch*ld+e]
			for i := range d {
				d[i] = src[(b+i)*c+ch]
			}
		}
	}
}

// WritePairs writes computed pixels r0 to r1-1 (r from 0: grid pixel
// Lead()+r) of src, a bfloat16 grid of c channels a pixel, into dst as
// pixel pairs (WeightGradArgs.D), zero for the pixels past images images
// (what a larger batch left there). r0 must be even. It panics if a slice
// is too short.
func (g LowpGrid) WritePairs(dst, src []uint16, c, images, r0, r1 int) {
	if r1 <= r0 {
		return
	}
	if r0%2 != 0 {
		panic(fmt.Sprintf("kernels: WritePairs from odd pixel %d", r0))
	}
	lead, valid := g.Lead(), images*g.ImagePixels()
	_ = dst[:((r1+1)/2)*2*c]
	_ = src[:(lead+min(r1, valid))*c]
	r := r0
	if m := min(valid, r1); hasTranspose && c > 0 && c%32 == 0 && m >= r0+2 {
		// Whole pairs of the images' pixels on AVX-512.
		n := (m - r0) / 2
		pairsRun(&dst[r0*c], &src[(lead+r0)*c], n, c, &pairsIdx)
		r += 2 * n
	}
	for ; r < r1; r += 2 {
		d := dst[r*c : r*c+2*c]
		switch {
		case r+1 < valid && r+1 < r1:
			a, b := src[(lead+r)*c:][:c], src[(lead+r+1)*c:][:c]
			for o := range c {
				d[2*o], d[2*o+1] = a[o], b[o]
			}
		case r < valid:
			a := src[(lead+r)*c:][:c]
			for o := range c {
				d[2*o], d[2*o+1] = a[o], 0
			}
		default:
			clear(d)
		}
	}
}
