// Hot file: the network's convolutions run here in reduced precision
// (bfloat16 or int8). Keep Workspace.LowpConv allocation-free; measure
// with BenchmarkLowpConv and the network's BenchmarkInference after any
// change.

package kernels

import (
	"fmt"
	"math"
	"sync"
	"unsafe"
)

// Lowp is a reduced precision of the convolutions: the arithmetic the
// products are formed in. Results are accumulated in float32 (BF16) or
// exactly in int32 (Int8) and leave the convolution in float32 or as the
// next layer's input.
type Lowp int

// The reduced precisions.
const (
	// BF16: inputs and weights rounded to bfloat16 (8 bits of mantissa,
	// float32's range), products summed in float32.
	BF16 Lowp = iota + 1
	// Int8: inputs quantized to unsigned 8 bits with one scale per layer,
	// weights to signed 8 bits (-127 to 127) with one scale per output
	// channel, products summed exactly in int32.
	Int8
)

// String returns "bf16" or "int8".
func (p Lowp) String() string {
	switch p {
	case BF16:
		return "bf16"
	case Int8:
		return "int8"
	}
	return fmt.Sprintf("Lowp(%d)", int(p))
}

// elemBytes is the size of one input element of p.
func (p Lowp) elemBytes() int {
	if p == BF16 {
		return 2
	}
	return 1
}

// kStep is the input channels of one 64-byte step of the dot products:
// a row of an AMX tile, a ZMM register.
func (p Lowp) kStep() int { return 64 / p.elemBytes() }

// LowpGrid is the layout of a batch of images of H×W pixels that the
// reduced-precision convolutions read and write: every image is H+1 rows
// of W+1 pixels, a row of zero pixels above its H rows and one zero pixel
// right of each row (which is also the zero pixel left of the next row),
// channels last. Images follow each other, so the zero row of one is the
// row below the one before; a last zero row follows the last image. Then
// a 3x3 tap of every pixel is the same distance away in memory (dy·(W+1)
// + dx pixels), and a convolution is a GEMM whose A rows are the grid's
// pixels shifted by that distance: no im2col, no tile transforms.
//
// The buffer holds Lead() zero pixels before the first image, whose first
// pixel is row Lead(), and Pixels(images) in all; a convolution computes
// Computed(images) pixels from Lead() on (the images' and a few more,
// whole tiles of 32), and writes zeros to those that are not an image's.
type LowpGrid struct{ H, W int }

// ImagePixels returns the pixels of one image in the grid: (H+1)·(W+1)
// (144 for 11x11).
func (g LowpGrid) ImagePixels() int { return (g.H + 1) * (g.W + 1) }

// reach is how far a 3x3 tap reads from its pixel, in pixels.
func (g LowpGrid) reach() int { return g.W + 2 }

// Lead returns the zero pixels before the first image.
func (g LowpGrid) Lead() int { return roundUp(g.reach(), 16) }

// Computed returns the pixels a convolution of images images computes,
// from Lead() on: whole blocks of 32.
func (g LowpGrid) Computed(images int) int { return roundUp(images*g.ImagePixels(), 32) }

// Pixels returns the pixels of a grid buffer of images images.
func (g LowpGrid) Pixels(images int) int { return g.Lead() + g.Computed(images) + g.Lead() }

// Pixel returns the grid pixel of pixel (y, x) of image i.
func (g LowpGrid) Pixel(i, y, x int) int {
	return g.Lead() + i*g.ImagePixels() + (y+1)*(g.W+1) + x
}

// Dest returns the image pixel (i·H·W + y·W + x) of grid pixel Lead()+r,
// r < Computed(images), or -1 where it is a zero pixel of the layout or
// past the images.
func (g LowpGrid) Dest(r, images int) int {
	if r < 0 || r >= images*g.ImagePixels() {
		return -1
	}
	i, l := r/g.ImagePixels(), r%g.ImagePixels()-(g.W+1)
	if l < 0 || l%(g.W+1) == g.W {
		return -1
	}
	return i*g.H*g.W + l/(g.W+1)*g.W + l%(g.W+1)
}

// ClearTail zeroes the pixels of a grid buffer of g of c channels past the
// images' (from Lead()+images·ImagePixels() to the end of a buffer of
// images images) that the convolutions of a batch of images images read
// but do not write: call it on each grid buffer that a larger batch used
// before.
func ClearTail[E uint8 | uint16](g LowpGrid, buf []E, c, images int) {
	clear(buf[(g.Lead()+images*g.ImagePixels())*c : g.Pixels(images)*c])
}

// ToBF16 rounds f to the nearest bfloat16 (the upper half of a float32),
// ties to even, as AVX512-BF16's VCVTNE2PS2BF16 does it, bit for bit: a
// denormal becomes a zero of its sign, a NaN a quiet NaN.
func ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	switch {
	case b&0x7f800000 == 0:
		return uint16(b>>16) & 0x8000
	case b&0x7fffffff > 0x7f800000:
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// FromBF16 returns the float32 of a bfloat16.
func FromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// quantizeU8 is the unsigned 8-bit code of y at 1/invScale a step: y·invScale
// rounded to the nearest whole number (ties to even), within 0 to 255, as
// the assembly computes it.
func quantizeU8(y, invScale float32) uint8 {
	v := y * invScale
	if !(v > 0) {
		v = 0
	}
	if !(v < 255) {
		v = 255
	}
	return uint8(math.RoundToEven(float64(v)))
}

// LowpConv is a convolution (k×k, k 1 or 3, stride 1, zero padding: the
// output has the input's H×W) with bias, its weights converted once to a
// reduced precision and packed for the kernels; see
// [Workspace.LowpConv]. Its input is a grid of CinP() channels, its
// grid outputs have CoutP(); it is immutable, so any number of goroutines
// may use it at once.
type LowpConv struct {
	prec         Lowp
	grid         LowpGrid
	k, cin, cout int
	cinP, coutP  int // cin rounded up to kStep, cout to 32 and kStep (a next layer's cinP)
	// taps are the grid distances of the taps, in pixels, tap t of a 3x3
	// being t/3-1 rows and t%3-1 pixels away.
	taps []int
	// offs are the steps of the dot products in the order the weights are
	// packed: for each tap, each k step, the byte offset of its input from
	// a pixel's.
	offs []int
	// b are the weights in the AMX tiles' layout (see pack), 64-byte
	// aligned: for each pair of 16-column tiles, each tap, each k step,
	// two 16×64-byte tiles.
	b []byte
	// scale and bias are what the accumulator is multiplied by and what is
	// added to it, per output channel (coutP, zero past cout): for Int8 the
	// input's scale times the channel's weight scale, for BF16 1.
	scale, bias []float32
	// wf or wi are the weights unpacked for the portable implementation
	// (made at its first use, under unpackOnce).
	wf         []float32
	wi         []int32
	unpackOnce sync.Once
	// fmask are the AVX-512 masks of the float32 output's columns, two per
	// pair of tiles (16 columns each).
	fmask []uint16
}

// NewLowpConv converts the weights of a k×k convolution (k 1 or 3) of
// images of g's size to prec: w[(t*cin+c)*cout+o] is the weight from input
// channel c at tap t to output channel o (tap t is t/k-k/2 rows and
// t%k-k/2 pixels away: NewWinograd3x3's layout), bias one value per output
// channel. For Int8, inScale is the step of the input's codes (the input
// is code·inScale); the weights get one scale per output channel, their
// largest magnitude over 127. It panics if a dimension is not positive,
// k is not 1 or 3, or a slice is too short.
func NewLowpConv(prec Lowp, g LowpGrid, k, cin, cout int, w, bias []float32, inScale float32) *LowpConv {
	if (prec != BF16 && prec != Int8) || (k != 1 && k != 3) || cin < 1 || cout < 1 || g.H < 1 || g.W < 1 {
		panic(fmt.Sprintf("kernels: NewLowpConv(%v, %dx%d, k %d, %d to %d channels)", prec, g.H, g.W, k, cin, cout))
	}
	if len(w) < k*k*cin*cout || len(bias) < cout {
		panic(fmt.Sprintf("kernels: NewLowpConv: len(w) %d, len(bias) %d, need %d and %d", len(w), len(bias), k*k*cin*cout, cout))
	}
	l := &LowpConv{prec: prec, grid: g, k: k, cin: cin, cout: cout,
		cinP: roundUp(cin, prec.kStep()), coutP: roundUp(cout, max(32, prec.kStep()))}
	for t := range k * k {
		dy, dx := t/k-k/2, t%k-k/2
		l.taps = append(l.taps, dy*(g.W+1)+dx)
		for s := range l.cinP / prec.kStep() {
			l.offs = append(l.offs, (dy*(g.W+1)+dx)*l.cinP*prec.elemBytes()+64*s)
		}
	}
	l.scale = make([]float32, l.coutP)
	l.bias = make([]float32, l.coutP)
	copy(l.bias, bias[:cout])
	// wq[(t*cinP+c)*coutP+o] is the weight's code: bf16 bits or int8.
	wq := make([]int32, k*k*l.cinP*l.coutP)
	for o := range cout {
		var big float64
		for t := range k * k {
			for c := range cin {
				big = max(big, math.Abs(float64(w[(t*cin+c)*cout+o])))
			}
		}
		ws := float32(1)
		if prec == Int8 {
			if big > 0 {
				ws = float32(big / 127)
			}
			l.scale[o] = inScale * ws
		} else {
			l.scale[o] = 1
		}
		for t := range k * k {
			for c := range cin {
				x := w[(t*cin+c)*cout+o]
				var q int32
				if prec == BF16 {
					q = int32(ToBF16(x))
				} else {
					q = int32(max(-127, min(127, math.RoundToEven(float64(x/ws)))))
				}
				wq[(t*l.cinP+c)*l.coutP+o] = q
			}
		}
	}
	l.pack(func(t, c, o int) int32 { return wq[(t*l.cinP+c)*l.coutP+o] })
	for p := range l.coutP / 32 {
		for h := range 2 {
			n := min(max(cout-p*32-h*16, 0), 16)
			l.fmask = append(l.fmask, uint16(1<<n-1))
		}
	}
	return l
}

// pack lays the weight codes out as the AMX kernels read them (into l.b,
// made if nil): for each pair of 16-column tiles np, each tap, each k step
// of kStep channels, two tiles of 16 rows of 64 bytes, row r holding for
// each of the tile's 16 columns the codes of channels r·e to r·e+e-1 of
// the step (e = 4 / the element's bytes: pairs of bfloat16, quadruples of
// int8). code(t, c, o) is the code of the weight from input channel c at
// tap t to output channel o (c < cinP, o < coutP).
func (l *LowpConv) pack(code func(t, c, o int) int32) {
	taps, ks, eb := l.k*l.k, l.cinP/l.prec.kStep(), l.prec.elemBytes()
	per := 4 / eb
	if l.b == nil {
		l.b = alignedBytes(l.coutP / 32 * taps * ks * 2048)
	}
	i := 0
	for np := range l.coutP / 32 {
		for t := range taps {
			for s := range ks {
				for half := range 2 {
					for r := range 16 {
						for j := range 16 {
							o := np*32 + half*16 + j
							for e := range per {
								q := code(t, s*l.prec.kStep()+r*per+e, o)
								if eb == 2 {
									l.b[i], l.b[i+1] = byte(q), byte(q>>8)
								} else {
									l.b[i] = byte(int8(q))
								}
								i += eb
							}
						}
					}
				}
			}
		}
	}
}

// SetWeights gives a BF16 layer new weights, in NewLowpConv's layout and
// of its sizes, keeping its bias: a training step's, packed in place
// without allocating. The layer must not be running a convolution
// meanwhile. It panics if l is not BF16 or w is too short: a programmer's
// error.
func (l *LowpConv) SetWeights(w []float32) {
	if l.prec != BF16 || len(w) < l.k*l.k*l.cin*l.cout {
		panic(fmt.Sprintf("kernels: LowpConv(%v).SetWeights: %d weights, need %d in bfloat16", l.prec, len(w), l.k*l.k*l.cin*l.cout))
	}
	l.pack(func(t, c, o int) int32 {
		if c >= l.cin || o >= l.cout {
			return 0
		}
		return int32(ToBF16(w[(t*l.cin+c)*l.cout+o]))
	})
	if l.wf != nil { // the portable implementation's copy, made before
		for t := range l.taps {
			for c := range l.cinP {
				for o := range l.coutP {
					l.wf[(t*l.cinP+c)*l.coutP+o] = FromBF16(uint16(l.weight(t, c, o)))
				}
			}
		}
	}
}

// weight returns the code of the weight from input channel c at tap t to
// output channel o, from the packed layout.
func (l *LowpConv) weight(t, c, o int) int32 {
	ks, eb := l.cinP/l.prec.kStep(), l.prec.elemBytes()
	per := 4 / eb
	np, half, j := o/32, o%32/16, o%16
	s, r, e := c/l.prec.kStep(), c%l.prec.kStep()/per, c%per
	i := ((((np*len(l.taps)+t)*ks+s)*2+half)*16+r)*64 + (j*per+e)*eb
	if eb == 2 {
		return int32(uint16(l.b[i]) | uint16(l.b[i+1])<<8)
	}
	return int32(int8(l.b[i]))
}

// alignedBytes returns n zero bytes starting at a multiple of 64.
func alignedBytes(n int) []byte {
	b := make([]byte, n+64)
	off := int(-uintptr(unsafe.Pointer(&b[0])) & 63)
	return b[off : off+n : off+n]
}

// Precision returns the layer's precision.
func (l *LowpConv) Precision() Lowp { return l.prec }

// CinP returns the channels of the layer's input grid: the input channels
// rounded up to a whole k step (32 for BF16, 64 for Int8), the rest zero.
func (l *LowpConv) CinP() int { return l.cinP }

// CoutP returns the channels of the layer's output grids: the output
// channels rounded up to 32 (BF16) or 64 (Int8), the rest zero: the CinP
// of a layer of as many input channels.
func (l *LowpConv) CoutP() int { return l.coutP }

// LowpArgs are one convolution's input and outputs for
// [Workspace.LowpConv]. Grids are of the layer's LowpGrid size for Images
// images (LowpGrid.Pixels pixels); every output that is not nil is written.
type LowpArgs struct {
	Images int
	// InBF16 (BF16) or InU8 (Int8) is the input grid, CinP channels: a
	// BF16 layer reads bfloat16 values, an Int8 layer codes c standing for
	// c·inScale (NewLowpConv).
	InBF16 []uint16
	InU8   []uint8
	// Skip, if not nil, is a bfloat16 grid of CoutP channels added to the
	// result before ReLU (a residual block's input).
	Skip []uint16
	// ReLU applies max(y, 0) after the bias and Skip.
	ReLU bool
	// OutBF16 is the result as a bfloat16 grid of CoutP channels.
	OutBF16 []uint16
	// OutU8 is the result as a grid of CoutP channels of unsigned 8-bit
	// codes of OutScale a step (rounded to the nearest, within 0 to 255):
	// an Int8 layer's input.
	OutU8    []uint8
	OutScale float32
	// OutF32 is the result in float32, one row of OutLd values per image
	// pixel (i·H·W + y·W + x), the first Cout of each written.
	OutF32 []float32
	OutLd  int
}

// lowpBuffers are a Workspace's buffers for LowpConv.
type lowpBuffers struct {
	scratch []int32 // two 32×32 blocks of accumulators
	rowmap  []int32 // Dest of each computed pixel, for images images
	images  int
	// accF and accI are the portable implementation's accumulators.
	accF []float32
	accI []int32
}

// rowmapFor returns the grid's Dest for the computed pixels of images
// images, made once per size.
func (b *lowpBuffers) rowmapFor(g LowpGrid, images int) []int32 {
	n := g.Computed(images)
	if len(b.rowmap) < n || b.images != images {
		if cap(b.rowmap) < n {
			b.rowmap = make([]int32, n)
		}
		b.rowmap = b.rowmap[:n]
		for r := range n {
			b.rowmap[r] = int32(g.Dest(r, images))
		}
		b.images = images
	}
	return b.rowmap
}

// LowpConv runs the convolution l on a.Images images with w's buffers, on
// the calling goroutine: y = conv(x)·scale + bias (+ Skip), through ReLU if
// a.ReLU, into each output a names. Grid outputs get zeros on the
// layout's zero pixels, so they can be the next layer's input. The
// result is the same on every implementation (to the last bit for Int8;
// for BF16 the order of the float32 additions may differ by CPU). It
// panics if a slice is too short or the input of l's precision is
// missing.
func (w *Workspace) LowpConv(l *LowpConv, a *LowpArgs) {
	g := l.grid
	px := g.Pixels(a.Images)
	bad := a.Images < 0 ||
		(l.prec == BF16 && len(a.InBF16) < px*l.cinP) || (l.prec == Int8 && len(a.InU8) < px*l.cinP) ||
		(a.Skip != nil && len(a.Skip) < px*l.coutP) || (a.OutBF16 != nil && len(a.OutBF16) < px*l.coutP) ||
		(a.OutU8 != nil && len(a.OutU8) < px*l.coutP) ||
		(a.OutF32 != nil && (a.OutLd < l.cout || len(a.OutF32) < (a.Images*g.H*g.W-1)*a.OutLd+l.cout))
	if bad {
		panic(fmt.Sprintf("kernels: LowpConv(%v) of %d images: input, skip or output too short, or OutLd %d < %d", l.prec, a.Images, a.OutLd, l.cout))
	}
	if a.Images == 0 {
		return
	}
	lb := &w.lowp
	if lb.scratch == nil {
		lb.scratch = make([]int32, 2*32*32)
	}
	rowmap := lb.rowmapFor(g, a.Images)
	im := lowpCurrent(l.prec)
	im.conv(l, a, lb, rowmap)
}

// lowpImpl is an implementation of the reduced-precision convolutions.
type lowpImpl struct {
	name string
	prec Lowp
	conv func(l *LowpConv, a *LowpArgs, b *lowpBuffers, rowmap []int32)
}

var (
	lowpMu sync.Mutex
	// lowpImpls are the implementations of each precision this CPU (and
	// its operating system) runs, best first, the portable one last; made
	// at the first use (asking the OS for AMX's registers).
	lowpImpls map[Lowp][]*lowpImpl
	// lowpUse is the implementation in use for each precision.
	lowpUse map[Lowp]*lowpImpl
)

// lowpInit fills lowpImpls and lowpUse once; callers hold lowpMu.
func lowpInit() {
	if lowpImpls != nil {
		return
	}
	lowpImpls, lowpUse = map[Lowp][]*lowpImpl{}, map[Lowp]*lowpImpl{}
	for _, p := range []Lowp{BF16, Int8} {
		l := append(platformLowp(p), &lowpImpl{name: "generic", prec: p, conv: lowpConvGeneric})
		lowpImpls[p] = l
		lowpUse[p] = l[0]
	}
}

// lowpCurrent returns the implementation in use for p.
func lowpCurrent(p Lowp) *lowpImpl {
	lowpMu.Lock()
	defer lowpMu.Unlock()
	lowpInit()
	return lowpUse[p]
}

// LowpImplementations returns the names of the implementations of p this
// CPU runs, best first; "generic" (portable Go, slow) is always the last.
// "amx" needs AMX-BF16 (BF16) or AMX-INT8 (Int8) and the operating
// system's leave to use the tile registers, which the first call asks for
// (on Linux, arch_prctl(ARCH_REQ_XCOMP_PERM)).
func LowpImplementations(p Lowp) []string {
	lowpMu.Lock()
	defer lowpMu.Unlock()
	lowpInit()
	var names []string
	for _, im := range lowpImpls[p] {
		names = append(names, im.name)
	}
	return names
}

// LowpImplementation returns the name of the implementation of p in use.
func LowpImplementation(p Lowp) string { return lowpCurrent(p).name }

// SetLowpImplementation selects the implementation of p that later
// convolutions use ("" for the best this CPU runs), for tests and
// benchmarks to compare them. It returns an error, and changes nothing, if
// this CPU does not run it.
func SetLowpImplementation(p Lowp, name string) error {
	lowpMu.Lock()
	defer lowpMu.Unlock()
	lowpInit()
	l := lowpImpls[p]
	if l == nil {
		return fmt.Errorf("kernels: no precision %v", p)
	}
	if name == "" {
		lowpUse[p] = l[0]
		return nil
	}
	for _, im := range l {
		if im.name == name {
			lowpUse[p] = im
			return nil
		}
	}
	names := make([]string, len(l))
	for i, im := range l {
		names[i] = im.name
	}
	return fmt.Errorf("kernels: %v implementation %q is not run by this CPU (have %v)", p, name, names)
}

// lowpConvGeneric is the portable implementation, and the definition the
// assembly is checked against: each output accumulated tap by tap, channel
// by channel (BF16's products exact in float32, each addition rounded:
// TDPBF16PS's documented order; Int8's exact in int32), then the float32
// epilogue, operation by operation as the assembly does it.
func lowpConvGeneric(l *LowpConv, a *LowpArgs, b *lowpBuffers, rowmap []int32) {
	g := l.grid
	lead, n := g.Lead(), g.Computed(a.Images)
	wf, wi := l.unpacked()
	ch, co := l.cinP, l.coutP
	if len(b.accF) < co {
		b.accF, b.accI = make([]float32, co), make([]int32, co)
	}
	accF, accI := b.accF[:co], b.accI[:co]
	for r := range n {
		base := (lead + r) * ch
		clear(accF)
		clear(accI)
		for t, off := range l.taps {
			for c := range ch {
				if l.prec == Int8 {
					x := int32(a.InU8[base+off*ch+c])
					for o, w := range wi[(t*ch+c)*co : (t*ch+c+1)*co] {
						accI[o] += x * w
					}
					continue
				}
				x := FromBF16(a.InBF16[base+off*ch+c])
				for o, w := range wf[(t*ch+c)*co : (t*ch+c+1)*co] {
					p := x * w // exact: 8 bits of mantissa times 8
					accF[o] = float32(accF[o] + p)
				}
			}
		}
		d := int(rowmap[r])
		for o := range co {
			y := accF[o]
			if l.prec == Int8 {
				y = float32(accI[o])
			}
			y = float32(y*l.scale[o]) + l.bias[o] // rounded twice, as the assembly does
			lowpStore(l, a, lead+r, d, o, y)
		}
	}
}

// unpacked returns the weights as [tap][cinP][coutP]: BF16's as float32,
// Int8's codes as int32 (made once).
func (l *LowpConv) unpacked() ([]float32, []int32) {
	l.unpackOnce.Do(func() {
		n := len(l.taps) * l.cinP * l.coutP
		if l.prec == BF16 {
			l.wf = make([]float32, n)
		} else {
			l.wi = make([]int32, n)
		}
		for t := range l.taps {
			for c := range l.cinP {
				for o := range l.coutP {
					q := l.weight(t, c, o)
					if l.prec == BF16 {
						l.wf[(t*l.cinP+c)*l.coutP+o] = FromBF16(uint16(q))
					} else {
						l.wi[(t*l.cinP+c)*l.coutP+o] = q
					}
				}
			}
		}
	})
	return l.wf, l.wi
}

// lowpStore is the epilogue of output channel o of grid pixel px (image
// pixel d, -1 for a zero pixel) with y = acc·scale + bias.
func lowpStore(l *LowpConv, a *LowpArgs, px, d, o int, y float32) {
	i := px*l.coutP + o
	if d < 0 {
		if a.OutBF16 != nil {
			a.OutBF16[i] = 0
		}
		if a.OutU8 != nil {
			a.OutU8[i] = 0
		}
		return
	}
	if a.Skip != nil {
		y = y + FromBF16(a.Skip[i])
	}
	if a.ReLU && !(y > 0) {
		y = 0
	}
	if a.OutBF16 != nil {
		a.OutBF16[i] = ToBF16(y)
	}
	if a.OutU8 != nil {
		a.OutU8[i] = quantizeU8(y, 1/a.OutScale)
	}
	if a.OutF32 != nil && o < l.cout {
		a.OutF32[d*a.OutLd+o] = y
	}
}

// PutBF16 writes images images of x (pixel by pixel, row by row, cin
// channels a pixel) into dst, a bfloat16 grid of c ≥ cin channels of
// Pixels(images) pixels, rounded to bfloat16, every other element of dst
// (the zero pixels, channels past cin) zero. It panics if a slice is too
// short.
func (g LowpGrid) PutBF16(dst []uint16, c int, x []float32, cin, images int) {
	dst = dst[:g.Pixels(images)*c]
	_ = x[:images*g.H*g.W*cin]
	clear(dst)
	for i := range images {
		for y := range g.H {
			for xx := range g.W {
				src := x[((i*g.H+y)*g.W+xx)*cin:][:cin]
				d := dst[g.Pixel(i, y, xx)*c:][:cin]
				for j, v := range src {
					if v != 0 { // most input planes are
						d[j] = ToBF16(v)
					}
				}
			}
		}
	}
}

// PutU8 is PutBF16 for an Int8 layer's input grid: each value v of x
// becomes the code of v at scale a step (rounded to the nearest, within 0
// to 255).
func (g LowpGrid) PutU8(dst []uint8, c int, x []float32, cin, images int, scale float32) {
	dst = dst[:g.Pixels(images)*c]
	_ = x[:images*g.H*g.W*cin]
	clear(dst)
	inv := 1 / scale
	for i := range images {
		for y := range g.H {
			for xx := range g.W {
				src := x[((i*g.H+y)*g.W+xx)*cin:][:cin]
				d := dst[g.Pixel(i, y, xx)*c:][:cin]
				for j, v := range src {
					if v != 0 { // most input planes are
						d[j] = quantizeU8(v, inv)
					}
				}
			}
		}
	}
}
