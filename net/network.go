package net

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"taflab/internal/errctx"
	"taflab/rules"
)

// Config is the network's architecture. Units and defaults are in the field
// comments; DefaultConfig returns the defaults.
type Config struct {
	// Blocks is the number of residual blocks of the trunk. Default 6.
	Blocks int `toml:"blocks" json:"blocks"`
	// Channels is the width of the trunk. Default 64.
	Channels int `toml:"channels" json:"channels"`
	// ValueChannels is the width of the value head's 1x1 convolution.
	// Default 4.
	ValueChannels int `toml:"value_channels" json:"value_channels"`
	// ValueHidden is the width of the value head's hidden layer. Default 64.
	ValueHidden int `toml:"value_hidden" json:"value_hidden"`
}

// DefaultConfig returns the default architecture: 6 blocks of 64 channels.
func DefaultConfig() Config {
	return Config{Blocks: 6, Channels: 64, ValueChannels: 4, ValueHidden: 64}
}

// Validate reports every setting out of range.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, key string, v int, want string) {
		if !ok {
			errs = append(errs, errctx.Errorf("net", "%s = %d: want %s", key, v, want))
		}
	}
	check(c.Blocks >= 0 && c.Blocks <= 64, "blocks", c.Blocks, "0 to 64")
	check(c.Channels >= 1 && c.Channels <= 1024, "channels", c.Channels, "1 to 1024")
	check(c.ValueChannels >= 1 && c.ValueChannels <= 64, "value_channels", c.ValueChannels, "1 to 64")
	check(c.ValueHidden >= 1 && c.ValueHidden <= 4096, "value_hidden", c.ValueHidden, "1 to 4096")
	return errors.Join(errs...)
}

// bnEpsilon is added to the variance in batch normalization.
const bnEpsilon = 1e-5

// Tensor is one named array of the network's weights, as files store it.
type Tensor struct {
	Name  string
	Shape []int
	// Data is a view of the network's memory: writing it changes the
	// network.
	Data []float32
	// Trained is false for the batch norms' running statistics, which
	// training updates by averaging, not by gradient.
	Trained bool
	offset  int
}

// Network is the policy/value network: a residual convolutional trunk over
// the 11x11 board (NHWC layout: one row per square of each position, one
// column per channel), a policy head with one logit per (from-square,
// direction, distance), and a value head with win/draw/loss probabilities
// for the side to move. It holds the weights for training and files;
// NewInference folds it into the fast form for evaluation.
type Network struct {
	cfg     Config
	params  []float32 // every trained weight
	grads   []float32 // their gradients, same layout
	buffers []float32 // running statistics of the batch norms
	tensors []Tensor

	stem    convBN
	blocks  []resBlock
	polConv convBN
	polOut  conv // 1x1, Channels → MovesPerSquare, with bias
	valConv convBN
	valFC1  dense
	valFC2  dense

	// planesOf is the one rule set whose planes the network learnt from,
	// nil if several or not known (PlanesOf).
	planesOf *rules.Variant

	// cal are the Int8 activations' steps for the weights whose Hash is
	// calHash (calibration), guarded by calMu.
	calMu   sync.Mutex
	cal     *actScales
	calHash string
}

// PlanesOf returns the one rule set whose input planes the network learnt
// from (a network trained on one rule set's game records alone), or nil.
// Its inferences show every position that rule set's planes unless told
// otherwise (Inference.PlanesOf): planes it never saw make its output
// meaningless. Save and Load keep it (MetaPlanesOf).
func (n *Network) PlanesOf() *rules.Variant { return n.planesOf }

// SetPlanesOf records the one rule set whose planes the network learnt
// from; nil when it learnt from several. v must be of the network's board
// size (BoardSize); another is a programmer's error, and panics.
func (n *Network) SetPlanesOf(v *rules.Variant) {
	if v != nil && v.Size() != BoardSize {
		panic(fmt.Sprintf("net: SetPlanesOf(%s): a %dx%d rule set for a %dx%d network", v.Name(), v.Size(), v.Size(), BoardSize, BoardSize))
	}
	n.planesOf = v
}

// conv is a convolution without bias: w is [k*k*cin][cout] (HWIO).
type conv struct {
	k, cin, cout int
	w, gw        []float32
	b, gb        []float32 // bias, only where no batch norm follows
}

// batchNorm normalizes each channel; mean and variance are the running
// statistics used at inference.
type batchNorm struct {
	c                      int
	gamma, beta, gg, gbeta []float32
	mean, variance         []float32
}

type convBN struct {
	conv conv
	bn   batchNorm
}

type resBlock struct{ a, b convBN }

// dense is a fully connected layer: w is [in][out].
type dense struct {
	in, out int
	w, gw   []float32
	b, gb   []float32
}

// New returns a network of the given architecture with random weights (He
// initialization from seed).
func New(cfg Config, seed uint64) (*Network, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Network{cfg: cfg}
	n.layout()
	rng := rand.New(rand.NewPCG(seed, 0x4e7))
	for _, t := range n.tensors {
		switch {
		case hasSuffix(t.Name, ".weight"):
			fanIn := 1
			for _, d := range t.Shape[:len(t.Shape)-1] {
				fanIn *= d
			}
			std := math.Sqrt(2 / float64(fanIn))
			if t.Name == "policy.out.weight" || t.Name == "value.fc2.weight" {
				std *= 0.1 // start near uniform priors and an even value
			}
			for i := range t.Data {
				t.Data[i] = float32(rng.NormFloat64() * std)
			}
		case hasSuffix(t.Name, ".gamma"), hasSuffix(t.Name, ".running_var"):
			for i := range t.Data {
				t.Data[i] = 1
			}
		}
	}
	return n, nil
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// Config returns the architecture.
func (n *Network) Config() Config { return n.cfg }

// Tensors returns the network's named arrays in a fixed order. Their Data
// are views of the network's memory.
func (n *Network) Tensors() []Tensor { return n.tensors }

// NumParams returns the number of trained weights.
func (n *Network) NumParams() int { return len(n.params) }

// Params returns every trained weight, and Grads their gradients, as flat
// slices in one layout (an optimizer's view).
func (n *Network) Params() []float32 { return n.params }

// Grads returns the gradients of Params, in the same layout.
func (n *Network) Grads() []float32 { return n.grads }

// layout names and sizes every tensor, allocates the flat arrays and points
// the layers at their parts.
func (n *Network) layout() {
	specs := architecture(n.cfg)
	c := n.cfg.Channels
	var nParams, nBuffers int
	for i := range specs {
		size := 1
		for _, d := range specs[i].Shape {
			size *= d
		}
		if specs[i].Trained {
			specs[i].offset = nParams
			nParams += size
		} else {
			specs[i].offset = nBuffers
			nBuffers += size
		}
	}
	n.params, n.grads, n.buffers = make([]float32, nParams), make([]float32, nParams), make([]float32, nBuffers)
	byName := map[string]int{}
	for i := range specs {
		t := &specs[i]
		size := 1
		for _, d := range t.Shape {
			size *= d
		}
		if t.Trained {
			t.Data = n.params[t.offset : t.offset+size : t.offset+size]
		} else {
			t.Data = n.buffers[t.offset : t.offset+size : t.offset+size]
		}
		byName[t.Name] = i
	}
	n.tensors = specs
	data := func(name string) []float32 { return specs[byName[name]].Data }
	grad := func(name string) []float32 {
		t := specs[byName[name]]
		return n.grads[t.offset : t.offset+len(t.Data) : t.offset+len(t.Data)]
	}
	mkConvBN := func(prefix string, k, cin, cout int) convBN {
		return convBN{
			conv: conv{k: k, cin: cin, cout: cout, w: data(prefix + ".conv.weight"), gw: grad(prefix + ".conv.weight")},
			bn: batchNorm{c: cout, gamma: data(prefix + ".bn.gamma"), gg: grad(prefix + ".bn.gamma"),
				beta: data(prefix + ".bn.beta"), gbeta: grad(prefix + ".bn.beta"),
				mean: data(prefix + ".bn.running_mean"), variance: data(prefix + ".bn.running_var")},
		}
	}
	n.stem = mkConvBN("stem", 3, InputPlanes, c)
	n.blocks = make([]resBlock, n.cfg.Blocks)
	for i := range n.blocks {
		n.blocks[i] = resBlock{mkConvBN(fmt.Sprintf("blocks.%d.a", i), 3, c, c), mkConvBN(fmt.Sprintf("blocks.%d.b", i), 3, c, c)}
	}
	n.polConv = mkConvBN("policy", 3, c, c)
	n.polOut = conv{k: 1, cin: c, cout: MovesPerSquare, w: data("policy.out.weight"), gw: grad("policy.out.weight"),
		b: data("policy.out.bias"), gb: grad("policy.out.bias")}
	n.valConv = mkConvBN("value", 1, c, n.cfg.ValueChannels)
	n.valFC1 = dense{in: Squares * n.cfg.ValueChannels, out: n.cfg.ValueHidden, w: data("value.fc1.weight"), gw: grad("value.fc1.weight"),
		b: data("value.fc1.bias"), gb: grad("value.fc1.bias")}
	n.valFC2 = dense{in: n.cfg.ValueHidden, out: 3, w: data("value.fc2.weight"), gw: grad("value.fc2.weight"),
		b: data("value.fc2.bias"), gb: grad("value.fc2.bias")}
}

// architecture names and shapes every tensor of a network of the given
// architecture, in file order, without allocating the network: the one
// description that layout builds networks from and Load checks files
// against. The batch norms' running statistics are the untrained tensors.
func architecture(cfg Config) []Tensor {
	c := cfg.Channels
	var specs []Tensor
	add := func(name string, shape ...int) {
		trained := !hasSuffix(name, ".running_mean") && !hasSuffix(name, ".running_var")
		specs = append(specs, Tensor{Name: name, Shape: shape, Trained: trained})
	}
	convBN := func(prefix string, k, cin, cout int) {
		add(prefix+".conv.weight", k, k, cin, cout)
		for _, s := range []string{".bn.gamma", ".bn.beta", ".bn.running_mean", ".bn.running_var"} {
			add(prefix+s, cout)
		}
	}
	convBN("stem", 3, InputPlanes, c)
	for i := range cfg.Blocks {
		convBN(fmt.Sprintf("blocks.%d.a", i), 3, c, c)
		convBN(fmt.Sprintf("blocks.%d.b", i), 3, c, c)
	}
	convBN("policy", 3, c, c)
	add("policy.out.weight", 1, 1, c, MovesPerSquare)
	add("policy.out.bias", MovesPerSquare)
	convBN("value", 1, c, cfg.ValueChannels)
	add("value.fc1.weight", Squares*cfg.ValueChannels, cfg.ValueHidden)
	add("value.fc1.bias", cfg.ValueHidden)
	add("value.fc2.weight", cfg.ValueHidden, 3)
	add("value.fc2.bias", 3)
	return specs
}

// Clone returns a deep copy of the network (weights, running statistics
// and PlanesOf; not the gradients).
func (n *Network) Clone() *Network {
	c := &Network{cfg: n.cfg, planesOf: n.planesOf}
	c.layout()
	copy(c.params, n.params)
	copy(c.buffers, n.buffers)
	return c
}

// l2Weights reports whether a tensor is penalized by L2 regularization: the
// weights of convolutions and dense layers, not biases or batch norms.
func l2Weights(t *Tensor) bool { return t.Trained && hasSuffix(t.Name, ".weight") }
