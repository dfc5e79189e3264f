package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomPatches returns patches of images of squares squares with taps
// random taps each (a quarter of them off the board), and their im2col
// matrix.
func randomPatches(rng *rand.Rand, images, squares, taps, cin int) (*Patches, []float32) {
	pa := &Patches{Cin: cin, Squares: squares, X: make([]float32, images*squares*cin), Taps: make([]int16, squares*taps)}
	for i := range pa.X {
		pa.X[i] = float32(rng.NormFloat64())
	}
	for i := range pa.Taps {
		pa.Taps[i] = int16(rng.IntN(squares))
		if rng.IntN(4) == 0 {
			pa.Taps[i] = -1
		}
	}
	k := taps * cin
	cols := make([]float32, images*squares*k)
	for r := range images * squares {
		s, base := r%squares, r-r%squares
		for t := range taps {
			if nb := pa.Taps[s*taps+t]; nb >= 0 {
				copy(cols[r*k+t*cin:r*k+(t+1)*cin], pa.X[(base+int(nb))*cin:])
			}
		}
	}
	return pa, cols
}

// TestGemmPatchesMatchesIm2col: GemmPatches gives bitwise what Gemm gives
// from the im2col matrix, for every implementation, odd sizes, k split in
// the middle of a tap (k above every kc), from 1 image to 65.
func TestGemmPatchesMatchesIm2col(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := []struct{ images, squares, taps, cin, n int }{
		{1, 1, 1, 1, 1},
		{1, 121, 9, 15, 64},
		{3, 7, 9, 5, 17},
		{65, 3, 2, 3, 5},
		{2, 11, 9, 37, 33}, // k = 333 > kc: a tap split between blocks
		{4, 121, 9, 64, 40},
	}
	for _, cs := range cases {
		pa, cols := randomPatches(rng, cs.images, cs.squares, cs.taps, cs.cin)
		m, k := cs.images*cs.squares, cs.taps*cs.cin
		b := make([]float32, k*cs.n)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		for _, im := range impls {
			t.Run(fmt.Sprintf("%+v/%s", cs, im.name), func(t *testing.T) {
				want := make([]float32, m*cs.n)
				gemmWith(im, false, false, m, cs.n, k, 1, cols, k, b, cs.n, 0, want, cs.n)
				got := make([]float32, m*cs.n)
				for i := range got {
					got[i] = float32(math.NaN()) // overwritten, never read
				}
				var ws workspace
				gemmPatchesWith(im, &ws, m, cs.n, pa, b, cs.n, got, cs.n)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("C[%d]: got %v, want %v (Gemm on the im2col matrix)", i, got[i], want[i])
					}
				}
			})
		}
	}
}

// TestGemmPatchesAllocs: a Workspace allocates nothing once grown.
func TestGemmPatchesAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	pa, _ := randomPatches(rng, 8, 121, 9, 64)
	b := make([]float32, 9*64*64)
	c := make([]float32, 8*121*64)
	var w Workspace
	w.GemmPatches(8*121, 64, pa, b, 64, c, 64)
	if got := testing.AllocsPerRun(5, func() { w.GemmPatches(8*121, 64, pa, b, 64, c, 64) }); got != 0 {
		t.Errorf("got %v allocations per GemmPatches, want 0", got)
	}
}

// TestGemmPatchesPanics: bad patches are programmer errors with a message.
func TestGemmPatchesPanics(t *testing.T) {
	ok := func() *Patches {
		return &Patches{X: make([]float32, 2*3*2), Cin: 2, Squares: 3, Taps: []int16{0, 1, 2, -1, 1, 0}}
	}
	b, c := make([]float32, 4*5), make([]float32, 6*5)
	for _, tc := range []struct {
		name string
		m    int
		edit func(*Patches)
	}{
		{"tap outside", 6, func(p *Patches) { p.Taps[0] = 3 }},
		{"taps not per square", 6, func(p *Patches) { p.Taps = p.Taps[:5] }},
		{"rows not whole images", 5, func(*Patches) {}},
		{"X short", 6, func(p *Patches) { p.X = p.X[:11] }},
		{"Cin 0", 6, func(p *Patches) { p.Cin = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok()
			tc.edit(p)
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("got no panic, want one")
				}
			}()
			var w Workspace
			w.GemmPatches(tc.m, 5, p, b, 5, c, 5)
		})
	}
}
