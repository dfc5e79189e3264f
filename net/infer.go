package net

import (
	"fmt"
	"math"
	"math/rand/v2"

	"taflab/mcts"
	"taflab/net/kernels"
	"taflab/rules"
)

// foldedConv is a convolution with its batch norm folded in: w' = w *
// gamma/sqrt(var+eps) per output channel, b' = beta - mean*gamma/sqrt(var+eps).
type foldedConv struct {
	k, cin, cout int
	w, b         []float32
}

func fold(l *convBN) foldedConv {
	f := foldedConv{k: l.conv.k, cin: l.conv.cin, cout: l.conv.cout,
		w: append([]float32(nil), l.conv.w...), b: make([]float32, l.conv.cout)}
	for o := range f.cout {
		scale := l.bn.gamma[o] / float32(math.Sqrt(float64(l.bn.variance[o])+bnEpsilon))
		for i := o; i < len(f.w); i += f.cout {
			f.w[i] *= scale
		}
		f.b[o] = l.bn.beta[o] - l.bn.mean[o]*scale
	}
	return f
}

// Inference evaluates positions with a network's weights, batch norms
// folded into the convolutions. It implements mcts.Evaluator; it is used by
// one goroutine at a time (each self-play worker gets its own from
// NewInference; they share nothing that changes).
type Inference struct {
	cfg     Config
	id      string
	threads int
	stem    foldedConv
	blocks  [][2]foldedConv
	pol     foldedConv
	polOut  conv
	val     foldedConv
	fc1     dense
	fc2     dense

	// RandomSymmetry evaluates each position in a random one of the 8
	// board symmetries (mapping the policy back), as KataGo does to average
	// out the network's asymmetries over a search.
	RandomSymmetry bool
	rng            *rand.Rand

	// PlanesOf, if set, gives every position the rule-set planes of this
	// rule set instead of its own (the board's geometry must match): a
	// network that learnt one rule set, from game records say, can then
	// play self-play of another whose planes it has never seen, and so
	// make its first training data (the positions and search targets are
	// the played rule set's; only the network's inputs are borrowed).
	PlanesOf *rules.Variant

	syms            []rules.Symmetry // the symmetry of each position of a batch
	rows            int              // capacity of the buffers, in squares
	x, h, t, u, col []float32
	logits          []float32
	v, hidden       []float32
	wdl             []float32
}

// NewInference returns an evaluator with a copy of n's weights, using up to
// threads threads per batch; id names it in datasets (a file's hash, say).
func (n *Network) NewInference(threads int, id string) *Inference {
	in := &Inference{cfg: n.cfg, id: id, threads: max(threads, 1), rng: rand.New(rand.NewPCG(1, 2))}
	in.stem = fold(&n.stem)
	for i := range n.blocks {
		in.blocks = append(in.blocks, [2]foldedConv{fold(&n.blocks[i].a), fold(&n.blocks[i].b)})
	}
	in.pol = fold(&n.polConv)
	in.polOut = conv{k: 1, cin: n.polOut.cin, cout: n.polOut.cout, w: append([]float32(nil), n.polOut.w...), b: append([]float32(nil), n.polOut.b...)}
	in.val = fold(&n.valConv)
	in.fc1 = dense{in: n.valFC1.in, out: n.valFC1.out, w: append([]float32(nil), n.valFC1.w...), b: append([]float32(nil), n.valFC1.b...)}
	in.fc2 = dense{in: n.valFC2.in, out: n.valFC2.out, w: append([]float32(nil), n.valFC2.w...), b: append([]float32(nil), n.valFC2.b...)}
	return in
}

// ID implements mcts.Evaluator.
func (in *Inference) ID() string { return in.id }

// Seed sets the random stream of RandomSymmetry.
func (in *Inference) Seed(seed uint64) { in.rng = rand.New(rand.NewPCG(seed, 3)) }

func (in *Inference) grow(b int) {
	rows := b * Squares
	if rows <= in.rows {
		return
	}
	c := in.cfg.Channels
	f := func(n int) []float32 { return make([]float32, n) }
	in.x = f(rows * InputPlanes)
	in.h, in.t, in.u = f(rows*c), f(rows*c), f(rows*c)
	in.col = f(rows * 9 * max(c, InputPlanes))
	in.logits = f(rows * MovesPerSquare)
	in.v = f(rows * in.cfg.ValueChannels)
	in.hidden = f(b * in.cfg.ValueHidden)
	in.wdl = f(b * 3)
	in.rows = rows
}

// convBiasReLU computes out = relu(conv(x) + b (+ skip)).
func (in *Inference) convBiasReLU(l *foldedConv, x []float32, rows int, out, skip []float32) {
	src, kk := x, l.k*l.k*l.cin
	if l.k == 3 {
		im2col(in.col, x, rows, l.cin)
		src = in.col
	}
	kernels.GemmParallel(in.threads, false, false, rows, l.cout, kk, 1, src, kk, l.w, l.cout, 0, out, l.cout)
	if skip != nil {
		kernels.Axpy(1, skip[:rows*l.cout], out[:rows*l.cout])
	}
	kernels.AddBiasPerCol(out, rows, l.cout, l.cout, l.b, true)
}

// Forward evaluates b positions already encoded in Input(b): it returns the
// policy logits (b × PolicySize, unmasked) and the win/draw/loss
// probabilities (b × 3), views of the evaluator's memory valid until the
// next call.
func (in *Inference) Forward(b int) (logits, wdl []float32) {
	in.grow(b)
	rows := b * Squares
	in.convBiasReLU(&in.stem, in.x, rows, in.h, nil)
	for i := range in.blocks {
		in.convBiasReLU(&in.blocks[i][0], in.h, rows, in.t, nil)
		in.convBiasReLU(&in.blocks[i][1], in.t, rows, in.u, in.h)
		in.h, in.u = in.u, in.h
	}
	in.convBiasReLU(&in.pol, in.h, rows, in.t, nil)
	in.polOut.forward(in.threads, in.t, rows, in.logits, nil)
	in.convBiasReLU(&in.val, in.h, rows, in.v, nil)
	in.fc1.forward(in.threads, in.v, b, in.hidden, true)
	in.fc2.forward(in.threads, in.hidden, b, in.wdl, false)
	for i := range b {
		z := in.wdl[i*3 : i*3+3]
		m := max(z[0], z[1], z[2])
		var sum float32
		for j := range z {
			z[j] = float32(math.Exp(float64(z[j] - m)))
			sum += z[j]
		}
		for j := range z {
			z[j] /= sum
		}
	}
	return in.logits[:b*PolicySize], in.wdl[:b*3]
}

// WDL returns the win/draw/loss probabilities of position i of the last
// Forward or Evaluate, for the side to move.
func (in *Inference) WDL(i int) [3]float32 {
	return [3]float32{in.wdl[i*3], in.wdl[i*3+1], in.wdl[i*3+2]}
}

// Input returns the input buffer for b positions (b × Squares ×
// InputPlanes), to fill with Encode before Forward.
func (in *Inference) Input(b int) []float32 {
	in.grow(b)
	return in.x[:b*Squares*InputPlanes]
}

// Evaluate implements mcts.Evaluator: priors from the policy logits
// softmaxed over the legal moves, value = P(win) - P(loss).
func (in *Inference) Evaluate(batch *mcts.Batch) error {
	b := batch.Len()
	if b == 0 {
		return nil
	}
	x := in.Input(b)
	if cap(in.syms) < b {
		in.syms = make([]rules.Symmetry, b)
	}
	syms := in.syms[:b]
	for i := range b {
		p := batch.Positions[i]
		if in.RandomSymmetry {
			syms[i] = rules.Symmetry(in.rng.IntN(rules.NumSymmetries))
			p = syms[i].Position(p)
		}
		v := batch.Variants[i]
		if in.PlanesOf != nil {
			v = in.PlanesOf
		}
		if err := Encode(x[i*Squares*InputPlanes:(i+1)*Squares*InputPlanes], v, &p); err != nil {
			return err
		}
	}
	logits, wdl := in.Forward(b)
	for i := range b {
		moves, priors := batch.Moves[i], batch.Priors[i]
		l := logits[i*PolicySize : (i+1)*PolicySize]
		maxLogit := float32(math.Inf(-1))
		for j, m := range moves {
			idx := MoveIndex(m)
			if in.RandomSymmetry {
				idx = SymmetricIndex(syms[i], idx)
			}
			if idx < 0 {
				return fmt.Errorf("net: position %d: move %v is not a move", i, m)
			}
			priors[j] = l[idx]
			maxLogit = max(maxLogit, l[idx])
		}
		var sum float32
		for j := range moves {
			priors[j] = float32(math.Exp(float64(priors[j] - maxLogit)))
			sum += priors[j]
		}
		for j := range moves {
			priors[j] /= sum
		}
		batch.Values[i] = wdl[i*3] - wdl[i*3+2]
	}
	return nil
}
