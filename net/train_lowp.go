// Hot file: a training step's 3x3 convolutions in bfloat16 on the AMX
// tiles. Keep lowForward and lowInputGrad allocation-free in steady state;
// measure with bench/compare-pytorch-go -only train-b256 after any change.

package net

import (
	"fmt"

	"taflab/net/kernels"
)

// trainLow is what a Trainer in BF16 keeps for its convolutions: each 3x3
// layer's forward pass and input gradient as bfloat16 convolutions, given
// the float32 master weights at every step, and the bfloat16 grids their
// inputs are rounded into. Gradients, batch norm and the optimizer stay in
// float32, as do the weight gradients (Winograd, from the float32
// activations).
type trainLow struct {
	grid kernels.LowpGrid
	// convs are each 3x3 layer's bfloat16 convolutions: fwd of its input,
	// bwd of its output's gradient (the taps reversed, the channels
	// swapped: convWino.flipped), nil for the stem.
	convs map[*conv]*lowPair
	// grids are the input grids by channel count, for images images and
	// lowSlack pixels more (the images' parts are read as grids of their
	// own); only their images' pixels are ever written, so the layout's
	// zero pixels stay zero.
	grids  map[int][]uint16
	images int
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
// none) and that one's weights.
type lowPair struct {
	fwd, bwd *kernels.LowpConv
	flipped  []float32
}

// lowSlack is the pixels past Pixels(images) a grid holds, so that the
// part of a batch from any image on is a whole grid of its own.
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
				grids: map[int][]uint16{}, args: make([]kernels.LowpArgs, t.threads),
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

// gridFor returns the input grid of c channels for images images.
func (tl *trainLow) gridFor(c, images int) []uint16 {
	tl.growTo(images)
	g := tl.grids[c]
	if g == nil {
		g = make([]uint16, (tl.grid.Pixels(tl.images)+lowSlack)*c)
		tl.grids[c] = g
	}
	return g
}

// lowConv computes out = lc(x) (rows × cout from rows × cin) in bfloat16:
// x rounded into the grid, then the convolution, the images split over the
// threads (all rounded before any is convolved, since a part's
// convolution reads a little past its images).
func (t *Trainer) lowConv(lc *kernels.LowpConv, cin int, x []float32, rows int, out []float32, cout int) {
	tl := t.low
	images := rows / Squares
	c := lc.CinP()
	grid := tl.gridFor(c, images)
	parts := min(t.threads, images)
	t.run(parts, func(p int) {
		tl.grid.WriteBF16(grid, c, x, cin, p*images/parts, (p+1)*images/parts)
	})
	t.run(parts, func(p int) {
		i0, i1 := p*images/parts, (p+1)*images/parts
		a := &tl.args[p]
		*a = kernels.LowpArgs{Images: i1 - i0, InBF16: grid[i0*tl.grid.ImagePixels()*c:],
			OutF32: out[i0*Squares*cout:], OutLd: cout}
		t.ws[p].LowpConv(lc, a)
		*a = kernels.LowpArgs{}
	})
}

// growTo makes the grids and the weight gradient's operands hold images
// images (zeroed when they grow).
func (tl *trainLow) growTo(images int) {
	if images <= tl.images {
		return
	}
	clear(tl.grids)
	tl.images = images
	tl.ldX = tl.grid.Pixels(images) + lowSlack
	tl.xT = nil
	tl.pairs = nil
}

// lowBackward takes dout back through 3x3 layer l in bfloat16: its weight
// gradient added to l.gw (and the bias's to l.gb), its input gradient
// into dx (nil: not needed).
func (t *Trainer) lowBackward(l *conv, lp *lowPair, x []float32, rows int, dout, dx []float32) {
	tl := t.low
	images := rows / Squares
	tl.growTo(images)
	g := tl.grid
	cinP, coutP := roundUp32(l.cin), roundUp32(l.cout)
	if len(tl.xT) < cinP*tl.ldX {
		tl.xT = make([]uint16, cinP*tl.ldX)
	}
	if len(tl.pairs) < g.Computed(tl.images)*coutP {
		tl.pairs = make([]uint16, g.Computed(tl.images)*coutP)
	}
	parts := min(t.threads, images)
	t.run(parts, func(p int) {
		i0, i1 := p*images/parts, (p+1)*images/parts
		g.WriteBF16T(tl.xT, tl.ldX, x, l.cin, i0, i1)
		g.WriteBF16Pairs(tl.pairs, coutP, dout, l.cout, i0, i1)
	})
	// What a larger batch left past the images.
	for r := images * g.ImagePixels(); r < g.Computed(images); r++ {
		for o := range coutP {
			tl.pairs[(r/2*coutP+o)*2+r%2] = 0
		}
	}
	n := 9 * l.cin * l.cout
	steps := g.Computed(images) / 32
	t.run(bnBlocks, func(i int) {
		if len(tl.gw[i]) < n {
			tl.gw[i] = make([]float32, n)
		}
		gw := tl.gw[i][:n]
		clear(gw)
		a := &tl.wargs[i]
		*a = kernels.WeightGradArgs{Grid: g, X: tl.xT, LdX: tl.ldX, Cin: l.cin, CinP: cinP,
			Cout: l.cout, CoutP: coutP, D: tl.pairs, P0: g.Lead() + i*steps/bnBlocks*32,
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
		t.lowConv(lp.bwd, l.cout, dout, rows, dx, l.cin)
	}
}

// roundUp32 rounds n up to a multiple of 32.
func roundUp32(n int) int { return (n + 31) &^ 31 }
