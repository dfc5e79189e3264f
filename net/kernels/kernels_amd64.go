// Hot file: the Go side of the amd64 assembly kernels. The wrappers only
// check bounds (once per call, so that a driver bug panics instead of
// corrupting memory) and pass pointers on; keep them that thin.

package kernels

import "golang.org/x/sys/cpu"

// Assembly in gemm_kernels_amd64.s (generated) and kernels_amd64.s.
// Pointers are to the first element; the Go wrappers below check the
// lengths.

// The micro-kernels (see impl.kernel): kernelAVX2xMRx16 need AVX2 and FMA,
// kernelAVX512xMRx32 AVX-512F.

//go:noescape
func kernelAVX2x6x16(kc int, a, b, c *float32, ldc int, accum int)

//go:noescape
func kernelAVX2x4x16(kc int, a, b, c *float32, ldc int, accum int)

//go:noescape
func kernelAVX2x2x16(kc int, a, b, c *float32, ldc int, accum int)

//go:noescape
func kernelAVX512x12x32(kc int, a, b, c *float32, ldc int, accum int)

//go:noescape
func kernelAVX512x8x32(kc int, a, b, c *float32, ldc int, accum int)

//go:noescape
func kernelAVX512x4x32(kc int, a, b, c *float32, ldc int, accum int)

// transPackAVX2 transposes a row of `blocks` 8×8 blocks:
// dst[(8b+j)*ldd+i] = alpha*src[i*lds+8b+j] for b < blocks, i < rows,
// j < 8, with rows 4, 6 or 8; only rows floats are written per destination
// row and only rows source rows are read.
//
//go:noescape
func transPackAVX2(src *float32, lds int, dst *float32, ldd int, rows int, alpha float32, blocks int)

// packCopyAVX2 sets dst[p*w+j] = alpha*src[p*ld+j] for p < kb, j < w, with
// w 4, 6, 8, 12, 16 or 32.
//
//go:noescape
func packCopyAVX2(dst, src *float32, ld, kb, w int, alpha float32)

//go:noescape
func axpyAVX2(n int, alpha float32, x, y *float32)

//go:noescape
func scaleAVX2(n int, alpha float32, x *float32)

//go:noescape
func dotAVX2(n int, x, y *float32) float32

//go:noescape
func addConstAVX2(n int, s float32, x *float32, relu int)

//go:noescape
func addVecAVX2(n int, b, x *float32, relu int)

//go:noescape
func reluGradAVX2(n int, dy, y *float32)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func kAVX2x6(kc int, a, b, c []float32, ldc int, accum bool) {
	_ = a[kc*6-1]
	_ = b[kc*16-1]
	_ = c[5*ldc+15]
	kernelAVX2x6x16(kc, &a[0], &b[0], &c[0], ldc, b2i(accum))
}

func kAVX2x4(kc int, a, b, c []float32, ldc int, accum bool) {
	_ = a[kc*4-1]
	_ = b[kc*16-1]
	_ = c[3*ldc+15]
	kernelAVX2x4x16(kc, &a[0], &b[0], &c[0], ldc, b2i(accum))
}

func kAVX2x2(kc int, a, b, c []float32, ldc int, accum bool) {
	_ = a[kc*2-1]
	_ = b[kc*16-1]
	_ = c[1*ldc+15]
	kernelAVX2x2x16(kc, &a[0], &b[0], &c[0], ldc, b2i(accum))
}

func kAVX512x12(kc int, a, b, c []float32, ldc int, accum bool) {
	_ = a[kc*12-1]
	_ = b[kc*32-1]
	_ = c[11*ldc+31]
	kernelAVX512x12x32(kc, &a[0], &b[0], &c[0], ldc, b2i(accum))
}

func kAVX512x8(kc int, a, b, c []float32, ldc int, accum bool) {
	_ = a[kc*8-1]
	_ = b[kc*32-1]
	_ = c[7*ldc+31]
	kernelAVX512x8x32(kc, &a[0], &b[0], &c[0], ldc, b2i(accum))
}

func kAVX512x4(kc int, a, b, c []float32, ldc int, accum bool) {
	_ = a[kc*4-1]
	_ = b[kc*32-1]
	_ = c[3*ldc+31]
	kernelAVX512x4x32(kc, &a[0], &b[0], &c[0], ldc, b2i(accum))
}

// packTransAVX2 is packTrans with 8×8 transposes in assembly for blocks of
// 8 (or 6 or 4) source rows and 8 columns, and the portable loop for the
// rest.
func packTransAVX2(dst, src []float32, ld, kb, w, W int, alpha float32) {
	dst = dst[:kb*W]
	padTrans(dst, kb, w, W)
	k8 := kb &^ 7
	i := 0
	if k8 > 0 {
		_ = src[(w-1)*ld+kb-1]
		for ; i < w; i += 8 {
			rows := min(8, w-i)
			if rows != 8 && rows != 6 && rows != 4 {
				break
			}
			transPackAVX2(&src[i*ld], ld, &dst[i], W, rows, alpha, k8/8)
			if k8 < kb {
				transRows(dst, src, ld, k8, kb, i, i+rows, W, alpha)
			}
		}
	}
	if i < w {
		transRows(dst, src, ld, 0, kb, i, w, W, alpha)
	}
}

// packCopyAVX2s is packCopy with the assembly loop for whole slivers of the
// widths the kernels use.
func packCopyAVX2s(dst, src []float32, ld, kb, w, W int, alpha float32) {
	if w != W || kb == 0 || (w != 4 && w != 6 && w != 8 && w != 12 && w != 16 && w != 32) {
		packCopy(dst, src, ld, kb, w, W, alpha)
		return
	}
	_ = dst[kb*W-1]
	_ = src[(kb-1)*ld+w-1]
	packCopyAVX2(&dst[0], &src[0], ld, kb, w, alpha)
}

func axpyAVX2s(alpha float32, x, y []float32) {
	if len(x) == 0 {
		return
	}
	_ = y[len(x)-1]
	axpyAVX2(len(x), alpha, &x[0], &y[0])
}

func scaleAVX2s(alpha float32, x []float32) {
	if len(x) == 0 {
		return
	}
	scaleAVX2(len(x), alpha, &x[0])
}

func dotAVX2s(x, y []float32) float32 {
	if len(x) == 0 {
		return 0
	}
	_ = y[len(x)-1]
	return dotAVX2(len(x), &x[0], &y[0])
}

func addConstAVX2s(s float32, x []float32, relu bool) {
	if len(x) == 0 {
		return
	}
	addConstAVX2(len(x), s, &x[0], b2i(relu))
}

func addVecAVX2s(b, x []float32, relu bool) {
	if len(x) == 0 {
		return
	}
	_ = b[len(x)-1]
	addVecAVX2(len(x), &b[0], &x[0], b2i(relu))
}

func reluGradAVX2s(dy, y []float32) {
	if len(dy) == 0 {
		return
	}
	_ = y[len(dy)-1]
	reluGradAVX2(len(dy), &dy[0], &y[0])
}

var avx2Vec = &vecOps{
	axpy:     axpyAVX2s,
	scale:    scaleAVX2s,
	dot:      dotAVX2s,
	addConst: addConstAVX2s,
	addVec:   addVecAVX2s,
	reluGrad: reluGradAVX2s,
}

var avx2Impl = &impl{
	name: "avx2",
	mr:   6, nr: 16,
	kc: 256, mc: 144, nc: 2048,
	kernel:    kAVX2x6,
	edges:     []microKernel{{2, kAVX2x2}, {4, kAVX2x4}},
	packTrans: packTransAVX2,
	packCopy:  packCopyAVX2s,
	vec:       avx2Vec,
	winoIn:    winoInputAVX2s,
	winoOut:   winoOutputAVX2s,
	winoGrad:  winoGradAVX2s,
}

var avx512Impl = &impl{
	name: "avx512",
	mr:   12, nr: 32,
	kc: 256, mc: 240, nc: 2048,
	kernel:    kAVX512x12,
	edges:     []microKernel{{4, kAVX512x4}, {8, kAVX512x8}},
	packTrans: packTransAVX2,
	packCopy:  packCopyAVX2s,
	vec:       avx2Vec,
	winoIn:    winoInputAVX2s,
	winoOut:   winoOutputAVX2s,
	winoGrad:  winoGradAVX2s,
}

// platformImpls returns the assembly implementations this CPU supports,
// best first. x/sys/cpu also checks that the OS saves the vector registers.
func platformImpls() []*impl {
	var l []*impl
	hasAVX2 := cpu.X86.HasAVX2 && cpu.X86.HasFMA
	if hasAVX2 && cpu.X86.HasAVX512F {
		l = append(l, avx512Impl)
	}
	if hasAVX2 {
		l = append(l, avx2Impl)
	}
	return l
}
