package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// conv3x3Ref is the direct 3x3 convolution in float64 (zero padding 1) with
// bias, skip and ReLU as Winograd3x3 applies them, and for each output the
// sum of the magnitudes of its terms (the scale of float32 rounding).
func conv3x3Ref(h, w, cin, cout, images int, x, wt, bias, skip []float32, relu bool) (want, scale []float64) {
	want, scale = make([]float64, images*h*w*cout), make([]float64, images*h*w*cout)
	for img := range images {
		for r := range h {
			for c := range w {
				px := (img*h+r)*w + c
				for o := range cout {
					s, a := float64(bias[o]), math.Abs(float64(bias[o]))
					for t := range 9 {
						rr, cc := r+t/3-1, c+t%3-1
						if rr < 0 || rr >= h || cc < 0 || cc >= w {
							continue
						}
						for i := range cin {
							v := float64(x[((img*h+rr)*w+cc)*cin+i]) * float64(wt[(t*cin+i)*cout+o])
							s += v
							a += math.Abs(v)
						}
					}
					if skip != nil {
						s += float64(skip[px*cout+o])
						a += math.Abs(float64(skip[px*cout+o]))
					}
					if relu {
						s = max(s, 0)
					}
					want[px*cout+o], scale[px*cout+o] = s, a
				}
			}
		}
	}
	return want, scale
}

// TestWinograd3x3MatchesDirect: Winograd3x3 against the direct convolution
// in float64, within float32 rounding of the terms' magnitudes, for every
// implementation, odd sizes (channels not multiples of 8, boards that are
// not whole tiles, a board of one pixel), with and without skip and ReLU.
func TestWinograd3x3MatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	cases := []struct{ h, w, cin, cout, images int }{
		{1, 1, 1, 1, 1},
		{11, 11, 15, 64, 1},
		{11, 11, 64, 64, 5},
		{5, 7, 3, 17, 3},
		{4, 8, 8, 16, 2},
		{9, 6, 13, 33, 9},
		{3, 2, 21, 40, 65},
	}
	for _, cs := range cases {
		x := randVec(rng, cs.images*cs.h*cs.w*cs.cin)
		wt := randVec(rng, 9*cs.cin*cs.cout)
		bias := randVec(rng, cs.cout)
		skip := randVec(rng, cs.images*cs.h*cs.w*cs.cout)
		cv := NewWinograd3x3(cs.h, cs.w, cs.cin, cs.cout, wt)
		for _, im := range impls {
			for _, withSkip := range []bool{false, true} {
				relu := withSkip
				t.Run(fmt.Sprintf("%+v/%s/skip=%v", cs, im.name, withSkip), func(t *testing.T) {
					defer current.Store(current.Load())
					current.Store(im)
					var sk []float32
					if withSkip {
						sk = skip
					}
					want, scale := conv3x3Ref(cs.h, cs.w, cs.cin, cs.cout, cs.images, x, wt, bias, sk, relu)
					var ws Workspace
					got := make([]float32, len(want))
					ws.Winograd3x3(cv, cs.images, x, bias, sk, got, relu)
					for i := range want {
						if d := math.Abs(float64(got[i]) - want[i]); d > 1e-5*scale[i]+1e-6 || math.IsNaN(float64(got[i])) {
							t.Fatalf("output %d: got %v, want %v (difference %.3g, terms' magnitude %.3g)", i, got[i], want[i], d, scale[i])
						}
					}
				})
			}
		}
	}
}

// TestWinograd3x3Allocs: once a Workspace has grown, a convolution
// allocates nothing, for a smaller batch than the largest too.
func TestWinograd3x3Allocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	cv := NewWinograd3x3(11, 11, 64, 64, randVec(rng, 9*64*64))
	x := randVec(rng, 9*121*64)
	out, bias := make([]float32, len(x)), randVec(rng, 64)
	var ws Workspace
	ws.Winograd3x3(cv, 9, x, bias, x, out, true)
	for _, images := range []int{1, 4, 9} {
		if allocs := testing.AllocsPerRun(5, func() { ws.Winograd3x3(cv, images, x, bias, x, out, true) }); allocs != 0 {
			t.Errorf("%d images: got %v allocations, want 0", images, allocs)
		}
	}
}

// BenchmarkWinograd3x3 is one 64-channel 3x3 convolution of 11x11 boards
// by Winograd, with bias and ReLU, in positions per second (-cpu 1).
func BenchmarkWinograd3x3(b *testing.B) {
	rng := rand.New(rand.NewPCG(17, 18))
	cv := NewWinograd3x3(11, 11, 64, 64, randVec(rng, 9*64*64))
	for _, images := range []int{1, 16, 64} {
		x := randVec(rng, images*121*64)
		out, bias := make([]float32, len(x)), randVec(rng, 64)
		b.Run(fmt.Sprintf("b%d", images), func(b *testing.B) {
			var ws Workspace
			ws.Winograd3x3(cv, images, x, bias, nil, out, true)
			for b.Loop() {
				ws.Winograd3x3(cv, images, x, bias, nil, out, true)
			}
			b.ReportMetric(float64(images*b.N)/b.Elapsed().Seconds(), "positions/s")
		})
	}
}

// TestWinograd3x3SetWeights: new weights set into a convolution already
// used with every implementation give bitwise what a convolution made with
// them gives.
func TestWinograd3x3SetWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	const h, w, cin, cout, images = 11, 11, 13, 21, 2
	x := randVec(rng, images*h*w*cin)
	bias := randVec(rng, cout)
	cv := NewWinograd3x3(h, w, cin, cout, randVec(rng, 9*cin*cout))
	w2 := randVec(rng, 9*cin*cout)
	fresh := NewWinograd3x3(h, w, cin, cout, w2)
	defer current.Store(current.Load())
	out := make([]float32, images*h*w*cout)
	var ws Workspace
	for _, im := range impls {
		current.Store(im)
		ws.Winograd3x3(cv, images, x, bias, nil, out, false)
	}
	cv.SetWeights(w2)
	for _, im := range impls {
		current.Store(im)
		want := make([]float32, len(out))
		ws.Winograd3x3(fresh, images, x, bias, nil, want, false)
		ws.Winograd3x3(cv, images, x, bias, nil, out, false)
		for i := range want {
			if math.Float32bits(out[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: output %d: got %v, want %v (made with the weights)", im.name, i, out[i], want[i])
			}
		}
	}
}

// TestWinograd3x3WeightGrad: Winograd3x3GradU then AddWeightGrad gives the
// weight gradient of the direct convolution (in float64), added to what dw
// held, within float32 rounding of the terms' magnitudes, for every
// implementation and odd sizes.
func TestWinograd3x3WeightGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	cases := []struct{ h, w, cin, cout, images int }{
		{1, 1, 1, 1, 1},
		{11, 11, 15, 64, 2},
		{5, 7, 3, 17, 3},
		{9, 6, 13, 33, 40},
		{11, 11, 8, 8, 30}, // two blocks of images
	}
	for _, cs := range cases {
		x := randVec(rng, cs.images*cs.h*cs.w*cs.cin)
		dy := randVec(rng, cs.images*cs.h*cs.w*cs.cout)
		dw0 := randVec(rng, 9*cs.cin*cs.cout)
		want, scale := make([]float64, len(dw0)), make([]float64, len(dw0))
		for i, v := range dw0 {
			want[i], scale[i] = float64(v), math.Abs(float64(v))
		}
		for img := range cs.images {
			for r := range cs.h {
				for c := range cs.w {
					for tap := range 9 {
						rr, cc := r+tap/3-1, c+tap%3-1
						if rr < 0 || rr >= cs.h || cc < 0 || cc >= cs.w {
							continue
						}
						xs := x[((img*cs.h+rr)*cs.w+cc)*cs.cin:]
						ds := dy[((img*cs.h+r)*cs.w+c)*cs.cout:]
						for i := range cs.cin {
							for o := range cs.cout {
								v := float64(xs[i]) * float64(ds[o])
								want[(tap*cs.cin+i)*cs.cout+o] += v
								scale[(tap*cs.cin+i)*cs.cout+o] += math.Abs(v)
							}
						}
					}
				}
			}
		}
		cv := NewWinograd3x3(cs.h, cs.w, cs.cin, cs.cout, make([]float32, 9*cs.cin*cs.cout))
		for _, im := range impls {
			t.Run(fmt.Sprintf("%+v/%s", cs, im.name), func(t *testing.T) {
				defer current.Store(current.Load())
				current.Store(im)
				var ws Workspace
				du := make([]float32, cv.GradUSize())
				ws.Winograd3x3GradU(cv, cs.images, x, dy, du)
				dw := append([]float32(nil), dw0...)
				cv.AddWeightGrad(du, dw)
				for i := range want {
					if d := math.Abs(float64(dw[i]) - want[i]); d > 1e-5*scale[i]+1e-6 || math.IsNaN(float64(dw[i])) {
						t.Fatalf("gradient %d: got %v, want %v (difference %.3g, terms' magnitude %.3g)", i, dw[i], want[i], d, scale[i])
					}
				}
			})
		}
	}
}

// TestWinogradTeam: a WinogradTeam of 1, 2 and 3 parts gives bitwise what
// Winograd3x3 gives, for every implementation and odd sizes, with and
// without skip and ReLU, allocating nothing once grown.
func TestWinogradTeam(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	rng := rand.New(rand.NewPCG(23, 24))
	cases := []struct{ h, w, cin, cout, images int }{
		{1, 1, 1, 1, 1},
		{11, 11, 15, 64, 1},
		{11, 11, 64, 64, 1},
		{5, 7, 3, 17, 3},
		{9, 6, 13, 33, 9},
	}
	for _, cs := range cases {
		x := randVec(rng, cs.images*cs.h*cs.w*cs.cin)
		bias := randVec(rng, cs.cout)
		skip := randVec(rng, cs.images*cs.h*cs.w*cs.cout)
		cv := NewWinograd3x3(cs.h, cs.w, cs.cin, cs.cout, randVec(rng, 9*cs.cin*cs.cout))
		for _, im := range impls {
			for _, withSkip := range []bool{false, true} {
				t.Run(fmt.Sprintf("%+v/%s/skip=%v", cs, im.name, withSkip), func(t *testing.T) {
					defer current.Store(current.Load())
					current.Store(im)
					var sk []float32
					if withSkip {
						sk = skip
					}
					var ws Workspace
					want := make([]float32, cs.images*cs.h*cs.w*cs.cout)
					ws.Winograd3x3(cv, cs.images, x, bias, sk, want, withSkip)
					for _, parts := range []int{1, 2, 3} {
						team := NewWinogradTeam(parts)
						got := make([]float32, len(want))
						team.Run(cv, cs.images, x, bias, sk, got, withSkip)
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%d parts: output %d: got %v, want %v (Winograd3x3)", parts, i, got[i], want[i])
							}
						}
						if raceEnabled {
							continue
						}
						if allocs := testing.AllocsPerRun(5, func() { team.Run(cv, cs.images, x, bias, sk, got, withSkip) }); allocs != 0 {
							t.Errorf("%d parts: got %v allocations per Run, want 0", parts, allocs)
						}
					}
				})
			}
		}
	}
}
