package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// lowpCase is one convolution the reduced-precision tests run.
type lowpCase struct {
	h, w, k, cin, cout, images int
	skip, relu                 bool
}

var lowpCases = []lowpCase{
	{11, 11, 3, 64, 64, 1, false, true},
	{11, 11, 3, 64, 64, 3, true, true},
	{11, 11, 3, 15, 64, 2, false, true},
	{11, 11, 1, 64, 40, 2, false, false},
	{11, 11, 1, 64, 4, 5, false, true},
	{5, 7, 3, 40, 33, 3, true, false},
	{3, 2, 3, 7, 16, 4, false, true},
}

// lowpData makes a case's weights, bias, input images (non-negative for
// Int8, whose inputs are ReLU outputs) and skip images.
func lowpData(c lowpCase, prec Lowp, seed uint64) (w, bias, x, skip []float32) {
	rng := rand.New(rand.NewPCG(seed, 7))
	w = make([]float32, c.k*c.k*c.cin*c.cout)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * 0.2)
	}
	bias = make([]float32, c.cout)
	for i := range bias {
		bias[i] = float32(rng.NormFloat64() * 0.1)
	}
	x = make([]float32, c.images*c.h*c.w*c.cin)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
		if prec == Int8 {
			x[i] = max(x[i], 0)
		}
	}
	skip = make([]float32, c.images*c.h*c.w*c.cout)
	for i := range skip {
		skip[i] = float32(rng.NormFloat64())
	}
	return
}

// lowpRun runs case c in prec with the implementation in use and returns
// the grid outputs and the float32 output.
func lowpRun(t *testing.T, c lowpCase, prec Lowp, seed uint64) (l *LowpConv, a *LowpArgs, xs []float32) {
	t.Helper()
	g := LowpGrid{c.h, c.w}
	w, bias, x, skip := lowpData(c, prec, seed)
	inScale := float32(4.0 / 255)
	l = NewLowpConv(prec, g, c.k, c.cin, c.cout, w, bias, inScale)
	px := g.Pixels(c.images)
	a = &LowpArgs{Images: c.images, ReLU: c.relu, OutScale: 3.0 / 255,
		OutBF16: make([]uint16, px*l.CoutP()), OutU8: make([]uint8, px*l.CoutP()),
		OutF32: make([]float32, c.images*c.h*c.w*(c.cout+3)), OutLd: c.cout + 3}
	// Garbage everywhere the convolution must write.
	for i := range a.OutBF16 {
		a.OutBF16[i] = 0x3f80
		a.OutU8[i] = 7
	}
	if prec == BF16 {
		a.InBF16 = make([]uint16, px*l.CinP())
		g.PutBF16(a.InBF16, l.CinP(), x, c.cin, c.images)
	} else {
		a.InU8 = make([]uint8, px*l.CinP())
		g.PutU8(a.InU8, l.CinP(), x, c.cin, c.images, inScale)
	}
	if c.skip {
		a.Skip = make([]uint16, px*l.CoutP())
		g.PutBF16(a.Skip, l.CoutP(), skip, c.cout, c.images)
	}
	var ws Workspace
	ws.LowpConv(l, a)
	return l, a, x
}

// TestLowpConvMatchesDirect checks every implementation of both precisions
// against a direct convolution in float64 of the same rounded inputs and
// weights, on odd sizes, with and without skip and ReLU, and that the
// layout's zero pixels come out zero.
func TestLowpConvMatchesDirect(t *testing.T) {
	for _, prec := range []Lowp{BF16, Int8} {
		for _, impl := range LowpImplementations(prec) {
			for ci, c := range lowpCases {
				t.Run(fmt.Sprintf("%v/%s/%d", prec, impl, ci), func(t *testing.T) {
					if err := SetLowpImplementation(prec, impl); err != nil {
						t.Fatal(err)
					}
					defer SetLowpImplementation(prec, "")
					l, a, _ := lowpRun(t, c, prec, uint64(ci))
					checkLowpDirect(t, c, l, a)
				})
			}
		}
	}
}

// checkLowpDirect compares a's outputs with the float64 convolution of its
// input grid and l's weight codes.
func checkLowpDirect(t *testing.T, c lowpCase, l *LowpConv, a *LowpArgs) {
	t.Helper()
	g := l.grid
	in := func(px, ch int) float64 {
		if l.prec == BF16 {
			return float64(FromBF16(a.InBF16[px*l.cinP+ch]))
		}
		return float64(a.InU8[px*l.cinP+ch])
	}
	wf, wi := l.unpacked()
	wt := func(tap, ch, o int) float64 {
		i := (tap*l.cinP+ch)*l.coutP + o
		if l.prec == BF16 {
			return float64(wf[i])
		}
		return float64(wi[i])
	}
	bad := 0
	for r := range g.Computed(c.images) {
		px := g.Lead() + r
		d := g.Dest(r, c.images)
		for o := range l.coutP {
			if d < 0 {
				if a.OutBF16[px*l.coutP+o] != 0 || a.OutU8[px*l.coutP+o] != 0 {
					t.Fatalf("zero pixel %d channel %d: got %#x and %d, want 0", r, o, a.OutBF16[px*l.coutP+o], a.OutU8[px*l.coutP+o])
				}
				continue
			}
			var acc, mag float64
			for tap, off := range l.taps {
				for ch := range l.cinP {
					p := in(px+off, ch) * wt(tap, ch, o)
					acc += p
					mag += math.Abs(p)
				}
			}
			y := acc*float64(l.scale[o]) + float64(l.bias[o])
			if a.Skip != nil {
				y += float64(FromBF16(a.Skip[px*l.coutP+o]))
			}
			if c.relu {
				y = max(y, 0)
			}
			// float32 accumulation (BF16) and the epilogue's roundings.
			tol := 1e-5*(mag*float64(l.scale[o])+math.Abs(y)+1) + 1e-6
			if o >= l.cout {
				if y != 0 {
					t.Fatalf("padding channel %d computed %v", o, y)
				}
			} else if got := float64(a.OutF32[d*a.OutLd+o]); math.Abs(got-y) > tol {
				if bad++; bad < 5 {
					t.Errorf("pixel %d channel %d: float32 output %v, want %v", d, o, got, y)
				}
			}
			if got, want := a.OutBF16[px*l.coutP+o], ToBF16(float32(y)); absDiffBF16(got, want) > 1 {
				if bad++; bad < 5 {
					t.Errorf("pixel %d channel %d: bf16 output %#x, want %#x (%v)", d, o, got, want, y)
				}
			}
			want := math.Min(math.Max(math.RoundToEven(y/float64(a.OutScale)), 0), 255)
			if got := float64(a.OutU8[px*l.coutP+o]); math.Abs(got-want) > 1 {
				if bad++; bad < 5 {
					t.Errorf("pixel %d channel %d: u8 output %v, want %v", d, o, got, want)
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d outputs wrong", bad)
	}
}

// absDiffBF16 is how many bfloat16 steps apart two values of one sign are.
func absDiffBF16(a, b uint16) int {
	d := int(a) - int(b)
	if d < 0 {
		return -d
	}
	return d
}

// TestLowpImplementationsAgree checks each assembly implementation against
// the portable one: Int8 to the last bit. BF16 within 1e-5 (relative, plus
// 1e-5 absolute) in float32 and one bfloat16 or int8 step: the AMX units
// add the products of a TDPBF16PS in an order of their own, not the
// documented one the portable code follows (on the AMX machine this was
// written on, 1 in 4 float32 outputs of 64-deep dot products differed in
// their last bits).
func TestLowpImplementationsAgree(t *testing.T) {
	for _, prec := range []Lowp{BF16, Int8} {
		impls := LowpImplementations(prec)
		if len(impls) == 1 {
			t.Logf("%v: this CPU runs only the portable implementation: nothing to compare", prec)
			continue
		}
		for _, impl := range impls[:len(impls)-1] {
			for ci, c := range lowpCases {
				t.Run(fmt.Sprintf("%v/%s/%d", prec, impl, ci), func(t *testing.T) {
					defer SetLowpImplementation(prec, "")
					SetLowpImplementation(prec, "generic")
					_, want, _ := lowpRun(t, c, prec, uint64(ci))
					SetLowpImplementation(prec, impl)
					_, got, _ := lowpRun(t, c, prec, uint64(ci))
					exact := prec == Int8
					diff, same := 0, 0
					for i := range want.OutF32 {
						g, w := got.OutF32[i], want.OutF32[i]
						if math.Float32bits(g) == math.Float32bits(w) {
							same++
							continue
						}
						if exact || math.Abs(float64(g-w)) > 1e-5*(math.Abs(float64(w))+1) {
							if diff++; diff < 5 {
								t.Errorf("float32 output %d: got %v, want %v", i, g, w)
							}
						}
					}
					for i := range want.OutBF16 {
						gb, wb, gu, wu := got.OutBF16[i], want.OutBF16[i], int(got.OutU8[i]), int(want.OutU8[i])
						if gb == wb && gu == wu {
							continue
						}
						if exact || absDiffBF16(gb, wb) > 1 || gu-wu > 1 || wu-gu > 1 {
							if diff++; diff < 5 {
								t.Errorf("grid element %d: got %#x/%d, want %#x/%d", i, gb, gu, wb, wu)
							}
						}
					}
					if diff > 0 {
						t.Fatalf("%d outputs differ", diff)
					}
					t.Logf("%d of %d float32 outputs bitwise the same", same, len(want.OutF32))
				})
			}
		}
	}
}

// BenchmarkLowpConv times one 64-channel 3x3 convolution of 16 11x11
// images (a residual block's layer at the network's sub-batch) with a skip,
// in each precision and implementation; BenchmarkWinograd's figure is the
// float32 one.
func BenchmarkLowpConv(b *testing.B) {
	for _, prec := range []Lowp{BF16, Int8} {
		for _, impl := range LowpImplementations(prec) {
			b.Run(fmt.Sprintf("%v/%s", prec, impl), func(b *testing.B) {
				defer SetLowpImplementation(prec, "")
				if err := SetLowpImplementation(prec, impl); err != nil {
					b.Fatal(err)
				}
				t := &testing.T{}
				c := lowpCase{11, 11, 3, 64, 64, 16, true, true}
				l, a, _ := lowpRun(t, c, prec, 1)
				a.OutF32 = nil
				if prec == BF16 {
					a.OutU8 = nil
				}
				var ws Workspace
				b.ResetTimer()
				for range b.N {
					ws.LowpConv(l, a)
				}
				b.ReportMetric(float64(b.N*c.images)/b.Elapsed().Seconds(), "images/s")
			})
		}
	}
}

// TestLowpRounding checks the epilogue's roundings on every implementation
// against ToBF16 and the byte codes, bit for bit, on values made to test
// them: a convolution of zero weights whose bias is the value (ties,
// denormals, NaN, infinities, codes past 255 and below 0).
func TestLowpRounding(t *testing.T) {
	values := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 1.00390625, 1.01171875, 1.0078125, 3.14159,
		math.Float32frombits(0x3f808000), math.Float32frombits(0x3f818000), math.Float32frombits(0x3f80ffff),
		math.Float32frombits(0x00000001), math.Float32frombits(0x807fffff), math.Float32frombits(0x00800000),
		math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00001),
		0.5, 1.5, 2.5, 254.4, 254.5, 255.5, 256, 3e9, -0.4, -0.6, 1e-30}
	if len(values) > 32 {
		t.Fatal("more values than one column pair")
	}
	for _, prec := range []Lowp{BF16, Int8} {
		for _, impl := range LowpImplementations(prec) {
			t.Run(fmt.Sprintf("%v/%s", prec, impl), func(t *testing.T) {
				defer SetLowpImplementation(prec, "")
				SetLowpImplementation(prec, impl)
				g := LowpGrid{2, 2}
				bias := make([]float32, 32)
				copy(bias, values)
				l := NewLowpConv(prec, g, 1, 1, 32, make([]float32, 32), bias, 1)
				px := g.Pixels(1)
				a := &LowpArgs{Images: 1, OutBF16: make([]uint16, px*l.CoutP()), OutU8: make([]uint8, px*l.CoutP()), OutScale: 1,
					OutF32: make([]float32, 4*32), OutLd: 32}
				if prec == BF16 {
					a.InBF16 = make([]uint16, px*l.CinP())
				} else {
					a.InU8 = make([]uint8, px*l.CinP())
				}
				var ws Workspace
				ws.LowpConv(l, a)
				d := g.Pixel(0, 1, 1) // any image pixel
				for o, v := range values {
					v += 0 // the accumulator's +0 plus the bias: -0 becomes +0
					if got, want := a.OutBF16[d*l.CoutP()+o], ToBF16(v); got != want {
						t.Errorf("bfloat16 of %v (%#x): got %#x, want %#x", v, math.Float32bits(v), got, want)
					}
					if got, want := a.OutU8[d*l.CoutP()+o], quantizeU8(v, 1); got != want {
						t.Errorf("code of %v: got %d, want %d", v, got, want)
					}
					if got := a.OutF32[3*32+o]; math.Float32bits(got) != math.Float32bits(v) && !(v != v && got != got) {
						t.Errorf("float32 of %v: got %v", v, got)
					}
				}
			})
		}
	}
}
