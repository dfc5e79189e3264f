// Hot file: inference in reduced precision (BF16, Int8). Keep forwardLow
// allocation-free in steady state; measure with BenchmarkInference and
// bench/compare-pytorch after any change.

package net

import (
	"math"

	"taflab/net/kernels"
)

// lowNet is a network's convolutions in a reduced precision, its weights
// converted when the inference is made (immutable).
type lowNet struct {
	prec   Precision
	grid   kernels.LowpGrid
	stem   *kernels.LowpConv
	blocks [][2]*kernels.LowpConv
	pol    *kernels.LowpConv
	polOut *kernels.LowpConv
	val    *kernels.LowpConv
	// The steps of the Int8 layers' inputs (nil for BF16).
	actScales
}

// actScales are the steps of the activations an Int8 network quantizes
// (code c stands for c·step): h[i] the trunk's after the stem (i = 0) and
// after block i-1, t[i] inside block i, p after the policy head's 3x3
// convolution. The input planes, 0 or 1, need none.
type actScales struct {
	h, t []float32
	p    float32
}

// newLowNet converts in's folded layers to prec; scales are Int8's (nil
// for BF16).
func newLowNet(in *Inference, prec Precision, scales *actScales) *lowNet {
	g := kernels.LowpGrid{H: BoardSize, W: BoardSize}
	ln := &lowNet{prec: prec, grid: g}
	lp := prec.lowp()
	step := func(s []float32, i int) float32 {
		if scales == nil {
			return 1
		}
		return s[i]
	}
	conv := func(f *foldedConv, inScale float32) *kernels.LowpConv {
		return kernels.NewLowpConv(lp, g, f.k, f.cin, f.cout, f.w, f.b, inScale)
	}
	if scales != nil {
		ln.actScales = *scales
	}
	ln.stem = conv(&in.stem, 1)
	for i := range in.blocks {
		ln.blocks = append(ln.blocks, [2]*kernels.LowpConv{
			conv(&in.blocks[i][0], step(ln.h, i)),
			conv(&in.blocks[i][1], step(ln.t, i)),
		})
	}
	last := len(in.blocks)
	ln.pol = conv(&in.pol, step(ln.h, last))
	po := foldedConv{k: 1, cin: in.polOut.cin, cout: in.polOut.cout, w: in.polOut.w, b: in.polOut.b}
	pScale := float32(1)
	if scales != nil {
		pScale = ln.p
	}
	ln.polOut = conv(&po, pScale)
	ln.val = conv(&in.val, step(ln.h, last))
	return ln
}

// lowChunk is a chunk's grids for the reduced-precision layers, for up to
// images positions.
type lowChunk struct {
	images int
	// BF16: x, h, t, u. Int8: the input codes in x8, the trunk's codes in
	// h8, t8, u8 and the trunk in bfloat16 (the residual blocks' skips) in
	// h, u.
	x, h, t, u     []uint16
	x8, h8, t8, u8 []uint8
	// last is the batch of the last call: a smaller one clears the grids'
	// tails.
	last int
	// args are the running convolution's (kept here: a LowpArgs on the
	// stack would escape through the kernels' function values).
	args kernels.LowpArgs
}

// run runs l with arguments a on ws.
func (lc *lowChunk) run(ws *kernels.Workspace, l *kernels.LowpConv, a kernels.LowpArgs) {
	lc.args = a
	ws.LowpConv(l, &lc.args)
}

// grow makes the grids hold b positions.
func (lc *lowChunk) grow(ln *lowNet, b int) {
	if b <= lc.images {
		return
	}
	g := ln.grid
	px := g.Pixels(b)
	c := ln.stem.CoutP()
	if ln.prec == BF16 {
		lc.x = make([]uint16, px*ln.stem.CinP())
		lc.h, lc.t, lc.u = make([]uint16, px*c), make([]uint16, px*c), make([]uint16, px*c)
	} else {
		lc.x8 = make([]uint8, px*ln.stem.CinP())
		lc.h8, lc.t8, lc.u8 = make([]uint8, px*c), make([]uint8, px*c), make([]uint8, px*c)
		lc.h, lc.u = make([]uint16, px*c), make([]uint16, px*c)
	}
	lc.images = b
}

// clearTails zeroes what a batch of b positions reads past its images in
// grids a larger batch wrote.
func (lc *lowChunk) clearTails(ln *lowNet, b int) {
	if b >= lc.last {
		lc.last = b
		return
	}
	g, c := ln.grid, ln.stem.CoutP()
	for _, s := range [][]uint16{lc.h, lc.t, lc.u} {
		if s != nil {
			kernels.ClearTail(g, s, c, b)
		}
	}
	for _, s := range [][]uint8{lc.h8, lc.t8, lc.u8} {
		if s != nil {
			kernels.ClearTail(g, s, c, b)
		}
	}
	lc.last = b
}

// forwardLow is forwardPart in reduced precision: the convolutions on
// in.low's layers, the value head's dense layers in float32.
func (in *Inference) forwardLow(c *chunk, p0, b int) {
	ln, lc := in.low, &c.low
	lc.grow(ln, b)
	lc.clearTails(ln, b)
	x := in.x[p0*Squares*InputPlanes : (p0+b)*Squares*InputPlanes]
	logits := in.logits[p0*PolicySize : (p0+b)*PolicySize]
	ws := &c.ws
	run := func(l *kernels.LowpConv, a kernels.LowpArgs) { lc.run(ws, l, a) }
	g := ln.grid
	if ln.prec == BF16 {
		g.PutBF16(lc.x, ln.stem.CinP(), x, InputPlanes, b)
		h, t, u := lc.h, lc.t, lc.u
		run(ln.stem, kernels.LowpArgs{Images: b, InBF16: lc.x, ReLU: true, OutBF16: h})
		for i := range ln.blocks {
			run(ln.blocks[i][0], kernels.LowpArgs{Images: b, InBF16: h, ReLU: true, OutBF16: t})
			run(ln.blocks[i][1], kernels.LowpArgs{Images: b, InBF16: t, Skip: h, ReLU: true, OutBF16: u})
			h, u = u, h
		}
		run(ln.pol, kernels.LowpArgs{Images: b, InBF16: h, ReLU: true, OutBF16: t})
		run(ln.polOut, kernels.LowpArgs{Images: b, InBF16: t, OutF32: logits, OutLd: MovesPerSquare})
		run(ln.val, kernels.LowpArgs{Images: b, InBF16: h, ReLU: true, OutF32: c.v, OutLd: in.cfg.ValueChannels})
	} else {
		g.PutU8(lc.x8, ln.stem.CinP(), x, InputPlanes, b, 1)
		h8, t8, u8, h, u := lc.h8, lc.t8, lc.u8, lc.h, lc.u
		run(ln.stem, kernels.LowpArgs{Images: b, InU8: lc.x8, ReLU: true, OutU8: h8, OutScale: ln.h[0], OutBF16: h})
		for i := range ln.blocks {
			run(ln.blocks[i][0], kernels.LowpArgs{Images: b, InU8: h8, ReLU: true, OutU8: t8, OutScale: ln.t[i]})
			run(ln.blocks[i][1], kernels.LowpArgs{Images: b, InU8: t8, Skip: h, ReLU: true, OutU8: u8, OutScale: ln.h[i+1], OutBF16: u})
			h8, u8, h, u = u8, h8, u, h
		}
		run(ln.pol, kernels.LowpArgs{Images: b, InU8: h8, ReLU: true, OutU8: t8, OutScale: ln.p})
		run(ln.polOut, kernels.LowpArgs{Images: b, InU8: t8, OutF32: logits, OutLd: MovesPerSquare})
		run(ln.val, kernels.LowpArgs{Images: b, InU8: h8, ReLU: true, OutF32: c.v, OutLd: in.cfg.ValueChannels})
	}
	in.valueHead(c, b, 1, in.wdl[p0*3:(p0+b)*3])
}

// actStats gathers the largest value of each of the trunk's activations
// that an Int8 network quantizes, over float32 forward passes
// (Inference.stats).
type actStats struct {
	h, t []float32
	p    float32
}

// observe records the largest of x in *m.
func observe(m *float32, x []float32) {
	for _, v := range x {
		if v > *m {
			*m = v
		}
	}
}

// scales turns the largest values into steps: the largest over 255, so
// that nothing seen saturates (1 for an activation that was never
// positive).
func (s *actStats) scales() *actScales {
	step := func(m float32) float32 {
		if !(m > 0) || math.IsInf(float64(m), 0) {
			return 1
		}
		return m / 255
	}
	out := &actScales{p: step(s.p)}
	for _, m := range s.h {
		out.h = append(out.h, step(m))
	}
	for _, m := range s.t {
		out.t = append(out.t, step(m))
	}
	return out
}
