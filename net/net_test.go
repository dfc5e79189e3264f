package net

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/net/kernels"
	"taflab/rules"
)

func tinyConfig() Config { return Config{Blocks: 1, Channels: 4, ValueChannels: 2, ValueHidden: 5} }

// randomSamples plays random games and takes positions from them, with
// random policy targets over the legal moves (none for every third) and
// random results.
func randomSamples(t testing.TB, n int, seed uint64) []Sample {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	names := []string{"copenhagen", "fetlar", "hnefatafl11", "copenhagen-classic"}
	var out []Sample
	for len(out) < n {
		v := variants.MustLoad(names[len(out)%len(names)])
		g := rules.NewGame(v)
		for range rng.IntN(40) {
			moves := g.GenerateMoves(nil)
			if len(moves) == 0 {
				break
			}
			g.Make(moves[rng.IntN(len(moves))])
		}
		if g.Outcome().Over() {
			continue
		}
		s := Sample{Variant: v, Position: g.Position(), Result: int8(rng.IntN(3) - 1), ValueWeight: 1}
		if len(out)%3 != 2 {
			moves := g.GenerateMoves(nil)
			total := float32(0)
			for _, m := range moves {
				p := rng.Float32()
				if rng.IntN(4) == 0 {
					p = 0
				}
				s.Policy = append(s.Policy, rules.MoveProb{Move: m, Prob: p})
				total += p
			}
			for i := range s.Policy {
				s.Policy[i].Prob /= max(total, 1e-6)
			}
		}
		out = append(out, s)
	}
	return out
}

func close32(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*(1+math.Abs(want))
}

// TestGradientsWholeNetwork checks every tensor's gradient of the whole
// training loss of a tiny network against central finite differences of
// the float64 reference path.
func TestGradientsWholeNetwork(t *testing.T) {
	// 4 channels run the batch norm's portable loops, 16 its AVX-512 passes
	// where the CPU has them.
	for _, cfg := range []Config{tinyConfig(), {Blocks: 1, Channels: 16, ValueChannels: 16, ValueHidden: 5}} {
		t.Run(fmt.Sprintf("%dx%d", cfg.Blocks, cfg.Channels), func(t *testing.T) { testGradientsWholeNetwork(t, cfg) })
	}
}

func testGradientsWholeNetwork(t *testing.T, netCfg Config) {
	n, err := New(netCfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	batch := randomSamples(t, 3, 11)
	// Soft value targets, part game result and part search value.
	batch[1].SearchWeight, batch[1].SearchValue = 0.3, -0.6
	batch[2].SearchWeight, batch[2].SearchValue = 1, 0.25
	// A game record's discounted value loss.
	batch[0].ValueWeight = 0.4
	cfg := DefaultTrainConfig()
	cfg.L2 = 1e-3
	tr, err := NewTrainer(n, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	losses, err := tr.Gradients(batch)
	if err != nil {
		t.Fatal(err)
	}
	ref := newRef64(n)
	if got, want := losses.Total(), ref.loss(batch, cfg.L2); !close32(got, want, 1e-4) {
		t.Fatalf("loss: got %v, want %v (float64 reference)", got, want)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	const h = 1e-5
	for _, tn := range n.Tensors() {
		if !tn.Trained {
			continue
		}
		t.Run(tn.Name, func(t *testing.T) {
			for range min(len(tn.Data), 8) {
				i := tn.offset + rng.IntN(len(tn.Data))
				old := ref.params[i]
				ref.params[i] = old + h
				up := ref.loss(batch, cfg.L2)
				ref.params[i] = old - h
				down := ref.loss(batch, cfg.L2)
				ref.params[i] = old
				numeric := (up - down) / (2 * h)
				if got := float64(n.Grads()[i]); math.Abs(got-numeric) > 2e-3+2e-2*math.Abs(numeric) {
					t.Errorf("%s[%d]: got gradient %v, want %v (finite differences)", tn.Name, i-tn.offset, got, numeric)
				}
			}
		})
	}
}

// TestLayerGradients checks each layer's backward pass alone: weights and
// input gradients of L = Σ out·R against finite differences of the float64
// reference layer.
func TestLayerGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	randVec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	to64 := func(v []float32) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	dot := func(a []float64, b []float32) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * float64(b[i])
		}
		return s
	}
	check := func(t *testing.T, what string, got []float32, f func([]float64) float64, x []float64) {
		t.Helper()
		const h = 1e-6
		for i := range min(len(x), 12) {
			j := (i * 7919) % len(x)
			old := x[j]
			x[j] = old + h
			up := f(x)
			x[j] = old - h
			down := f(x)
			x[j] = old
			if numeric := (up - down) / (2 * h); math.Abs(float64(got[j])-numeric) > 1e-3+1e-3*math.Abs(numeric) {
				t.Errorf("%s[%d]: got %v, want %v", what, j, got[j], numeric)
			}
		}
	}
	const b, cin, cout = 2, 3, 5
	rows := b * Squares
	for _, k := range []int{1, 3} {
		t.Run(fmt.Sprintf("conv%dx%d", k, k), func(t *testing.T) {
			l := conv{k: k, cin: cin, cout: cout, w: randVec(k * k * cin * cout), gw: make([]float32, k*k*cin*cout)}
			x, r := randVec(rows*cin), randVec(rows*cout)
			dx := make([]float32, rows*cin)
			scratch := make([]float32, rows*9*cin)
			l.backward(1, x, rows, r, dx, scratch, make([]float32, rows*9*cin))
			w64, x64 := to64(l.w), to64(x)
			check(t, "weight", l.gw, func(w []float64) float64 { return dot(conv64(x64, rows, cin, cout, k, w), r) }, w64)
			check(t, "input", dx, func(x []float64) float64 { return dot(conv64(x, rows, cin, cout, k, w64), r) }, x64)
			out := make([]float32, rows*cout)
			l.forward(1, x, rows, out, scratch)
			for i, want := range conv64(x64, rows, cin, cout, k, w64) {
				if !close32(float64(out[i]), want, 1e-5) {
					t.Fatalf("forward[%d]: got %v, want %v", i, out[i], want)
				}
			}
		})
	}
	t.Run("batchnorm", func(t *testing.T) {
		const c = 4
		l := batchNorm{c: c, gamma: randVec(c), beta: randVec(c), gg: make([]float32, c), gbeta: make([]float32, c),
			mean: make([]float32, c), variance: make([]float32, c)}
		z, r := randVec(rows*c), randVec(rows*c)
		st := bnState{invstd: make([]float32, c), mean: make([]float32, c), sumDy: make([]float32, c), dot: make([]float32, c)}
		out := make([]float32, rows*c)
		l.forwardTrain(z, rows, &st, out, 0.1)
		dz := append([]float32(nil), r...)
		l.backward(dz, rows, &st, dz)
		g64, b64, z64 := to64(l.gamma), to64(l.beta), to64(z)
		zero := make([]float64, c)
		f := func(z []float64, g, be []float64) float64 { return dot(bn64(z, rows, c, g, be, zero, zero, true), r) }
		check(t, "input", dz, func(z []float64) float64 { return f(z, g64, b64) }, z64)
		check(t, "gamma", l.gg, func(g []float64) float64 { return f(z64, g, b64) }, g64)
		check(t, "beta", l.gbeta, func(be []float64) float64 { return f(z64, g64, be) }, b64)
	})
	t.Run("dense", func(t *testing.T) {
		const in, out = 7, 3
		l := dense{in: in, out: out, w: randVec(in * out), gw: make([]float32, in*out), b: randVec(out), gb: make([]float32, out)}
		x, r := randVec(b*in), randVec(b*out)
		dx := make([]float32, b*in)
		l.backward(1, x, b, r, dx)
		w64, b64, x64 := to64(l.w), to64(l.b), to64(x)
		check(t, "weight", l.gw, func(w []float64) float64 { return dot(dense64(x64, b, in, out, w, b64), r) }, w64)
		check(t, "bias", l.gb, func(bb []float64) float64 { return dot(dense64(x64, b, in, out, w64, bb), r) }, b64)
		check(t, "input", dx, func(x []float64) float64 { return dot(dense64(x, b, in, out, w64, b64), r) }, x64)
	})
}

// encodeAll encodes samples for the float32 and float64 paths.
func encodeAll(t testing.TB, samples []Sample, dst []float32) []float64 {
	t.Helper()
	x64 := make([]float64, len(samples)*Squares*InputPlanes)
	for i := range samples {
		part := dst[i*Squares*InputPlanes : (i+1)*Squares*InputPlanes]
		if err := Encode(part, samples[i].Variant, &samples[i].Position); err != nil {
			t.Fatal(err)
		}
		for j, v := range part {
			x64[i*Squares*InputPlanes+j] = float64(v)
		}
	}
	return x64
}

// randomizeStats gives the batch norms running statistics that are not the
// identity, so that folding has something to fold.
func randomizeStats(n *Network, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, tn := range n.Tensors() {
		switch {
		case hasSuffix(tn.Name, "running_mean"), hasSuffix(tn.Name, ".beta"):
			for i := range tn.Data {
				tn.Data[i] = float32(rng.NormFloat64() * 0.3)
			}
		case hasSuffix(tn.Name, "running_var"), hasSuffix(tn.Name, ".gamma"):
			for i := range tn.Data {
				tn.Data[i] = float32(0.5 + rng.Float64())
			}
		}
	}
}

// TestInferenceMatchesReference: the folded float32 inference equals the
// float64 reference (batch norms with their running statistics), for every
// batch size from 1 to 65 with every kernel implementation of this CPU.
func TestInferenceMatchesReference(t *testing.T) {
	n, err := New(Config{Blocks: 2, Channels: 8, ValueChannels: 2, ValueHidden: 6}, 3)
	if err != nil {
		t.Fatal(err)
	}
	randomizeStats(n, 4)
	samples := randomSamples(t, 65, 21)
	ref := newRef64(n)
	x := make([]float32, len(samples)*Squares*InputPlanes)
	x64 := encodeAll(t, samples, x)
	wantLogits, wantWDL := ref.forward(x64, len(samples), false)
	for impl := range eachImplementation(t) {
		for b := 1; b <= 65; b++ {
			if testing.Short() && b > 3 && b != 65 {
				continue
			}
			in := n.NewInference(2, "test")
			copy(in.Input(b), x[:b*Squares*InputPlanes])
			logits, wdl := in.Forward(b)
			for i := range logits {
				if !close32(float64(logits[i]), wantLogits[i], 1e-4) {
					t.Fatalf("%s, batch %d: logit %d: got %v, want %v", impl, b, i, logits[i], wantLogits[i])
				}
			}
			for i := range b {
				z := wantWDL[i*3 : i*3+3]
				sum := math.Exp(z[0]) + math.Exp(z[1]) + math.Exp(z[2])
				for j := range 3 {
					if want := math.Exp(z[j]) / sum; math.Abs(float64(wdl[i*3+j])-want) > 1e-5 {
						t.Fatalf("%s, batch %d: wdl[%d][%d]: got %v, want %v", impl, b, i, j, wdl[i*3+j], want)
					}
				}
			}
		}
	}
}

// TestSymmetries: the 8 symmetries map positions, move indices and legal
// move sets consistently, and evaluating a position in any symmetry with the
// policy mapped back gives priors over the same legal moves.
func TestSymmetries(t *testing.T) {
	for i := range PolicySize {
		m, ok := IndexMove(i)
		if !ok {
			continue
		}
		if got := MoveIndex(m); got != i {
			t.Fatalf("MoveIndex(IndexMove(%d)) = %d", i, got)
		}
	}
	samples := randomSamples(t, 20, 31)
	for y := range rules.Symmetry(rules.NumSymmetries) {
		t.Run(fmt.Sprintf("sym%d", y), func(t *testing.T) {
			seen := map[int]bool{}
			for i := range PolicySize {
				j := SymmetricIndex(y, i)
				if _, ok := IndexMove(i); ok != (j >= 0) {
					t.Fatalf("index %d: got %d", i, j)
				}
				if j >= 0 {
					if seen[j] {
						t.Fatalf("index %d maps onto %d twice", i, j)
					}
					seen[j] = true
				}
			}
			for _, s := range samples {
				g, _ := rules.NewGameFrom(s.Variant, s.Position)
				gy, err := rules.NewGameFrom(s.Variant, y.Position(s.Position))
				if err != nil {
					t.Fatal(err)
				}
				var mapped []int
				for _, m := range g.GenerateMoves(nil) {
					mapped = append(mapped, SymmetricIndex(y, MoveIndex(m)))
					if MoveIndex(y.Move(m, BoardSize)) != mapped[len(mapped)-1] {
						t.Fatalf("move %v: index maps to %d, the mapped move has %d", m, mapped[len(mapped)-1], MoveIndex(y.Move(m, BoardSize)))
					}
				}
				var direct []int
				for _, m := range gy.GenerateMoves(nil) {
					direct = append(direct, MoveIndex(m))
				}
				slices.Sort(mapped)
				slices.Sort(direct)
				if !slices.Equal(mapped, direct) {
					t.Fatalf("legal moves of the mapped position differ from the mapped legal moves")
				}
			}
		})
	}
}

// TestEvaluator: Inference as an mcts.Evaluator gives priors over the legal
// moves that sum to 1 and values in [-1, 1], with and without random
// symmetries, allocating nothing in steady state.
func TestEvaluator(t *testing.T) {
	n, err := New(tinyConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	samples := randomSamples(t, 9, 41)
	batch := &mcts.Batch{}
	for _, s := range samples {
		g, _ := rules.NewGameFrom(s.Variant, s.Position)
		moves := g.GenerateMoves(nil)
		batch.Variants = append(batch.Variants, s.Variant)
		batch.Positions = append(batch.Positions, s.Position)
		batch.Moves = append(batch.Moves, moves)
		batch.Priors = append(batch.Priors, make([]float32, len(moves)))
		batch.Values = append(batch.Values, 0)
	}
	for _, sym := range []bool{false, true} {
		in := n.NewInference(1, "tiny")
		in.RandomSymmetry = sym
		if err := in.Evaluate(batch); err != nil {
			t.Fatal(err)
		}
		for i := range samples {
			sum := float32(0)
			for _, p := range batch.Priors[i] {
				sum += p
			}
			if math.Abs(float64(sum)-1) > 1e-4 {
				t.Errorf("sym=%v, position %d: got prior sum %v, want 1", sym, i, sum)
			}
			if v := batch.Values[i]; v < -1 || v > 1 {
				t.Errorf("sym=%v, position %d: got value %v, want [-1, 1]", sym, i, v)
			}
		}
		if raceEnabled {
			continue // sync.Pool drops items at random under -race: counts mean nothing
		}
		if allocs := testing.AllocsPerRun(5, func() { in.Evaluate(batch) }); allocs != 0 {
			t.Errorf("sym=%v: got %v allocations per Evaluate, want 0", sym, allocs)
		}
	}
}

// TestOverfits: training a small network on a fixed set of 32 samples drives
// the value loss below 0.05 and the policy loss to within 0.2 of its floor,
// the targets' own entropy (the random targets spread over ~100 moves).
func TestOverfits(t *testing.T) {
	n, err := New(Config{Blocks: 1, Channels: 16, ValueChannels: 2, ValueHidden: 16}, 5)
	if err != nil {
		t.Fatal(err)
	}
	samples := randomSamples(t, 32, 51)
	cfg := DefaultTrainConfig()
	cfg.Optimizer, cfg.LearningRate, cfg.WarmupSteps, cfg.Schedule, cfg.L2 = "adam", 0.01, 0, "constant", 0
	tr, err := NewTrainer(n, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var first, last Losses
	for step := range 300 {
		l, err := tr.TrainStep(samples)
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			first = l
		}
		last = l
	}
	entropy, withPolicy := 0.0, 0
	for _, s := range samples {
		if s.Policy == nil {
			continue
		}
		withPolicy++
		for _, mp := range s.Policy {
			if mp.Prob > 0 {
				entropy -= float64(mp.Prob) * math.Log(float64(mp.Prob))
			}
		}
	}
	entropy /= float64(withPolicy)
	t.Logf("loss from %.3f (policy %.3f, value %.3f) to %.3f (policy %.3f, value %.3f); policy floor %.3f", first.Total(), first.Policy, first.Value, last.Total(), last.Policy, last.Value, entropy)
	if last.Value > 0.05 || last.Policy-entropy > 0.2 {
		t.Errorf("got value loss %v and policy loss %v, want below 0.05 and below %v", last.Value, last.Policy, entropy+0.2)
	}
}

// TestLearnsSyntheticTarget: the value head learns "the side to move wins
// when the king stands on rank 6 or above, and loses otherwise" from 256
// random positions, and predicts it for 64 positions it has not seen with at
// least 90% accuracy.
func TestLearnsSyntheticTarget(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	rng := rand.New(rand.NewPCG(61, 1))
	make1 := func() Sample {
		for {
			var p rules.Position
			p.Size = BoardSize
			p.King = rules.NewSquare(rng.IntN(BoardSize), rng.IntN(BoardSize))
			for range 8 + rng.IntN(10) {
				p.Attackers = p.Attackers.With(rules.NewSquare(rng.IntN(BoardSize), rng.IntN(BoardSize)))
			}
			p.Attackers = p.Attackers.AndNot(v.Corners()).Without(v.Throne()).Without(p.King)
			if p.King.Rank() == 5 {
				continue
			}
			result := int8(-1)
			if p.King.Rank() > 5 {
				result = 1
			}
			return Sample{Variant: v, Position: p, Result: result, ValueWeight: 1}
		}
	}
	var train, test []Sample
	for range 256 {
		train = append(train, make1())
	}
	for range 64 {
		test = append(test, make1())
	}
	n, err := New(Config{Blocks: 1, Channels: 16, ValueChannels: 2, ValueHidden: 16}, 6)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultTrainConfig()
	cfg.Optimizer, cfg.LearningRate, cfg.WarmupSteps, cfg.Schedule = "adam", 0.005, 0, "constant"
	tr, err := NewTrainer(n, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	for step := range 400 {
		lo := (step * 32) % len(train)
		if _, err := tr.TrainStep(train[lo : lo+32]); err != nil {
			t.Fatal(err)
		}
	}
	in := n.NewInference(1, "synthetic")
	x := in.Input(len(test))
	for i := range test {
		if err := Encode(x[i*Squares*InputPlanes:(i+1)*Squares*InputPlanes], v, &test[i].Position); err != nil {
			t.Fatal(err)
		}
	}
	_, wdl := in.Forward(len(test))
	right := 0
	for i := range test {
		if (wdl[i*3] > wdl[i*3+2]) == (test[i].Result > 0) {
			right++
		}
	}
	t.Logf("synthetic target: %d of %d right", right, len(test))
	if right < len(test)*9/10 {
		t.Errorf("got %d of %d right, want at least 90%%", right, len(test))
	}
}

// TestValueTargetRefusesBadSamples checks that a sample whose value target
// is out of range, or whose board the network does not play, is an error
// naming it and package net once, not a silent NaN.
func TestValueTargetRefusesBadSamples(t *testing.T) {
	n, err := New(tinyConfig(), 7)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(n, DefaultTrainConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		edit   func(*Sample)
		substr string
	}{
		{"result", func(s *Sample) { s.Result = 2 }, "result 2"},
		{"weight above 1", func(s *Sample) { s.SearchWeight = 1.5 }, "search weight 1.5"},
		{"weight NaN", func(s *Sample) { s.SearchWeight = float32(math.NaN()) }, "search weight NaN"},
		{"value below -1", func(s *Sample) { s.SearchWeight, s.SearchValue = 0.5, -2 }, "search value -2"},
		{"value weight", func(s *Sample) { s.ValueWeight = -0.5 }, "value weight -0.5"},
		{"sample weight", func(s *Sample) { s.Weight = -2 }, "weight -2"},
		{"board size", func(s *Sample) { s.Position.Size = 9 }, "the network plays 11x11 boards, not 9x9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			batch := randomSamples(t, 2, 3)
			tt.edit(&batch[1])
			_, err := tr.Gradients(batch)
			if err == nil || !strings.Contains(err.Error(), "sample 1: "+tt.substr) || strings.Count(err.Error(), "net: ") != 1 {
				t.Fatalf("got error %v, want one naming sample 1: %s, and package net once", err, tt.substr)
			}
		})
	}
}

// eachImplementation sets each kernel implementation of this CPU in turn as
// a range over it reaches it, and the first again when the test ends.
func eachImplementation(t *testing.T) iter.Seq[string] {
	t.Cleanup(func() { kernels.SetImplementation(kernels.Implementations()[0]) })
	return func(yield func(string) bool) {
		for _, impl := range kernels.Implementations() {
			if err := kernels.SetImplementation(impl); err != nil {
				t.Fatal(err)
			}
			if !yield(impl) {
				return
			}
		}
	}
}
