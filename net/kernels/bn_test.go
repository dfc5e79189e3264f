package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestBNPasses: each batch-norm pass gives bitwise what the plain loops of
// its definition give, on widths of 16-channel groups (AVX-512 where the
// CPU has it) and others, with rows apart by more than their width.
func TestBNPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	same := func(t *testing.T, what string, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s[%d]: got %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	for _, c := range []struct{ rows, c, ld int }{{7, 64, 64}, {1, 16, 16}, {5, 48, 50}, {6, 40, 40}, {0, 32, 32}, {300, 64, 64}} {
		t.Run(fmt.Sprintf("%dx%d/%d", c.rows, c.c, c.ld), func(t *testing.T) {
			n := max(c.rows*c.ld, 1)
			z, dout, mean, invstd, gamma, beta := vec(n), vec(n), vec(c.c), vec(c.c), vec(c.c), vec(c.c)
			k, sumDy, dot := vec(c.c), vec(c.c), vec(c.c)
			acc0 := vec(c.c)
			wantAcc, wantX, wantOut := append([]float32(nil), acc0...), make([]float32, n), make([]float32, n)
			wantS, wantD, wantDz := append([]float32(nil), sumDy...), append([]float32(nil), dot...), append([]float32(nil), dout...)
			for r := range c.rows {
				for j := range c.c {
					i := r*c.ld + j
					d := z[i] - mean[j]
					wantAcc[j] += d * d
					x := (z[i] - mean[j]) * invstd[j]
					wantX[i], wantOut[i] = x, gamma[j]*x+beta[j]
				}
			}
			for r := range c.rows {
				for j := range c.c {
					i := r*c.ld + j
					wantS[j] += dout[i]
					wantD[j] += dout[i] * wantX[i]
				}
			}
			for r := range c.rows {
				for j := range c.c {
					i := r*c.ld + j
					wantDz[i] = k[j] * (1000*dout[i] - wantS[j] - wantX[i]*wantD[j])
				}
			}
			acc := append([]float32(nil), acc0...)
			BNSumSq(z, c.rows, c.c, c.ld, mean, acc)
			same(t, "BNSumSq", acc, wantAcc)
			x, out := make([]float32, n), make([]float32, n)
			BNApply(z, c.rows, c.c, c.ld, mean, invstd, gamma, beta, x, out)
			same(t, "BNApply xhat", x, wantX)
			same(t, "BNApply out", out, wantOut)
			BNGradSums(dout, x, c.rows, c.c, c.ld, sumDy, dot)
			same(t, "BNGradSums sumDy", sumDy, wantS)
			same(t, "BNGradSums dot", dot, wantD)
			BNGradInput(dout, x, c.rows, c.c, c.ld, k, sumDy, dot, 1000, dout) // in place
			same(t, "BNGradInput", dout, wantDz)
		})
	}
}
