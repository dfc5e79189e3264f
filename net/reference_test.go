package net

import (
	"fmt"
	"math"

	"taflab/rules"
)

// This file is the float64 reference path: the network's forward pass and
// losses written as plainly as possible, loop by loop, to check the fast
// float32 path's outputs and (by central finite differences) its gradients.

// ref64 is a float64 copy of a network's weights.
type ref64 struct {
	n      *Network
	params []float64
	bufs   []float64
}

func newRef64(n *Network) *ref64 {
	r := &ref64{n: n, params: make([]float64, len(n.params)), bufs: make([]float64, len(n.buffers))}
	for i, v := range n.params {
		r.params[i] = float64(v)
	}
	for i, v := range n.buffers {
		r.bufs[i] = float64(v)
	}
	return r
}

func (r *ref64) tensor(name string) []float64 {
	for _, t := range r.n.tensors {
		if t.Name == name {
			if t.Trained {
				return r.params[t.offset : t.offset+len(t.Data)]
			}
			return r.bufs[t.offset : t.offset+len(t.Data)]
		}
	}
	panic("no tensor " + name)
}

// conv64 is a k×k convolution (zero padding) of x (rows×cin, NHWC over
// 11x11 boards) with HWIO weights w.
func conv64(x []float64, rows, cin, cout, k int, w []float64) []float64 {
	out := make([]float64, rows*cout)
	for base := 0; base < rows; base += Squares {
		for s := range Squares {
			f, r := s%BoardSize, s/BoardSize
			for ky := range k {
				for kx := range k {
					nf, nr := f+kx-k/2, r+ky-k/2
					if nf < 0 || nf >= BoardSize || nr < 0 || nr >= BoardSize {
						continue
					}
					src := base + nr*BoardSize + nf
					for c := range cin {
						xv := x[src*cin+c]
						for o := range cout {
							out[(base+s)*cout+o] += xv * w[((ky*k+kx)*cin+c)*cout+o]
						}
					}
				}
			}
		}
	}
	return out
}

// bn64 normalizes each channel: with the batch's statistics when train is
// set, the running ones otherwise.
func bn64(z []float64, rows, c int, gamma, beta, mean, variance []float64, train bool) []float64 {
	out := make([]float64, len(z))
	for j := range c {
		m, v := mean[j], variance[j]
		if train {
			m, v = 0, 0
			for r := range rows {
				m += z[r*c+j]
			}
			m /= float64(rows)
			for r := range rows {
				v += (z[r*c+j] - m) * (z[r*c+j] - m)
			}
			v /= float64(rows)
		}
		for r := range rows {
			out[r*c+j] = gamma[j]*(z[r*c+j]-m)/math.Sqrt(v+bnEpsilon) + beta[j]
		}
	}
	return out
}

func relu64(x []float64) []float64 {
	for i := range x {
		x[i] = math.Max(x[i], 0)
	}
	return x
}

func dense64(x []float64, rows, in, out int, w, b []float64) []float64 {
	y := make([]float64, rows*out)
	for r := range rows {
		for o := range out {
			s := b[o]
			for i := range in {
				s += x[r*in+i] * w[i*out+o]
			}
			y[r*out+o] = s
		}
	}
	return y
}

// forward returns the policy logits and the win/draw/loss logits of the
// encoded positions x (b positions).
func (r *ref64) forward(x []float64, b int, train bool) (logits, wdl []float64) {
	cfg := r.n.cfg
	rows := b * Squares
	convBN := func(prefix string, in []float64, cin, cout, k int) []float64 {
		z := conv64(in, rows, cin, cout, k, r.tensor(prefix+".conv.weight"))
		return bn64(z, rows, cout, r.tensor(prefix+".bn.gamma"), r.tensor(prefix+".bn.beta"),
			r.tensor(prefix+".bn.running_mean"), r.tensor(prefix+".bn.running_var"), train)
	}
	c := cfg.Channels
	h := relu64(convBN("stem", x, InputPlanes, c, 3))
	for i := range cfg.Blocks {
		a := relu64(convBN(blockName(i, "a"), h, c, c, 3))
		o := convBN(blockName(i, "b"), a, c, c, 3)
		for j := range o {
			o[j] += h[j]
		}
		h = relu64(o)
	}
	p := relu64(convBN("policy", h, c, c, 3))
	logits = conv64(p, rows, c, MovesPerSquare, 1, r.tensor("policy.out.weight"))
	bias := r.tensor("policy.out.bias")
	for i := range logits {
		logits[i] += bias[i%MovesPerSquare]
	}
	v := relu64(convBN("value", h, c, cfg.ValueChannels, 1))
	hid := relu64(dense64(v, b, Squares*cfg.ValueChannels, cfg.ValueHidden, r.tensor("value.fc1.weight"), r.tensor("value.fc1.bias")))
	wdl = dense64(hid, b, cfg.ValueHidden, 3, r.tensor("value.fc2.weight"), r.tensor("value.fc2.bias"))
	return logits, wdl
}

func blockName(i int, layer string) string {
	return fmt.Sprintf("blocks.%d.%s", i, layer)
}

// loss returns the training loss of a batch, as Trainer.Gradients defines
// it: policy cross-entropy over the legal moves (mean over the samples with
// a target), win/draw/loss cross-entropy (mean), L2/2 on the weights.
func (r *ref64) loss(batch []Sample, l2 float64) float64 {
	b := len(batch)
	x := make([]float64, b*Squares*InputPlanes)
	x32 := make([]float32, Squares*InputPlanes)
	for i := range batch {
		if err := Encode(x32, batch[i].Variant, &batch[i].Position); err != nil {
			panic(err)
		}
		for j, v := range x32 {
			x[i*len(x32)+j] = float64(v)
		}
	}
	logits, wdl := r.forward(x, b, true)
	policy, value, withPolicy := 0.0, 0.0, 0
	for i := range batch {
		if batch[i].Policy != nil {
			withPolicy++
			g, err := rules.NewGameFrom(batch[i].Variant, batch[i].Position)
			if err != nil {
				panic(err)
			}
			l := logits[i*PolicySize : (i+1)*PolicySize]
			sum := 0.0
			for _, m := range g.GenerateMoves(nil) {
				sum += math.Exp(l[MoveIndex(m)])
			}
			for _, mp := range batch[i].Policy {
				policy -= float64(mp.Prob) * (l[MoveIndex(mp.Move)] - math.Log(sum))
			}
		}
		z := wdl[i*3 : i*3+3]
		sum := math.Exp(z[0]) + math.Exp(z[1]) + math.Exp(z[2])
		// The target: 1-w parts the one-hot result, w parts the search's
		// win/loss odds.
		w, v := float64(batch[i].SearchWeight), float64(batch[i].SearchValue)
		target := [3]float64{w * (1 + v) / 2, 0, w * (1 - v) / 2}
		target[1-int(batch[i].Result)] += 1 - w
		for j := range 3 {
			value -= float64(batch[i].ValueWeight) * target[j] * (z[j] - math.Log(sum)) / float64(b)
		}
	}
	if withPolicy > 0 {
		policy /= float64(withPolicy)
	}
	penalty := 0.0
	for _, t := range r.n.tensors {
		if l2Weights(&t) {
			for _, w := range r.params[t.offset : t.offset+len(t.Data)] {
				penalty += w * w
			}
		}
	}
	return policy + value + l2/2*penalty
}
