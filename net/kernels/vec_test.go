package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// vecImpls are the vector loops to test: the portable ones and those of
// every implementation that has its own.
func vecImpls() map[string]*vecOps {
	m := map[string]*vecOps{"generic": genericVec}
	for _, im := range impls {
		if im.vec != nil {
			m[im.name] = im.vec
		}
	}
	return m
}

func randVec(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = 2*rng.Float32() - 1
	}
	return x
}

func closeTo(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestVectorOps checks every vector loop against a plain loop for all
// lengths 0..70 (the vector bodies, their tails and both together).
func TestVectorOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, v := range vecImpls() {
		for n := 0; n <= 70; n++ {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				x, y := randVec(rng, n), randVec(rng, n)
				if n > 3 {
					x[3] = float32(math.NaN())
					y[n-1] = 0
				}
				// axpy
				got := append([]float32(nil), y...)
				v.axpy(0.75, x, got)
				for i := range got {
					want := y[i] + 0.75*x[i]
					if !closeTo(float64(got[i]), float64(want), 1e-6) && !(isNaN(got[i]) && isNaN(want)) {
						t.Fatalf("axpy[%d]: got %v, want %v", i, got[i], want)
					}
				}
				// scale
				got = append([]float32(nil), y...)
				v.scale(-1.5, got)
				for i := range got {
					if want := -1.5 * y[i]; got[i] != want {
						t.Fatalf("scale[%d]: got %v, want %v", i, got[i], want)
					}
				}
				// dot, on finite values
				xs := append([]float32(nil), x...)
				if n > 3 {
					xs[3] = 1
				}
				var want64, abs float64
				for i := range xs {
					want64 += float64(xs[i]) * float64(y[i])
					abs += math.Abs(float64(xs[i]) * float64(y[i]))
				}
				if got := v.dot(xs, y); !closeTo(float64(got), want64, 1e-6*(abs+1)) {
					t.Fatalf("dot: got %v, want %v", got, want64)
				}
				// addConst and addVec, with and without ReLU
				for _, relu := range []bool{false, true} {
					got = append([]float32(nil), x...)
					v.addConst(0.25, got, relu)
					for i := range got {
						want := x[i] + 0.25
						if relu && want < 0 {
							want = 0
						}
						if got[i] != want && !(isNaN(got[i]) && isNaN(want)) {
							t.Fatalf("addConst(relu=%v)[%d]: got %v, want %v", relu, i, got[i], want)
						}
					}
					got = append([]float32(nil), x...)
					v.addVec(y, got, relu)
					for i := range got {
						want := x[i] + y[i]
						if relu && want < 0 {
							want = 0
						}
						if got[i] != want && !(isNaN(got[i]) && isNaN(want)) {
							t.Fatalf("addVec(relu=%v)[%d]: got %v, want %v", relu, i, got[i], want)
						}
					}
				}
				// reluGrad: y's sign decides, NaN counts as not positive.
				got = append([]float32(nil), y...)
				v.reluGrad(got, x)
				for i := range got {
					want := y[i]
					if !(x[i] > 0) {
						want = 0
					}
					if got[i] != want {
						t.Fatalf("reluGrad[%d]: got %v, want %v", i, got[i], want)
					}
				}
			})
		}
	}
}

func TestBias(t *testing.T) {
	defer SetImplementation("")
	for _, name := range Implementations() {
		if err := SetImplementation(name); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			rows, cols, ld := 5, 11, 13
			c := make([]float32, rows*ld)
			for i := range c {
				c[i] = float32(i%7) - 3
			}
			bias := []float32{-1, 0.5, 2, -4, 1, 3, -2, 0, 1, 1, -0.5}
			for _, relu := range []bool{false, true} {
				got := append([]float32(nil), c...)
				AddBiasPerRow(got, rows, cols, ld, bias, relu)
				got2 := append([]float32(nil), c...)
				AddBiasPerCol(got2, rows, cols, ld, bias, relu)
				for i := 0; i < rows; i++ {
					for j := 0; j < ld; j++ {
						w1, w2 := c[i*ld+j], c[i*ld+j]
						if j < cols {
							w1 += bias[i]
							w2 += bias[j]
							if relu {
								w1, w2 = max(w1, 0), max(w2, 0)
							}
						}
						if got[i*ld+j] != w1 {
							t.Fatalf("AddBiasPerRow(relu=%v)[%d,%d]: got %v, want %v", relu, i, j, got[i*ld+j], w1)
						}
						if got2[i*ld+j] != w2 {
							t.Fatalf("AddBiasPerCol(relu=%v)[%d,%d]: got %v, want %v", relu, i, j, got2[i*ld+j], w2)
						}
					}
				}
			}
			x := []float32{-1, 2, -3, 4}
			ReLU(x)
			if fmt.Sprint(x) != "[0 2 0 4]" {
				t.Errorf("ReLU: got %v, want [0 2 0 4]", x)
			}
			dy := []float32{1, 1, 1, 1}
			ReLUGrad(dy, x)
			if fmt.Sprint(dy) != "[0 1 0 1]" {
				t.Errorf("ReLUGrad: got %v, want [0 1 0 1]", dy)
			}
			y := []float32{1, 1, 1, 1}
			Axpy(2, x, y)
			Scale(0.5, y)
			if fmt.Sprint(y) != "[0.5 2.5 0.5 4.5]" {
				t.Errorf("Axpy, Scale: got %v, want [0.5 2.5 0.5 4.5]", y)
			}
			if got := Dot(x, y); got != 23 {
				t.Errorf("Dot: got %v, want 23", got)
			}
		})
	}
}
