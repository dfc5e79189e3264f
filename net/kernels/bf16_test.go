package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestToBF16Slice: the vector conversion rounds bit for bit as ToBF16, on
// lengths around its 32-value step and on the values that test rounding
// (ties, denormals, NaNs, infinities).
func TestToBF16Slice(t *testing.T) {
	special := []float32{0, float32(math.Copysign(0, -1)), 1.00390625, 1.01171875, 1.0078125,
		math.Float32frombits(0x3f808000), math.Float32frombits(0x3f818000), math.Float32frombits(0x3f80ffff),
		math.Float32frombits(0x00000001), math.Float32frombits(0x807fffff), math.Float32frombits(0x00800000),
		math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00001)}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{0, 1, 18, 31, 32, 33, 64, 95, 704} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			src := make([]float32, n)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * 3)
				if i%3 == 0 {
					src[i] = special[i/3%len(special)]
				}
			}
			dst := make([]uint16, n+1)
			dst[n] = 0xbeef
			ToBF16Slice(dst[:n], src)
			for i, v := range src {
				if got, want := dst[i], ToBF16(v); got != want {
					t.Errorf("value %d (%x): got %#04x, want %#04x", i, math.Float32bits(v), got, want)
				}
			}
			if dst[n] != 0xbeef {
				t.Errorf("wrote past the values: got %#04x, want 0xbeef", dst[n])
			}
		})
	}
}

// TestWriteBF16: images written in two ranges, into a grid of as many
// channels and of more, give what PutBF16 gives for all of them at once.
func TestWriteBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, c := range []struct{ h, w, cin, c, images, split int }{
		{11, 11, 64, 64, 5, 2}, {11, 11, 15, 32, 3, 1}, {3, 2, 7, 32, 4, 4}, {5, 7, 40, 64, 2, 0},
	} {
		t.Run(fmt.Sprintf("%dx%d/%d-in-%d/%d", c.h, c.w, c.cin, c.c, c.images), func(t *testing.T) {
			g := LowpGrid{c.h, c.w}
			x := make([]float32, c.images*c.h*c.w*c.cin)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			want := make([]uint16, g.Pixels(c.images)*c.c)
			g.PutBF16(want, c.c, x, c.cin, c.images)
			got := make([]uint16, len(want))
			g.WriteBF16(got, c.c, x, c.cin, c.split, c.images)
			g.WriteBF16(got, c.c, x, c.cin, 0, c.split)
			if i := slices.Compare(got, want); i != 0 {
				for j := range got {
					if got[j] != want[j] {
						t.Fatalf("element %d: got %#04x, want %#04x", j, got[j], want[j])
					}
				}
			}
		})
	}
}

// TestLowpSetWeights: a BF16 layer given new weights computes, on every
// implementation (the portable one after it has unpacked the old weights),
// bitwise what a layer made with them computes.
func TestLowpSetWeights(t *testing.T) {
	for _, impl := range LowpImplementations(BF16) {
		for ci, c := range lowpCases {
			t.Run(fmt.Sprintf("%s/%d", impl, ci), func(t *testing.T) {
				if err := SetLowpImplementation(BF16, impl); err != nil {
					t.Fatal(err)
				}
				defer SetLowpImplementation(BF16, "")
				l, a, _ := lowpRun(t, c, BF16, uint64(ci)) // used once with its own weights
				_, bias, _, _ := lowpData(c, BF16, uint64(ci))
				w, _, _, _ := lowpData(c, BF16, uint64(ci)+100)
				l.SetWeights(w)
				fresh := NewLowpConv(BF16, l.grid, c.k, c.cin, c.cout, w, bias, 1)
				if !slices.Equal(l.b, fresh.b) {
					t.Fatalf("packed weights differ from a fresh layer's")
				}
				want := *a
				want.OutF32 = make([]float32, len(a.OutF32))
				a.OutF32 = make([]float32, len(a.OutF32))
				var ws Workspace
				ws.LowpConv(l, a)
				ws.LowpConv(fresh, &want)
				for i := range want.OutF32 {
					if math.Float32bits(a.OutF32[i]) != math.Float32bits(want.OutF32[i]) {
						t.Fatalf("output %d: got %v, want %v", i, a.OutF32[i], want.OutF32[i])
					}
				}
			})
		}
	}
}

// TestLowpSetWeightsRefusesInt8: SetWeights is BF16's alone.
func TestLowpSetWeightsRefusesInt8(t *testing.T) {
	c := lowpCases[0]
	w, bias, _, _ := lowpData(c, Int8, 1)
	l := NewLowpConv(Int8, LowpGrid{c.h, c.w}, c.k, c.cin, c.cout, w, bias, 1)
	defer func() {
		if recover() == nil {
			t.Errorf("SetWeights on an Int8 layer: got no panic, want one")
		}
	}()
	l.SetWeights(w)
}

// BenchmarkToBF16Slice converts a residual block's activations of 256
// positions, in values per second.
func BenchmarkToBF16Slice(b *testing.B) {
	src := make([]float32, 256*121*64)
	for i := range src {
		src[i] = float32(i%977) * 0.013
	}
	dst := make([]uint16, len(src))
	for b.Loop() {
		ToBF16Slice(dst, src)
	}
	b.ReportMetric(float64(len(src)*b.N)/b.Elapsed().Seconds(), "values/s")
}

// TestTransposeBF16: every channel of every pixel of the range lands in
// its row, and nothing outside the range is written, for channel counts
// of whole 16-blocks (AVX-512 where the CPU has it) and others, and
// ranges not of whole blocks.
func TestTransposeBF16(t *testing.T) {
	for _, c := range []struct{ c, p0, p1, ld int }{{64, 0, 144, 150}, {32, 3, 100, 101}, {48, 16, 48, 48}, {15, 0, 70, 80}, {64, 5, 6, 8}} {
		t.Run(fmt.Sprintf("%d/%d-%d", c.c, c.p0, c.p1), func(t *testing.T) {
			src := make([]uint16, c.p1*c.c)
			for i := range src {
				src[i] = uint16(i*7 + 1)
			}
			dst := make([]uint16, c.c*c.ld)
			for i := range dst {
				dst[i] = 0xffff
			}
			TransposeBF16(dst, c.ld, src, c.c, c.p0, c.p1)
			for ch := range c.c {
				for p := range c.ld {
					want := uint16(0xffff)
					if p >= c.p0 && p < c.p1 {
						want = src[p*c.c+ch]
					}
					if got := dst[ch*c.ld+p]; got != want {
						t.Fatalf("channel %d, pixel %d: got %#x, want %#x", ch, p, got, want)
					}
				}
			}
		})
	}
}

// TestWritePairs: the pixel pairs are each pair's channels interleaved,
// zero past the images, on AVX-512 (where the CPU has it) and in Go, for
// ranges that end inside and past the images.
func TestWritePairs(t *testing.T) {
	paths := []bool{false}
	if hasTranspose {
		paths = append(paths, true)
	}
	defer func(h bool) { hasTranspose = h }(hasTranspose)
	g := LowpGrid{H: 3, W: 5}
	for _, asm := range paths {
		for _, c := range []int{32, 64, 48} {
			for _, images := range []int{1, 3} {
				t.Run(fmt.Sprintf("asm=%v/c=%d/images=%d", asm, c, images), func(t *testing.T) {
					hasTranspose = asm
					rng := rand.New(rand.NewPCG(7, uint64(c*images)))
					src := make([]uint16, g.Pixels(images)*c)
					for i := range src {
						src[i] = uint16(rng.Uint32())
					}
					computed, valid := g.Computed(images), images*g.ImagePixels()
					got := make([]uint16, computed*c)
					for i := range got {
						got[i] = 0x7777 // stale: every value must be written
					}
					split := (computed / 3) &^ 1
					g.WritePairs(got, src, c, images, 0, split)
					g.WritePairs(got, src, c, images, split, computed)
					for r := range computed {
						for o := range c {
							var want uint16
							if r < valid {
								want = src[(g.Lead()+r)*c+o]
							}
							if v := got[(r&^1)*c+2*o+r%2]; v != want {
								t.Fatalf("pixel %d channel %d: got %#x, want %#x", r, o, v, want)
							}
						}
					}
				})
			}
		}
	}
}
