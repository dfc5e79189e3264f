// Hot file: the network's 3x3 convolutions run here in inference. Keep the
// driver allocation-free in steady state; measure with BenchmarkWinograd
// and the network's BenchmarkInference after any change.

package kernels

import (
	"fmt"
	"sync"
	"sync/atomic"

	"taflab/internal/hugepage"
)

// Winograd F(4x4, 3x3): a 3x3 convolution computed 4x4 output pixels at a
// time from 6x6 input tiles as Y = Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A, with the
// element-wise products summed over the input channels: 36 independent
// GEMMs (one per element of the 6x6 transformed tile) of [tiles × Cin] ×
// [Cin × Cout]. An 11x11 board is 3x3 tiles (12x12, the last row and column
// dropped), so a convolution does 36·9 = 324 multiply-adds per input and
// output channel pair instead of the direct method's 9·121 = 1089: 3.4
// times fewer, for the price of the transforms (a few dozen additions per
// tile and channel) and a little float32 precision (the points 0, ±1, ±2).
// The GEMMs reuse the micro-kernels and the A packing of Gemm, with the
// transformed weights packed once as the kernels' B panels.

const (
	// winoBlockTiles is about how many tiles a block of whole images holds:
	// the transformed input and the GEMMs' results of a block (36 × tiles ×
	// channels each) then stay in L2 between the transforms and the GEMMs.
	winoBlockTiles = 36
	winoElems      = 36 // elements of a transformed 6x6 tile
)

// Winograd3x3 is a 3x3 convolution (stride 1, zero padding 1: the output
// has the input's height and width) of images of H×W pixels with Cin input
// and Cout output channels, its weights transformed once for
// [Workspace.Winograd3x3]. Images are stored pixel by pixel, row by row,
// channels last (NHWC). It is immutable after NewWinograd3x3 except for the
// packed weights, made once per implementation on first use (guarded by
// mu), so any number of goroutines may use it at once.
type Winograd3x3 struct {
	h, w, cin, cout int
	cinP            int       // cin rounded up to a multiple of 8: the GEMMs' depth
	th, tw          int       // tiles down and across
	u               []float32 // transformed weights [36][cinP][cout], rows past cin zero
	gk              []float64 // scratch of transform

	mu sync.Mutex
	// packed[i] is u packed as B panels for impls[i] (see packedFor),
	// written once under mu, read atomically.
	packed []atomic.Pointer[[]float32]
}

// NewWinograd3x3 transforms the weights of a 3x3 convolution of h×w images:
// w[(t*cin+c)*cout+o] is the weight from input channel c at tap t to output
// channel o, where tap t is the pixel t/3-1 rows and t%3-1 columns away
// (the layout of the im2col GEMM's B). It panics if a dimension is not
// positive or the weights are too short.
func NewWinograd3x3(h, w, cin, cout int, weights []float32) *Winograd3x3 {
	if h < 1 || w < 1 || cin < 1 || cout < 1 {
		panic(fmt.Sprintf("kernels: Winograd3x3 of %d×%d images, %d to %d channels", h, w, cin, cout))
	}
	if len(weights) < 9*cin*cout {
		panic(fmt.Sprintf("kernels: Winograd3x3 weights too short: len %d, need %d", len(weights), 9*cin*cout))
	}
	cv := &Winograd3x3{h: h, w: w, cin: cin, cout: cout, cinP: roundUp(cin, 8),
		th: ceilDiv(h, 4), tw: ceilDiv(w, 4), packed: make([]atomic.Pointer[[]float32], len(impls))}
	cv.u = make([]float32, winoElems*cv.cinP*cout)
	cv.transform(weights)
	return cv
}

// SetWeights transforms new weights into cv (and into the packed copies
// already made), for a caller whose weights change, a trainer's at each
// step: w as NewWinograd3x3 takes it. It must not run at the same time as
// a convolution with cv. It panics if the weights are too short.
func (cv *Winograd3x3) SetWeights(weights []float32) {
	if len(weights) < 9*cv.cin*cv.cout {
		panic(fmt.Sprintf("kernels: Winograd3x3 weights too short: len %d, need %d", len(weights), 9*cv.cin*cv.cout))
	}
	cv.transform(weights)
	cv.mu.Lock()
	defer cv.mu.Unlock()
	for i := range cv.packed {
		if p := cv.packed[i].Load(); p != nil {
			cv.pack(impls[i], *p)
		}
	}
}

// transform sets u = G g Gᵀ for every pair of channels, in float64 and
// exactly rounded, a row of output channels at a time.
func (cv *Winograd3x3) transform(weights []float32) {
	cin, cout, cinP := cv.cin, cv.cout, cv.cinP
	g := &winoG
	// gk[a][v][o] = Σu G[a][u]·k[u][v][o] for one input channel.
	if len(cv.gk) < 18*cout {
		cv.gk = make([]float64, 18*cout)
	}
	gk := cv.gk[:18*cout]
	for c := range cin {
		clear(gk)
		for u := range 3 {
			for v := range 3 {
				k := weights[((u*3+v)*cin+c)*cout : ((u*3+v)*cin+c+1)*cout]
				for a := range 6 {
					if ga := g[a][u]; ga != 0 {
						row := gk[(a*3+v)*cout : (a*3+v+1)*cout]
						for o, x := range k {
							row[o] += ga * float64(x)
						}
					}
				}
			}
		}
		for a := range 6 {
			r0, r1, r2 := gk[(a*3)*cout:(a*3+1)*cout], gk[(a*3+1)*cout:(a*3+2)*cout], gk[(a*3+2)*cout:(a*3+3)*cout]
			for b := range 6 {
				g0, g1, g2 := g[b][0], g[b][1], g[b][2]
				dst := cv.u[((a*6+b)*cinP+c)*cout : ((a*6+b)*cinP+c+1)*cout]
				for o := range dst {
					dst[o] = float32(r0[o]*g0 + r1[o]*g1 + r2[o]*g2)
				}
			}
		}
	}
}

// winoG is Winograd F(4x4, 3x3)'s G, which transforms the weights.
var winoG = [6][3]float64{
	{1.0 / 4, 0, 0},
	{-1.0 / 6, -1.0 / 6, -1.0 / 6},
	{-1.0 / 6, 1.0 / 6, -1.0 / 6},
	{1.0 / 24, 1.0 / 12, 1.0 / 6},
	{1.0 / 24, -1.0 / 12, 1.0 / 6},
	{0, 0, 1},
}

// kBlock is the depth of the packed panels gemmIn uses for a depth of k.
func (im *impl) kBlock(k int) int {
	kc := ceilDiv(k, ceilDiv(k, im.kc))
	return min(roundUp(kc, 4), k)
}

// packedFor returns the transformed weights packed for im: for each
// element e, the panel of u[e] (cinP × cout) as packB lays it out, k block
// after k block (block pc at pc·nP, nP = cout rounded up to nr).
func (cv *Winograd3x3) packedFor(im *impl) []float32 {
	idx := -1
	for i, x := range impls {
		if x == im {
			idx = i
		}
	}
	if p := cv.packed[idx].Load(); p != nil {
		return *p
	}
	cv.mu.Lock()
	defer cv.mu.Unlock()
	if p := cv.packed[idx].Load(); p != nil {
		return *p
	}
	buf := make([]float32, winoElems*roundUp(cv.cout, im.nr)*cv.cinP)
	cv.pack(im, buf)
	cv.packed[idx].Store(&buf)
	return buf
}

// pack packs u into buf for im (see packedFor).
func (cv *Winograd3x3) pack(im *impl, buf []float32) {
	k, n := cv.cinP, cv.cout
	kc, nP := im.kBlock(k), roundUp(n, im.nr)
	for e := range winoElems {
		panel := buf[e*nP*k : (e+1)*nP*k]
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			packB(im, false, cv.u[e*k*n:(e+1)*k*n], n, pc, kb, 0, n, panel[pc*nP:])
		}
	}
}

// winoBuffers are a Workspace's buffers for Winograd3x3: the zero-padded
// images of a block, their transformed tiles and the GEMMs' results.
type winoBuffers struct {
	pad, v, m []float32
	dy        []float32 // Winograd3x3GradU: a block's output gradient, padded to whole tiles
}

// growBuf makes a buffer at least n long, reusing it if it is.
func growBuf(b []float32, n int) []float32 {
	if cap(b) < n {
		return hugepage.Make[float32](n)
	}
	return b[:n]
}

// Winograd3x3 computes out = act(conv(x) + bias + skip) for images images
// of cv's size, on the calling goroutine with w's buffers: x holds
// images·H·W pixels of Cin channels, out and skip (nil: none) of Cout, bias
// Cout values; act is ReLU if relu is set, else the identity. out must not
// overlap x. It panics if a slice is too short. ([WinogradTeam] splits
// one convolution over several cores.)
func (w *Workspace) Winograd3x3(cv *Winograd3x3, images int, x, bias, skip, out []float32, relu bool) {
	px := cv.h * cv.w
	if images < 0 || len(x) < images*px*cv.cin || len(out) < images*px*cv.cout || len(bias) < cv.cout ||
		(skip != nil && len(skip) < images*px*cv.cout) {
		panic(fmt.Sprintf("kernels: Winograd3x3 of %d images of %d pixels: len(x) %d, len(out) %d, len(skip) %d, len(bias) %d",
			images, px, len(x), len(out), len(skip), len(bias)))
	}
	if images == 0 {
		return
	}
	winoConv(current.Load(), &w.ws, &w.wino, cv, images, x, bias, skip, out, relu)
}

// winoConv is Winograd3x3 on valid arguments.
func winoConv(im *impl, ws *workspace, wb *winoBuffers, cv *Winograd3x3, images int, x, bias, skip, out []float32, relu bool) {
	packed := cv.packedFor(im)
	h, w, cinP, cout := cv.h, cv.w, cv.cinP, cv.cout
	tpi := cv.th * cv.tw
	per := max(1, winoBlockTiles/tpi)
	ph, pw := 4*cv.th+2, 4*cv.tw+2
	nP := roundUp(cout, im.nr)
	tiles := im.wholeSlivers(min(per, images) * tpi)
	wb.pad = growBuf(wb.pad, min(per, images)*ph*pw*cinP)
	wb.v = growBuf(wb.v, winoElems*tiles*cinP)
	wb.m = growBuf(wb.m, winoElems*tiles*cout)
	inT, outT, _ := im.winoTransforms()
	for i0 := 0; i0 < images; i0 += per {
		nb := min(per, images-i0)
		T := nb * tpi
		cv.padImages(wb.pad, x, i0, nb)
		// Tile by tile, element by element: V[t][e][cinP] and M[t][e][cout],
		// so that each tile's transforms read and write one contiguous run
		// of memory, and the GEMM of element e has rows 36 elements apart.
		for t := range T {
			img, tr, tf := t/tpi, t%tpi/cv.tw, t%cv.tw
			src := wb.pad[((img*ph+4*tr)*pw+4*tf)*cinP:]
			inT(src, pw*cinP, cinP, wb.v[t*winoElems*cinP:], cinP, cinP)
		}
		// The GEMMs run on whole slivers: a last sliver of 3 tiles, say, is
		// computed as 4 (the extra tile's zeros and result unused) so that it
		// is packed by the assembly and written by the kernel straight to M.
		Tg := im.wholeSlivers(T)
		clear(wb.v[T*winoElems*cinP : Tg*winoElems*cinP])
		for e := range winoElems {
			gemmPacked(im, ws, Tg, cout, cinP, wb.v[e*cinP:], winoElems*cinP, packed[e*nP*cinP:(e+1)*nP*cinP], nP,
				wb.m[e*cout:], winoElems*cout)
		}
		var sk []float32
		for t := range T {
			img, tr, tf := t/tpi, t%tpi/cv.tw, t%cv.tw
			off := ((i0+img)*h*w + 4*tr*w + 4*tf) * cout
			if skip != nil {
				sk = skip[off:]
			}
			outT(wb.m[t*winoElems*cout:], cout, out[off:], w*cout, cout, sk, bias, min(4, h-4*tr), min(4, w-4*tf), cout, relu)
		}
	}
}

// wholeSlivers returns the rows, m or a few more, at which every sliver of
// a GEMM's A is a kernel's full width, packed by the assembly loops (4 rows
// or more).
func (im *impl) wholeSlivers(m int) int {
	r := m % im.mr
	if r == 0 {
		return m
	}
	for _, e := range im.edges {
		if r <= e.mr && e.mr >= 4 {
			return m - r + e.mr
		}
	}
	return roundUp(m, im.mr)
}

// padImages copies images [i0, i0+nb) of x into dst with a border of zeros
// (one pixel above and left, up to the tiles' extent below and right) and
// their channels padded with zeros to cinP.
func (cv *Winograd3x3) padImages(dst, x []float32, i0, nb int) {
	h, w, cin, cinP := cv.h, cv.w, cv.cin, cv.cinP
	ph, pw := 4*cv.th+2, 4*cv.tw+2
	for img := range nb {
		d := dst[img*ph*pw*cinP : (img+1)*ph*pw*cinP]
		src := x[(i0+img)*h*w*cin : (i0+img+1)*h*w*cin]
		for r := range ph {
			row := d[r*pw*cinP : (r+1)*pw*cinP]
			if r == 0 || r > h {
				clear(row)
				continue
			}
			clear(row[:cinP])
			clear(row[(w+1)*cinP:])
			s := src[(r-1)*w*cin : r*w*cin]
			if cin == cinP {
				copy(row[cinP:(w+1)*cinP], s)
				continue
			}
			for c := range w {
				copy(row[(c+1)*cinP:(c+1)*cinP+cin], s[c*cin:(c+1)*cin])
				clear(row[(c+1)*cinP+cin : (c+2)*cinP])
			}
		}
	}
}

// gemmPacked is gemmIn for C = A·B with B packed beforehand: bp is a panel
// of nP columns packed as packedFor does, of which C gets the first n.
func gemmPacked(im *impl, ws *workspace, m, n, k int, a []float32, lda int, bp []float32, nP int, c []float32, ldc int) {
	mr := im.mr
	kc := im.kBlock(k)
	mc := roundUp(ceilDiv(m, ceilDiv(m, im.mc)), mr)
	ws.grow(mc*kc, 0, mr*im.nr)
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		b := bp[pc*nP:]
		for ic := 0; ic < m; ic += mc {
			mb := min(mc, m-ic)
			packA(im, false, a, lda, ic, mb, pc, kb, 1, ws.a)
			macroKernel(im, mb, n, kb, ws.a, b, ws.tmp, c[ic*ldc:], ldc, pc > 0)
		}
	}
}

// winoInput is the portable input transform: dst[e*lde+c] = (Bᵀ d B)[e/6][e%6]
// of d[r][j] = src[r*ldRow+j*ldPix+c], for c < n.
func winoInput(src []float32, ldRow, ldPix int, dst []float32, lde, n int) {
	for c := range n {
		var t [36]float32
		for j := range 6 {
			s := src[j*ldPix+c:]
			t0, t1, t2, t3, t4, t5 := bt(s[0], s[ldRow], s[2*ldRow], s[3*ldRow], s[4*ldRow], s[5*ldRow])
			t[j], t[6+j], t[12+j], t[18+j], t[24+j], t[30+j] = t0, t1, t2, t3, t4, t5
		}
		for i := range 6 {
			r := t[i*6 : i*6+6]
			v0, v1, v2, v3, v4, v5 := bt(r[0], r[1], r[2], r[3], r[4], r[5])
			d := dst[i*6*lde+c:]
			d[0], d[lde], d[2*lde], d[3*lde], d[4*lde], d[5*lde] = v0, v1, v2, v3, v4, v5
		}
	}
}

// bt is Bᵀ·d for one column of a tile (the assembly's formulas).
func bt(d0, d1, d2, d3, d4, d5 float32) (t0, t1, t2, t3, t4, t5 float32) {
	t0 = 4*d0 - 5*d2 + d4
	t1 = (d3 + d4) - 4*(d1+d2)
	t2 = (d4 - d3) + 4*(d1-d2)
	t3 = (d4 - d2) + 2*(d3-d1)
	t4 = (d4 - d2) - 2*(d3-d1)
	t5 = 4*d1 - 5*d3 + d5
	return
}

// at is Aᵀ·m for one column of a transformed tile.
func at(m0, m1, m2, m3, m4, m5 float32) (o0, o1, o2, o3 float32) {
	a, b, c, d := m1+m2, m1-m2, m3+m4, m3-m4
	return m0 + a + c, b + 2*d, a + 4*c, b + 8*d + m5
}

// winoOutput is the portable output transform: y = (Aᵀ M A)[i][j] of
// M[a][b] = m[(a*6+b)*lde+c], plus bias[c], plus skip[off] if skip is not
// nil, through ReLU if relu, into dst[off], off = i*ldRow+j*ldPix+c, for
// i < rows, j < cols, c < n.
func winoOutput(m []float32, lde int, dst []float32, ldRow, ldPix int, skip, bias []float32, rows, cols, n int, relu bool) {
	for c := range n {
		var t [24]float32
		for j := range 6 {
			s := m[j*lde+c:]
			o0, o1, o2, o3 := at(s[0], s[6*lde], s[12*lde], s[18*lde], s[24*lde], s[30*lde])
			t[j], t[6+j], t[12+j], t[18+j] = o0, o1, o2, o3
		}
		for i := range rows {
			r := t[i*6 : i*6+6]
			y0, y1, y2, y3 := at(r[0], r[1], r[2], r[3], r[4], r[5])
			ys := [4]float32{y0, y1, y2, y3}
			for j := range cols {
				off := i*ldRow + j*ldPix + c
				v := ys[j] + bias[c]
				if skip != nil {
					v += skip[off]
				}
				if relu {
					v = max(v, 0)
				}
				dst[off] = v
			}
		}
	}
}

// winoGradBlockTiles is about how many tiles Winograd3x3GradU takes at a
// time: the depth of its GEMMs.
const winoGradBlockTiles = 256

// GradUSize returns the length of the transformed weight gradient that
// Winograd3x3GradU accumulates and AddWeightGrad reads: 36 × Cin (rounded
// up to 8) × Cout.
func (cv *Winograd3x3) GradUSize() int { return winoElems * cv.cinP * cv.cout }

// Winograd3x3GradU adds to du (GradUSize long) the gradient of a loss with
// respect to cv's transformed weights, for images images with input x and
// output gradient dy (as Winograd3x3 takes and gives them, before bias, skip
// and ReLU): Σ over tiles of (Bᵀ d B) ⊙ (A dy Aᵀ), 36 GEMMs of depth the
// tiles. [Winograd3x3.AddWeightGrad] takes it back to the weights. It runs
// on the calling goroutine with w's buffers and panics if a slice is too
// short.
func (w *Workspace) Winograd3x3GradU(cv *Winograd3x3, images int, x, dy, du []float32) {
	px := cv.h * cv.w
	if images < 0 || len(x) < images*px*cv.cin || len(dy) < images*px*cv.cout || len(du) < cv.GradUSize() {
		panic(fmt.Sprintf("kernels: Winograd3x3GradU of %d images of %d pixels: len(x) %d, len(dy) %d, len(du) %d",
			images, px, len(x), len(dy), len(du)))
	}
	if images == 0 {
		return
	}
	im := current.Load()
	wb := &w.wino
	h, wd, cinP, cout := cv.h, cv.w, cv.cinP, cv.cout
	tpi := cv.th * cv.tw
	per := max(1, winoGradBlockTiles/tpi)
	ph, pw := 4*cv.th+2, 4*cv.tw+2
	qh, qw := 4*cv.th, 4*cv.tw // dy padded to whole tiles
	nb0 := min(per, images)
	wb.pad = growBuf(wb.pad, nb0*ph*pw*cinP)
	wb.dy = growBuf(wb.dy, nb0*qh*qw*cout)
	wb.v = growBuf(wb.v, winoElems*nb0*tpi*cinP)
	wb.m = growBuf(wb.m, winoElems*nb0*tpi*cout)
	inT, _, gradT := im.winoTransforms()
	for i0 := 0; i0 < images; i0 += per {
		nb := min(per, images-i0)
		T := nb * tpi
		cv.padImages(wb.pad, x, i0, nb)
		for img := range nb {
			d := wb.dy[img*qh*qw*cout : (img+1)*qh*qw*cout]
			src := dy[(i0+img)*px*cout : (i0+img+1)*px*cout]
			for r := range qh {
				row := d[r*qw*cout : (r+1)*qw*cout]
				if r >= h {
					clear(row)
					continue
				}
				copy(row[:wd*cout], src[r*wd*cout:(r+1)*wd*cout])
				clear(row[wd*cout:])
			}
		}
		for t := range T {
			img, tr, tf := t/tpi, t%tpi/cv.tw, t%cv.tw
			inT(wb.pad[((img*ph+4*tr)*pw+4*tf)*cinP:], pw*cinP, cinP, wb.v[t*winoElems*cinP:], cinP, cinP)
			gradT(wb.dy[((img*qh+4*tr)*qw+4*tf)*cout:], qw*cout, cout, wb.m[t*winoElems*cout:], cout, cout)
		}
		for e := range winoElems {
			gemmIn(im, &w.ws, true, false, cinP, cout, T, 1, wb.v[e*cinP:], winoElems*cinP,
				wb.m[e*cout:], winoElems*cout, 1, du[e*cinP*cout:(e+1)*cinP*cout], cout)
		}
	}
}

// AddWeightGrad adds to dw (the weights' layout, as NewWinograd3x3 takes
// them) the gradient given by du from Winograd3x3GradU: since U = G g Gᵀ,
// dg = Gᵀ dU G. It panics if a slice is too short.
func (cv *Winograd3x3) AddWeightGrad(du, dw []float32) {
	cin, cout, cinP := cv.cin, cv.cout, cv.cinP
	if len(du) < cv.GradUSize() || len(dw) < 9*cin*cout {
		panic(fmt.Sprintf("kernels: AddWeightGrad: len(du) %d, len(dw) %d", len(du), len(dw)))
	}
	g := &winoG
	for u := range 3 {
		for v := range 3 {
			for a := range 6 {
				for b := range 6 {
					coef := float32(g[a][u] * g[b][v])
					if coef == 0 {
						continue
					}
					for c := range cin {
						Axpy(coef, du[((a*6+b)*cinP+c)*cout:((a*6+b)*cinP+c+1)*cout], dw[((u*3+v)*cin+c)*cout:((u*3+v)*cin+c+1)*cout])
					}
				}
			}
		}
	}
}

// winoGrad is the portable output-gradient transform: dst[e*lde+c] =
// (A y Aᵀ)[e/6][e%6] of y[r][j] = src[r*ldRow+j*ldPix+c], for c < n.
func winoGrad(src []float32, ldRow, ldPix int, dst []float32, lde, n int) {
	for c := range n {
		var t [24]float32 // 6×4
		for j := range 4 {
			s := src[j*ldPix+c:]
			z0, z1, z2, z3, z4, z5 := ga(s[0], s[ldRow], s[2*ldRow], s[3*ldRow])
			t[j], t[4+j], t[8+j], t[12+j], t[16+j], t[20+j] = z0, z1, z2, z3, z4, z5
		}
		for a := range 6 {
			r := t[a*4 : a*4+4]
			z0, z1, z2, z3, z4, z5 := ga(r[0], r[1], r[2], r[3])
			d := dst[a*6*lde+c:]
			d[0], d[lde], d[2*lde], d[3*lde], d[4*lde], d[5*lde] = z0, z1, z2, z3, z4, z5
		}
	}
}

// ga is A·y for one column of a 4×4 tile (the assembly's formulas).
func ga(y0, y1, y2, y3 float32) (z0, z1, z2, z3, z4, z5 float32) {
	p, q := y0+y2, y1+y3
	r, s := y0+4*y2, y1+4*y3
	return y0, p + q, p - q, r + 2*s, r - 2*s, y3
}

// WinogradTeam runs Winograd3x3 convolutions split over several parts
// that work together in phases ([RunPhases]) on shared buffers: the input
// transform split by input channels, the 36 GEMMs by element, the output
// transform by output channels. No part repeats another's work, so it
// suits a convolution of one image, tens of microseconds, on several
// cores. The result is bitwise what Workspace.Winograd3x3 computes. A
// WinogradTeam is for one goroutine at a time.
type WinogradTeam struct {
	parts int
	ws    []Workspace // one per part; ws[0]'s buffers are the shared ones
	// The running convolution, written by Run before RunPhases starts the
	// parts and only read while they run.
	cv            *Winograd3x3
	im            *impl
	x, bias, skip []float32
	out           []float32
	relu          bool
	i0, nb, T, Tg int
	run           func(part, phase int) // t.phase, as a func value made once
}

// NewWinogradTeam returns a team of parts parts (at least 1).
func NewWinogradTeam(parts int) *WinogradTeam {
	t := &WinogradTeam{parts: max(parts, 1)}
	t.ws = make([]Workspace, t.parts)
	t.run = t.phase
	return t
}

// Run is [Workspace.Winograd3x3] with the work split over t's parts.
func (t *WinogradTeam) Run(cv *Winograd3x3, images int, x, bias, skip, out []float32, relu bool) {
	px := cv.h * cv.w
	if images < 0 || len(x) < images*px*cv.cin || len(out) < images*px*cv.cout || len(bias) < cv.cout ||
		(skip != nil && len(skip) < images*px*cv.cout) {
		panic(fmt.Sprintf("kernels: WinogradTeam.Run of %d images of %d pixels: len(x) %d, len(out) %d, len(skip) %d, len(bias) %d",
			images, px, len(x), len(out), len(skip), len(bias)))
	}
	im := current.Load()
	cv.packedFor(im)
	tpi := cv.th * cv.tw
	per := max(1, winoBlockTiles/tpi)
	nb0 := min(per, images)
	tiles := im.wholeSlivers(nb0 * tpi)
	wb := &t.ws[0].wino
	wb.pad = growBuf(wb.pad, nb0*(4*cv.th+2)*(4*cv.tw+2)*cv.cinP)
	wb.v = growBuf(wb.v, winoElems*tiles*cv.cinP)
	wb.m = growBuf(wb.m, winoElems*tiles*cv.cout)
	t.cv, t.im, t.x, t.bias, t.skip, t.out, t.relu = cv, im, x, bias, skip, out, relu
	for i0 := 0; i0 < images; i0 += per {
		t.i0, t.nb = i0, min(per, images-i0)
		t.T = t.nb * tpi
		t.Tg = im.wholeSlivers(t.T)
		RunPhases(t.parts, 3, t.run)
	}
	t.cv, t.im, t.x, t.bias, t.skip, t.out = nil, nil, nil, nil, nil, nil
}

// span returns part p of n things cut into t.parts runs.
func (t *WinogradTeam) span(n, p int) (int, int) { return p * n / t.parts, (p + 1) * n / t.parts }

// phase runs part p of phase ph of the block of images [t.i0, t.i0+t.nb).
func (t *WinogradTeam) phase(p, ph int) {
	cv, im, wb := t.cv, t.im, &t.ws[0].wino
	cinP, cout := cv.cinP, cv.cout
	tpi := cv.th * cv.tw
	ph0, pw := 4*cv.th+2, 4*cv.tw+2
	switch ph {
	case 0: // pad and transform input channels [c0, c1), whole vectors
		v0, v1 := t.span(cinP/8, p)
		c0, c1 := 8*v0, 8*v1
		if c0 < c1 {
			cv.padChannels(wb.pad, t.x, t.i0, t.nb, c0, c1)
			inT, _, _ := im.winoTransforms()
			for tile := range t.T {
				img, tr, tf := tile/tpi, tile%tpi/cv.tw, tile%cv.tw
				src := wb.pad[((img*ph0+4*tr)*pw+4*tf)*cinP+c0:]
				inT(src, pw*cinP, cinP, wb.v[tile*winoElems*cinP+c0:], cinP, c1-c0)
			}
		}
		if p == 0 {
			clear(wb.v[t.T*winoElems*cinP : t.Tg*winoElems*cinP])
		}
	case 1: // the GEMMs of elements [e0, e1)
		e0, e1 := t.span(winoElems, p)
		packed := cv.packedFor(im)
		nP := roundUp(cout, im.nr)
		for e := e0; e < e1; e++ {
			gemmPacked(im, &t.ws[p].ws, t.Tg, cout, cinP, wb.v[e*cinP:], winoElems*cinP, packed[e*nP*cinP:(e+1)*nP*cinP], nP,
				wb.m[e*cout:], winoElems*cout)
		}
	case 2: // transform output channels [j0, j1), whole vectors but the last
		v0, v1 := t.span((cout+7)/8, p)
		j0, j1 := 8*v0, min(8*v1, cout)
		if j0 >= j1 {
			return
		}
		_, outT, _ := im.winoTransforms()
		h, w := cv.h, cv.w
		var sk []float32
		for tile := range t.T {
			img, tr, tf := tile/tpi, tile%tpi/cv.tw, tile%cv.tw
			off := ((t.i0+img)*h*w+4*tr*w+4*tf)*cout + j0
			if t.skip != nil {
				sk = t.skip[off:]
			}
			outT(wb.m[tile*winoElems*cout+j0:], cout, t.out[off:], w*cout, cout, sk, t.bias[j0:], min(4, h-4*tr), min(4, w-4*tf), j1-j0, t.relu)
		}
	}
}

// padChannels is padImages for channels [c0, c1) only (c1 ≤ cinP).
func (cv *Winograd3x3) padChannels(dst, x []float32, i0, nb, c0, c1 int) {
	h, w, cin, cinP := cv.h, cv.w, cv.cin, cv.cinP
	ph, pw := 4*cv.th+2, 4*cv.tw+2
	k1 := min(c1, cin) // channels [c0, k1) come from x, [max(c0, k1), c1) are zero
	for img := range nb {
		d := dst[img*ph*pw*cinP : (img+1)*ph*pw*cinP]
		src := x[(i0+img)*h*w*cin : (i0+img+1)*h*w*cin]
		for r := range ph {
			for c := range pw {
				px := d[(r*pw+c)*cinP : (r*pw+c+1)*cinP]
				if r == 0 || r > h || c == 0 || c > w {
					clear(px[c0:c1])
					continue
				}
				if c0 < k1 {
					copy(px[c0:k1], src[((r-1)*w+c-1)*cin+c0:((r-1)*w+c-1)*cin+k1])
				}
				clear(px[max(c0, k1):c1])
			}
		}
	}
}

// winoTransforms returns im's Winograd transforms: its own where it has
// them, else the portable ones.
func (im *impl) winoTransforms() (in func(src []float32, ldRow, ldPix int, dst []float32, lde, n int),
	out func(m []float32, lde int, dst []float32, ldRow, ldPix int, skip, bias []float32, rows, cols, n int, relu bool),
	grad func(src []float32, ldRow, ldPix int, dst []float32, lde, n int)) {
	if im.winoIn == nil {
		return winoInput, winoOutput, winoGrad
	}
	return im.winoIn, im.winoOut, im.winoGrad
}
