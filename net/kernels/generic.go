// Hot file: the portable micro-kernel and vector loops. They are the only
// path on CPUs without the assembly kernels, so they must stay blocked,
// unrolled and free of allocations.

package kernels

// genericImpl is the pure-Go implementation, available everywhere.
var genericImpl = &impl{
	name: "generic",
	mr:   2, nr: 4,
	kc: 256, mc: 128, nc: 1024,
	kernel: kernelGeneric2x4,
}

// kernelGeneric2x4 is the portable micro-kernel: a 2×4 tile in eight
// scalar accumulators, four k steps per iteration. Go's register allocator
// keeps exactly this shape in registers (larger tiles spill and run at a
// third of the speed); the B values are loaded one at a time for the same
// reason.
func kernelGeneric2x4(kc int, a, b, c []float32, ldc int, accum bool) {
	var c00, c01, c02, c03 float32
	var c10, c11, c12, c13 float32
	var b0, b1, b2, b3 float32
	a = a[:kc*2]
	b = b[:kc*4]
	p := 0
	for ; p+4 <= kc; p += 4 {
		av := (*[8]float32)(a[p*2:])
		bv := (*[16]float32)(b[p*4:])
		b0 = bv[0]
		c00 += av[0] * b0
		c10 += av[1] * b0
		b1 = bv[1]
		c01 += av[0] * b1
		c11 += av[1] * b1
		b2 = bv[2]
		c02 += av[0] * b2
		c12 += av[1] * b2
		b3 = bv[3]
		c03 += av[0] * b3
		c13 += av[1] * b3
		b0 = bv[4]
		c00 += av[2] * b0
		c10 += av[3] * b0
		b1 = bv[5]
		c01 += av[2] * b1
		c11 += av[3] * b1
		b2 = bv[6]
		c02 += av[2] * b2
		c12 += av[3] * b2
		b3 = bv[7]
		c03 += av[2] * b3
		c13 += av[3] * b3
		b0 = bv[8]
		c00 += av[4] * b0
		c10 += av[5] * b0
		b1 = bv[9]
		c01 += av[4] * b1
		c11 += av[5] * b1
		b2 = bv[10]
		c02 += av[4] * b2
		c12 += av[5] * b2
		b3 = bv[11]
		c03 += av[4] * b3
		c13 += av[5] * b3
		b0 = bv[12]
		c00 += av[6] * b0
		c10 += av[7] * b0
		b1 = bv[13]
		c01 += av[6] * b1
		c11 += av[7] * b1
		b2 = bv[14]
		c02 += av[6] * b2
		c12 += av[7] * b2
		b3 = bv[15]
		c03 += av[6] * b3
		c13 += av[7] * b3
	}
	for ; p < kc; p++ {
		av := (*[2]float32)(a[p*2:])
		bv := (*[4]float32)(b[p*4:])
		a0, a1 := av[0], av[1]
		c00 += a0 * bv[0]
		c01 += a0 * bv[1]
		c02 += a0 * bv[2]
		c03 += a0 * bv[3]
		c10 += a1 * bv[0]
		c11 += a1 * bv[1]
		c12 += a1 * bv[2]
		c13 += a1 * bv[3]
	}
	r0 := (*[4]float32)(c[0:])
	r1 := (*[4]float32)(c[ldc:])
	if accum {
		c00 += r0[0]
		c01 += r0[1]
		c02 += r0[2]
		c03 += r0[3]
		c10 += r1[0]
		c11 += r1[1]
		c12 += r1[2]
		c13 += r1[3]
	}
	*r0 = [4]float32{c00, c01, c02, c03}
	*r1 = [4]float32{c10, c11, c12, c13}
}

// Portable vector loops, unrolled by four.

func axpyGeneric(alpha float32, x, y []float32) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xv := (*[4]float32)(x[i:])
		yv := (*[4]float32)(y[i:])
		yv[0] += alpha * xv[0]
		yv[1] += alpha * xv[1]
		yv[2] += alpha * xv[2]
		yv[3] += alpha * xv[3]
	}
	for ; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
}

func scaleGeneric(alpha float32, x []float32) {
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xv := (*[4]float32)(x[i:])
		xv[0] *= alpha
		xv[1] *= alpha
		xv[2] *= alpha
		xv[3] *= alpha
	}
	for ; i < len(x); i++ {
		x[i] *= alpha
	}
}

func dotGeneric(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xv := (*[4]float32)(x[i:])
		yv := (*[4]float32)(y[i:])
		s0 += xv[0] * yv[0]
		s1 += xv[1] * yv[1]
		s2 += xv[2] * yv[2]
		s3 += xv[3] * yv[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// addConstGeneric adds s to every element of x, then clamps negatives to
// zero if relu is set (NaN stays NaN).
func addConstGeneric(s float32, x []float32, relu bool) {
	if relu {
		for i, v := range x {
			v += s
			if v < 0 {
				v = 0
			}
			x[i] = v
		}
		return
	}
	for i := range x {
		x[i] += s
	}
}

// addVecGeneric adds b to x elementwise, then clamps negatives to zero if
// relu is set.
func addVecGeneric(b, x []float32, relu bool) {
	b = b[:len(x)]
	if relu {
		for i, v := range x {
			v += b[i]
			if v < 0 {
				v = 0
			}
			x[i] = v
		}
		return
	}
	for i := range x {
		x[i] += b[i]
	}
}

func reluGradGeneric(dy, y []float32) {
	y = y[:len(dy)]
	for i, v := range y {
		if !(v > 0) {
			dy[i] = 0
		}
	}
}
