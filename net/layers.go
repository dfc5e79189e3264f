package net

import (
	"math"

	"taflab/net/kernels"
)

// This file is the network's hot path with the kernels: the layers' forward
// and backward passes on NHWC activations (rows = squares of the batch's
// positions, columns = channels). They take caller-owned buffers and
// allocate nothing; measure with BenchmarkInference and BenchmarkTrainStep
// before and after any change here.

// neighbour3x3[s][k] is the square at offset (k%3-1 files, k/3-1 ranks) from
// s, or -1 off the board: the taps of a 3x3 convolution.
var neighbour3x3 [Squares][9]int16

// taps3x3 is neighbour3x3 flat, as kernels.Patches takes it.
var taps3x3 = make([]int16, 0, Squares*9)

func init() {
	for s := range Squares {
		f, r := s%BoardSize, s/BoardSize
		for k := range 9 {
			nf, nr := f+k%3-1, r+k/3-1
			if nf < 0 || nf >= BoardSize || nr < 0 || nr >= BoardSize {
				neighbour3x3[s][k] = -1
			} else {
				neighbour3x3[s][k] = int16(nr*BoardSize + nf)
			}
		}
		taps3x3 = append(taps3x3, neighbour3x3[s][:]...)
	}
}

// im2col writes the 3x3 patches of x (rows×cin, rows a multiple of Squares)
// into cols (rows × 9*cin), zeros off the board.
func im2col(cols, x []float32, rows, cin int) {
	for base := 0; base < rows; base += Squares {
		for s := range Squares {
			row := cols[(base+s)*9*cin : (base+s+1)*9*cin]
			for k, nb := range neighbour3x3[s] {
				dst := row[k*cin : (k+1)*cin]
				if nb < 0 {
					clear(dst)
				} else {
					copy(dst, x[(base+int(nb))*cin:(base+int(nb)+1)*cin])
				}
			}
		}
	}
}

// col2im adds the patch gradients dcols (rows × 9*cin) back onto dx
// (rows×cin), which it overwrites.
func col2im(dx, dcols []float32, rows, cin int) {
	clear(dx[:rows*cin])
	for base := 0; base < rows; base += Squares {
		for s := range Squares {
			row := dcols[(base+s)*9*cin : (base+s+1)*9*cin]
			for k, nb := range neighbour3x3[s] {
				if nb >= 0 {
					kernels.Axpy(1, row[k*cin:(k+1)*cin], dx[(base+int(nb))*cin:(base+int(nb)+1)*cin])
				}
			}
		}
	}
}

// forward computes out (rows×cout) = conv(x) (+ bias if the layer has one);
// cols is scratch of rows×9*cin for a 3x3 layer.
func (l *conv) forward(threads int, x []float32, rows int, out, cols []float32) {
	in := x
	kk := l.k * l.k * l.cin
	if l.k == 3 {
		im2col(cols, x, rows, l.cin)
		in = cols
	}
	kernels.GemmParallel(threads, false, false, rows, l.cout, kk, 1, in, kk, l.w, l.cout, 0, out, l.cout)
	if l.b != nil {
		kernels.AddBiasPerCol(out, rows, l.cout, l.cout, l.b, false)
	}
}

// backward adds the weight (and bias) gradients for dout and, if dx is not
// nil, writes the input gradient into it. x is the forward input; cols and
// dcols are scratch of rows×9*cin for a 3x3 layer.
func (l *conv) backward(threads int, x []float32, rows int, dout, dx, cols, dcols []float32) {
	in := x
	kk := l.k * l.k * l.cin
	if l.k == 3 {
		im2col(cols, x, rows, l.cin)
		in = cols
	}
	kernels.GemmParallel(threads, true, false, kk, l.cout, rows, 1, in, kk, dout, l.cout, 1, l.gw, l.cout)
	if l.gb != nil {
		sumRows(l.gb, dout, rows, l.cout)
	}
	if dx == nil {
		return
	}
	if l.k == 1 {
		kernels.GemmParallel(threads, false, true, rows, l.cin, l.cout, 1, dout, l.cout, l.w, l.cout, 0, dx, l.cin)
		return
	}
	kernels.GemmParallel(threads, false, true, rows, kk, l.cout, 1, dout, l.cout, l.w, l.cout, 0, dcols, kk)
	col2im(dx, dcols, rows, l.cin)
}

// sumRows adds the column sums of m (rows×cols) to dst.
func sumRows(dst, m []float32, rows, cols int) {
	for r := range rows {
		kernels.Axpy(1, m[r*cols:(r+1)*cols], dst)
	}
}

// bnState is what one training forward pass of a batch norm keeps for the
// backward pass.
type bnState struct {
	xhat   []float32 // the normalized input, rows×c
	invstd []float32 // 1/sqrt(var+eps) of each channel
	mean   []float32 // scratch: the batch mean, then Σdy in backward
	dot    []float32 // scratch: Σ dy*xhat in backward
}

// forwardTrain normalizes z (rows×c) with the batch's statistics into
// st.xhat and out = gamma*xhat + beta, and moves the running statistics
// toward the batch's by momentum.
func (l *batchNorm) forwardTrain(z []float32, rows int, st *bnState, out []float32, momentum float32) {
	c := l.c
	mean, invstd := st.mean[:c], st.invstd[:c]
	clear(mean)
	sumRows(mean, z, rows, c)
	kernels.Scale(1/float32(rows), mean)
	variance := st.invstd[:c] // reuse: variance first, then invstd
	clear(variance)
	for r := range rows {
		row := z[r*c : (r+1)*c]
		for j, v := range row {
			d := v - mean[j]
			variance[j] += d * d
		}
	}
	for j := range c {
		v := variance[j] / float32(rows)
		unbiased := v * float32(rows) / float32(max(rows-1, 1))
		l.mean[j] += momentum * (mean[j] - l.mean[j])
		l.variance[j] += momentum * (unbiased - l.variance[j])
		invstd[j] = float32(1 / math.Sqrt(float64(v)+bnEpsilon))
	}
	for r := range rows {
		zr, xr, or := z[r*c:(r+1)*c], st.xhat[r*c:(r+1)*c], out[r*c:(r+1)*c]
		for j := range c {
			xr[j] = (zr[j] - mean[j]) * invstd[j]
			or[j] = l.gamma[j]*xr[j] + l.beta[j]
		}
	}
}

// backward adds the gradients of gamma and beta for dout and writes the
// gradient of the batch norm's input into dz (which may be dout itself).
func (l *batchNorm) backward(dout []float32, rows int, st *bnState, dz []float32) {
	c := l.c
	sumDy, dotXhat := st.mean[:c], st.dot[:c]
	clear(sumDy)
	clear(dotXhat)
	for r := range rows {
		dr, xr := dout[r*c:(r+1)*c], st.xhat[r*c:(r+1)*c]
		for j := range c {
			sumDy[j] += dr[j]
			dotXhat[j] += dr[j] * xr[j]
		}
	}
	for j := range c {
		l.gbeta[j] += sumDy[j]
		l.gg[j] += dotXhat[j]
	}
	// dz = gamma*invstd/rows * (rows*dy - Σdy - xhat*Σ(dy*xhat))
	n := float32(rows)
	for r := range rows {
		dr, xr, zr := dout[r*c:(r+1)*c], st.xhat[r*c:(r+1)*c], dz[r*c:(r+1)*c]
		for j := range c {
			zr[j] = l.gamma[j] * st.invstd[j] / n * (n*dr[j] - sumDy[j] - xr[j]*dotXhat[j])
		}
	}
}

// forward computes out (rows×out) = x·w + b, with ReLU if relu is set.
func (l *dense) forward(threads int, x []float32, rows int, out []float32, relu bool) {
	kernels.GemmParallel(threads, false, false, rows, l.out, l.in, 1, x, l.in, l.w, l.out, 0, out, l.out)
	kernels.AddBiasPerCol(out, rows, l.out, l.out, l.b, relu)
}

// backward adds the gradients of w and b for dout and, if dx is not nil,
// writes the input gradient.
func (l *dense) backward(threads int, x []float32, rows int, dout, dx []float32) {
	kernels.GemmParallel(threads, true, false, l.in, l.out, rows, 1, x, l.in, dout, l.out, 1, l.gw, l.out)
	sumRows(l.gb, dout, rows, l.out)
	if dx != nil {
		kernels.GemmParallel(threads, false, true, rows, l.in, l.out, 1, dout, l.out, l.w, l.out, 0, dx, l.in)
	}
}
