package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestBNPasses: each batch-norm pass, with each of its fused steps on and
// off, gives bitwise what the plain loops of its definition give, on AVX-512
// (where the CPU has it) and in Go, on widths of 16-channel steps and
// others, its rows run in two calls split inside an image row.
func TestBNPasses(t *testing.T) {
	paths := []bool{false}
	if hasBN {
		paths = append(paths, true)
	}
	defer func(h bool) { hasBN = h }(hasBN)
	g := LowpGrid{H: 3, W: 5}
	for _, asm := range paths {
		for _, c := range []struct{ rows, c int }{{7, 64}, {1, 16}, {31, 48}, {6, 40}, {0, 32}, {300, 64}, {9, 4}} {
			for _, f := range []struct{ skip, relu, grid bool }{{false, false, false}, {true, true, false}, {false, true, true}, {true, true, true}} {
				name := fmt.Sprintf("asm=%v/%dx%d/skip=%v,relu=%v,grid=%v", asm, c.rows, c.c, f.skip, f.relu, f.grid)
				t.Run(name, func(t *testing.T) {
					hasBN = asm
					testBNPasses(t, g, c.rows, c.c, f.skip, f.relu, f.grid)
				})
			}
		}
	}
}

func testBNPasses(t *testing.T, g LowpGrid, rows, c int, skipOn, relu, gridOn bool) {
	rng := rand.New(rand.NewPCG(51, uint64(rows*c)))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	same := func(what string, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s[%d]: got %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	n := rows * c
	images := (rows + g.H*g.W - 1) / (g.H * g.W)
	z, dout, add, mean, invstd, gamma, beta := vec(n), vec(n), vec(n), vec(c), vec(c), vec(c), vec(c)
	k, acc0, sum0, dot0 := vec(c), vec(c), vec(c), vec(c)
	var skip []float32
	if skipOn {
		skip = vec(n)
	}
	// The plain loops: the forward pass's.
	wantSum, wantSq := append([]float32(nil), acc0...), append([]float32(nil), acc0...)
	wantX, wantOut := make([]float32, n), make([]float32, n)
	wantGrid := make([]uint16, g.Pixels(images)*c)
	for i := range wantGrid {
		wantGrid[i] = 0x7777 // what the passes must leave alone
	}
	for r := range rows {
		px := g.Pixel(r/(g.H*g.W), r/g.W%g.H, r%g.W)
		for j := range c {
			i := r*c + j
			wantSum[j] += z[i]
			d := z[i] - mean[j]
			wantSq[j] += d * d
			x := (z[i] - mean[j]) * invstd[j]
			wantX[i] = x
			o := gamma[j]*x + beta[j]
			if skipOn {
				o += skip[i]
			}
			if relu {
				o = float32(math.Max(float64(o+0), 0))
			}
			wantOut[i] = o
			wantGrid[px*c+j] = ToBF16(o)
		}
	}
	split := min(rows, 7) // inside an image row
	acc := append([]float32(nil), acc0...)
	BNSum(z, c, 0, split, acc)
	BNSum(z, c, split, rows, acc)
	same("BNSum", acc, wantSum)
	acc = append([]float32(nil), acc0...)
	BNSumSq(z, c, 0, split, mean, acc)
	BNSumSq(z, c, split, rows, mean, acc)
	same("BNSumSq", acc, wantSq)

	var mask []uint16
	for _, outOn := range []bool{true, false} {
		zIn := append([]float32(nil), z...)
		a := BNApply{C: c, Mean: mean, InvStd: invstd, Gamma: gamma, Beta: beta, Z: z, Skip: skip, ReLU: relu, G: g,
			Mask: make([]uint16, rows*MaskWords(c))}
		for i := range a.Mask {
			a.Mask[i] = 0x7777 // every bit must be written
		}
		if outOn {
			a.Out = make([]float32, n)
		}
		if gridOn {
			a.Grid = make([]uint16, len(wantGrid))
			for i := range a.Grid {
				a.Grid[i] = 0x7777
			}
		}
		a.Run(0, split)
		a.Run(split, rows)
		same("BNApply z", z, zIn)
		if outOn {
			same("BNApply out", a.Out, wantOut)
		}
		for r := range rows {
			for j := range c {
				if got, want := a.Mask[r*MaskWords(c)+j/16]>>(j%16)&1 == 1, wantOut[r*c+j] > 0; got != want {
					t.Fatalf("BNApply (out %v) mask of row %d channel %d: got %v, want %v", outOn, r, j, got, want)
				}
			}
		}
		if gridOn {
			for i, w := range wantGrid {
				if a.Grid[i] != w {
					t.Fatalf("BNApply (out %v) grid[%d]: got %#x, want %#x", outOn, i, a.Grid[i], w)
				}
			}
		}
		mask = a.Mask
	}

	// The backward passes, with and without what may come before them,
	// writing the input gradient in place, apart, or only to a grid.
	for _, v := range []struct {
		add, save bool
		dz        string
	}{{true, true, "apart"}, {true, false, "in place"}, {false, false, "apart"}, {false, false, "grid only"}} {
		if v.dz == "grid only" && !gridOn {
			continue
		}
		wantD, wantDz, wantGradGrid := make([]float32, n), make([]float32, n), make([]uint16, len(wantGrid))
		for i := range wantGradGrid {
			wantGradGrid[i] = 0x7777
		}
		wantS, wantDot := append([]float32(nil), sum0...), append([]float32(nil), dot0...)
		for i := range n {
			dy := dout[i]
			if v.add {
				dy += add[i]
			}
			if relu && !(wantOut[i] > 0) {
				dy = 0
			}
			wantD[i] = dy
			wantS[i%c] += dy
			wantDot[i%c] += dy * wantX[i]
		}
		for r := range rows {
			px := g.Pixel(r/(g.H*g.W), r/g.W%g.H, r%g.W)
			for j := range c {
				i := r*c + j
				wantDz[i] = k[j] * (float32(rows)*wantD[i] - wantS[j] - wantX[i]*wantDot[j])
				wantGradGrid[px*c+j] = ToBF16(wantDz[i])
			}
		}
		gr := BNGrad{C: c, Z: z, Mean: mean, InvStd: invstd, Dout: append([]float32(nil), dout...),
			SumDy: append([]float32(nil), sum0...), Dot: append([]float32(nil), dot0...), N: float32(rows), G: g}
		if v.add {
			gr.Add = append([]float32(nil), add...)
		}
		if relu {
			gr.Mask = mask
		}
		if v.save {
			gr.Save = gr.Add // the skip's share, in place of what was added
		}
		gr.Sums(0, split, gr.SumDy, gr.Dot)
		gr.Sums(split, rows, gr.SumDy, gr.Dot)
		what := fmt.Sprintf("BNGrad (add %v, save %v, dz %s)", v.add, v.save, v.dz)
		switch {
		case v.save:
			same(what+".Sums save", gr.Save, wantD)
			same(what+".Sums dout (left)", gr.Dout, dout)
		case v.add:
			same(what+".Sums dout", gr.Dout, wantD)
		default:
			same(what+".Sums dout (left)", gr.Dout, dout)
		}
		same(what+".Sums sumDy", gr.SumDy, wantS)
		same(what+".Sums dot", gr.Dot, wantDot)
		switch v.dz {
		case "apart":
			gr.Dz = make([]float32, n)
		case "in place":
			gr.Dz = gr.Dout
		}
		if gridOn {
			gr.Grid = make([]uint16, len(wantGradGrid))
			for i := range gr.Grid {
				gr.Grid[i] = 0x7777
			}
		}
		gr.Input(0, split, k)
		gr.Input(split, rows, k)
		if gr.Dz != nil {
			same(what+".Input", gr.Dz, wantDz)
		}
		if gridOn {
			for i, w := range wantGradGrid {
				if gr.Grid[i] != w {
					t.Fatalf("%s.Input grid[%d]: got %#x, want %#x", what, i, gr.Grid[i], w)
				}
			}
		}
	}
}

// TestBNPassesShort: a slice too short for its rows panics with the
// package's message rather than reading past it.
func TestBNPassesShort(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatalf("BNSum of 3 rows of 16 from 40 values: got no panic, want one")
		}
	}()
	BNSum(make([]float32, 40), 16, 0, 3, make([]float32, 16))
}
