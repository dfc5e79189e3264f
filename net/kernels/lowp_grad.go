// Hot file: the weight gradients of training's bfloat16 convolutions.
// Keep Workspace.LowpWeightGrad allocation-free; measure with
// BenchmarkLowpWeightGrad and net's BenchmarkTrainStep after any change.

package kernels

import (
	"fmt"
	"sync"
)

// WeightGradArgs are one weight gradient of a 3x3 convolution in
// bfloat16, over pixels P0 to P1-1 of a grid of Grid's layout (P0 and P1
// computed pixels: Lead() plus multiples of 32, at most Lead() +
// Computed(images)):
//
//	GW[(t·Cin + c)·Cout + o] += Σ_p X[c·LdX + p + tap(t)] · D[pairs(p, o)]
//
// the layout of NewLowpConv's weights, tap(t) t's distance in the grid.
type WeightGradArgs struct {
	Grid LowpGrid
	// X is the layer's input transposed: CinP rows of LdX pixels
	// (LdX ≥ Grid.Pixels(images)), row c channel c of every grid pixel,
	// zero on the layout's zero pixels (WriteBF16 or BNApply's Grid, then TransposeBF16); the rows past Cin
	// are read, but what they hold counts nowhere.
	X           []uint16
	LdX         int
	Cin, CinP   int // CinP: Cin rounded up to 32
	Cout, CoutP int // CoutP: Cout rounded up to 32
	// D is the output's gradient as pixel pairs: computed pixel Lead()+r
	// (r from 0 to Computed(images)-1), channel o at ((r/2)·CoutP + o)·2 +
	// r%2, zero on the layout's zero pixels and past the images
	// (WriteBF16 or BNGrad's Grid, then WritePairs); what the channels past Cout hold counts nowhere.
	D      []uint16
	P0, P1 int
	// GW is the gradient added to.
	GW []float32
}

// taps3 are the grid distances of a 3x3 convolution's taps.
func (g LowpGrid) taps3() [9]int {
	var t [9]int
	for i := range t {
		t[i] = (i/3-1)*(g.W+1) + i%3 - 1
	}
	return t
}

// addBlock adds the 32×32 block of channels m.. and columns n.. of tap t
// to a.GW.
func (a *WeightGradArgs) addBlock(t, m, n int, block []float32) {
	for r := range min(32, a.Cin-m) {
		row := block[r*32 : r*32+min(32, a.Cout-n)]
		gw := a.GW[(t*a.Cin+m+r)*a.Cout+n:][:len(row)]
		for j, v := range row {
			gw[j] += v
		}
	}
}

// LowpWeightGrad adds a 3x3 convolution's weight gradient over a's pixels
// to a.GW, on the calling goroutine: on the AMX tiles where this CPU has
// them, else in portable Go; the products exact (bfloat16 times bfloat16)
// and summed in float32, in an order that depends on the implementation.
// It panics if a's sizes are inconsistent or a slice is too short.
func (w *Workspace) LowpWeightGrad(a *WeightGradArgs) {
	lead := a.Grid.Lead()
	if a.CinP != roundUp(a.Cin, 32) || a.CoutP != roundUp(a.Cout, 32) || a.Cin < 1 || a.Cout < 1 ||
		a.P0 < lead || a.P1 < a.P0 || (a.P0-lead)%32 != 0 || (a.P1-lead)%32 != 0 ||
		len(a.X) < (a.CinP-1)*a.LdX+a.P1+a.Grid.reach() || len(a.D) < (a.P1-lead)*a.CoutP ||
		len(a.GW) < 9*a.Cin*a.Cout {
		panic(fmt.Sprintf("kernels: LowpWeightGrad: %d to %d channels, pixels %d to %d, lead %d: sizes or slices too short", a.Cin, a.Cout, a.P0, a.P1, lead))
	}
	if a.P1 == a.P0 {
		return
	}
	if len(w.gradBlock) == 0 {
		w.gradBlock = make([]float32, 32*32)
	}
	if f := weightGradImpl(); f != nil {
		f(a, w.gradBlock)
		return
	}
	weightGradGeneric(a)
}

var (
	weightGradOnce sync.Once
	weightGradAMX  func(*WeightGradArgs, []float32)
	// weightGradPortable forces the portable implementation: set only by
	// tests, before use.
	weightGradPortable bool
)

// weightGradImpl returns the assembly implementation, or nil.
func weightGradImpl() func(*WeightGradArgs, []float32) {
	if weightGradPortable {
		return nil
	}
	weightGradOnce.Do(func() { weightGradAMX = platformWeightGrad() })
	return weightGradAMX
}

// weightGradGeneric is LowpWeightGrad in portable Go.
func weightGradGeneric(a *WeightGradArgs) {
	lead := a.Grid.Lead()
	for t, off := range a.Grid.taps3() {
		for c := range a.Cin {
			x := a.X[c*a.LdX:]
			gw := a.GW[(t*a.Cin+c)*a.Cout:][:a.Cout]
			for p := a.P0; p < a.P1; p++ {
				xv := FromBF16(x[p+off])
				if xv == 0 {
					continue
				}
				r := p - lead
				d := a.D[(r/2*a.CoutP)*2+r%2:]
				for o := range gw {
					gw[o] += xv * FromBF16(d[2*o])
				}
			}
		}
	}
}
