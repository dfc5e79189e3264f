// Command selfplay-throughput measures self-play with a network at the
// loop's settings: games per hour, positions evaluated per second, that
// rate as a share of the pure inference rate at the same batch size, and
// the share of the process's CPU time spent in network evaluation.
//
// It plays as the loop's self-play does (configs/loop.toml's [selfplay]:
// its search settings, workers and games per worker, and its game mix:
// the games of the loop's first generation, set up by selfplay.MixGame
// from the same seeds), with a fresh 6x64 network of
// fixed random weights (or -net FILE), one single-threaded net.Inference
// per worker with random symmetries, as the loop makes them. Datasets are
// not written. Then it measures the pure inference rate: the same workers,
// each evaluating batches of the mean self-play batch size of random
// positions over and over, with nothing else to do.
//
// Network evaluation is the time inside Inference.Evaluate (encoding,
// the network, the priors' softmax), measured as the CPU time of the thread
// running it (each call locks its goroutine to its thread); with -threads
// above 1 the helper threads' CPU time is not counted, so the share is then
// a lower bound. The process's CPU time comes from getrusage.
//
//	go run ./bench/selfplay-throughput                     # 6x64, 4 minutes of self-play
//	go run ./bench/selfplay-throughput -seconds 60 -cpuprofile sp.prof
//	go run ./bench/selfplay-throughput -net networks/copenhagen.safetensors -precision float32,bf16 -rounds 3 -seconds 120
//
// The network runs in -precision (auto by default: bfloat16 on AMX, else
// float32); given several, comma-separated, it measures each in turn,
// round after round (-rounds), side by side on the same machine, and
// reports each precision's games and positions over all its rounds and
// every precision's games per hour over the first's.
//
// It is a measuring tool, not a test: nothing runs it in CI.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/loop"
	"taflab/mcts"
	"taflab/net"
	"taflab/net/kernels"
	"taflab/openings"
	"taflab/rules"
	"taflab/selfplay"
)

// Report is what the program prints, as JSON and as text.
type Report struct {
	Network        string `json:"network"`
	Implementation string `json:"implementation"`
	// Precision is the network's precision, and Kernel what ran it.
	Precision string `json:"precision"`
	Kernel    string `json:"kernel"`
	// Rounds are the measurements summed into the figures.
	Rounds         int     `json:"rounds"`
	GOMAXPROCS     int     `json:"gomaxprocs"`
	Workers        int     `json:"workers"`
	GamesPerWorker int     `json:"games_per_worker"`
	LeavesPerGame  int     `json:"leaves_per_game"`
	Playouts       string  `json:"playouts"`
	Threads        int     `json:"threads"`
	Seconds        float64 `json:"seconds"`
	// Games finished in the measured time, and per hour.
	Games        int     `json:"games"`
	GamesPerHour float64 `json:"games_per_hour"`
	MeanPlies    float64 `json:"mean_plies"`
	// Positions evaluated per second in self-play, and the mean batch.
	PositionsPerSecond float64 `json:"positions_per_second"`
	MeanBatch          float64 `json:"mean_batch"`
	// PurePerSecond is the pure inference rate of the same workers at the
	// mean batch (rounded); Share is self-play's rate over it.
	PurePerSecond float64 `json:"pure_per_second"`
	PureBatch     int     `json:"pure_batch"`
	Share         float64 `json:"share_of_pure"`
	// EvalCPUShare is the evaluation threads' CPU time over the process's
	// during self-play; ProcessCPU is the process's CPU time over the wall
	// time of every core.
	EvalCPUShare  float64 `json:"eval_cpu_share"`
	ProcessCPU    float64 `json:"process_cpu_share"`
	MachineOthers float64 `json:"other_processes_share"`
}

func main() {
	seconds := flag.Float64("seconds", 240, "time budget of self-play, in seconds")
	pureSeconds := flag.Float64("pure-seconds", 20, "time budget of the pure inference rate, in seconds")
	netFile := flag.String("net", "", "a network `file` (default: a fresh network of -blocks x -channels, fixed random weights)")
	blocks := flag.Int("blocks", 6, "residual blocks of the fresh network")
	channels := flag.Int("channels", 64, "channels of the fresh network")
	threads := flag.Int("threads", 1, "threads of each worker's inference (the loop uses 1)")
	workers := flag.Int("workers", -1, "workers (default: the loop's, 0 = one per core)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the self-play to this `file`")
	jsonOut := flag.Bool("json", false, "print the report as JSON")
	precisions := flag.String("precision", "auto", "the network's precision `P`, or several comma-separated to measure in turn: auto, float32, bf16, int8")
	rounds := flag.Int("rounds", 1, "measure each precision this many `times`, in turn")
	flag.Parse()
	var precs []net.Precision
	for _, name := range strings.Split(*precisions, ",") {
		p, err := net.ParsePrecision(name)
		if err == nil {
			err = p.Check()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "selfplay-throughput:", err)
			os.Exit(2)
		}
		precs = append(precs, p.Resolve())
	}
	reps := make([]Report, len(precs))
	for r := range max(*rounds, 1) {
		for i, p := range precs {
			rep, err := measure(p, *seconds, *pureSeconds, *netFile, *blocks, *channels, *threads, *workers, *cpuprofile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "selfplay-throughput:", err)
				os.Exit(1)
			}
			fmt.Fprintf(os.Stderr, "round %d, %s: %d games in %.0f s, %.0f games/hour, %.1f positions/s\n", r+1, p, rep.Games, rep.Seconds, rep.GamesPerHour, rep.PositionsPerSecond)
			reps[i] = reps[i].add(rep)
		}
	}
	for i := range reps {
		if err := reps[i].print(*jsonOut); err != nil {
			fmt.Fprintln(os.Stderr, "selfplay-throughput:", err)
			os.Exit(1)
		}
		if i > 0 && reps[0].GamesPerHour > 0 && !*jsonOut {
			fmt.Printf("%s / %s: %.2f times the games an hour, %.2f times the positions a second\n\n", reps[i].Precision, reps[0].Precision,
				reps[i].GamesPerHour/reps[0].GamesPerHour, reps[i].PositionsPerSecond/reps[0].PositionsPerSecond)
		}
	}
}

// add returns r with another round's measurement added: games and times
// summed, rates and shares averaged weighted by time, the pure rate
// averaged.
func (r Report) add(o Report) Report {
	if r.Rounds == 0 {
		o.Rounds = 1
		return o
	}
	w0, w1 := r.Seconds, o.Seconds
	avg := func(a, b float64) float64 { return (a*w0 + b*w1) / (w0 + w1) }
	r.PositionsPerSecond = avg(r.PositionsPerSecond, o.PositionsPerSecond)
	r.MeanBatch = avg(r.MeanBatch, o.MeanBatch)
	r.EvalCPUShare = avg(r.EvalCPUShare, o.EvalCPUShare)
	r.ProcessCPU = avg(r.ProcessCPU, o.ProcessCPU)
	r.MachineOthers = avg(r.MachineOthers, o.MachineOthers)
	r.MeanPlies = (r.MeanPlies*float64(r.Games) + o.MeanPlies*float64(o.Games)) / float64(max(1, r.Games+o.Games))
	r.PurePerSecond = (r.PurePerSecond*float64(r.Rounds) + o.PurePerSecond) / float64(r.Rounds+1)
	r.Games += o.Games
	r.Seconds += o.Seconds
	r.GamesPerHour = float64(r.Games) / (r.Seconds / 3600)
	r.Share = r.PositionsPerSecond / r.PurePerSecond
	r.Rounds++
	return r
}

// timedEval is an evaluator that counts the positions it evaluates and the
// CPU time of the thread that evaluates them.
type timedEval struct {
	in        *net.Inference
	positions atomic.Int64
	calls     atomic.Int64
	cpuNanos  atomic.Int64
}

func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

func (e *timedEval) Evaluate(b *mcts.Batch) error {
	runtime.LockOSThread()
	t0 := threadCPU()
	err := e.in.Evaluate(b)
	e.cpuNanos.Add(threadCPU() - t0)
	runtime.UnlockOSThread()
	e.positions.Add(int64(b.Len()))
	e.calls.Add(1)
	return err
}

func (e *timedEval) ID() string { return e.in.ID() }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineBusy returns the machine's busy CPU time so far (every process),
// from /proc/stat, or 0 where there is none.
func machineBusy() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	var name string
	var v [8]int64
	if _, err := fmt.Sscan(string(data), &name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]); err != nil {
		return 0
	}
	ticks := v[0] + v[1] + v[2] + v[5] + v[6] + v[7] // user nice system irq softirq steal
	return time.Duration(ticks) * time.Second / 100  // USER_HZ
}

// measure plays self-play in precision prec for seconds seconds, then
// measures the pure inference rate.
func measure(prec net.Precision, seconds, pureSeconds float64, netFile string, blocks, channels, threads, workers int, cpuprofile string) (Report, error) {
	lc := configs.DefaultLoop()
	sp := lc.SelfPlay
	v, err := variants.Load(lc.Variant)
	if err != nil {
		return Report{}, err
	}
	var n *net.Network
	name := fmt.Sprintf("fresh %dx%d (random weights, seed 1)", blocks, channels)
	if netFile != "" {
		if n, _, err = net.Load(netFile); err != nil {
			return Report{}, err
		}
		name = fmt.Sprintf("%s (%dx%d)", netFile, n.Config().Blocks, n.Config().Channels)
	} else {
		cfg := net.DefaultConfig()
		cfg.Blocks, cfg.Channels = blocks, channels
		if n, err = net.New(cfg, 1); err != nil {
			return Report{}, err
		}
	}
	if workers < 0 {
		workers = sp.Workers
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var suite []openings.SuiteEntry
	if sp.Mix.SuiteShare > 0 {
		if suite, err = openings.LoadSuite(sp.Mix.Suite, v); err != nil {
			return Report{}, err
		}
	}

	var evals []*timedEval
	players, err := mcts.NewPlayers(sp.Search, v, workers, sp.GamesPerWorker, func() (mcts.Evaluator, error) {
		in := n.NewInferenceAt(threads, "bench", prec)
		in.RandomSymmetry = true
		in.Seed(uint64(len(evals) + 1))
		evals = append(evals, &timedEval{in: in})
		return evals[len(evals)-1], nil
	})
	if err != nil {
		return Report{}, err
	}
	// The games of the loop's first generation, as its self-play sets
	// them up.
	seed := loop.GenSeed(lc.Seed, 1)
	var next atomic.Int64
	source := func() (mcts.GameSpec, bool) {
		i := int(next.Add(1) - 1)
		return selfplay.MixGame(i, selfplay.GameSeed(seed, i), sp.Mix, suite), true
	}

	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return Report{}, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return Report{}, err
		}
	}
	// Cancelled, not timed out: PlayAll reports a cancellation as no error.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := time.AfterFunc(time.Duration(seconds*float64(time.Second)), cancel)
	defer stop.Stop()
	start, cpu0, busy0 := time.Now(), processCPU(), machineBusy()
	records, wait := mcts.PlayAll(ctx, players, source, workers*sp.GamesPerWorker)
	games, plies := 0, 0
	for r := range records {
		if ctx.Err() == nil {
			games++
			plies += len(r.Moves)
		}
	}
	wall := time.Since(start)
	cpu, busy := processCPU()-cpu0, machineBusy()-busy0
	if err := wait(); err != nil {
		return Report{}, err
	}
	if cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	var positions, calls, evalCPU int64
	for _, e := range evals {
		positions += e.positions.Load()
		calls += e.calls.Load()
		evalCPU += e.cpuNanos.Load()
	}
	cores := float64(runtime.NumCPU())
	rep := Report{Network: name, Implementation: kernels.Implementation(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Precision: prec.String(), Kernel: prec.Kernel(),
		Workers: workers, GamesPerWorker: sp.GamesPerWorker, LeavesPerGame: sp.Search.LeavesPerGame,
		Playouts: fmt.Sprintf("%d full (p=%.2f) / %d cheap", sp.Search.Playouts, sp.Search.FullSearchProb, sp.Search.CheapPlayouts),
		Threads:  threads,
		Seconds:  wall.Seconds(),
		Games:    games, GamesPerHour: float64(games) / wall.Hours(),
		PositionsPerSecond: float64(positions) / wall.Seconds(),
		EvalCPUShare:       float64(evalCPU) / float64(cpu.Nanoseconds()),
		ProcessCPU:         cpu.Seconds() / (wall.Seconds() * cores),
	}
	if busy > 0 {
		rep.MachineOthers = max(0, (busy-cpu).Seconds()/(wall.Seconds()*cores))
	}
	if games > 0 {
		rep.MeanPlies = float64(plies) / float64(games)
	}
	if calls > 0 {
		rep.MeanBatch = float64(positions) / float64(calls)
	}
	rep.PureBatch = max(1, int(rep.MeanBatch+0.5))
	if rep.PurePerSecond, err = pureRate(n, prec, v, workers, threads, rep.PureBatch, pureSeconds); err != nil {
		return Report{}, err
	}
	rep.Share = rep.PositionsPerSecond / rep.PurePerSecond
	return rep, nil
}

// print writes the report, as text or as JSON.
func (rep Report) print(jsonOut bool) error {
	if jsonOut {
		out, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(out))
		return nil
	}
	fmt.Printf("network %s in %s on %s (float32 kernels %s), GOMAXPROCS %d, %d round(s); loop.toml's self-play: %d workers x %d games, %d leaves a game, %s playouts; %d thread(s) per inference\n",
		rep.Network, rep.Precision, rep.Kernel, rep.Implementation, rep.GOMAXPROCS, rep.Rounds, rep.Workers, rep.GamesPerWorker, rep.LeavesPerGame, rep.Playouts, rep.Threads)
	fmt.Printf("self-play: %.0f s, %d games finished (%.0f plies on average): %.0f games/hour\n", rep.Seconds, rep.Games, rep.MeanPlies, rep.GamesPerHour)
	fmt.Printf("positions evaluated: %.1f/s, mean batch %.1f\n", rep.PositionsPerSecond, rep.MeanBatch)
	fmt.Printf("pure inference at batch %d on %d workers: %.1f positions/s; self-play gets %.0f%% of it\n", rep.PureBatch, rep.Workers, rep.PurePerSecond, 100*rep.Share)
	fmt.Printf("CPU: network evaluation %.0f%% of the process's CPU time; the process used %.0f%% of the cores, other processes %.0f%%\n",
		100*rep.EvalCPUShare, 100*rep.ProcessCPU, 100*rep.MachineOthers)
	return nil
}

// pureRate measures positions/s of workers inferences (threads each)
// evaluating batches of b random positions over and over, all at once, for
// seconds seconds after a warm-up.
func pureRate(n *net.Network, prec net.Precision, v *rules.Variant, workers, threads, b int, seconds float64) (float64, error) {
	rng := rand.New(rand.NewPCG(2026, 1))
	batch := &mcts.Batch{}
	for batch.Len() < b {
		g := rules.NewGame(v)
		for range rng.IntN(60) {
			moves := g.GenerateMoves(nil)
			if len(moves) == 0 || g.Outcome().Over() {
				break
			}
			g.Make(moves[rng.IntN(len(moves))])
		}
		moves := g.GenerateMoves(nil)
		if g.Outcome().Over() || len(moves) == 0 {
			continue
		}
		batch.Variants = append(batch.Variants, v)
		batch.Positions = append(batch.Positions, g.Position())
		batch.Moves = append(batch.Moves, moves)
		batch.Priors = append(batch.Priors, make([]float32, len(moves)))
		batch.Values = append(batch.Values, 0)
	}
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers) // each written by its goroutine before wg.Done
	budget := time.Duration(seconds * float64(time.Second))
	var start time.Time
	ready := make(chan struct{})
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := n.NewInferenceAt(threads, "pure", prec)
			in.RandomSymmetry = true
			mine := &mcts.Batch{Variants: batch.Variants, Positions: batch.Positions, Moves: batch.Moves,
				Values: make([]float32, b)}
			for _, p := range batch.Priors {
				mine.Priors = append(mine.Priors, make([]float32, len(p)))
			}
			for range 3 { // warm-up
				if errs[w] = in.Evaluate(mine); errs[w] != nil {
					return
				}
			}
			<-ready
			for time.Since(start) < budget {
				if errs[w] = in.Evaluate(mine); errs[w] != nil {
					return
				}
				total.Add(int64(b))
			}
		}()
	}
	time.Sleep(time.Second) // the warm-ups
	start = time.Now()
	close(ready)
	wg.Wait()
	elapsed := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return float64(total.Load()) / elapsed.Seconds(), nil
}
