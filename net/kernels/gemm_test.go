package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// gemmCase is one Gemm problem. The extra leading-dimension padding is
// added to the minimum for each matrix.
type gemmCase struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	padA, padB     int
	padC           int
}

func (c gemmCase) String() string {
	t := func(b bool) string {
		if b {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%s%s/m=%d,n=%d,k=%d,alpha=%g,beta=%g,pad=%d,%d,%d",
		t(c.transA), t(c.transB), c.m, c.n, c.k, c.alpha, c.beta, c.padA, c.padB, c.padC)
}

// gemmData holds the operands of a case and the float64 reference result.
type gemmData struct {
	gemmCase
	a, b, c0       []float32 // c0: C before the call
	lda, ldb, ldc  int
	want, bound    []float64 // reference C and its error bound, m×n
	sentinelFilled bool
}

const sentinel = float32(-12345.5)

// newGemmData makes random operands for c (seeded by the case) and the
// reference result computed in float64 by the triple loop.
func newGemmData(c gemmCase, seed uint64) *gemmData {
	rng := rand.New(rand.NewPCG(seed, uint64(c.m*1000003+c.n*1009+c.k)))
	d := &gemmData{gemmCase: c}
	ar, ac := c.m, c.k
	if c.transA {
		ar, ac = c.k, c.m
	}
	br, bc := c.k, c.n
	if c.transB {
		br, bc = c.n, c.k
	}
	d.lda, d.ldb, d.ldc = max(1, ac)+c.padA, max(1, bc)+c.padB, max(1, c.n)+c.padC
	d.a = randMatrix(rng, ar, ac, d.lda)
	d.b = randMatrix(rng, br, bc, d.ldb)
	d.c0 = randMatrix(rng, c.m, c.n, d.ldc)
	if c.beta == 0 {
		// beta 0 must overwrite C without reading it.
		for i := 0; i < c.m; i++ {
			for j := 0; j < c.n; j++ {
				d.c0[i*d.ldc+j] = float32(math.NaN())
			}
		}
	}
	// op(A) and op(B) as dense float64 matrices, then the triple loop.
	opA := make([]float64, c.m*c.k)
	for i := 0; i < c.m; i++ {
		for p := 0; p < c.k; p++ {
			if c.transA {
				opA[i*c.k+p] = float64(d.a[p*d.lda+i])
			} else {
				opA[i*c.k+p] = float64(d.a[i*d.lda+p])
			}
		}
	}
	opBt := make([]float64, c.n*c.k) // op(B)ᵀ, so that both loops run along rows
	for j := 0; j < c.n; j++ {
		for p := 0; p < c.k; p++ {
			if c.transB {
				opBt[j*c.k+p] = float64(d.b[j*d.ldb+p])
			} else {
				opBt[j*c.k+p] = float64(d.b[p*d.ldb+j])
			}
		}
	}
	d.want = make([]float64, c.m*c.n)
	d.bound = make([]float64, c.m*c.n)
	// The error of a float32 sum of k products in any order is at most
	// about (k+2)·eps·Σ|terms|; eps = 2⁻²⁴, with a factor 4 of margin.
	eps := 4 * math.Ldexp(1, -24)
	for i := 0; i < c.m; i++ {
		ar := opA[i*c.k : i*c.k+c.k]
		for j := 0; j < c.n; j++ {
			br := opBt[j*c.k : j*c.k+c.k]
			var s, abs float64
			for p, x := range ar {
				t := x * br[p]
				s += t
				abs += math.Abs(t)
			}
			s *= float64(c.alpha)
			abs *= math.Abs(float64(c.alpha))
			if c.beta != 0 {
				cv := float64(c.beta) * float64(d.c0[i*d.ldc+j])
				s += cv
				abs += math.Abs(cv)
			}
			d.want[i*c.n+j] = s
			d.bound[i*c.n+j] = float64(c.k+4)*eps*abs + 1e-30
		}
	}
	return d
}

// randMatrix returns a rows×cols matrix with leading dimension ld, values
// in [-1, 1), and the sentinel in the padding.
func randMatrix(rng *rand.Rand, rows, cols, ld int) []float32 {
	s := make([]float32, max(0, (rows-1)*ld+cols)+ld-cols) // room for the padding of the last row too
	for i := range s {
		s[i] = sentinel
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			s[i*ld+j] = 2*rng.Float32() - 1
		}
	}
	return s
}

// check compares got (C after the call) with the reference, and the padding
// of C with the sentinel it held.
func (d *gemmData) check(t *testing.T, got []float32) {
	t.Helper()
	bad := 0
	for i := 0; i < d.m; i++ {
		for j := 0; j < d.n; j++ {
			g := float64(got[i*d.ldc+j])
			w := d.want[i*d.n+j]
			if !(math.Abs(g-w) <= d.bound[i*d.n+j]) {
				if bad < 5 {
					t.Errorf("C[%d,%d]: got %v, want %v (tolerance %.3g)", i, j, g, w, d.bound[i*d.n+j])
				}
				bad++
			}
		}
		for j := d.n; j < d.ldc && i*d.ldc+j < len(got); j++ {
			if got[i*d.ldc+j] != sentinel {
				t.Errorf("C padding [%d,%d] changed: got %v, want %v", i, j, got[i*d.ldc+j], sentinel)
				return
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d elements wrong", bad, d.m*d.n)
	}
}

// run calls Gemm with implementation im on a fresh copy of C.
func (d *gemmData) run(im *impl) []float32 {
	c := append([]float32(nil), d.c0...)
	checkGemm(d.transA, d.transB, d.m, d.n, d.k, d.a, d.lda, d.b, d.ldb, c, d.ldc)
	gemmWith(im, d.transA, d.transB, d.m, d.n, d.k, d.alpha, d.a, d.lda, d.b, d.ldb, d.beta, c, d.ldc)
	return c
}

var transCombos = []struct{ a, b bool }{{false, false}, {false, true}, {true, false}, {true, true}}

// testSizes are the odd and kernel-straddling sizes every dimension is
// tried with.
var testSizes = []int{1, 2, 3, 5, 7, 13, 17, 31, 33, 63, 65, 121, 127, 129}

// runCases checks every case against the reference on every implementation.
func runCases(t *testing.T, cases []gemmCase) {
	for ci, c := range cases {
		d := newGemmData(c, uint64(ci))
		t.Run(c.String(), func(t *testing.T) {
			for _, im := range impls {
				t.Run(im.name, func(t *testing.T) {
					d.check(t, d.run(im))
				})
			}
		})
	}
}

func TestGemmSizes(t *testing.T) {
	var cases []gemmCase
	for _, tr := range transCombos {
		for i, m := range testSizes {
			for j, n := range testSizes {
				k := testSizes[(i+2*j)%len(testSizes)]
				// Keep the float64 reference cheap under -race.
				if m*n*k > 300_000 {
					k = testSizes[(i+j)%5]
				}
				cases = append(cases, gemmCase{transA: tr.a, transB: tr.b, m: m, n: n, k: k, alpha: 1, beta: 0})
			}
		}
	}
	runCases(t, cases)
}

// TestGemmNetworkShapes tries the convolution shapes of the network (6
// blocks of 64 channels on 11×11 boards, im2col with K = 576) at small
// batches, in both layouts and their backward passes, with k blocks that do
// not divide evenly.
func TestGemmNetworkShapes(t *testing.T) {
	cases := []gemmCase{
		{m: 64, n: 121, k: 576, alpha: 1},                             // forward, channel-major, batch 1
		{m: 64, n: 130, k: 576, alpha: 1, beta: 1},                    // forward, accumulate, ragged n
		{transB: true, m: 64, n: 576, k: 121, alpha: 1},               // weight gradient, channel-major
		{transA: true, m: 576, n: 121, k: 64, alpha: 1},               // input gradient, channel-major
		{transB: true, m: 121, n: 64, k: 576, alpha: 1},               // forward, batch-major
		{transA: true, m: 64, n: 576, k: 121, alpha: 1, beta: 1},      // weight gradient, batch-major
		{m: 121, n: 576, k: 64, alpha: 1},                             // input gradient, batch-major
		{transA: true, transB: true, m: 65, n: 127, k: 577, alpha: 1}, // TT with a ragged k
		{m: 3, n: 1000, k: 600, alpha: -1, beta: 0.5},                 // several k blocks
		{transB: true, m: 300, n: 5, k: 900, alpha: 0.5, beta: 1},
	}
	runCases(t, cases)
}

// TestGemmBatchSizes sweeps one dimension over every batch size 1..65, on
// each side, for all four transpose combinations.
func TestGemmBatchSizes(t *testing.T) {
	var cases []gemmCase
	for _, tr := range transCombos {
		for bs := 1; bs <= 65; bs++ {
			cases = append(cases,
				gemmCase{transA: tr.a, transB: tr.b, m: bs, n: 35, k: 37, alpha: 1},
				gemmCase{transA: tr.a, transB: tr.b, m: 13, n: bs, k: 29, alpha: 1, beta: 1})
		}
	}
	runCases(t, cases)
}

// TestGemmAlphaBetaLd tries alpha and beta in {0, 1, other}, and leading
// dimensions larger than the minimum (the padding must stay untouched).
func TestGemmAlphaBetaLd(t *testing.T) {
	var cases []gemmCase
	for _, tr := range transCombos {
		for _, alpha := range []float32{0, 1, -0.5, 2} {
			for _, beta := range []float32{0, 1, -1.5, 0.25} {
				for _, pad := range []int{0, 3} {
					cases = append(cases, gemmCase{
						transA: tr.a, transB: tr.b, m: 19, n: 37, k: 45,
						alpha: alpha, beta: beta, padA: pad, padB: 2 * pad, padC: pad + 1,
					})
				}
			}
		}
	}
	// Degenerate k: C = beta·C.
	cases = append(cases,
		gemmCase{m: 5, n: 7, k: 0, alpha: 1, beta: 0},
		gemmCase{m: 5, n: 7, k: 0, alpha: 1, beta: 2, padC: 1},
		gemmCase{transA: true, transB: true, m: 0, n: 7, k: 3, alpha: 1},
		gemmCase{m: 4, n: 0, k: 3, alpha: 1},
	)
	runCases(t, cases)
}

// TestGemmBetaZeroNaN checks that beta = 0 overwrites NaN and Inf in C,
// also when alpha or k is 0.
func TestGemmBetaZeroNaN(t *testing.T) {
	for _, tc := range []struct {
		name    string
		k       int
		alpha   float32
		wantAll float32 // want every element; NaN means "the product"
	}{
		{"product", 3, 1, float32(math.NaN())},
		{"alpha0", 3, 0, 0},
		{"k0", 0, 1, 0},
	} {
		for _, im := range impls {
			t.Run(tc.name+"/"+im.name, func(t *testing.T) {
				m, n := 7, 9
				a := make([]float32, m*max(tc.k, 1))
				b := make([]float32, max(tc.k, 1)*n)
				for i := range a {
					a[i] = 1
				}
				for i := range b {
					b[i] = 1
				}
				c := make([]float32, m*n)
				for i := range c {
					c[i] = float32(math.NaN())
					if i%2 == 1 {
						c[i] = float32(math.Inf(1))
					}
				}
				gemmWith(im, false, false, m, n, tc.k, tc.alpha, a, max(tc.k, 1), b, n, 0, c, n)
				want := tc.wantAll
				if math.IsNaN(float64(want)) {
					want = float32(tc.k) * tc.alpha
				}
				for i, v := range c {
					if v != want {
						t.Fatalf("C[%d]: got %v, want %v", i, v, want)
					}
				}
			})
		}
	}
}

// TestGemmOptimizedMatchesGeneric compares every assembly implementation
// with the portable path on the network's shapes.
func TestGemmOptimizedMatchesGeneric(t *testing.T) {
	shapes := []gemmCase{
		{m: 64, n: 121 * 2, k: 576, alpha: 1},
		{transB: true, m: 64, n: 576, k: 121, alpha: 1},
		{transA: true, m: 576, n: 121, k: 64, alpha: 1},
		{transA: true, transB: true, m: 121, n: 64, k: 576, alpha: 1.5, beta: 0.5},
		{transB: true, m: 121 * 2, n: 64, k: 576, alpha: 1, beta: 1},
	}
	for si, s := range shapes {
		t.Run(s.String(), func(t *testing.T) {
			d := newGemmData(s, uint64(100+si))
			ref := d.run(genericImpl)
			d.check(t, ref)
			for _, im := range impls {
				if im == genericImpl {
					continue
				}
				got := d.run(im)
				for i := 0; i < d.m; i++ {
					for j := 0; j < d.n; j++ {
						g, w := got[i*d.ldc+j], ref[i*d.ldc+j]
						// Both are within the bound of the exact result.
						if tol := 2 * d.bound[i*d.n+j]; math.Abs(float64(g-w)) > tol {
							t.Fatalf("%s: C[%d,%d]: got %v, want %v (generic), tolerance %.3g", im.name, i, j, g, w, tol)
						}
					}
				}
			}
		})
	}
}

// TestGemmParallelMatchesSerial checks that splitting the work over
// goroutines gives exactly the serial result, for splits over n and m.
func TestGemmParallelMatchesSerial(t *testing.T) {
	shapes := []gemmCase{
		{m: 64, n: 121 * 4, k: 300, alpha: 1},
		{transA: true, m: 121 * 3, n: 64, k: 100, alpha: 1, beta: 0.5},
		{transB: true, m: 33, n: 65, k: 17, alpha: 1},
		{transA: true, transB: true, m: 7, n: 5, k: 3, alpha: 1},
		{m: 1000, n: 3, k: 8, alpha: 2, beta: 1},
	}
	for si, s := range shapes {
		d := newGemmData(s, uint64(200+si))
		for _, im := range impls {
			want := d.run(im)
			for _, threads := range []int{1, 2, 3, 4, 7} {
				t.Run(fmt.Sprintf("%v/%s/threads=%d", s, im.name, threads), func(t *testing.T) {
					got := append([]float32(nil), d.c0...)
					gemmParallelWith(im, threads, d.transA, d.transB, d.m, d.n, d.k, d.alpha, d.a, d.lda, d.b, d.ldb, d.beta, got, d.ldc)
					for i := range got {
						if got[i] != want[i] && !(isNaN(got[i]) && isNaN(want[i])) {
							t.Fatalf("C[%d]: got %v, want %v (serial)", i, got[i], want[i])
						}
					}
				})
			}
		}
	}
}

func isNaN(v float32) bool { return v != v }

// TestGemmNoAllocs checks that Gemm and GemmParallel allocate nothing once
// the pooled buffers exist.
func TestGemmNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	m, n, k := 64, 121*2, 576
	a := make([]float32, m*k)
	b := make([]float32, k*n)
	c := make([]float32, m*n)
	for _, im := range impls {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/threads=%d", im.name, threads), func(t *testing.T) {
				f := func() {
					gemmParallelWith(im, threads, false, true, m, n, k, 1, a, k, b, k, 0, c, n)
					gemmParallelWith(im, threads, true, false, m, n, k, 1, a, m, b, n, 1, c, n)
				}
				f()
				if got := testing.AllocsPerRun(20, f); got != 0 {
					t.Errorf("got %v allocations per run, want 0", got)
				}
			})
		}
	}
}

func TestGemmPanics(t *testing.T) {
	s := make([]float32, 100)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"negative m", func() { Gemm(false, false, -1, 2, 2, 1, s, 2, s, 2, 0, s, 2) }, "negative dimension"},
		{"lda small", func() { Gemm(false, false, 3, 4, 5, 1, s, 4, s, 4, 0, s, 4) }, "bad lda=4"},
		{"lda small trans", func() { Gemm(true, false, 3, 4, 5, 1, s, 2, s, 4, 0, s, 4) }, "bad lda=2"},
		{"ldb small trans", func() { Gemm(false, true, 3, 4, 5, 1, s, 5, s, 4, 0, s, 4) }, "bad ldb=4"},
		{"ldc small", func() { Gemm(false, false, 3, 4, 5, 1, s, 5, s, 4, 0, s, 3) }, "bad ldc=3"},
		{"ld zero", func() { Gemm(false, false, 0, 0, 0, 1, nil, 0, nil, 1, 0, nil, 1) }, "bad lda=0"},
		{"short A", func() { Gemm(false, false, 30, 1, 5, 1, s, 5, s, 1, 0, s, 1) }, "A too short"},
		{"short B", func() { Gemm(false, true, 1, 30, 5, 1, s, 5, s, 5, 0, s, 30) }, "B too short"},
		{"short C", func() { Gemm(false, false, 11, 10, 1, 1, s, 1, s, 10, 0, s, 10) }, "C too short"},
		{"parallel short C", func() { GemmParallel(2, false, false, 11, 10, 1, 1, s, 1, s, 10, 0, s, 10) }, "C too short"},
		{"Axpy lengths", func() { Axpy(1, s[:3], s[:4]) }, "different lengths"},
		{"Dot lengths", func() { Dot(s[:3], s[:4]) }, "different lengths"},
		{"bias short", func() { AddBiasPerRow(s, 10, 10, 10, s[:9], false) }, "bias too short"},
		{"bias c short", func() { AddBiasPerCol(s, 11, 10, 10, s[:10], true) }, "c too short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.Contains(msg, tc.want) {
					t.Errorf("got panic %v, want one containing %q", r, tc.want)
				}
			}()
			tc.f()
		})
	}
}

func TestSetImplementation(t *testing.T) {
	defer SetImplementation("")
	names := Implementations()
	if names[len(names)-1] != "generic" {
		t.Errorf("got implementations %v, want generic last", names)
	}
	for _, name := range names {
		if err := SetImplementation(name); err != nil {
			t.Fatalf("SetImplementation(%q): got %v, want nil", name, err)
		}
		if got := Implementation(); got != name {
			t.Errorf("got Implementation() %q, want %q", got, name)
		}
		a := []float32{1, 2, 3, 4, 5, 6}
		b := []float32{7, 8, 9, 10, 11, 12}
		c := make([]float32, 4)
		Gemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
		if want := []float32{58, 64, 139, 154}; fmt.Sprint(c) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", name, c, want)
		}
	}
	if err := SetImplementation("bogus"); err == nil {
		t.Errorf("SetImplementation(bogus): got nil error, want one")
	}
	if err := SetImplementation(""); err != nil || Implementation() != names[0] {
		t.Errorf("SetImplementation(\"\"): got %v and %q, want nil and %q", err, Implementation(), names[0])
	}
}
