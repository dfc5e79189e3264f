// Hot file: Gemm is where the network spends its time (every convolution,
// forward and backward, is one call). The blocked driver, the packing loops
// and the micro-kernels must stay allocation-free and fast; check the
// benchmarks (go test -bench Gemm ./net/kernels) after any change here.

package kernels

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// impl is one implementation of the GEMM core: a micro-kernel with its
// register tile and cache blocking.
type impl struct {
	name string
	// mr×nr is the register tile of the micro-kernel.
	mr, nr int
	// kc, mc, nc are the cache blocks: the depth of a packed panel, the
	// rows of a packed block of A (a multiple of mr), the columns of a packed
	// panel of B (a multiple of nr).
	kc, mc, nc int
	// kernel computes one mr×nr tile from a packed sliver of A (kc×mr,
	// a[p*mr+i]) and one of B (kc×nr, b[p*nr+j]):
	// c[i*ldc+j] = (c[i*ldc+j] if accum, else 0) + Σp a[p*mr+i]*b[p*nr+j].
	kernel kernelFunc
	// edges are narrower kernels (mr' < mr rows, ascending) for the last
	// rows of a block, so that a remainder of m does not cost a whole tile.
	edges []microKernel
	// packTrans, if not nil, replaces the portable packTrans for this
	// implementation (it must give the same layout).
	packTrans func(dst, src []float32, ld, kb, w, W int, alpha float32)
	// packCopy, if not nil, replaces the portable packCopy.
	packCopy func(dst, src []float32, ld, kb, w, W int, alpha float32)
	// vec are the vector loops that go with this implementation (nil: the
	// portable ones).
	vec *vecOps
	// winoIn and winoOut, if not nil, replace the portable Winograd
	// transforms winoInput and winoOutput (both or neither).
	winoIn  func(src []float32, ldRow, ldPix int, dst []float32, lde, n int)
	winoOut func(m []float32, lde int, dst []float32, ldRow, ldPix int, skip, bias []float32, rows, cols, n int, relu bool)
	// winoGrad, if not nil, replaces winoGrad (set with winoIn).
	winoGrad func(src []float32, ldRow, ldPix int, dst []float32, lde, n int)
}

// kernelFunc is a micro-kernel: see impl.kernel.
type kernelFunc func(kc int, a, b, c []float32, ldc int, accum bool)

// microKernel is a micro-kernel for slivers of mr rows.
type microKernel struct {
	mr     int
	kernel kernelFunc
}

// sliver returns the packed width and the kernel for a sliver of A with w
// valid rows: the narrowest kernel that covers them.
func (im *impl) sliver(w int) (int, kernelFunc) {
	if w < im.mr {
		for _, e := range im.edges {
			if w <= e.mr {
				return e.mr, e.kernel
			}
		}
	}
	return im.mr, im.kernel
}

// impls lists the implementations this CPU supports, best first; the
// platform files fill it in init.
var impls []*impl

// current is the implementation Gemm uses.
var current atomic.Pointer[impl]

func init() {
	impls = append(platformImpls(), genericImpl)
	current.Store(impls[0])
}

// Implementations returns the names of the implementations this CPU
// supports, best first; "generic" is always the last.
func Implementations() []string {
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.name
	}
	return names
}

// Implementation returns the name of the implementation in use.
func Implementation() string { return current.Load().name }

// SetImplementation selects the implementation used by every later call:
// "generic", "avx2" or "avx512", or "" for the best one this CPU supports.
// It returns an error, and changes nothing, if the name is unknown or the CPU
// lacks the features. It is safe to call concurrently with Gemm (a running
// call finishes with the implementation it started with).
func SetImplementation(name string) error {
	im, err := implByName(name)
	if err != nil {
		return err
	}
	current.Store(im)
	return nil
}

func implByName(name string) (*impl, error) {
	if name == "" {
		return impls[0], nil
	}
	for _, im := range impls {
		if im.name == name {
			return im, nil
		}
	}
	switch name {
	case "avx2", "avx512":
		return nil, fmt.Errorf("kernels: implementation %q is not supported by this CPU (have %v)", name, Implementations())
	}
	return nil, fmt.Errorf("kernels: unknown implementation %q (have %v)", name, Implementations())
}

// Gemm computes C = alpha·op(A)·op(B) + beta·C in single precision, where
// op(X) is X, or Xᵀ if the matching trans flag is set, op(A) is m×k, op(B) is
// k×n and C is m×n. All matrices are row-major with leading dimensions lda,
// ldb, ldc: A is stored m×k (k×m if transA), B is stored k×n (n×k if
// transB). With beta == 0, C is overwritten without being read (NaN and Inf
// in C do not propagate). Gemm runs on the calling goroutine; see
// [GemmParallel] to use several cores.
//
// Gemm panics on a programmer error, with a message saying which: a
// negative dimension, a leading dimension smaller than the stored row length
// (or than 1), or a slice too short for the matrix it holds.
func Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	gemmWith(current.Load(), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// checkGemm panics with a message on invalid Gemm arguments.
func checkGemm(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("kernels: negative dimension in Gemm (m=%d, n=%d, k=%d)", m, n, k))
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	checkMatrix("A", ar, ac, a, lda)
	checkMatrix("B", br, bc, b, ldb)
	checkMatrix("C", m, n, c, ldc)
}

// checkMatrix panics if s cannot hold a rows×cols row-major matrix with
// leading dimension ld.
func checkMatrix(name string, rows, cols int, s []float32, ld int) {
	if ld < max(1, cols) {
		panic(fmt.Sprintf("kernels: bad ld%s=%d for a %d×%d %s (need ≥ %d)", lower(name), ld, rows, cols, name, max(1, cols)))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if need := (rows-1)*ld + cols; len(s) < need {
		panic(fmt.Sprintf("kernels: %s too short: len %d, a %d×%d matrix with ld %d needs %d", name, len(s), rows, cols, ld, need))
	}
}

func lower(name string) string {
	return string(rune(name[0]) + 'a' - 'A')
}

// workspace holds the packing buffers of one Gemm call.
type workspace struct {
	a, b []float32 // packed block of A (mc×kc) and panel of B (kc×nc)
	tmp  []float32 // one mr×nr tile, for the edges of C
}

var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// grow makes the buffers at least the given sizes, reusing them if they are.
func (ws *workspace) grow(na, nb, nt int) {
	if cap(ws.a) < na {
		ws.a = make([]float32, na)
	}
	if cap(ws.b) < nb {
		ws.b = make([]float32, nb)
	}
	if cap(ws.tmp) < nt {
		ws.tmp = make([]float32, nt)
	}
	ws.a, ws.b, ws.tmp = ws.a[:na], ws.b[:nb], ws.tmp[:nt]
}

// Workspace holds the packing buffers of the Gemm calls made with it, for
// a caller that keeps one per goroutine (each chunk of a network's batch,
// say): its calls then never wait on, or grow buffers from, the shared pool
// that Gemm uses. The zero value is ready to use; it grows to the largest
// call made with it and allocates nothing after. It is not for concurrent
// use.
type Workspace struct {
	ws   workspace
	wino winoBuffers
	lowp lowpBuffers
	// gradBlock is LowpWeightGrad's 32×32 block of accumulators.
	gradBlock []float32
}

// Gemm is [Gemm] on the calling goroutine with w's buffers; the result is
// bitwise the same.
func (w *Workspace) Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	gemmIn(current.Load(), &w.ws, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmWith is Gemm on valid arguments with a given implementation, with
// buffers from the pool.
func gemmWith(im *impl, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ws := workspaces.Get().(*workspace)
	gemmIn(im, ws, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	workspaces.Put(ws)
}

// gemmIn is Gemm on valid arguments with a given implementation and
// workspace.
func gemmIn(im *impl, ws *workspace, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return
	}
	if beta != 0 && beta != 1 {
		scaleMatrix(m, n, beta, c, ldc)
		beta = 1
	}
	mr, nr := im.mr, im.nr
	// Split k, m and n into blocks of nearly equal size rather than full
	// blocks and a small remainder.
	kc := ceilDiv(k, ceilDiv(k, im.kc))
	kc = min(roundUp(kc, 4), k)
	mc := roundUp(ceilDiv(m, ceilDiv(m, im.mc)), mr)
	nc := roundUp(ceilDiv(n, ceilDiv(n, im.nc)), nr)

	ws.grow(mc*kc, nc*kc, mr*nr)
	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			packB(im, transB, b, ldb, pc, kb, jc, nb, ws.b)
			accum := beta != 0 || pc > 0
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				packA(im, transA, a, lda, ic, mb, pc, kb, alpha, ws.a)
				macroKernel(im, mb, nb, kb, ws.a, ws.b, ws.tmp, c[ic*ldc+jc:], ldc, accum)
			}
		}
	}
}

// macroKernel multiplies a packed mb×kb block of A by a packed kb×nb panel
// of B into C, one micro-tile at a time, with tmp (mr×nr) for the edge
// tiles. The B sliver (kb×nr) stays in L1 while the loop over ir streams the
// A block from L2.
func macroKernel(im *impl, mb, nb, kb int, pa, pb, tmp []float32, c []float32, ldc int, accum bool) {
	mr, nr := im.mr, im.nr
	for jr := 0; jr < nb; jr += nr {
		nrr := min(nr, nb-jr)
		bs := pb[jr*kb : jr*kb+nr*kb]
		for ir := 0; ir < mb; ir += mr {
			mrr := min(mr, mb-ir)
			w, kernel := im.sliver(mrr)
			as := pa[ir*kb : ir*kb+w*kb]
			if mrr == w && nrr == nr {
				kernel(kb, as, bs, c[ir*ldc+jr:], ldc, accum)
				continue
			}
			// Edge tile: compute the whole tile into tmp, keep its valid part.
			kernel(kb, as, bs, tmp, nr, false)
			for i := 0; i < mrr; i++ {
				row := c[(ir+i)*ldc+jr : (ir+i)*ldc+jr+nrr]
				t := tmp[i*nr : i*nr+nrr]
				if accum {
					for j := range row {
						row[j] += t[j]
					}
				} else {
					copy(row, t)
				}
			}
		}
	}
}

// packA packs rows [i0, i0+mb) and columns [p0, p0+kb) of op(A), scaled by
// alpha, into dst as slivers of mr rows: sliver s holds element (s*mr+i, p)
// at s*mr*kb + p*mr + i. The last sliver may be narrower (the width of the
// edge kernel that will read it, see impl.sliver), padded with zeros past
// row mb.
func packA(im *impl, transA bool, a []float32, lda, i0, mb, p0, kb int, alpha float32, dst []float32) {
	mr := im.mr
	for ir := 0; ir < mb; ir += mr {
		w := min(mr, mb-ir)
		W, _ := im.sliver(w)
		d := dst[ir*kb : ir*kb+W*kb]
		if transA {
			// op(A)[i][p] = a[p*lda+i]: contiguous along i.
			im.copyPack(d, a[p0*lda+i0+ir:], lda, kb, w, W, alpha)
		} else {
			// op(A)[i][p] = a[i*lda+p]: contiguous along p.
			im.transPack(d, a[(i0+ir)*lda+p0:], lda, kb, w, W, alpha)
		}
	}
}

// packB packs rows [p0, p0+kb) and columns [j0, j0+nb) of op(B) into dst as
// slivers of nr columns: sliver s holds element (p, s*nr+j) at
// s*nr*kb + p*nr + j, padded with zeros past column nb.
func packB(im *impl, transB bool, b []float32, ldb, p0, kb, j0, nb int, dst []float32) {
	nr := im.nr
	for jr := 0; jr < nb; jr += nr {
		w := min(nr, nb-jr)
		d := dst[jr*kb : jr*kb+nr*kb]
		if transB {
			// op(B)[p][j] = b[j*ldb+p]: contiguous along p.
			im.transPack(d, b[(j0+jr)*ldb+p0:], ldb, kb, w, nr, 1)
		} else {
			// op(B)[p][j] = b[p*ldb+j]: contiguous along j.
			im.copyPack(d, b[p0*ldb+j0+jr:], ldb, kb, w, nr, 1)
		}
	}
}

func (im *impl) copyPack(dst, src []float32, ld, kb, w, W int, alpha float32) {
	if im.packCopy != nil {
		im.packCopy(dst, src, ld, kb, w, W, alpha)
		return
	}
	packCopy(dst, src, ld, kb, w, W, alpha)
}

func (im *impl) transPack(dst, src []float32, ld, kb, w, W int, alpha float32) {
	if im.packTrans != nil {
		im.packTrans(dst, src, ld, kb, w, W, alpha)
		return
	}
	packTrans(dst, src, ld, kb, w, W, alpha)
}

// packCopy sets dst[p*W+j] = alpha*src[p*ld+j] for p < kb, j < w, and zero
// for w ≤ j < W.
func packCopy(dst, src []float32, ld, kb, w, W int, alpha float32) {
	if w == W && alpha == 1 {
		switch W {
		case 16:
			for p := 0; p < kb; p++ {
				*(*[16]float32)(dst[p*16:]) = *(*[16]float32)(src[p*ld:])
			}
			return
		case 32:
			for p := 0; p < kb; p++ {
				*(*[32]float32)(dst[p*32:]) = *(*[32]float32)(src[p*ld:])
			}
			return
		}
		for p := 0; p < kb; p++ {
			copy(dst[p*W:p*W+W], src[p*ld:p*ld+W])
		}
		return
	}
	for p := 0; p < kb; p++ {
		d := dst[p*W : p*W+W]
		s := src[p*ld : p*ld+w]
		if alpha == 1 {
			copy(d, s)
		} else {
			for j, v := range s {
				d[j] = alpha * v
			}
		}
		clear(d[w:])
	}
}

// packTrans sets dst[p*W+i] = alpha*src[i*ld+p] for p < kb, i < w, and zero
// for w ≤ i < W: a transposing copy.
func packTrans(dst, src []float32, ld, kb, w, W int, alpha float32) {
	dst = dst[:kb*W]
	padTrans(dst, kb, w, W)
	transRows(dst, src, ld, 0, kb, 0, w, W, alpha)
}

// padTrans zeroes the lanes w ≤ i < W of a packed sliver.
func padTrans(dst []float32, kb, w, W int) {
	if w == W {
		return
	}
	for p := 0; p < kb; p++ {
		clear(dst[p*W+w : p*W+W])
	}
}

// transRows sets dst[p*W+i] = alpha*src[i*ld+p] for p0 ≤ p < p1 and
// i0 ≤ i < i1.
func transRows(dst, src []float32, ld, p0, p1, i0, i1, W int, alpha float32) {
	i := i0
	// Four source rows at a time: four sequential reads, one short
	// strided write per p.
	for ; i+4 <= i1; i += 4 {
		r0 := src[i*ld+p0 : i*ld+p1]
		r1 := src[(i+1)*ld+p0 : (i+1)*ld+p1]
		r2 := src[(i+2)*ld+p0 : (i+2)*ld+p1]
		r3 := src[(i+3)*ld+p0 : (i+3)*ld+p1]
		r1, r2, r3 = r1[:len(r0)], r2[:len(r0)], r3[:len(r0)]
		d := dst[p0*W+i:]
		for p := range r0 {
			dv := (*[4]float32)(d[p*W:])
			dv[0], dv[1], dv[2], dv[3] = alpha*r0[p], alpha*r1[p], alpha*r2[p], alpha*r3[p]
		}
	}
	for ; i < i1; i++ {
		r := src[i*ld+p0 : i*ld+p1]
		d := dst[p0*W+i:]
		for p, v := range r {
			d[p*W] = alpha * v
		}
	}
}

// scaleMatrix sets C = beta·C for an m×n C; beta == 0 writes zeros.
func scaleMatrix(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
		} else {
			Scale(beta, row)
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func roundUp(a, b int) int { return ceilDiv(a, b) * b }
