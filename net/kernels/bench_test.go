package kernels

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// benchShape is a Gemm the network makes: the 3×3 convolutions of the
// 6-block 64-channel net on 11×11 boards (im2col: K = 64·9 = 576) at batch
// 64 (121·64 = 7744 positions), forward and backward, in the channel-major
// layout (channels × positions) and the batch-major one (positions ×
// channels).
type benchShape struct {
	name           string
	transA, transB bool
	m, n, k        int
}

var benchShapes = []benchShape{
	{"fwd-cm-NN", false, false, 64, 7744, 576},       // out = W · col
	{"dW-cm-NT", false, true, 64, 576, 7744},         // dW = dOut · colᵀ
	{"dcol-cm-TN", true, false, 576, 7744, 64},       // dcol = Wᵀ · dOut
	{"fwd-bm-NT", false, true, 7744, 64, 576},        // out = col · Wᵀ
	{"dW-bm-TN", true, false, 64, 576, 7744},         // dW = dOutᵀ · col
	{"dcol-bm-NN", false, false, 7744, 576, 64},      // dcol = dOut · W
	{"TT", true, true, 64, 7744, 576},                // both transposed
	{"fwd-cm-batch1-NN", false, false, 64, 121, 576}, // one position set
}

func benchOperands(s benchShape) (a, b, c []float32, lda, ldb, ldc int) {
	rng := rand.New(rand.NewPCG(7, 7))
	a, b, c = make([]float32, s.m*s.k), make([]float32, s.k*s.n), make([]float32, s.m*s.n)
	for i := range a {
		a[i] = rng.Float32()
	}
	for i := range b {
		b[i] = rng.Float32()
	}
	lda, ldb, ldc = s.k, s.n, s.n
	if s.transA {
		lda = s.m
	}
	if s.transB {
		ldb = s.k
	}
	return
}

func reportGFLOPS(b *testing.B, s benchShape) {
	b.ReportMetric(2*float64(s.m)*float64(s.n)*float64(s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkGemm runs every implementation on the network's shapes with
// GOMAXPROCS threads: use -cpu 1 for the one-thread figures, -cpu 2 (or
// more) for all threads. It loops over b.N, not b.Loop, whose timing runs
// before -cpu's first value is set (golang/go#49980).
func BenchmarkGemm(b *testing.B) {
	for _, s := range benchShapes {
		a, bb, c, lda, ldb, ldc := benchOperands(s)
		for _, im := range impls {
			b.Run(s.name+"/"+im.name, func(b *testing.B) {
				threads := runtime.GOMAXPROCS(0)
				for range b.N {
					gemmParallelWith(im, threads, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, ldc)
				}
				reportGFLOPS(b, s)
				b.ReportMetric(float64(threads), "threads")
			})
		}
	}
}

// BenchmarkGonumSgemm is the same shapes on gonum's pure-Go Sgemm (which
// splits its work over GOMAXPROCS goroutines itself).
func BenchmarkGonumSgemm(b *testing.B) {
	var impl gonum.Implementation
	tr := func(t bool) blas.Transpose {
		if t {
			return blas.Trans
		}
		return blas.NoTrans
	}
	for _, s := range benchShapes {
		a, bb, c, lda, ldb, ldc := benchOperands(s)
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				impl.Sgemm(tr(s.transA), tr(s.transB), s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, ldc)
			}
			reportGFLOPS(b, s)
		})
	}
}

func BenchmarkVector(b *testing.B) {
	x := make([]float32, 64*121*64)
	y := make([]float32, len(x))
	bias := make([]float32, 64)
	for name, v := range vecImpls() {
		b.Run("Axpy/"+name, func(b *testing.B) {
			b.SetBytes(int64(12 * len(x)))
			for b.Loop() {
				v.axpy(0.5, x, y)
			}
		})
		b.Run("AddBiasReLU/"+name, func(b *testing.B) {
			b.SetBytes(int64(8 * len(x)))
			for b.Loop() {
				for i := range 64 {
					v.addConst(bias[i], x[i*121*64:(i+1)*121*64], true)
				}
			}
		})
		b.Run("ReLUGrad/"+name, func(b *testing.B) {
			b.SetBytes(int64(12 * len(x)))
			for b.Loop() {
				v.reluGrad(y, x)
			}
		})
	}
}

// BenchmarkMicroKernel measures each micro-kernel alone on packed slivers
// that sit in L1: the ceiling for Gemm.
func BenchmarkMicroKernel(b *testing.B) {
	for _, im := range impls {
		ks := append([]microKernel{{im.mr, im.kernel}}, im.edges...)
		for _, k := range ks {
			b.Run(fmt.Sprintf("%s/%dx%d", im.name, k.mr, im.nr), func(b *testing.B) {
				kc := 192
				a := make([]float32, kc*k.mr)
				bb := make([]float32, kc*im.nr)
				c := make([]float32, k.mr*im.nr)
				for b.Loop() {
					k.kernel(kc, a, bb, c, im.nr, true)
				}
				b.ReportMetric(2*float64(kc*k.mr*im.nr)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
