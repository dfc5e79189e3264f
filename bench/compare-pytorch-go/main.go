// Command compare-pytorch-go is this project's side of bench/compare-pytorch:
// it measures the network's inference (positions/s at batch 1, 16, 64 and
// 256) and one training step (samples/s at batch 256: forward, backward and
// the SGD-with-momentum update) with a given number of threads, and prints
// the figures as JSON for the script to set against PyTorch's.
//
// It is a measuring tool, not a test: nothing runs it in CI. Run it through
// bench/compare-pytorch, which starts it with -serve and interleaves its
// figures with PyTorch's on the same machine in the same run; alone:
//
//	go run ./bench/compare-pytorch-go -threads 1
//	go run ./bench/compare-pytorch-go -threads 2 -only infer-b64,train-b256 -cpuprofile cpu.out
//	go run ./bench/compare-pytorch-go -threads 1 -precision float32 -only infer-b64
//	go run ./bench/compare-pytorch-go -save net.safetensors   # the measured network, for train export
//
// Inference runs in -precision (auto by default: bfloat16 on AMX, else
// float32); training's 3x3 convolutions in -train-precision (auto by
// default: bfloat16 on AMX, the rest of the step in float32; else
// float32). Each figure names what ran it (Figure.How).
//
// With -serve it prints a line of JSON about itself (the Report without
// figures), then reads figure names, one a line, from standard input and
// answers each with one line of JSON (a Figure), until the input ends.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"taflab/configs/variants"
	"taflab/net"
	"taflab/net/kernels"
	"taflab/rules"
)

// Figure is one measurement.
type Figure struct {
	Name string `json:"name"` // infer-b64, train-b256, ...
	// Batch is the positions per call.
	Batch int `json:"batch"`
	// PerSecond is positions (inference) or samples (training) per second:
	// Batch over the median time of one call.
	PerSecond float64 `json:"per_second"`
	// MedianMs is the median time of one call, Reps the calls timed.
	MedianMs float64 `json:"median_ms"`
	Reps     int     `json:"reps"`
	// Cores is the process's CPU time over the wall time of the timed
	// calls: how many cores the figure actually got (on a machine other
	// processes share, fewer than its threads).
	Cores float64 `json:"cores"`
	// How is the path that ran it: the precision and the kernels
	// ("bf16 on amx", "float32 on avx512").
	How string `json:"how"`
}

// Report is what the program prints.
type Report struct {
	Side           string `json:"side"`
	Threads        int    `json:"threads"`
	GOMAXPROCS     int    `json:"gomaxprocs"`
	Implementation string `json:"implementation"`
	// Precision is the inference's precision (auto resolved).
	Precision string `json:"precision"`
	Blocks    int    `json:"blocks"`
	Channels  int    `json:"channels"`
	// Params is the number of trained weights, to check that both sides
	// run the same network.
	Params  int      `json:"params"`
	Figures []Figure `json:"figures"`
}

func main() {
	threads := flag.Int("threads", 0, "threads per batch (0: one per core, GOMAXPROCS)")
	seconds := flag.Float64("seconds", 2, "time budget of each figure's timed calls")
	only := flag.String("only", "", "comma-separated figures to run, infer-bN or train-bN (default infer-b1,infer-b16,infer-b64,infer-b256,train-b256)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed calls to this file")
	blocks := flag.Int("blocks", net.DefaultConfig().Blocks, "residual blocks")
	channels := flag.Int("channels", net.DefaultConfig().Channels, "trunk channels")
	serve := flag.Bool("serve", false, "measure the figures named on standard input, one a line, answering each with a line of JSON")
	save := flag.String("save", "", "write the measured network (its weights are the same in every figure) to this safetensors `file` and exit")
	precision := flag.String("precision", "auto", "inference's arithmetic `P`: auto, float32, bf16 or int8 (net.ParsePrecision)")
	trainPrecision := flag.String("train-precision", "auto", "training's arithmetic `P`: auto, float32 or bf16 (net.TrainConfig.Precision)")
	flag.Parse()
	p, err := net.ParsePrecision(*precision)
	if err == nil {
		err = p.Check()
	}
	if err == nil {
		tc := net.DefaultTrainConfig()
		tc.Precision = *trainPrecision
		if err = tc.Validate(); err == nil {
			tp, _ := net.ParsePrecision(*trainPrecision)
			err = tp.Check()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare-pytorch-go:", err)
		os.Exit(2)
	}
	net.SetDefaultPrecision(p)
	if *threads <= 0 {
		*threads = runtime.GOMAXPROCS(0)
	}
	if *save != "" {
		if err := saveNetwork(*save, *blocks, *channels); err != nil {
			fmt.Fprintln(os.Stderr, "compare-pytorch-go:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*threads, *seconds, *only, *cpuprofile, *blocks, *channels, *serve, *trainPrecision); err != nil {
		fmt.Fprintln(os.Stderr, "compare-pytorch-go:", err)
		os.Exit(1)
	}
}

// saveNetwork writes the network every figure measures, for `train export
// -format onnx` to give ONNX Runtime the same weights.
func saveNetwork(path string, blocks, channels int) error {
	cfg := net.DefaultConfig()
	cfg.Blocks, cfg.Channels = blocks, channels
	n, err := net.New(cfg, 1)
	if err != nil {
		return err
	}
	return n.Save(path, nil)
}

// allFigures are the figures the program measures by default; -only and
// -serve take any infer-bN or train-bN (N ≤ 256).
var allFigures = []string{"infer-b1", "infer-b16", "infer-b64", "infer-b256", "train-b256"}

// batchOf returns N of a figure named infer-bN or train-bN.
func batchOf(name string) (int, error) {
	var b int
	kind, n, ok := strings.Cut(name, "-b")
	if _, err := fmt.Sscanf(n, "%d", &b); !ok || err != nil || (kind != "infer" && kind != "train") || b < 1 || b > 256 || fmt.Sprint(b) != n {
		return 0, fmt.Errorf("unknown figure %q (want infer-bN or train-bN, N from 1 to 256)", name)
	}
	return b, nil
}

func run(threads int, seconds float64, only, cpuprofile string, blocks, channels int, serve bool, trainPrecision string) error {
	cfg := net.DefaultConfig()
	cfg.Blocks, cfg.Channels = blocks, channels
	names := slices.Clone(allFigures)
	if only != "" {
		names = strings.Split(only, ",")
		for _, n := range names {
			if _, err := batchOf(n); err != nil {
				return err
			}
		}
	}
	probe, err := net.New(cfg, 1)
	if err != nil {
		return err
	}
	rep := Report{Side: "taflab", Threads: threads, GOMAXPROCS: runtime.GOMAXPROCS(0),
		Implementation: kernels.Implementation(), Precision: net.DefaultPrecision().Resolve().String(),
		Blocks: cfg.Blocks, Channels: cfg.Channels, Params: probe.NumParams()}

	// The positions: from random copenhagen games, made before any timing.
	samples := randomSamples(256, 2026)
	budget := time.Duration(seconds * float64(time.Second))

	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	// The measured objects are kept, so that a figure asked for again (the
	// next round of -serve) times the same warm objects.
	calls := map[string]func() error{}
	figure := func(name string) (Figure, error) {
		b, err := batchOf(name)
		if err != nil {
			return Figure{}, err
		}
		how := fmt.Sprintf("%s on %s", net.DefaultPrecision().Resolve(), net.DefaultPrecision().Kernel())
		if strings.HasPrefix(name, "train-b") {
			how = "float32 on " + kernels.Implementation()
			if tp, _ := net.ParsePrecision(trainPrecision); tp.Resolve() == net.BF16 {
				how = "bf16 convolutions on " + net.BF16.Kernel() + ", the rest float32 on " + kernels.Implementation()
			}
		}
		if call, ok := calls[name]; ok {
			return measure(name, b, how, call, budget)
		}
		var call func() error
		switch {
		case strings.HasPrefix(name, "infer-b"):
			n, err := net.New(cfg, 1)
			if err != nil {
				return Figure{}, err
			}
			in := n.NewInference(threads, "bench")
			x := in.Input(b)
			for i := range b {
				s := &samples[i%len(samples)]
				if err := net.Encode(x[i*net.Squares*net.InputPlanes:(i+1)*net.Squares*net.InputPlanes], s.Variant, &s.Position); err != nil {
					return Figure{}, err
				}
			}
			call = func() error { in.Forward(b); return nil }
		case strings.HasPrefix(name, "train-b"):
			n, err := net.New(cfg, 1)
			if err != nil {
				return Figure{}, err
			}
			tc := net.DefaultTrainConfig()
			tc.Optimizer, tc.LearningRate = "sgd", 0.02 // PyTorch's side is SGD with momentum
			tc.Threads = threads
			tc.Precision = trainPrecision
			tr, err := net.NewTrainer(n, tc, threads)
			if err != nil {
				return Figure{}, err
			}
			batch := samples[:b]
			call = func() error { _, err := tr.TrainStep(batch); return err }
		}
		calls[name] = call
		return measure(name, b, how, call, budget)
	}

	if serve {
		head, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		fmt.Println(string(head))
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			name := strings.TrimSpace(sc.Text())
			if name == "" {
				continue
			}
			fig, err := figure(name)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			line, err := json.Marshal(fig)
			if err != nil {
				return err
			}
			fmt.Println(string(line))
		}
		return sc.Err()
	}
	for _, name := range names {
		fig, err := figure(name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rep.Figures = append(rep.Figures, fig)
	}
	out, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

// measure warms call up (at least 2 calls and a quarter of the budget),
// then times calls until the budget is spent (at least 3, at most 2000) and
// returns the batch over the median time of one call.
func measure(name string, b int, how string, call func() error, budget time.Duration) (Figure, error) {
	start := time.Now()
	for i := 0; i < 2 || time.Since(start) < budget/4; i++ {
		if err := call(); err != nil {
			return Figure{}, err
		}
	}
	runtime.GC()
	var times []time.Duration
	start, cpu0 := time.Now(), processCPU()
	for len(times) < 3 || (time.Since(start) < budget && len(times) < 2000) {
		t0 := time.Now()
		if err := call(); err != nil {
			return Figure{}, err
		}
		times = append(times, time.Since(t0))
	}
	cores := (processCPU() - cpu0).Seconds() / time.Since(start).Seconds()
	slices.Sort(times)
	med := times[len(times)/2]
	if len(times)%2 == 0 {
		med = (times[len(times)/2-1] + times[len(times)/2]) / 2
	}
	return Figure{Name: name, Batch: b, PerSecond: float64(b) / med.Seconds(),
		MedianMs: float64(med.Microseconds()) / 1000, Reps: len(times), Cores: cores, How: how}, nil
}

// processCPU returns the CPU time the process has used (user and system),
// or 0 where getrusage fails.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// randomSamples returns n training samples from random copenhagen games: a
// position 0 to 59 plies in, a random policy target over its legal moves and
// a random result.
func randomSamples(n int, seed uint64) []net.Sample {
	rng := rand.New(rand.NewPCG(seed, 1))
	v := variants.MustLoad("copenhagen")
	var out []net.Sample
	for len(out) < n {
		g := rules.NewGame(v)
		for range rng.IntN(60) {
			moves := g.GenerateMoves(nil)
			if len(moves) == 0 {
				break
			}
			g.Make(moves[rng.IntN(len(moves))])
		}
		if g.Outcome().Over() {
			continue
		}
		moves := g.GenerateMoves(nil)
		if len(moves) == 0 {
			continue
		}
		s := net.Sample{Variant: v, Position: g.Position(), Result: int8(rng.IntN(3) - 1), ValueWeight: 1}
		total := float32(0)
		for _, m := range moves {
			p := rng.Float32()
			s.Policy = append(s.Policy, rules.MoveProb{Move: m, Prob: p})
			total += p
		}
		for i := range s.Policy {
			s.Policy[i].Prob /= total
		}
		out = append(out, s)
	}
	return out
}
