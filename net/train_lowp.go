// Hot file: a training step's 3x3 convolutions in bfloat16 on the AMX
// tiles. lowForward and lowBackward reuse grids and buffers made once per
// batch size (a step allocates only the small closures it hands the
// threads, as in float32); measure with `go test ./net -bench TrainStep`
// after any change.

package net

import (
	"fmt"

	"taflab/internal/hugepage"
	"taflab/net/kernels"
)

// trainLow is what a Trainer in BF16 keeps for its convolutions: each 3x3
// layer's forward pass and input gradient as bfloat16 convolutions, given
// the float32 master weights at every step, and the bfloat16 grids their
// inputs are rounded into. Batch norm, the heads, the losses and the
// optimizer stay in float32; the weight gradients are bfloat16 products
// summed in float32 (kernels.LowpWeightGrad). The batch norm before a 3x3
// layer writes that layer's input grid in its last pass (inputGrid), and
// the batch norm after one its output gradient's grid (outputGrid), so
// that neither is rounded in a pass of its own.
//
// Every grid holds images images and lowSlack pixels more (so that the
// part of a batch from any image on is a whole grid of its own), and only
// its images' pixels are ever written: the layout's zero pixels stay zero.
type trainLow struct {
	grid kernels.LowpGrid
	// convs are each 3x3 layer's bfloat16 convolutions and its input's
	// grid, kept from the forward pass for the weight gradient.
	convs map[*conv]*lowPair
	// dgrid is the grid of the running layer's output gradient (its
	// CoutP channels), made when a layer first needs it.
	dgrid  []uint16
	images int // the images the grids hold
	// xT and pairs are the weight gradient's operands (WeightGradArgs):
	// the layer's input transposed (rows of ldX pixels) and its output's
	// gradient in pixel pairs; gw each block of pixels' share of the
	// gradient (bnBlocks blocks, added in order, so that the sum is the
	// same on any number of threads).
	xT, pairs []uint16
	ldX       int
	gw        [bnBlocks][]float32
	wargs     [bnBlocks]kernels.WeightGradArgs // each block's running call's
	// args are each thread's running convolution's (a LowpArgs on the
	// stack would escape through the kernels' function values).
	args []kernels.LowpArgs
	// zeros is the convolutions' bias: the layers add their own.
	zeros []float32
}

// lowPair is one 3x3 layer in bfloat16: its forward convolution, the
// convolution to its input gradient (nil for the stem, whose input needs
// none) and that one's weights, and the grid of the layer's input.
type lowPair struct {
	fwd, bwd *kernels.LowpConv
	flipped  []float32
	in       []uint16
	// inReady says in holds this step's input, written by the layer
	// before (inputGrid); dgridReady says trainLow.dgrid holds the
	// layer's output gradient, written by its batch norm (outputGrid).
	inReady, dgridReady bool
}

// lowSlack is the pixels past Pixels(images) a grid holds.
const lowSlack = 32

// SetPrecision sets the arithmetic of the trainer's 3x3 convolutions:
// Float32 (the default), or BF16, which rounds their inputs and weights to
// bfloat16 for the forward pass and the input gradients and keeps
// everything else in float32 (mixed precision: float32 master weights,
// weight gradients, batch norm, losses and optimizer). Auto is BF16 where
// the CPU runs it natively (Precision.Resolve), else Float32. Int8, and
// BF16 where the CPU has no AMX tiles, are refused with an error.
func (t *Trainer) SetPrecision(p Precision) error {
	switch p = p.Resolve(); p {
	case Float32:
		t.low = nil
		return nil
	case BF16:
		if err := p.Check(); err != nil {
			return err
		}
		if t.low == nil {
			t.low = &trainLow{grid: kernels.LowpGrid{H: BoardSize, W: BoardSize}, convs: map[*conv]*lowPair{},
				args:  make([]kernels.LowpArgs, t.threads),
				zeros: make([]float32, max(t.net.cfg.Channels, InputPlanes))}
		}
		return nil
	}
	return fmt.Errorf("net: training in %s: want float32, bf16 or auto", p)
}

// Precision returns the arithmetic of the trainer's 3x3 convolutions.
func (t *Trainer) Precision() Precision {
	if t.low != nil {
		return BF16
	}
	return Float32
}

// setLow gives layer l's bfloat16 convolutions its current weights
// (making them at the first call); stem: l needs no input gradient.
func (tl *trainLow) setLow(l *conv, stem bool) {
	p := tl.convs[l]
	if p == nil {
		p = &lowPair{fwd: kernels.NewLowpConv(kernels.BF16, tl.grid, 3, l.cin, l.cout, l.w, tl.zeros, 1)}
		if !stem {
			p.flipped = make([]float32, len(l.w))
			flipTaps(p.flipped, l.w, l.cin, l.cout)
			p.bwd = kernels.NewLowpConv(kernels.BF16, tl.grid, 3, l.cout, l.cin, p.flipped, tl.zeros, 1)
		}
		tl.convs[l] = p
		return
	}
	p.fwd.SetWeights(l.w)
	if p.bwd != nil {
		flipTaps(p.flipped, l.w, l.cin, l.cout)
		p.bwd.SetWeights(p.flipped)
	}
}

// lowPair returns layer l's bfloat16 convolutions, nil in float32.
func (t *Trainer) lowPair(l *conv) *lowPair {
	if t.low == nil {
		return nil
	}
	return t.low.convs[l]
}

// growTo makes the grids hold images images (new, zeroed, when they
// grow).
func (tl *trainLow) growTo(images int) {
	if images <= tl.images {
		return
	}
	tl.images = images
	for _, p := range tl.convs {
		p.in = nil
	}
	tl.dgrid, tl.xT, tl.pairs = nil, nil, nil
	tl.ldX = tl.grid.Pixels(images) + lowSlack
}

// gridIn returns *buf, made to hold a grid of c channels if it does not.
func (tl *trainLow) gridIn(buf *[]uint16, c int) []uint16 {
	if n := tl.ldX * c; len(*buf) < n {
		*buf = hugepage.Make[uint16](n)
	}
	return *buf
}

// inputGrid returns the input grid of lp, nil in float32, to be written by
// the layer before it (as kernels.BNApply's Grid: c channels a pixel):
// nil where lp is nil or its grid has channels past c.
func (tl *trainLow) inputGrid(lp *lowPair, c, images int) []uint16 {
	if lp == nil || lp.fwd.CinP() != c {
		return nil
	}
	tl.growTo(images)
	lp.inReady = true
	return tl.gridIn(&lp.in, c)
}

// outputGrid returns the grid of lp's output gradient, to be written by
// its batch norm (as kernels.BNGrad's Grid): nil where it has channels
// past c, the layer's.
func (tl *trainLow) outputGrid(lp *lowPair, c, images int) []uint16 {
	if lp.fwd.CoutP() != c {
		return nil
	}
	tl.growTo(images)
	lp.dgridReady = true
	return tl.gridIn(&tl.dgrid, lp.fwd.CoutP())
}

// toGrid rounds x (rows × cin) into grid (c channels), the images split
// over the threads.
func (t *Trainer) toGrid(grid []uint16, c int, x []float32, cin, images int) {
	parts := min(t.threads, images)
	t.run(parts, func(p int) {
		t.low.grid.WriteBF16(grid, c, x, cin, p*images/parts, (p+1)*images/parts)
	})
}

// convGrid computes out = lc(grid) (rows × cout) in bfloat16, the images
// split over the threads.
func (t *Trainer) convGrid(lc *kernels.LowpConv, grid []uint16, images int, out []float32, cout int) {
	tl := t.low
	c := lc.CinP()
	parts := min(t.threads, images)
	t.run(parts, func(p int) {
		i0, i1 := p*images/parts, (p+1)*images/parts
		a := &tl.args[p]
		*a = kernels.LowpArgs{Images: i1 - i0, InBF16: grid[i0*tl.grid.ImagePixels()*c:],
			OutF32: out[i0*Squares*cout:], OutLd: cout}
		t.ws[p].LowpConv(lc, a)
		*a = kernels.LowpArgs{}
	})
}

// lowForward is 3x3 layer l's forward convolution in bfloat16: x (rows ×
// cin) rounded into the layer's input grid, kept for its weight gradient
// (unless the layer before has written it: then x is not read), and
// convolved into out (rows × cout).
func (t *Trainer) lowForward(l *conv, lp *lowPair, x []float32, rows int, out []float32) {
	images := rows / Squares
	t.low.growTo(images)
	c := lp.fwd.CinP()
	in := t.low.gridIn(&lp.in, c)
	if !lp.inReady {
		t.toGrid(in, c, x, l.cin, images)
	}
	lp.inReady = false
	t.convGrid(lp.fwd, in, images, out, l.cout)
}

// lowBackward takes dout back through 3x3 layer l in bfloat16, after its
// lowForward: its weight gradient added to l.gw (and the bias's to l.gb),
// its input gradient into dx (nil: not needed). dout is read only for a
// bias, and where its batch norm has not written its grid.
func (t *Trainer) lowBackward(l *conv, lp *lowPair, rows int, dout, dx []float32) {
	tl := t.low
	images := rows / Squares
	g := tl.grid
	cinP, coutP := lp.fwd.CinP(), lp.fwd.CoutP()
	dgrid := tl.gridIn(&tl.dgrid, coutP)
	xT := tl.gridIn(&tl.xT, cinP)
	pairs := tl.gridIn(&tl.pairs, coutP)
	if !lp.dgridReady {
		t.toGrid(dgrid, coutP, dout, l.cout, images)
	}
	lp.dgridReady = false
	computed, pixels := g.Computed(images), g.Pixels(images)
	parts := min(t.threads, images)
	t.run(parts, func(p int) {
		kernels.TransposeBF16(xT, tl.ldX, lp.in, cinP, p*pixels/parts, (p+1)*pixels/parts)
		g.WritePairs(pairs, dgrid, coutP, images, p*computed/parts&^1, (p+1)*computed/parts&^1)
	})
	n := 9 * l.cin * l.cout
	steps := computed / 32
	t.run(bnBlocks, func(i int) {
		if len(tl.gw[i]) < n {
			tl.gw[i] = make([]float32, n)
		}
		gw := tl.gw[i][:n]
		clear(gw)
		a := &tl.wargs[i]
		*a = kernels.WeightGradArgs{Grid: g, X: xT, LdX: tl.ldX, Cin: l.cin, CinP: cinP,
			Cout: l.cout, CoutP: coutP, D: pairs, P0: g.Lead() + i*steps/bnBlocks*32,
			P1: g.Lead() + (i+1)*steps/bnBlocks*32, GW: gw}
		t.wsb[i].LowpWeightGrad(a)
		*a = kernels.WeightGradArgs{}
	})
	for i := range bnBlocks {
		kernels.Axpy(1, tl.gw[i][:n], l.gw)
	}
	if l.gb != nil {
		sumRows(l.gb, dout, rows, l.cout)
	}
	if dx != nil {
		t.convGrid(lp.bwd, dgrid, images, dx, l.cin)
	}
}
