// Hot file: the batch norm's passes over a training step's activations,
// with what a residual network does next fused in (the skip, the ReLU and
// the next layer's bfloat16 grid; backward, the ReLU's gradient and the
// skip's share). Keep them allocation-free; measure with net's
// BenchmarkTrainStep after any change.

package kernels

// The batch norm's passes run over rows of c channels, a row's c values
// consecutive and the rows consecutive: on AVX-512 a row at a time,
// sixteen channels at a step, where c is a multiple of 16, else in
// portable Go, with the same arithmetic in the same order (no fused
// multiply-adds), so bitwise the same. Calls on disjoint rows may run at
// once, each with sums of its own (acc, sumDy, dot); each panics if a
// slice is too short for its rows.

// BNSum adds Σ over rows r0 to r1-1 of z to acc, per channel.
func BNSum(z []float32, c, r0, r1 int, acc []float32) {
	z, acc = rowsOf(z, c, r0, r1), acc[:c]
	if hasBN && c%16 == 0 && len(z) > 0 {
		bnSumRun(&z[0], len(z), c, &acc[0])
		return
	}
	for r := 0; r < len(z); r += c {
		for j, v := range z[r : r+c] {
			acc[j] += v
		}
	}
}

// BNSumSq adds Σ over rows r0 to r1-1 of (z - mean)² to acc, per channel.
func BNSumSq(z []float32, c, r0, r1 int, mean, acc []float32) {
	z, mean, acc = rowsOf(z, c, r0, r1), mean[:c], acc[:c]
	if hasBN && c%16 == 0 && len(z) > 0 {
		bnSumSqRun(&z[0], len(z), c, &mean[0], &acc[0])
		return
	}
	for r := 0; r < len(z); r += c {
		for j, v := range z[r : r+c] {
			d := v - mean[j]
			acc[j] += d * d
		}
	}
}

// BNApply is a batch norm's normalizing pass (training: the batch's mean
// and 1/√(variance+ε)), with the skip, the ReLU and the rounding into the
// next layer's bfloat16 grid that may follow it.
type BNApply struct {
	C                         int       // channels
	Mean, InvStd, Gamma, Beta []float32 // per channel
	Z                         []float32 // the input, left as it is
	// The output is gamma·(z - mean)·invstd + beta, plus Skip if it is not
	// nil, then max(·, 0) if ReLU is set (as ReLU: NaN stays NaN). It goes
	// to Out if it is not nil; to Mask, if it is not nil, as bits: 1 where
	// it is positive (see MaskWords); and to Grid, if it is not nil,
	// rounded to bfloat16 (as ToBF16) in G's layout, C channels a pixel,
	// the rows being the pixels of images of G.H×G.W, row by row (only the
	// rows' own pixels are written).
	Skip []float32
	ReLU bool
	Out  []float32
	Mask []uint16
	Grid []uint16
	G    LowpGrid
}

// MaskWords returns the 16-bit words of a mask of one row of c channels:
// channel j of row r is bit j%16 of word r·MaskWords(c) + j/16.
func MaskWords(c int) int { return (c + 15) / 16 }

// Run runs rows r0 to r1-1.
func (a *BNApply) Run(r0, r1 int) {
	if a.Grid == nil {
		a.run(r0, r1, nil)
		return
	}
	// One image row at a time: its pixels are consecutive in the grid too.
	for r := r0; r < r1; {
		e := min(r1, (r/a.G.W+1)*a.G.W)
		i, y, x := r/(a.G.H*a.G.W), r/a.G.W%a.G.H, r%a.G.W
		a.run(r, e, a.Grid[a.G.Pixel(i, y, x)*a.C:][:(e-r)*a.C])
		r = e
	}
}

// run is Run on rows whose grid pixels (if any) are consecutive.
func (a *BNApply) run(r0, r1 int, grid []uint16) {
	c := a.C
	z := rowsOf(a.Z, c, r0, r1)
	skip, out, mask := optRows(a.Skip, c, r0, r1), optRows(a.Out, c, r0, r1), optRows(a.Mask, MaskWords(c), r0, r1)
	mean, invstd, gamma, beta := a.Mean[:c], a.InvStd[:c], a.Gamma[:c], a.Beta[:c]
	if hasBN && c%16 == 0 && len(z) > 0 && (grid == nil || hasCvtBF16) {
		args := bnApplyArgs{z: &z[0], out: ptr(out), skip: ptr(skip), grid: ptr(grid), mask: ptr(mask), n: len(z), c: c,
			mean: &mean[0], invstd: &invstd[0], gamma: &gamma[0], beta: &beta[0]}
		if a.ReLU {
			args.relu = 1
		}
		bnApplyRun(&args)
		return
	}
	clear(mask)
	words, r, j := MaskWords(c), 0, 0 // value i is channel j of row r
	for i, v := range z {
		o := gamma[j]*((v-mean[j])*invstd[j]) + beta[j]
		if skip != nil {
			o += skip[i]
		}
		if a.ReLU {
			o += 0
			if o < 0 {
				o = 0
			}
		}
		if out != nil {
			out[i] = o
		}
		if mask != nil && o > 0 {
			mask[r*words+j/16] |= 1 << (j % 16)
		}
		if grid != nil {
			grid[i] = ToBF16(o)
		}
		if j++; j == c {
			r, j = r+1, 0
		}
	}
}

// BNGrad is a batch norm's backward pass, with the ReLU's gradient and
// the skip's share that may come before it, in two passes: Sums over
// every row, then Input.
type BNGrad struct {
	C            int       // channels
	Z            []float32 // the forward pass's input
	Mean, InvStd []float32 // the forward pass's, per channel
	// Dout is the gradient of the layer's output. Its gradient d before
	// the ReLU is Dout plus Add (if not nil), zeroed where the forward
	// pass's Mask (if not nil) has no bit, as ReLUGrad. Sums copies d to
	// Save (if not nil; it may be Add), or, if Add is set and Save is
	// not, to Dout.
	Dout, Add, Save []float32
	Mask            []uint16
	// Input writes the batch norm's input gradient, k·(N·d -
	// sumDy - xhat·dot), into Dz (if not nil; it may be Dout) and into
	// Grid, rounded to bfloat16 in G's layout as BNApply's Grid (if not
	// nil). N is the batch's rows, sumDy and dot Sums' totals.
	N          float32
	SumDy, Dot []float32
	Dz         []float32
	Grid       []uint16
	G          LowpGrid
}

// Sums adds rows r0 to r1-1's Σ d and Σ d·xhat (xhat = (z - mean)·invstd)
// to sumDy and dot, per channel.
func (a *BNGrad) Sums(r0, r1 int, sumDy, dot []float32) {
	c := a.C
	dout, z := rowsOf(a.Dout, c, r0, r1), rowsOf(a.Z, c, r0, r1)
	add, save, mask := optRows(a.Add, c, r0, r1), optRows(a.Save, c, r0, r1), optRows(a.Mask, MaskWords(c), r0, r1)
	mean, invstd := a.Mean[:c], a.InvStd[:c]
	sumDy, dot = sumDy[:c], dot[:c]
	back := add != nil && save == nil
	if hasBN && c%16 == 0 && len(dout) > 0 {
		args := bnSumsArgs{dout: &dout[0], add: ptr(add), mask: ptr(mask), save: ptr(save), z: &z[0], n: len(dout), c: c,
			mean: &mean[0], invstd: &invstd[0], sumDy: &sumDy[0], dot: &dot[0]}
		if back {
			args.back = 1
		}
		bnGradSumsRun(&args)
		return
	}
	words, r, j := MaskWords(c), 0, 0 // value i is channel j of row r
	for i, d := range dout {
		if add != nil {
			d += add[i]
		}
		if mask != nil && mask[r*words+j/16]&(1<<(j%16)) == 0 {
			d = 0
		}
		if save != nil {
			save[i] = d
		} else if back {
			dout[i] = d
		}
		sumDy[j] += d
		dot[j] += d * ((z[i] - mean[j]) * invstd[j])
		if j++; j == c {
			r, j = r+1, 0
		}
	}
}

// Input writes rows r0 to r1-1 of the batch norm's input gradient, after
// Sums of every row. k is gamma·invstd/N, per channel.
func (a *BNGrad) Input(r0, r1 int, k []float32) {
	if a.Grid == nil {
		a.input(r0, r1, k, nil)
		return
	}
	for r := r0; r < r1; {
		e := min(r1, (r/a.G.W+1)*a.G.W)
		i, y, x := r/(a.G.H*a.G.W), r/a.G.W%a.G.H, r%a.G.W
		a.input(r, e, k, a.Grid[a.G.Pixel(i, y, x)*a.C:][:(e-r)*a.C])
		r = e
	}
}

// input is Input on rows whose grid pixels (if any) are consecutive.
func (a *BNGrad) input(r0, r1 int, k []float32, grid []uint16) {
	c := a.C
	src := a.Dout // d, where Sums left it
	if a.Save != nil {
		src = a.Save
	}
	d, z := rowsOf(src, c, r0, r1), rowsOf(a.Z, c, r0, r1)
	dz, mask := optRows(a.Dz, c, r0, r1), optRows(a.Mask, MaskWords(c), r0, r1)
	k, sumDy, dot, mean, invstd := k[:c], a.SumDy[:c], a.Dot[:c], a.Mean[:c], a.InvStd[:c]
	if hasBN && c%16 == 0 && len(d) > 0 && (grid == nil || hasCvtBF16) {
		args := bnInputArgs{d: &d[0], z: &z[0], dz: ptr(dz), grid: ptr(grid), mask: ptr(mask), n: len(d), c: c,
			k: &k[0], sumDy: &sumDy[0], dot: &dot[0], mean: &mean[0], invstd: &invstd[0], rows: a.N}
		bnGradInputRun(&args)
		return
	}
	words, r, j := MaskWords(c), 0, 0 // value i is channel j of row r
	for i, v := range d {
		if mask != nil && mask[r*words+j/16]&(1<<(j%16)) == 0 {
			v = 0
		}
		g := k[j] * (a.N*v - sumDy[j] - ((z[i]-mean[j])*invstd[j])*dot[j])
		if dz != nil {
			dz[i] = g
		}
		if grid != nil {
			grid[i] = ToBF16(g)
		}
		if j++; j == c {
			r, j = r+1, 0
		}
	}
}

// rowsOf returns rows r0 to r1-1 of m (rows of c), panicking if m is too
// short.
func rowsOf[E float32 | uint16](m []E, c, r0, r1 int) []E {
	if r0 < 0 || r1 < r0 || c < 0 || len(m) < r1*c {
		panic("kernels: batch norm pass: slice too short for its rows")
	}
	return m[r0*c : r1*c]
}

// optRows is rowsOf, nil for a nil m.
func optRows[E float32 | uint16](m []E, c, r0, r1 int) []E {
	if m == nil {
		return nil
	}
	return rowsOf(m, c, r0, r1)
}

// ptr returns &s[0], nil for an empty s.
func ptr[E float32 | uint16](s []E) *E {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// The AVX-512 passes' arguments: n values (a multiple of c, c of 16),
// pointers nil where a pass has no such operand.
type bnApplyArgs struct {
	z, out, skip              *float32
	grid, mask                *uint16
	n, c                      int
	mean, invstd, gamma, beta *float32
	relu                      int
}

type bnSumsArgs struct {
	dout, add, save, z       *float32
	mask                     *uint16
	n, c                     int
	mean, invstd, sumDy, dot *float32
	back                     int
}

type bnInputArgs struct {
	d, z, dz                    *float32
	grid, mask                  *uint16
	n, c                        int
	k, sumDy, dot, mean, invstd *float32
	rows                        float32
}
