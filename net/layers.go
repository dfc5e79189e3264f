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
	l.backwardPar(serial, threads, x, rows, dout, dx, cols, dcols)
}

// backwardPar is backward with its im2col run in bnBlocks pieces by run.
func (l *conv) backwardPar(run runner, threads int, x []float32, rows int, dout, dx, cols, dcols []float32) {
	in := x
	kk := l.k * l.k * l.cin
	if l.k == 3 {
		images := rows / Squares
		run(bnBlocks, func(i int) {
			r0, r1 := i*images/bnBlocks*Squares, (i+1)*images/bnBlocks*Squares
			im2col(cols[r0*kk:r1*kk], x[r0*l.cin:r1*l.cin], r1-r0, l.cin)
		})
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
	z      []float32 // the input, rows×c, set by the forward pass
	mask   []uint16  // where the output is positive (kernels.BNApply.Mask), if the layer's ReLU follows
	invstd []float32 // 1/sqrt(var+eps) of each channel
	mean   []float32 // the batch mean of each channel
	sumDy  []float32 // scratch: Σdy in backward
	dot    []float32 // scratch: Σ dy*xhat in backward
	part   []float32 // scratch: the blocks' partial sums, 2·bnBlocks×c (grown on first use)
}

// bnBlocks is how many blocks of rows the batch norms take their sums in,
// each block's on its own and the blocks' added in order, and how many
// pieces the trainer's other row loops are cut into: the same blocks for
// any number of threads, so that a training step is bitwise the same on
// any.
const bnBlocks = 8

// runner calls f(0), ..., f(n-1), at once or in turn. The trainer's spreads
// the calls over its threads.
type runner func(n int, f func(i int))

// serial is the runner of one thread.
func serial(n int, f func(int)) {
	for i := range n {
		f(i)
	}
}

// blockRows returns block i of bnBlocks blocks of rows rows.
func blockRows(rows, i int) (r0, r1 int) { return i * rows / bnBlocks, (i + 1) * rows / bnBlocks }

// forwardTrain normalizes z (rows×c, kept until the backward pass) with
// the batch's statistics into out = gamma*xhat + beta, and moves the
// running statistics toward the batch's by momentum.
func (l *batchNorm) forwardTrain(z []float32, rows int, st *bnState, out []float32, momentum float32) {
	l.forwardTrainPar(serial, z, rows, st, out, momentum, bnNext{})
}

// bnNext is what follows a batch norm in a training forward pass, fused
// into its last pass (kernels.BNApply): the skip, the ReLU (its mask kept
// in the state), and the next layer's bfloat16 input grid.
type bnNext struct {
	skip []float32 // nil: none
	relu bool
	grid []uint16 // nil: none
	g    kernels.LowpGrid
}

// forwardTrainPar is forwardTrain, followed by next, with its loops over
// the rows run in bnBlocks pieces by run. out may be nil where a grid
// takes the output.
func (l *batchNorm) forwardTrainPar(run runner, z []float32, rows int, st *bnState, out []float32, momentum float32, next bnNext) {
	c := l.c
	if len(st.part) < 2*bnBlocks*c {
		st.part = make([]float32, 2*bnBlocks*c)
	}
	part := st.part[:bnBlocks*c]
	mean, invstd := st.mean[:c], st.invstd[:c]
	run(bnBlocks, func(i int) {
		p := part[i*c : (i+1)*c]
		clear(p)
		r0, r1 := blockRows(rows, i)
		kernels.BNSum(z, c, r0, r1, p)
	})
	clear(mean)
	for i := range bnBlocks {
		kernels.Axpy(1, part[i*c:(i+1)*c], mean)
	}
	kernels.Scale(1/float32(rows), mean)
	run(bnBlocks, func(i int) {
		p := part[i*c : (i+1)*c]
		clear(p)
		r0, r1 := blockRows(rows, i)
		kernels.BNSumSq(z, c, r0, r1, mean, p)
	})
	variance := st.invstd[:c] // reuse: variance first, then invstd
	clear(variance)
	for i := range bnBlocks {
		kernels.Axpy(1, part[i*c:(i+1)*c], variance)
	}
	for j := range c {
		v := variance[j] / float32(rows)
		unbiased := v * float32(rows) / float32(max(rows-1, 1))
		l.mean[j] += momentum * (mean[j] - l.mean[j])
		l.variance[j] += momentum * (unbiased - l.variance[j])
		invstd[j] = float32(1 / math.Sqrt(float64(v)+bnEpsilon))
	}
	st.z = z[:rows*c]
	a := kernels.BNApply{C: c, Mean: mean, InvStd: invstd, Gamma: l.gamma, Beta: l.beta, Z: st.z, Out: out,
		Skip: next.skip, ReLU: next.relu, Grid: next.grid, G: next.g}
	if next.relu {
		if n := rows * kernels.MaskWords(c); len(st.mask) < n {
			st.mask = make([]uint16, n)
		}
		a.Mask = st.mask
	}
	run(bnBlocks, func(i int) { a.Run(blockRows(rows, i)) })
}

// backward adds the gradients of gamma and beta for dout and writes the
// gradient of the batch norm's input into dz (which may be dout itself).
func (l *batchNorm) backward(dout []float32, rows int, st *bnState, dz []float32) {
	l.backwardPar(serial, dout, rows, st, bnPrev{dz: dz})
}

// bnPrev is what comes before a batch norm's backward pass, fused into
// its first (kernels.BNGrad.Sums): a gradient added to dout, the ReLU's
// (the forward pass's mask), and a copy of the result; and where its last
// pass writes: dz (f32), grid (bfloat16, in g's layout), or both.
type bnPrev struct {
	add, save []float32 // nil: none
	relu      bool
	dz        []float32
	grid      []uint16
	g         kernels.LowpGrid
}

// backwardPar is backward, after prev, with its loops over the rows run
// in bnBlocks pieces by run. dout may be left changed (kernels.BNGrad).
func (l *batchNorm) backwardPar(run runner, dout []float32, rows int, st *bnState, prev bnPrev) {
	c := l.c
	if len(st.part) < 2*bnBlocks*c {
		st.part = make([]float32, 2*bnBlocks*c)
	}
	part := st.part[:2*bnBlocks*c]
	a := kernels.BNGrad{C: c, Z: st.z, Mean: st.mean, InvStd: st.invstd, Dout: dout, Add: prev.add, Save: prev.save,
		Dz: prev.dz, Grid: prev.grid, G: prev.g}
	if prev.relu {
		a.Mask = st.mask
	}
	run(bnBlocks, func(i int) {
		ps, pd := part[i*c:(i+1)*c], part[(bnBlocks+i)*c:(bnBlocks+i+1)*c]
		clear(ps)
		clear(pd)
		r0, r1 := blockRows(rows, i)
		a.Sums(r0, r1, ps, pd)
	})
	sumDy, dotXhat := st.sumDy[:c], st.dot[:c]
	clear(sumDy)
	clear(dotXhat)
	for i := range bnBlocks {
		kernels.Axpy(1, part[i*c:(i+1)*c], sumDy)
		kernels.Axpy(1, part[(bnBlocks+i)*c:(bnBlocks+i+1)*c], dotXhat)
	}
	for j := range c {
		l.gbeta[j] += sumDy[j]
		l.gg[j] += dotXhat[j]
	}
	// dz = gamma*invstd/rows * (rows*dy - Σdy - xhat*Σ(dy*xhat))
	n := float32(rows)
	k := part[:c] // gamma*invstd/rows, per channel
	for j := range c {
		k[j] = l.gamma[j] * st.invstd[j] / n
	}
	a.SumDy, a.Dot, a.N = sumDy, dotXhat, n
	run(bnBlocks, func(i int) {
		r0, r1 := blockRows(rows, i)
		a.Input(r0, r1, k)
	})
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
