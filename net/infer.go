package net

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"taflab/mcts"
	"taflab/net/kernels"
	"taflab/rules"
)

// foldedConv is a convolution with its batch norm folded in: w' = w *
// gamma/sqrt(var+eps) per output channel, b' = beta - mean*gamma/sqrt(var+eps).
type foldedConv struct {
	k, cin, cout int
	w, b         []float32
	// wino is the layer as a Winograd convolution (3x3 layers only), how
	// inference runs it; w and b stay for the direct path.
	wino *kernels.Winograd3x3
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
	if f.k == 3 {
		f.wino = kernels.NewWinograd3x3(BoardSize, BoardSize, f.cin, f.cout, f.w)
	}
	return f
}

// Inference evaluates positions with a network's weights, batch norms
// folded into the convolutions. It implements mcts.Evaluator; it is used by
// one goroutine at a time (each self-play worker gets its own from
// NewInference; they share nothing that changes).
//
// A batch of several positions is cut into one chunk per thread, and the
// chunks run the whole network at once on their own cores, each with its
// own scratch buffers: a convolution's rows are the squares of the
// positions, so every output element is computed exactly as the one-thread
// path computes it (the GEMM's result for a row does not depend on the
// other rows), and the results are bitwise the same for any thread count.
// A batch of one position is driven from the calling goroutine, each of
// its 3x3 (Winograd) layers split over the threads (kernels.WinogradTeam,
// on helpers that spin between layers instead of sleeping), or on one
// thread when that has measured faster (splitChooser).
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
	// out the network's asymmetries over a search. The choice is a hash of
	// the position and the seed (Seed), not a draw from a stream: a
	// position gets the same symmetry whichever batch, worker or order
	// evaluates it, so that games replay from their seeds whatever the
	// number of workers.
	RandomSymmetry bool
	symSeed        uint64

	// PlanesOf, if set, gives every position the rule-set planes of this
	// rule set instead of its own (the board's geometry must match): a
	// network that learnt one rule set, from game records say, can then
	// play self-play of another whose planes it has never seen, and so
	// make its first training data (the positions and search targets are
	// the played rule set's; only the network's inputs are borrowed).
	// NewInference sets it to the network's own (Network.PlanesOf).
	PlanesOf *rules.Variant

	syms      []rules.Symmetry // the symmetry of each position of a batch
	positions int              // capacity of x, logits and wdl, in positions
	x         []float32        // the batch's input planes
	logits    []float32        // the batch's policy logits
	wdl       []float32        // the batch's win/draw/loss probabilities

	// The chunks of the running Forward: chunk i is positions
	// [i*per, min((i+1)*per, n)), run on chunks[i]'s buffers. Written by
	// Forward before kernels.Parallel starts the chunks and only read while
	// they run.
	chunks []chunk
	per, n int
	// runChunk is in.forwardChunk as a func value made once, so that
	// handing it to kernels.Parallel allocates nothing.
	runChunk func(int)
	// team runs a Winograd layer of one position split over the threads
	// (made at the first such call).
	team *kernels.WinogradTeam
	// split chooses whether one position runs its layers split over the
	// threads.
	split splitChooser
	// direct runs the 3x3 convolutions as im2col GEMMs
	// instead of Winograd: the reference the tests compare with. Set only
	// by tests, before use.
	direct bool
	// prec is the precision the inference runs in (never Auto), and low
	// its layers when that is BF16 or Int8.
	prec Precision
	low  *lowNet
	// stats, if not nil, gathers the largest activations of every float32
	// forward pass (an Int8 network's calibration).
	stats *actStats
}

// chunk is the scratch of one chunk of a batch: the trunk's activations,
// the value head's, and the im2col matrix of a one-position batch on
// several threads, for up to positions positions.
// Only the goroutine running the chunk touches it.
type chunk struct {
	positions int
	h, t, u   []float32
	col       []float32
	v, hidden []float32
	// ws holds the chunk's GEMM packing and Winograd buffers, so that
	// chunks on several cores never share or grow pooled ones.
	ws kernels.Workspace
	// low are the grids of a reduced-precision inference.
	low lowChunk
}

// gemm is out = a·b (a m×k, b k×n) on threads threads; on one, with c's
// own workspace.
func (c *chunk) gemm(threads, m, n, k int, a, b, out []float32) {
	if threads <= 1 {
		c.ws.Gemm(false, false, m, n, k, 1, a, k, b, n, 0, out, n)
		return
	}
	kernels.GemmParallel(threads, false, false, m, n, k, 1, a, k, b, n, 0, out, n)
}

// NewInference returns an evaluator with a copy of n's weights, using up to
// threads threads per batch (threads ≤ 0: one per core, GOMAXPROCS), in
// the default precision (DefaultPrecision: float32 unless a command set
// it); id names it in datasets (a file's hash, say).
func (n *Network) NewInference(threads int, id string) *Inference {
	return n.NewInferenceAt(threads, id, DefaultPrecision())
}

// NewInferenceAt is NewInference in precision p (Auto: this CPU's best,
// Precision.Resolve). BF16 and Int8 run on portable Go where the CPU lacks
// their instructions (Precision.Native): correct, and tens of times
// slower than Float32. Int8 calibrates its activations' scales on
// positions of the human archive first (a few hundred float32 forward
// passes, once per network: Network.calibration).
func (n *Network) NewInferenceAt(threads int, id string, p Precision) *Inference {
	in := n.newInference(threads, id)
	in.prec = p.Resolve()
	switch in.prec {
	case BF16:
		in.low = newLowNet(in, BF16, nil)
	case Int8:
		in.low = newLowNet(in, Int8, n.calibration())
	}
	return in
}

// Precision returns the precision the inference runs in (never Auto).
func (in *Inference) Precision() Precision { return in.prec }

// newInference is NewInferenceAt in float32.
func (n *Network) newInference(threads int, id string) *Inference {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	in := &Inference{cfg: n.cfg, id: id, threads: threads, PlanesOf: n.planesOf}
	in.stem = fold(&n.stem)
	for i := range n.blocks {
		in.blocks = append(in.blocks, [2]foldedConv{fold(&n.blocks[i].a), fold(&n.blocks[i].b)})
	}
	in.pol = fold(&n.polConv)
	in.polOut = conv{k: 1, cin: n.polOut.cin, cout: n.polOut.cout, w: append([]float32(nil), n.polOut.w...), b: append([]float32(nil), n.polOut.b...)}
	in.val = fold(&n.valConv)
	in.fc1 = dense{in: n.valFC1.in, out: n.valFC1.out, w: append([]float32(nil), n.valFC1.w...), b: append([]float32(nil), n.valFC1.b...)}
	in.fc2 = dense{in: n.valFC2.in, out: n.valFC2.out, w: append([]float32(nil), n.valFC2.w...), b: append([]float32(nil), n.valFC2.b...)}
	in.chunks = make([]chunk, threads)
	in.runChunk = in.forwardChunk
	in.prec = Float32
	return in
}

// Threads returns the threads a batch runs on.
func (in *Inference) Threads() int { return in.threads }

// ID implements mcts.Evaluator.
func (in *Inference) ID() string { return in.id }

// Planes returns the rule set whose input planes a position of v is shown:
// PlanesOf when set, else v.
func (in *Inference) Planes(v *rules.Variant) *rules.Variant {
	if in.PlanesOf != nil {
		return in.PlanesOf
	}
	return v
}

// Seed sets the seed that RandomSymmetry's choices hash with the position
// (0 by default).
func (in *Inference) Seed(seed uint64) { in.symSeed = seed }

// symmetryOf is the symmetry RandomSymmetry evaluates p in under seed.
func symmetryOf(p *rules.Position, seed uint64) rules.Symmetry {
	h := seed
	for _, w := range [...]uint64{p.Attackers.Lo, p.Attackers.Hi, p.Defenders.Lo, p.Defenders.Hi, uint64(p.King)<<1 | uint64(p.ToMove)} {
		h = mcts.MixSeed(h, w)
	}
	return rules.Symmetry(h % rules.NumSymmetries)
}

// grow makes the batch's buffers hold b positions.
func (in *Inference) grow(b int) {
	if b <= in.positions {
		return
	}
	rows := b * Squares
	in.x = make([]float32, rows*InputPlanes)
	in.logits = make([]float32, rows*MovesPerSquare)
	in.wdl = make([]float32, b*3)
	in.positions = b
}

// grow makes the chunk's buffers hold b positions.
func (c *chunk) grow(cfg Config, b int, low bool) {
	if b <= c.positions {
		return
	}
	rows := b * Squares
	ch := cfg.Channels
	f := func(n int) []float32 { return make([]float32, n) }
	if !low { // a reduced-precision trunk runs on the grids of c.low instead
		c.h, c.t, c.u = f(rows*ch), f(rows*ch), f(rows*ch)
	}

	c.v = f(rows * cfg.ValueChannels)
	c.hidden = f(b * cfg.ValueHidden)
	c.positions = b
}

// convBiasReLU computes out = relu(conv(x) + b (+ skip)), with c's im2col
// scratch and workspace.
func (c *chunk) convBiasReLU(direct bool, threads int, l *foldedConv, x []float32, rows int, out, skip []float32) {
	switch {
	case l.wino != nil && !direct:
		// Winograd F(4x4, 3x3): 3.4 times fewer multiplications, with bias,
		// skip and ReLU applied as the output is written.
		c.ws.Winograd3x3(l.wino, rows/Squares, x, l.b, skip, out, true)
		return
	case l.k == 3:
		// The GEMM of the im2col matrix, on one thread or split over several
		// (the matrix grown to the largest such call: allocations only
		// while the batches grow).
		if len(c.col) < rows*9*l.cin {
			c.col = make([]float32, rows*9*l.cin)
		}
		im2col(c.col, x, rows, l.cin)
		c.gemm(threads, rows, l.cout, 9*l.cin, c.col, l.w, out)
	default:
		c.gemm(threads, rows, l.cout, l.k*l.k*l.cin, x, l.w, out)
	}
	if skip != nil {
		kernels.Axpy(1, skip[:rows*l.cout], out[:rows*l.cout])
	}
	kernels.AddBiasPerCol(out, rows, l.cout, l.cout, l.b, true)
}

// splitChooser chooses, for a batch of one position on several threads,
// between splitting each 3x3 layer over the threads and running the
// position on one, by the measured time of each. Which is faster depends on
// whether the threads get cores of their own: on a shared machine (Linux's
// autogroups give each login's processes together a fair share, whatever
// their nice values) the helper's spinning takes time from the caller's
// own thread, and splitting made batch 1 slower (751 against 968
// positions/s, 2-core EPYC with another training running, 2026-12-01). The
// results are bitwise the same either way.
type splitChooser struct {
	calls int
	// ns are the moving averages of a call's duration, one thread and
	// split (0: not measured yet).
	ns [2]float64
	// force, if not 0, makes every call split (1) or not (-1): for tests.
	force int
}

// splitProbe is how often the slower way is tried again: 1 call in
// splitProbe (at most a few percent of the time spent the slow way).
const splitProbe = 32

// choose returns the threads the next call runs on: threads or 1.
func (s *splitChooser) choose(threads int) int {
	s.calls++
	split := s.ns[1] == 0 || (s.ns[0] != 0 && s.ns[1] <= s.ns[0])
	if s.ns[0] != 0 && s.ns[1] != 0 && s.calls%splitProbe == 0 {
		split = !split
	}
	if s.force != 0 {
		split = s.force > 0
	}
	if split {
		return threads
	}
	return 1
}

// record adds a call's duration to the average of its way.
func (s *splitChooser) record(split bool, d time.Duration) {
	i := 0
	if split {
		i = 1
	}
	if s.ns[i] == 0 {
		s.ns[i] = float64(d)
		return
	}
	s.ns[i] += 0.25 * (float64(d) - s.ns[i])
}

// conv computes out = relu(conv(x) + b (+ skip)) on c's buffers; a
// Winograd layer on several threads has its work split over them
// (kernels.WinogradTeam: input channels, then the GEMMs' elements, then
// output channels).
func (in *Inference) conv(c *chunk, threads int, l *foldedConv, x []float32, rows int, out, skip []float32) {
	if l.wino == nil || in.direct || threads <= 1 {
		c.convBiasReLU(in.direct, threads, l, x, rows, out, skip)
		return
	}
	if in.team == nil {
		in.team = kernels.NewWinogradTeam(in.threads)
	}
	in.team.Run(l.wino, rows/Squares, x, l.b, skip, out, true)
}

// Forward evaluates b positions already encoded in Input(b): it returns the
// policy logits (b × PolicySize, unmasked) and the win/draw/loss
// probabilities (b × 3), views of the evaluator's memory valid until the
// next call.
func (in *Inference) Forward(b int) (logits, wdl []float32) {
	in.grow(b)
	parts := min(in.threads, b)
	if parts <= 1 {
		// One position (or one thread): driven from this goroutine, each
		// 3x3 layer split over the threads (conv).
		in.chunks[0].grow(in.cfg, min(b, subBatch), in.low != nil)
		threads := 1
		var start time.Time
		if in.threads > 1 {
			threads = in.split.choose(in.threads)
			start = time.Now()
		}
		in.forward(&in.chunks[0], 0, b, threads)
		if in.threads > 1 {
			in.split.record(threads > 1, time.Since(start))
		}
	} else {
		in.per = (b + parts - 1) / parts
		in.n = b
		parts = (b + in.per - 1) / in.per
		for i := range parts {
			in.chunks[i].grow(in.cfg, min(in.per, b-i*in.per, subBatch), in.low != nil)
		}
		kernels.Parallel(parts, in.runChunk)
	}
	return in.logits[:b*PolicySize], in.wdl[:b*3]
}

// forwardChunk runs chunk i of the batch on one thread.
func (in *Inference) forwardChunk(i int) {
	p0 := i * in.per
	in.forward(&in.chunks[i], p0, min(in.per, in.n-p0), 1)
}

// subBatch is the most positions that go through the network together:
// a chunk of more runs as several in turn, so that the activations (121 ×
// 64 floats a position, a few of them live) stay in the caches instead of
// streaming through memory at every layer. Measured with
// BenchmarkInference on one AVX2 core (2-core EPYC, 2026-12-01): whole
// batches of 64 and 256 ran at 877 and 744 positions/s, against 1,179 at 16.
const subBatch = 16

// forward evaluates positions [p0, p0+b) of the batch on c's buffers with
// threads threads per GEMM, subBatch positions at a time.
func (in *Inference) forward(c *chunk, p0, b, threads int) {
	for s := 0; s < b; s += subBatch {
		in.forwardPart(c, p0+s, min(subBatch, b-s), threads)
	}
}

// forwardPart is forward for at most subBatch positions.
func (in *Inference) forwardPart(c *chunk, p0, b, threads int) {
	if in.low != nil {
		in.forwardLow(c, p0, b)
		return
	}
	rows := b * Squares
	x := in.x[p0*Squares*InputPlanes:]
	logits := in.logits[p0*PolicySize:]
	wdl := in.wdl[p0*3 : (p0+b)*3]
	h, t, u := c.h, c.t, c.u
	st := in.stats
	in.conv(c, threads, &in.stem, x, rows, h, nil)
	if st != nil {
		observe(&st.h[0], h[:rows*in.cfg.Channels])
	}
	for i := range in.blocks {
		in.conv(c, threads, &in.blocks[i][0], h, rows, t, nil)
		in.conv(c, threads, &in.blocks[i][1], t, rows, u, h)
		h, u = u, h
		if st != nil {
			observe(&st.t[i], t[:rows*in.cfg.Channels])
			observe(&st.h[i+1], h[:rows*in.cfg.Channels])
		}
	}
	in.conv(c, threads, &in.pol, h, rows, t, nil)
	if st != nil {
		observe(&st.p, t[:rows*in.cfg.Channels])
	}
	po := &in.polOut
	c.gemm(threads, rows, po.cout, po.cin, t, po.w, logits)
	kernels.AddBiasPerCol(logits, rows, po.cout, po.cout, po.b, false)
	in.conv(c, threads, &in.val, h, rows, c.v, nil)
	in.valueHead(c, b, threads, wdl)
}

// valueHead computes the win/draw/loss probabilities of b positions into
// wdl from the value head's convolution in c.v.
func (in *Inference) valueHead(c *chunk, b, threads int, wdl []float32) {
	c.gemm(threads, b, in.fc1.out, in.fc1.in, c.v, in.fc1.w, c.hidden)
	kernels.AddBiasPerCol(c.hidden, b, in.fc1.out, in.fc1.out, in.fc1.b, true)
	c.gemm(threads, b, in.fc2.out, in.fc2.in, c.hidden, in.fc2.w, wdl)
	kernels.AddBiasPerCol(wdl, b, in.fc2.out, in.fc2.out, in.fc2.b, false)
	for i := range b {
		z := wdl[i*3 : i*3+3]
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
			syms[i] = symmetryOf(&p, in.symSeed)
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
