package kernels

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// GemmParallel is [Gemm] with the work split over up to threads goroutines
// (the calling one included) by blocks of whole micro-tiles along the
// dimension of C that has more of them (columns, or rows). Every element is computed exactly as Gemm computes it,
// so the result is bitwise the same for any threads. threads ≤ 1, or a
// problem too small to be worth splitting, runs on the calling goroutine
// alone. The helper goroutines are long-lived and shared by all callers; a
// call allocates nothing in steady state. It panics like Gemm.
func GemmParallel(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	gemmParallelWith(current.Load(), threads, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// minParallelFlops is the smallest problem (2·m·n·k) that is split: below
// it the hand-off costs more than it saves.
const minParallelFlops = 1 << 21

// gemmTask is one block of a parallel Gemm, run by a helper goroutine.
type gemmTask struct {
	im             *impl
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int
	wg             *sync.WaitGroup
	// fn, if not nil, makes this a task of Parallel instead: fn(part).
	fn   func(part int)
	part int
}

var (
	gemmTasks  = make(chan gemmTask)
	helpersMu  sync.Mutex
	helpers    atomic.Int64 // helper goroutines started
	waitGroups = sync.Pool{New: func() any { return new(sync.WaitGroup) }}
)

// ensureHelpers starts helper goroutines until there are at least n.
func ensureHelpers(n int) {
	if helpers.Load() >= int64(n) {
		return
	}
	helpersMu.Lock()
	defer helpersMu.Unlock()
	for helpers.Load() < int64(n) {
		go gemmHelper()
		helpers.Add(1)
	}
}

func gemmHelper() {
	for t := range gemmTasks {
		if t.fn != nil {
			t.fn(t.part)
			t.wg.Done()
			continue
		}
		gemmWith(t.im, t.transA, t.transB, t.m, t.n, t.k, t.alpha, t.a, t.lda, t.b, t.ldb, t.beta, t.c, t.ldc)
		t.wg.Done()
	}
}

// gemmParallelWith is GemmParallel on valid arguments with a given
// implementation.
func gemmParallelWith(im *impl, threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if threads <= 1 || 2*float64(m)*float64(n)*float64(k) < minParallelFlops {
		gemmWith(im, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	// Split the dimension with more micro-tiles, in whole tiles.
	tilesM, tilesN := ceilDiv(m, im.mr), ceilDiv(n, im.nr)
	splitN := tilesN >= tilesM
	tiles, unit := tilesM, im.mr
	if splitN {
		tiles, unit = tilesN, im.nr
	}
	per := ceilDiv(tiles, min(threads, tiles)) * unit
	total := m
	if splitN {
		total = n
	}
	parts := ceilDiv(total, per)
	if parts <= 1 {
		gemmWith(im, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	ensureHelpers(parts - 1)
	wg := waitGroups.Get().(*sync.WaitGroup)
	wg.Add(parts - 1)
	for p := 0; p < parts; p++ {
		t := gemmTask{im: im, transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, beta: beta,
			a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc, wg: wg}
		if splitN {
			j0 := p * per
			t.n = min(per, n-j0)
			if transB {
				t.b = b[j0*ldb:]
			} else {
				t.b = b[j0:]
			}
			t.c = c[j0:]
		} else {
			i0 := p * per
			t.m = min(per, m-i0)
			if transA {
				t.a = a[i0:]
			} else {
				t.a = a[i0*lda:]
			}
			t.c = c[i0*ldc:]
		}
		if p == parts-1 {
			// The caller takes the last block itself.
			gemmWith(t.im, t.transA, t.transB, t.m, t.n, t.k, t.alpha, t.a, t.lda, t.b, t.ldb, t.beta, t.c, t.ldc)
			break
		}
		gemmTasks <- t
	}
	wg.Wait()
	waitGroups.Put(wg)
}

// Parallel calls f(0), f(1), ..., f(parts-1) concurrently, parts-1 of them
// on the helper goroutines that GemmParallel uses and the last on the
// calling goroutine, and returns when every call has. It is how a caller
// runs independent pieces of work (the chunks of a network's batch, each on
// its own buffers) on every core. It allocates nothing in steady state if f
// does not and is a func value made once (a method value made at each call
// escapes to the heap). parts ≤ 1 calls f(0) on the calling goroutine.
//
// f must not call GemmParallel with more than one thread or Parallel: the
// helpers could then all be waiting for each other. It panics if parts is
// negative.
func Parallel(parts int, f func(part int)) {
	if parts < 0 {
		panic(fmt.Sprintf("kernels: Parallel with %d parts", parts))
	}
	if parts <= 1 {
		if parts == 1 {
			f(0)
		}
		return
	}
	ensureHelpers(parts - 1)
	wg := waitGroups.Get().(*sync.WaitGroup)
	wg.Add(parts - 1)
	for p := range parts - 1 {
		gemmTasks <- gemmTask{fn: f, part: p, wg: wg}
	}
	f(parts - 1)
	wg.Wait()
	waitGroups.Put(wg)
}
