package net

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"taflab/internal/errctx"
	"taflab/internal/hugepage"
	"taflab/net/kernels"
	"taflab/rules"
)

// TrainConfig holds the settings of a training step and its optimizer.
// Units and defaults are in the field comments; DefaultTrainConfig returns
// the defaults.
type TrainConfig struct {
	// Optimizer is "adam" or "sgd" (with momentum). Default "adam": on
	// the human archive it predicted 26.9% of held-out moves after 1,000
	// steps at 0.002, SGD 19.4% at 0.02 (docs/fit-to-human-play.md).
	Optimizer string `toml:"optimizer" json:"optimizer"`
	// LearningRate is the peak learning rate. Default 0.002 (SGD wants
	// about ten times more).
	LearningRate float64 `toml:"learning_rate" json:"learning_rate"`
	// Momentum is SGD's momentum (Adam's beta1). Default 0.9.
	Momentum float64 `toml:"momentum" json:"momentum"`
	// L2 is the weight of the L2 penalty on convolution and dense weights.
	// Default 1e-4.
	L2 float64 `toml:"l2" json:"l2"`
	// WarmupSteps ramps the learning rate up linearly. Default 100.
	WarmupSteps int `toml:"warmup_steps" json:"warmup_steps"`
	// Schedule is "constant" or "cosine" (down to 1% of the peak at
	// TotalSteps). Default "cosine".
	Schedule string `toml:"schedule" json:"schedule"`
	// TotalSteps is the length of the schedule. Default 10000.
	TotalSteps int `toml:"total_steps" json:"total_steps"`
	// BatchNormMomentum moves the running statistics toward each batch's.
	// Default 0.05.
	BatchNormMomentum float64 `toml:"batch_norm_momentum" json:"batch_norm_momentum"`
	// Threads is the number of threads a step uses; 0 means every core.
	Threads int `toml:"threads" json:"threads"`
	// Precision is the arithmetic of the 3x3 convolutions (Trainer.
	// SetPrecision): "float32", "bf16" (bfloat16 products on AMX tiles,
	// everything else in float32; refused where the CPU has none) or
	// "auto" (bf16 where the CPU has AMX, else float32). Default
	// "float32"; "" means the default.
	Precision string `toml:"precision" json:"precision,omitempty"`
}

// DefaultTrainConfig returns the default training settings.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{Optimizer: "adam", LearningRate: 0.002, Momentum: 0.9, L2: 1e-4, WarmupSteps: 100,
		Schedule: "cosine", TotalSteps: 10000, BatchNormMomentum: 0.05, Precision: "float32"}
}

// trainPrecision is the precision c names ("" the default, Float32).
func (c TrainConfig) trainPrecision() (Precision, error) {
	if c.Precision == "" {
		return Float32, nil
	}
	p, err := ParsePrecision(c.Precision)
	if err != nil || p == Int8 {
		return 0, fmt.Errorf("want \"float32\", \"bf16\" or \"auto\"")
	}
	return p, nil
}

// Validate reports every setting out of range.
func (c TrainConfig) Validate() error {
	var errs []error
	bad := func(key string, v any, want string) {
		errs = append(errs, errctx.Errorf("net", "%s = %v: want %s", key, v, want))
	}
	if c.Optimizer != "sgd" && c.Optimizer != "adam" {
		bad("optimizer", c.Optimizer, `"sgd" or "adam"`)
	}
	if !(c.LearningRate > 0 && c.LearningRate < 10) {
		bad("learning_rate", c.LearningRate, "more than 0 and less than 10")
	}
	if !(c.Momentum >= 0 && c.Momentum < 1) {
		bad("momentum", c.Momentum, "from 0 to less than 1")
	}
	if !(c.L2 >= 0 && c.L2 < 1) {
		bad("l2", c.L2, "from 0 to less than 1")
	}
	if c.WarmupSteps < 0 {
		bad("warmup_steps", c.WarmupSteps, "0 or more")
	}
	if c.Schedule != "constant" && c.Schedule != "cosine" {
		bad("schedule", c.Schedule, `"constant" or "cosine"`)
	}
	if c.TotalSteps < 1 {
		bad("total_steps", c.TotalSteps, "at least 1")
	}
	if !(c.BatchNormMomentum > 0 && c.BatchNormMomentum <= 1) {
		bad("batch_norm_momentum", c.BatchNormMomentum, "more than 0 and at most 1")
	}
	if c.Threads < 0 {
		bad("threads", c.Threads, "0 (every core) or more")
	}
	if _, err := c.trainPrecision(); err != nil {
		bad("precision", fmt.Sprintf("%q", c.Precision), `"float32", "bf16" or "auto"`)
	}
	return errors.Join(errs...)
}

// LearningRateAt returns the schedule's learning rate at a step (from 0).
func (c TrainConfig) LearningRateAt(step int) float64 {
	lr := c.LearningRate
	if c.Schedule == "cosine" {
		t := math.Min(float64(step)/float64(c.TotalSteps), 1)
		lr *= 0.01 + 0.99*0.5*(1+math.Cos(math.Pi*t))
	}
	if step < c.WarmupSteps {
		lr *= float64(step+1) / float64(c.WarmupSteps)
	}
	return lr
}

// Sample is one training example.
type Sample struct {
	Variant  *rules.Variant
	Position rules.Position
	// Policy is the search's distribution over the legal moves; nil when
	// the position has no policy target (a cheap search).
	Policy []rules.MoveProb
	// Result is the game's result for the side to move: +1, 0 or -1.
	Result int8
	// SearchValue is the search's value of the position for the side to
	// move, from -1 to +1, and SearchWeight (0 to 1) the share of the value
	// target it makes up: the target is SearchWeight parts the search's
	// win/loss odds ((1+v)/2, 0, (1-v)/2) and 1-SearchWeight parts the
	// one-hot result. This is Leela Chess Zero's q_ratio: when one side wins
	// nearly every game (hnefatafl's defenders against weak attackers) the
	// result alone tells the value head almost nothing about which of the
	// loser's positions are better, and the search's value does.
	SearchValue  float32
	SearchWeight float32
	// ValueWeight scales the sample's value loss, from 0 to 1: 1 for a
	// searched self-play position; less for a position of a game record,
	// whose result is one noisy outcome of people's play with no search
	// behind it; 0 for a game that has no result. The zero value trains no
	// value: every maker of samples sets it.
	ValueWeight float32
	// Weight scales the sample's policy and value losses both, as if it
	// were drawn Weight times as often (KataGo's policy surprise
	// weighting), 0 or more; 0 is read as 1, so that a sample weighs as
	// any other unless its maker says otherwise.
	Weight float32
}

// weight returns a sample's Weight, 0 read as 1.
func (s *Sample) weight() float32 {
	if s.Weight == 0 {
		return 1
	}
	return s.Weight
}

// Losses are a step's mean losses.
type Losses struct {
	Policy float64 // cross-entropy over the samples with a policy target
	Value  float64 // win/draw/loss cross-entropy, each sample's scaled by its ValueWeight
	L2     float64 // the penalty term
}

// Total returns the sum of the losses.
func (l Losses) Total() float64 { return l.Policy + l.Value + l.L2 }

// Trainer trains a network: forward and backward passes on batches of
// samples, and the optimizer's state. It is used by one goroutine.
type Trainer struct {
	net     *Network
	cfg     TrainConfig
	threads int
	step    int
	// optimizer state: SGD's velocity, or Adam's first and second moments
	m, v []float32

	rows    int // capacity of the buffers, in squares
	x0      []float32
	stem    layerState
	blocks  []blockState
	pol     layerState
	logits  []float32
	val     layerState
	hidden  []float32
	wdl     []float32
	cols    []float32
	dcols   []float32
	dh, dh2 []float32
	da, dx  []float32
	dlogits []float32
	dhidden []float32
	dwdl    []float32
	dval    []float32
	dpol    []float32
	legal   []rules.Move
	scratch *rules.Game

	// wino holds each 3x3 convolution as Winograd convolutions, made at
	// the first step and given the current weights at every step: the
	// forward pass and the weight gradient, and the backward pass to the
	// input (the convolution with the taps reversed and the channels
	// swapped).
	wino map[*conv]*convWino
	// ws are the Winograd convolutions' buffers, one per thread; wsb and
	// du the weight gradients', one per block of images (bnBlocks).
	ws  []kernels.Workspace
	wsb [bnBlocks]kernels.Workspace
	du  [bnBlocks][]float32
	// zeros is a bias of zeros for the Winograd convolutions.
	zeros []float32
	// par is the convolution whose images kernels.Parallel is running in
	// parts, written before it starts them and only read while they run;
	// runPar is t.winoPart as a func value made once.
	par    winoPar
	runPar func(int)
	// direct runs the 3x3 convolutions as im2col GEMMs throughout: the
	// reference the tests compare with. Set only by tests, before use.
	direct bool
	// low runs the 3x3 convolutions' forward passes and input gradients
	// in bfloat16 (nil: float32); see SetPrecision.
	low *trainLow
}

// convWino is one 3x3 convolution as Winograd convolutions.
type convWino struct {
	fwd, bwd *kernels.Winograd3x3
	flipped  []float32 // the weights of bwd, 9 × cout × cin
}

// winoPar is a Winograd convolution of a batch split by images.
type winoPar struct {
	cv          *kernels.Winograd3x3
	cin, cout   int
	x, out      []float32
	images, per int
}

// layerState is a conv+batch-norm layer's activations in one step.
type layerState struct {
	z   []float32 // the convolution's output
	out []float32 // after batch norm (and the skip) and ReLU; in bf16 not written where only a grid needs it (convBNForward)
	bn  bnState
}

type blockState struct{ a, b layerState }

// NewTrainer returns a trainer of n. The network's weights change as it
// trains.
func NewTrainer(n *Network, cfg TrainConfig, threads int) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if threads < 1 {
		threads = 1
	}
	t := &Trainer{net: n, cfg: cfg, threads: threads, ws: make([]kernels.Workspace, threads)}
	t.runPar = t.winoPart
	t.m = make([]float32, len(n.params))
	if cfg.Optimizer == "adam" {
		t.v = make([]float32, len(n.params))
	}
	p, _ := cfg.trainPrecision()
	if err := t.SetPrecision(p); err != nil {
		return nil, err
	}
	return t, nil
}

// Step returns the number of optimizer steps taken.
func (t *Trainer) Step() int { return t.step }

// OptimizerState returns the optimizer's state vectors (for checkpoints):
// SGD's velocity, or Adam's two moments. They are views of the trainer's
// memory.
func (t *Trainer) OptimizerState() [][]float32 {
	if t.v != nil {
		return [][]float32{t.m, t.v}
	}
	return [][]float32{t.m}
}

// SetStep sets the step count (when resuming from a checkpoint).
func (t *Trainer) SetStep(step int) { t.step = step }

// grow makes the buffers hold batches of b positions.
func (t *Trainer) grow(b int) {
	rows := b * Squares
	if rows <= t.rows {
		return
	}
	cfg := t.net.cfg
	c, vc := cfg.Channels, cfg.ValueChannels
	f := hugepage.Make[float32]
	mk := func(ch int) layerState {
		return layerState{z: f(rows * ch), out: f(rows * ch), bn: bnState{invstd: f(ch), mean: f(ch), sumDy: f(ch), dot: f(ch)}}
	}
	t.x0 = f(rows * InputPlanes)
	t.stem = mk(c)
	t.blocks = make([]blockState, cfg.Blocks)
	for i := range t.blocks {
		t.blocks[i] = blockState{mk(c), mk(c)}
	}
	t.pol = mk(c)
	t.logits = f(rows * MovesPerSquare)
	t.val = mk(vc)
	t.hidden = f(b * cfg.ValueHidden)
	t.wdl = f(b * 3)
	k := 9 * max(c, InputPlanes)
	t.cols, t.dcols = f(rows*k), f(rows*k)
	t.dh, t.dh2, t.da, t.dx = f(rows*c), f(rows*c), f(rows*c), f(rows*c)
	t.dlogits = f(rows * MovesPerSquare)
	t.dhidden = f(b * cfg.ValueHidden)
	t.dwdl = f(b * 3)
	t.dval = f(rows * vc)
	t.dpol = f(rows * c)
	t.rows = rows
}

// setWino gives every 3x3 convolution's Winograd convolutions, or its
// bfloat16 ones (SetPrecision), the network's current weights (making
// them at the first call).
func (t *Trainer) setWino() {
	n := t.net
	if t.wino == nil {
		t.wino = map[*conv]*convWino{}
		t.zeros = make([]float32, max(n.cfg.Channels, InputPlanes))
	}
	convs := t.convs3()
	if t.low != nil && len(t.low.convs) == len(convs) {
		// The layers' repacking, at once (setLow makes them at its first
		// call, adding to a map: in turn).
		t.run(len(convs), func(i int) { t.low.setLow(convs[i], convs[i] == &n.stem.conv) })
		return
	}
	for _, l := range convs {
		if t.low != nil {
			t.low.setLow(l, l == &n.stem.conv)
			continue
		}
		cw := t.wino[l]
		if cw == nil {
			cw = &convWino{fwd: kernels.NewWinograd3x3(BoardSize, BoardSize, l.cin, l.cout, l.w), flipped: make([]float32, len(l.w))}
			t.wino[l] = cw
		} else {
			cw.fwd.SetWeights(l.w)
		}
		if l == &n.stem.conv {
			// The input planes need no gradient (backward passes the
			// stem a nil dx): no backward convolution to keep.
			continue
		}
		flipTaps(cw.flipped, l.w, l.cin, l.cout)
		if cw.bwd == nil {
			cw.bwd = kernels.NewWinograd3x3(BoardSize, BoardSize, l.cout, l.cin, cw.flipped)
		} else {
			cw.bwd.SetWeights(cw.flipped)
		}
	}
}

// convs3 returns the network's 3x3 convolutions.
func (t *Trainer) convs3() []*conv {
	n := t.net
	convs := []*conv{&n.stem.conv, &n.polConv.conv, &n.valConv.conv}
	for i := range n.blocks {
		convs = append(convs, &n.blocks[i].a.conv, &n.blocks[i].b.conv)
	}
	return slices.DeleteFunc(convs, func(l *conv) bool { return l.k != 3 })
}

// flipTaps writes into dst the weights of the convolution that takes a 3x3
// layer's output gradient to its input gradient: dL/dx[q][c] = Σt Σo
// w[t][c][o]·dout[q-off(t)][o], and off(8-t) = -off(t), so it is the
// convolution of dout with w'[t][o][c] = w[8-t][c][o].
func flipTaps(dst, w []float32, cin, cout int) {
	for tap := range 9 {
		for c := range cin {
			for o := range cout {
				dst[((8-tap)*cout+o)*cin+c] = w[(tap*cin+c)*cout+o]
			}
		}
	}
}

// winoConv computes out = conv(x) (rows × cout from rows × cin) with a
// Winograd convolution, the images split over the threads.
func (t *Trainer) winoConv(cv *kernels.Winograd3x3, cin, cout int, x []float32, rows int, out []float32) {
	images := rows / Squares
	parts := min(t.threads, images)
	if parts <= 1 {
		t.ws[0].Winograd3x3(cv, images, x, t.zeros, nil, out, false)
		return
	}
	per := (images + parts - 1) / parts
	t.par = winoPar{cv: cv, cin: cin, cout: cout, x: x, out: out, images: images, per: per}
	kernels.Parallel((images+per-1)/per, t.runPar)
	t.par = winoPar{}
}

// winoPart runs part p of t.par.
func (t *Trainer) winoPart(p int) {
	a := &t.par
	i0 := p * a.per
	nb := min(a.per, a.images-i0)
	t.ws[p].Winograd3x3(a.cv, nb, a.x[i0*Squares*a.cin:(i0+nb)*Squares*a.cin], t.zeros, nil, a.out[i0*Squares*a.cout:(i0+nb)*Squares*a.cout], false)
}

// convForward is l.forward, with a Winograd convolution for a 3x3 layer.
func (t *Trainer) convForward(l *conv, x []float32, rows int, out []float32) {
	cw, lp := t.wino[l], t.lowPair(l)
	switch {
	case t.direct || (cw == nil && lp == nil):
		l.forward(t.threads, x, rows, out, t.cols)
		return
	case lp != nil:
		t.lowForward(l, lp, x, rows, out)
	default:
		t.winoConv(cw.fwd, l.cin, l.cout, x, rows, out)
	}
	if l.b != nil {
		kernels.AddBiasPerCol(out, rows, l.cout, l.cout, l.b, false)
	}
}

// convBackward is l.backward, with Winograd convolutions for a 3x3
// layer: its weight gradient and its input gradient.
func (t *Trainer) convBackward(l *conv, x []float32, rows int, dout, dx []float32) {
	cw, lp := t.wino[l], t.lowPair(l)
	switch {
	case t.direct || (cw == nil && lp == nil):
		l.backwardPar(t.run, t.threads, x, rows, dout, dx, t.cols, t.dcols)
		return
	case lp != nil:
		t.lowBackward(l, lp, rows, dout, dx)
		return
	}
	// The weight gradient in the transformed domain, a fixed block of
	// images at a time (so that it is bitwise the same on any number of
	// threads), the blocks' added in order and taken back to the weights.
	images := rows / Squares
	n := cw.fwd.GradUSize()
	t.run(bnBlocks, func(i int) {
		i0, i1 := i*images/bnBlocks, (i+1)*images/bnBlocks
		if len(t.du[i]) < n {
			t.du[i] = make([]float32, n)
		}
		du := t.du[i][:n]
		clear(du)
		t.wsb[i].Winograd3x3GradU(cw.fwd, i1-i0, x[i0*Squares*l.cin:i1*Squares*l.cin], dout[i0*Squares*l.cout:i1*Squares*l.cout], du)
	})
	for i := 1; i < bnBlocks; i++ {
		kernels.Axpy(1, t.du[i][:n], t.du[0][:n])
	}
	cw.fwd.AddWeightGrad(t.du[0][:n], l.gw)
	if l.gb != nil {
		sumRows(l.gb, dout, rows, l.cout)
	}
	if dx != nil {
		t.winoConv(cw.bwd, l.cout, l.cin, dout, rows, dx)
	}
}

// convBNForward runs conv, batch norm and ReLU (adding skip before the ReLU
// if it is not nil) into st.out. next is the 3x3 layer that takes the
// output as its input (nil: none): in bfloat16 the batch norm's last pass
// writes its input grid, and st.out only if it is not nextOnly (the output
// goes to next alone).
func (t *Trainer) convBNForward(l *convBN, x []float32, rows int, st *layerState, skip []float32, next *conv, nextOnly bool) {
	n := rows * l.conv.cout
	t.convForward(&l.conv, x, rows, st.z[:n])
	post, out := bnNext{skip: skip, relu: true}, st.out[:n]
	if t.low != nil && !t.direct {
		post.grid, post.g = t.low.inputGrid(t.lowPair(next), l.conv.cout, rows/Squares), t.low.grid
		if post.grid != nil && nextOnly {
			out = nil
		}
	}
	l.bn.forwardTrainPar(t.run, st.z[:n], rows, &st.bn, out, float32(t.cfg.BatchNormMomentum), post)
}

// run is the trainer's runner: the calls cut into one run of consecutive
// calls per thread, the runs at once.
func (t *Trainer) run(n int, f func(int)) {
	parts := min(t.threads, n)
	if parts <= 1 {
		serial(n, f)
		return
	}
	kernels.Parallel(parts, func(p int) {
		for i := p * n / parts; i < (p+1)*n/parts; i++ {
			f(i)
		}
	})
}

// convBNBackward takes dout (the gradient of the layer's output after the
// ReLU, plus add if it is not nil; it is left changed) back through the layer,
// adding the weight gradients and writing the input gradient into dx (nil:
// not needed). save, if not nil, gets the gradient before the ReLU (the
// skip's share; it may be add).
func (t *Trainer) convBNBackward(l *convBN, x []float32, rows int, st *layerState, dout, dx, add, save []float32) {
	n := rows * l.conv.cout
	prev := bnPrev{add: add, relu: true, save: save, dz: dout[:n]}
	if lp := t.lowPair(&l.conv); lp != nil && !t.direct {
		// In bfloat16 the convolution takes its output gradient as a grid
		// (and as float32 only for a bias).
		prev.grid, prev.g = t.low.outputGrid(lp, l.conv.cout, rows/Squares), t.low.grid
		if prev.grid != nil && l.conv.gb == nil {
			prev.dz = nil
		}
	}
	l.bn.backwardPar(t.run, dout[:n], rows, &st.bn, prev)
	t.convBackward(&l.conv, x, rows, dout[:n], dx)
}

// forward runs the training forward pass of b encoded positions in t.x0.
func (t *Trainer) forward(b int) {
	n := t.net
	rows := b * Squares
	// Each layer is told the 3x3 layer its output goes to: the next
	// block's first, or the policy head's after the last block.
	nextA := func(i int) *conv {
		if i < len(n.blocks) {
			return &n.blocks[i].a.conv
		}
		return &n.polConv.conv
	}
	t.convBNForward(&n.stem, t.x0, rows, &t.stem, nil, nextA(0), false)
	h := t.stem.out
	for i := range n.blocks {
		t.convBNForward(&n.blocks[i].a, h, rows, &t.blocks[i].a, nil, &n.blocks[i].b.conv, true)
		t.convBNForward(&n.blocks[i].b, t.blocks[i].a.out, rows, &t.blocks[i].b, h, nextA(i+1), false)
		h = t.blocks[i].b.out
	}
	t.convBNForward(&n.polConv, h, rows, &t.pol, nil, nil, false)
	n.polOut.forward(t.threads, t.pol.out, rows, t.logits, nil)
	t.convBNForward(&n.valConv, h, rows, &t.val, nil, nil, false)
	n.valFC1.forward(t.threads, t.val.out, b, t.hidden, true)
	n.valFC2.forward(t.threads, t.hidden, b, t.wdl, false)
}

// trunkOut returns the trunk's output.
func (t *Trainer) trunkOut() []float32 {
	if len(t.blocks) == 0 {
		return t.stem.out
	}
	return t.blocks[len(t.blocks)-1].b.out
}

// TrainStep runs one optimizer step on a batch and returns its losses
// (before the step). Samples must be of 11x11 boards.
func (t *Trainer) TrainStep(batch []Sample) (Losses, error) {
	losses, err := t.Gradients(batch)
	if err != nil {
		return losses, err
	}
	t.apply()
	return losses, nil
}

// Gradients computes the losses of a batch and their gradients in the
// network's Grads, without changing the weights.
func (t *Trainer) Gradients(batch []Sample) (Losses, error) {
	b := len(batch)
	if b == 0 {
		return Losses{}, errctx.Errorf("net", "empty batch")
	}
	t.grow(b)
	for i := range batch {
		if err := Encode(t.x0[i*Squares*InputPlanes:(i+1)*Squares*InputPlanes], batch[i].Variant, &batch[i].Position); err != nil {
			return Losses{}, errctx.Key("net", fmt.Sprintf("sample %d", i), err)
		}
	}
	t.setWino()
	t.forward(b)
	losses, err := t.lossGradients(batch)
	if err != nil {
		return losses, err
	}
	t.backward(b)
	// L2 penalty on the weights of convolutions and dense layers.
	if t.cfg.L2 > 0 {
		sum := 0.0
		for i := range t.net.tensors {
			tn := &t.net.tensors[i]
			if !l2Weights(tn) {
				continue
			}
			sum += float64(kernels.Dot(tn.Data, tn.Data))
			kernels.Axpy(float32(t.cfg.L2), tn.Data, t.net.grads[tn.offset:tn.offset+len(tn.Data)])
		}
		losses.L2 = t.cfg.L2 / 2 * sum
	}
	return losses, nil
}

// lossGradients computes the losses and writes their gradients with
// respect to the logits and the win/draw/loss outputs.
func (t *Trainer) lossGradients(batch []Sample) (Losses, error) {
	b := len(batch)
	var losses Losses
	withPolicy := 0
	for i := range batch {
		if batch[i].Policy != nil {
			withPolicy++
		}
	}
	if t.scratch == nil || t.scratch.Variant() != batch[0].Variant {
		t.scratch = rules.NewGame(batch[0].Variant)
	}
	clear(t.dlogits[:b*PolicySize])
	for i := range batch {
		s := &batch[i]
		if s.Policy == nil {
			continue
		}
		if t.scratch.Variant() != s.Variant {
			t.scratch = rules.NewGame(s.Variant)
		}
		if err := t.scratch.ResetTo(s.Position); err != nil {
			return losses, errctx.Key("net", fmt.Sprintf("sample %d", i), err)
		}
		t.legal = t.scratch.GenerateMoves(t.legal[:0])
		logits := t.logits[i*PolicySize : (i+1)*PolicySize]
		dl := t.dlogits[i*PolicySize : (i+1)*PolicySize]
		// Softmax over the legal moves.
		maxLogit := float32(math.Inf(-1))
		for _, m := range t.legal {
			maxLogit = max(maxLogit, logits[MoveIndex(m)])
		}
		sum := 0.0
		for _, m := range t.legal {
			e := math.Exp(float64(logits[MoveIndex(m)] - maxLogit))
			dl[MoveIndex(m)] = float32(e)
			sum += e
		}
		logSum := math.Log(sum) + float64(maxLogit)
		sw := s.weight()
		if !(sw >= 0 && sw <= math.MaxFloat32) {
			return losses, errctx.Errorf("net", "sample %d: weight %v: want 0 or more", i, s.Weight)
		}
		scale := sw / float32(withPolicy)
		for _, m := range t.legal {
			idx := MoveIndex(m)
			dl[idx] = dl[idx] / float32(sum) * scale
		}
		for _, mp := range s.Policy {
			idx := MoveIndex(mp.Move)
			if idx < 0 {
				return losses, errctx.Errorf("net", "sample %d: policy move %v is not a move", i, mp.Move)
			}
			losses.Policy -= float64(sw) * float64(mp.Prob) * (float64(logits[idx]) - logSum)
			dl[idx] -= mp.Prob * scale
		}
	}
	if withPolicy > 0 {
		losses.Policy /= float64(withPolicy)
	}
	for i := range batch {
		z := t.wdl[i*3 : i*3+3]
		maxZ := max(z[0], z[1], z[2])
		var p [3]float64
		sum := 0.0
		for j := range 3 {
			p[j] = math.Exp(float64(z[j] - maxZ))
			sum += p[j]
		}
		s := &batch[i]
		target, err := valueTarget(s)
		if err != nil {
			return losses, errctx.Errorf("net", "sample %d: %w", i, err)
		}
		sw := s.weight()
		if !(sw >= 0 && sw <= math.MaxFloat32) {
			return losses, errctx.Errorf("net", "sample %d: weight %v: want 0 or more", i, s.Weight)
		}
		w := float64(s.ValueWeight) * float64(sw) / float64(b)
		for j := range 3 {
			p[j] /= sum
			t.dwdl[i*3+j] = float32((p[j] - target[j]) * w)
			if target[j] > 0 {
				losses.Value -= target[j] * math.Log(max(p[j], 1e-30)) * w
			}
		}
	}
	return losses, nil
}

// valueTarget returns a sample's win/draw/loss target distribution.
func valueTarget(s *Sample) ([3]float64, error) {
	var target [3]float64
	if s.Result < -1 || s.Result > 1 {
		return target, fmt.Errorf("result %d: want -1, 0 or 1", s.Result)
	}
	if !(s.SearchWeight >= 0 && s.SearchWeight <= 1) {
		return target, fmt.Errorf("search weight %v: want 0 to 1", s.SearchWeight)
	}
	if !(s.ValueWeight >= 0 && s.ValueWeight <= 1) {
		return target, fmt.Errorf("value weight %v: want 0 to 1", s.ValueWeight)
	}
	w := float64(s.SearchWeight)
	target[1-int(s.Result)] = 1 - w // win → 0, draw → 1, loss → 2
	if w > 0 {
		if !(s.SearchValue >= -1 && s.SearchValue <= 1) {
			return target, fmt.Errorf("search value %v: want -1 to 1", s.SearchValue)
		}
		v := float64(s.SearchValue)
		target[0] += w * (1 + v) / 2
		target[2] += w * (1 - v) / 2
	}
	return target, nil
}

// backward takes the loss gradients back through the network into Grads.
func (t *Trainer) backward(b int) {
	n := t.net
	rows := b * Squares
	clear(n.grads)
	h := t.trunkOut()
	c := n.cfg.Channels
	// Value head.
	n.valFC2.backward(t.threads, t.hidden, b, t.dwdl, t.dhidden)
	kernels.ReLUGrad(t.dhidden[:b*n.cfg.ValueHidden], t.hidden[:b*n.cfg.ValueHidden])
	n.valFC1.backward(t.threads, t.val.out, b, t.dhidden, t.dval)
	t.convBNBackward(&n.valConv, h, rows, &t.val, t.dval, t.dh, nil, nil)
	// Policy head.
	n.polOut.backward(t.threads, t.pol.out, rows, t.dlogits, t.dpol, nil, nil)
	t.convBNBackward(&n.polConv, h, rows, &t.pol, t.dpol, t.dh2, nil, nil)
	// Trunk, last block first. The gradient of a block's output is dh +
	// dh2, added as its last layer's ReLU is taken back, which leaves the
	// skip's share in dh2; the block's first layer's input gradient goes
	// to dh.
	for i := len(n.blocks) - 1; i >= 0; i-- {
		in := t.stem.out
		if i > 0 {
			in = t.blocks[i-1].b.out
		}
		st := &t.blocks[i]
		t.convBNBackward(&n.blocks[i].b, st.a.out, rows, &st.b, t.dh[:rows*c], t.da, t.dh2, t.dh2)
		t.convBNBackward(&n.blocks[i].a, in, rows, &st.a, t.da, t.dh, nil, nil)
	}
	t.convBNBackward(&n.stem, t.x0, rows, &t.stem, t.dh, nil, t.dh2, nil)
}

// apply takes one optimizer step with the gradients in Grads.
func (t *Trainer) apply() {
	n := t.net
	lr := float32(t.cfg.LearningRateAt(t.step))
	t.step++
	// Each parameter's update is its own: the threads take a share each.
	parts := bnBlocks
	share := func(p int) (int, int) { return p * len(n.grads) / parts, (p + 1) * len(n.grads) / parts }
	switch t.cfg.Optimizer {
	case "sgd":
		mu := float32(t.cfg.Momentum)
		t.run(parts, func(p int) {
			lo, hi := share(p)
			for i, g := range n.grads[lo:hi] {
				i += lo
				t.m[i] = mu*t.m[i] + g
				n.params[i] -= lr * t.m[i]
			}
		})
	case "adam":
		b1, b2 := t.cfg.Momentum, 0.999
		c1 := float32(1 - math.Pow(b1, float64(t.step)))
		c2 := float32(1 - math.Pow(b2, float64(t.step)))
		t.run(parts, func(p int) {
			lo, hi := share(p)
			for i, g := range n.grads[lo:hi] {
				i += lo
				t.m[i] = float32(b1)*t.m[i] + float32(1-b1)*g
				t.v[i] = float32(b2)*t.v[i] + float32(1-b2)*g*g
				mh, vh := t.m[i]/c1, t.v[i]/c2
				n.params[i] -= lr * mh / (float32(math.Sqrt(float64(vh))) + 1e-8)
			}
		})
	}
}
