package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gradCase is one weight gradient the tests compute.
type gradCase struct{ h, w, cin, cout, images int }

var gradCases = []gradCase{
	{11, 11, 64, 64, 3}, {11, 11, 15, 64, 2}, {5, 7, 40, 33, 3}, {3, 2, 7, 16, 5}, {11, 11, 64, 64, 1},
}

// gradData makes a case's input and output gradient, and their grids as
// the trainer makes them: the input's grid transposed (TransposeBF16), the
// gradient's in pixel pairs (WritePairs, in two parts).
func gradData(c gradCase, seed uint64) (x, d []float32, a *WeightGradArgs) {
	rng := rand.New(rand.NewPCG(seed, 9))
	g := LowpGrid{c.h, c.w}
	x = make([]float32, c.images*c.h*c.w*c.cin)
	d = make([]float32, c.images*c.h*c.w*c.cout)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	for i := range d {
		d[i] = float32(rng.NormFloat64())
	}
	a = &WeightGradArgs{Grid: g, LdX: g.Pixels(c.images) + 32, Cin: c.cin, CinP: roundUp(c.cin, 32),
		Cout: c.cout, CoutP: roundUp(c.cout, 32), P0: g.Lead(), P1: g.Lead() + g.Computed(c.images)}
	a.X = make([]uint16, a.CinP*a.LdX)
	a.D = make([]uint16, g.Computed(c.images)*a.CoutP)
	a.GW = make([]float32, 9*c.cin*c.cout)
	xg := make([]uint16, g.Pixels(c.images)*a.CinP)
	g.WriteBF16(xg, a.CinP, x, c.cin, 0, c.images)
	TransposeBF16(a.X, a.LdX, xg, a.CinP, 0, g.Pixels(c.images))
	// The gradient's grid with garbage past the images, as a larger batch
	// leaves it: WritePairs must not take it.
	dg := make([]uint16, (g.Pixels(c.images)+64)*a.CoutP)
	for i := (g.Lead() + c.images*g.ImagePixels()) * a.CoutP; i < len(dg); i++ {
		dg[i] = 0x3f80
	}
	g.WriteBF16(dg, a.CoutP, d, c.cout, 0, c.images)
	half := g.Computed(c.images) / 4 * 2
	g.WritePairs(a.D, dg, a.CoutP, c.images, half, g.Computed(c.images))
	g.WritePairs(a.D, dg, a.CoutP, c.images, 0, half)
	return x, d, a
}

// directWeightGrad is the weight gradient in float64 of x and d rounded to
// bfloat16, with the zero padding, and the sum of its terms' magnitudes.
func directWeightGrad(c gradCase, x, d []float32) (gw, mag []float64) {
	gw, mag = make([]float64, 9*c.cin*c.cout), make([]float64, 9*c.cin*c.cout)
	bf := func(v float32) float64 { return float64(FromBF16(ToBF16(v))) }
	for i := range c.images {
		for y := range c.h {
			for xx := range c.w {
				for t := range 9 {
					sy, sx := y+t/3-1, xx+t%3-1
					if sy < 0 || sy >= c.h || sx < 0 || sx >= c.w {
						continue
					}
					for ci := range c.cin {
						xv := bf(x[((i*c.h+sy)*c.w+sx)*c.cin+ci])
						for o := range c.cout {
							v := xv * bf(d[((i*c.h+y)*c.w+xx)*c.cout+o])
							gw[(t*c.cin+ci)*c.cout+o] += v
							mag[(t*c.cin+ci)*c.cout+o] += math.Abs(v)
						}
					}
				}
			}
		}
	}
	return gw, mag
}

// TestLowpWeightGrad checks both implementations against the direct
// weight gradient in float64, over the whole grid and in two parts added,
// with what GW held before kept.
func TestLowpWeightGrad(t *testing.T) {
	impls := []string{"generic"}
	if platformWeightGrad() != nil {
		impls = append(impls, "amx")
	}
	for _, impl := range impls {
		for ci, c := range gradCases {
			t.Run(fmt.Sprintf("%s/%d", impl, ci), func(t *testing.T) {
				weightGradPortable = impl == "generic"
				defer func() { weightGradPortable = false }()
				x, d, a := gradData(c, uint64(ci))
				want, mag := directWeightGrad(c, x, d)
				for i := range a.GW {
					a.GW[i] = 1
				}
				var ws Workspace
				mid := a.P0 + (a.P1-a.P0)/64*32
				first, second := *a, *a
				first.P1, second.P0 = mid, mid
				ws.LowpWeightGrad(&first)
				ws.LowpWeightGrad(&second)
				for i, g := range a.GW {
					if diff := math.Abs(float64(g) - 1 - want[i]); diff > 1e-5*mag[i]+1e-6 {
						t.Fatalf("weight %d: got %v, want %v (terms' magnitudes %v)", i, float64(g)-1, want[i], mag[i])
					}
				}
			})
		}
	}
}
