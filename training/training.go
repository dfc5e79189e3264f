// Package training runs training: a network trained on a shuffled window
// of a dataset (and game records), with checkpoints that a stopped run
// resumes from exactly, a metrics CSV and a plot of the losses. The train
// command and the loop's training stage run it.
//
//	sum, err := training.Run(ctx, cfg, training.Options{Resume: true})
package training

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"taflab/archive"
	"taflab/configs"
	"taflab/datasets"
	"taflab/internal/fileio"
	"taflab/net"
	"taflab/rules"
)

// The files of a run folder.
const (
	CheckpointFile = "checkpoint.safetensors"
	NetworkFile    = "network.safetensors"
	MetricsFile    = "metrics.csv"
	PlotFile       = "loss.png"
)

// checkpointFormat marks a checkpoint file's metadata.
const checkpointFormat = "taflab-checkpoint"

// Options are what a caller adds to the run's configuration.
type Options struct {
	// Resume carries on from the run folder's checkpoint; without it an
	// existing checkpoint is an error (so that a run is never overwritten
	// by mistake).
	Resume bool
	// Init, if set, starts a new run from these weights instead of random
	// ones (the loop trains each generation from the best network). A
	// resumed run keeps its own: Init with Resume is ErrInitWithResume.
	Init *net.Network
	// OnStep, if set, is called after every step.
	OnStep func(Step)
	// Log receives notes on the data (records skipped, say); nil discards.
	Log io.Writer
	// Files, if set, are the positions files a new run trains on, newest
	// first, instead of the newest shards of cfg.Data: the loop's external
	// self-play chooses the shards of the right network. A resumed run
	// reads its checkpoint's files either way.
	Files []string
}

// Step is one step's figures.
type Step struct {
	Step          int // steps done, this one included
	Of            int // the run's last step
	LearningRate  float64
	Losses        net.Losses
	SamplesPerSec float64
	Elapsed       time.Duration
}

// Summary is what a run did.
type Summary struct {
	FirstStep, LastStep int
	Last                net.Losses
	Positions           int // the window's size
	RecordPositions     int // the training records' positions (none held out)
	Interrupted         bool
	Network             string // the path of the network file written
}

// ErrInitWithResume is Run's error for Options with both Init and Resume:
// a resumed run keeps its own weights.
var ErrInitWithResume = errors.New("training: Init and Resume: a resumed run keeps its own weights")

// ErrResume is Run's error (wrapped, saying what differs) for a resumed
// run whose configuration asks for what its checkpoint cannot carry on:
// another network than the one the run trains (where the run's network
// came from [network], not Options.Init), or fewer steps than it has done.
var ErrResume = errors.New("cannot carry the run on")

// Run trains cfg.Steps steps (in all, counting a resumed run's earlier ones)
// and leaves the run folder with a checkpoint, the network, the metrics and
// the plot. When ctx is done it writes a checkpoint and returns with
// Interrupted set.
func Run(ctx context.Context, cfg configs.Train, opt Options) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if opt.Init != nil && opt.Resume {
		return Summary{}, ErrInitWithResume
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return Summary{}, fmt.Errorf("training: run folder: %w", err)
	}
	// One process at a time writes a run folder: two resuming one lose
	// the steps of one from the metrics (issue 36).
	lock, err := fileio.LockDir(cfg.Out, "training")
	if err != nil {
		return Summary{}, fmt.Errorf("training: run folder %w", err)
	}
	defer lock.Unlock()
	// Temporary checkpoint, network and report files that a killed run
	// left (hidden, never read): removed when a run starts in the folder.
	if _, err := fileio.RemoveStaleTemps(cfg.Out, "", fileio.StaleTempAge); err != nil {
		return Summary{}, fmt.Errorf("training: run folder: %w", err)
	}
	ckptPath := filepath.Join(cfg.Out, CheckpointFile)
	threads := cfg.Optimizer.Threads
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}

	var (
		n      *net.Network
		tr     *net.Trainer
		window *datasets.Window
	)
	resumedRecords := ""
	source := networkFromConfig // where the run's network came from, for its checkpoints
	if opt.Init != nil {
		source = networkFromInit
	}
	if opt.Resume {
		if n, tr, window, resumedRecords, source, err = resume(ckptPath, cfg, threads, opt.Log); err != nil {
			return Summary{}, err
		}
	} else {
		if _, err := os.Stat(ckptPath); err == nil {
			return Summary{}, fmt.Errorf("training: %s exists: resume it (-resume) or choose another run folder", ckptPath)
		}
		if opt.Init != nil {
			n = opt.Init.Clone()
		} else if n, err = net.New(cfg.Network, cfg.Seed); err != nil {
			return Summary{}, err
		}
		if tr, err = net.NewTrainer(n, cfg.Optimizer, threads); err != nil {
			return Summary{}, err
		}
		if !cfg.Records.Only() {
			if len(opt.Files) > 0 {
				window, err = datasets.OpenWindowFiles(opt.Files, cfg.Window, cfg.Seed)
			} else {
				window, err = datasets.OpenWindow(cfg.Data, cfg.Window, cfg.Seed)
			}
			if err != nil {
				return Summary{}, err
			}
		}
	}
	records, err := openRecords(cfg, opt.Log)
	if err != nil {
		return Summary{}, err
	}
	// A network that learns from one rule set's records alone knows their
	// planes and no other: its file says so (net.Network.PlanesOf), and
	// every evaluator of it shows positions those planes.
	n.SetPlanesOf(nil)
	if window == nil && records != nil && (opt.Init == nil || sameRules(opt.Init.PlanesOf(), records.variant)) {
		n.SetPlanesOf(records.variant)
	}
	if opt.Resume && resumedRecords != records.identity() {
		return Summary{}, fmt.Errorf("training: resume: %s: the run trained on game records %s; now they are %s: a resumed run must see the same data (start a new run)",
			ckptPath, resumedRecords, records.identity())
	}
	if window == nil && records == nil {
		return Summary{}, fmt.Errorf("training: nothing to train on: the records (%s) are skipped and there is no self-play data", cfg.Records.File)
	}
	var defs []rules.Definition
	if window != nil {
		defs = window.Definitions()
	}
	variants, err := compileAll(defs)
	if err != nil {
		return Summary{}, err
	}
	metrics, err := openMetrics(filepath.Join(cfg.Out, MetricsFile), tr.Step())
	if err != nil {
		return Summary{}, err
	}
	defer metrics.Close()

	sum := Summary{FirstStep: tr.Step(), Network: filepath.Join(cfg.Out, NetworkFile)}
	fromRecords := 0 // samples of each batch drawn from the records
	if window != nil {
		sum.Positions = window.Len()
	}
	if records != nil {
		sum.RecordPositions = records.set.Len()
		fromRecords = cfg.BatchSize
		if window != nil {
			fromRecords = int(math.Round(cfg.Records.Share * float64(cfg.BatchSize)))
		}
	}
	rows := make([]datasets.PositionRow, cfg.BatchSize-fromRecords)
	samples := make([]net.Sample, cfg.BatchSize)
	// The symmetry of each sample comes from the seed and the data offset,
	// so a resumed run draws the same ones.
	started := time.Now()
	save := func() error {
		if err := writeCheckpoint(ckptPath, cfg, n, tr, window, records.identity(), source); err != nil {
			return err
		}
		if err := n.Save(sum.Network, map[string]string{"taflab.step": strconv.Itoa(tr.Step())}); err != nil {
			return err
		}
		return nil
	}
	lastSaved := tr.Step()
	for tr.Step() < cfg.Steps {
		if ctx.Err() != nil {
			sum.Interrupted = true
			break
		}
		if len(rows) > 0 {
			offset := window.Offset()
			window.Next(rows)
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(offset)))
			for i := range rows {
				samples[i] = toSample(&rows[i], variants, cfg.Symmetries, cfg.SearchValueWeight, rng, samples[i].Policy[:0])
			}
			if cfg.SurpriseWeight > 0 {
				weighSurprise(rows, samples, cfg.SurpriseWeight)
			}
		}
		if fromRecords > 0 {
			// The draws come from the seed and the step alone, so a resumed
			// run draws the same ones.
			rng := rand.New(rand.NewPCG(cfg.Seed^recordsStream, uint64(tr.Step())))
			for i := len(rows); i < len(samples); i++ {
				samples[i] = records.sample(rng, cfg.Symmetries, samples[i].Policy[:0])
			}
		}
		t0 := time.Now()
		lr := cfg.Optimizer.LearningRateAt(tr.Step())
		losses, err := tr.TrainStep(samples)
		if err != nil {
			return sum, err // net's, naming the sample
		}
		st := Step{Step: tr.Step(), Of: cfg.Steps, LearningRate: lr, Losses: losses,
			SamplesPerSec: float64(len(samples)) / time.Since(t0).Seconds(), Elapsed: time.Since(started)}
		sum.Last, sum.LastStep = losses, st.Step
		if err := metrics.write(st); err != nil {
			return sum, err
		}
		if opt.OnStep != nil {
			opt.OnStep(st)
		}
		if tr.Step()%cfg.CheckpointEvery == 0 {
			if err := save(); err != nil {
				return sum, err
			}
			lastSaved = tr.Step()
		}
	}
	if tr.Step() != lastSaved || !fileExists(ckptPath) {
		if err := save(); err != nil {
			return sum, err
		}
	}
	sum.LastStep = tr.Step()
	if err := metrics.Close(); err != nil {
		return sum, err
	}
	if err := plotLosses(filepath.Join(cfg.Out, MetricsFile), filepath.Join(cfg.Out, PlotFile)); err != nil {
		return sum, err
	}
	return sum, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// sameRules reports whether a and b are the same rule set (nil is none).
func sameRules(a, b *rules.Variant) bool {
	return a != nil && b != nil && a.Definition() == b.Definition()
}

// recordsStream separates the random stream of the record draws from the
// window's, which uses the same seed.
const recordsStream = 0x7ec0_4d5

// recordSource draws training samples from game records: each position's
// policy target is the move played, its value target the game's result at
// the records' value weight (0 when the game has none). The records are
// held compactly (datasets.RecordSet) and each position drawn is made
// again on game.
type recordSource struct {
	variant     *rules.Variant
	set         *datasets.RecordSet
	game        *rules.Game // scratch for making positions again; one goroutine draws
	valueWeight float32
	id          string // identity, for checkpoints
}

// identity says which records, drawn how, a run trains on: the settings
// and a checksum of the file, so that a resumed run refuses other data
// (an edited file, another share, an optional file that has turned up). It
// is "none" for no records.
func (r *recordSource) identity() string {
	if r == nil {
		return "none"
	}
	return r.id
}

// openRecords reads the config's game records, the held-out ones left out,
// or returns nil when there are none to use (an optional file that is
// absent is noted in log).
func openRecords(cfg configs.Train, log io.Writer) (*recordSource, error) {
	rc := cfg.Records
	if !rc.Enabled() {
		return nil, nil
	}
	if err := archive.Stat(rc.File); err != nil && rc.Optional && errors.Is(err, fs.ErrNotExist) {
		if log != nil {
			fmt.Fprintf(log, "training: no game records at %s: training on self-play alone\n", rc.File)
		}
		return nil, nil
	}
	v, err := configs.LoadVariant(rc.Variant)
	if err != nil {
		return nil, err // configs', naming the rule set
	}
	if v.Size() != net.BoardSize {
		return nil, fmt.Errorf("training: records.variant %s: the network plays %dx%d boards, not %dx%d", v.Name(), net.BoardSize, net.BoardSize, v.Size(), v.Size())
	}
	// Read once, a line at a time: the identity's checksum is of the
	// bytes trained on, and the records are held compactly (some 4
	// bytes a ply; the file itself is not held).
	f, err := archive.Open(rc.File) // a file, or an embedded archive
	if err != nil {
		return nil, fmt.Errorf("training: game records: %w", err)
	}
	defer f.Close()
	set, sum, err := datasets.ReadRecordSet(context.Background(), rc.File, f, v, func(line int) bool { return !datasets.HeldOut(line, rc.HoldoutEvery) })
	if err != nil {
		return nil, err // datasets', naming the file and line
	}
	if set.Len() == 0 {
		return nil, fmt.Errorf("training: %s: no positions left to train on once every %dth record is held out", rc.File, rc.HoldoutEvery)
	}
	return &recordSource{variant: v, set: set, game: rules.NewGame(v), valueWeight: float32(rc.ValueWeight),
		id: fmt.Sprintf("%s (crc32c %08x, rule set %s, share %g, value weight %g, holding out every %d)",
			rc.File, sum, v.Name(), rc.Share, rc.ValueWeight, rc.HoldoutEvery)}, nil
}

// sample draws one position of the records, in a random symmetry if
// symmetries is set; policy is reused memory for the sample's policy.
func (r *recordSource) sample(rng *rand.Rand, symmetries bool, policy []rules.MoveProb) net.Sample {
	p, m, result, ok := r.set.At(rng.IntN(r.set.Len()), r.game)
	y := rules.Identity
	if symmetries {
		y = rules.Symmetry(rng.IntN(rules.NumSymmetries))
	}
	w := r.valueWeight
	if !ok {
		w = 0
	}
	return net.Sample{Variant: r.variant, Position: y.Position(p), Result: result, ValueWeight: w,
		Policy: append(policy, rules.MoveProb{Move: y.Move(m, net.BoardSize), Prob: 1})}
}

// compileAll compiles the window's rule sets, by name.
func compileAll(defs []rules.Definition) (map[string]*rules.Variant, error) {
	out := map[string]*rules.Variant{}
	for _, d := range defs {
		v, err := rules.Compile(d)
		if fe := (*rules.FieldError)(nil); errors.As(err, &fe) {
			return nil, fmt.Errorf("training: the dataset's rule set %s: key %s: %w", d.Name, fe.Key, fe.Err)
		}
		if err != nil {
			return nil, err // rules'
		}
		out[d.Name] = v
	}
	return out, nil
}

// toSample turns a dataset row into a training sample, in a random symmetry
// if symmetries is set, with searchWeight of its value target from the
// search's root value; policy is reused memory for the sample's policy.
func toSample(r *datasets.PositionRow, variants map[string]*rules.Variant, symmetries bool, searchWeight float64, rng *rand.Rand, policy []rules.MoveProb) net.Sample {
	y := rules.Identity
	if symmetries {
		y = rules.Symmetry(rng.IntN(rules.NumSymmetries))
	}
	s := net.Sample{Variant: variants[r.RuleSet], Position: y.Position(r.Position), Result: r.Result,
		SearchValue: r.RootValue, SearchWeight: float32(searchWeight), ValueWeight: 1}
	if r.FullSearch {
		for _, mp := range r.Policy {
			policy = append(policy, rules.MoveProb{Move: y.Move(mp.Move, net.BoardSize), Prob: mp.Prob})
		}
		s.Policy = policy
	}
	return s
}

// Where a run's network came from (the checkpoint's taflab.network_source):
// the config's [network], with new weights, or Options.Init's weights and
// architecture.
const (
	networkFromConfig = "config"
	networkFromInit   = "init"
)

// dataFilesBase marks a checkpoint whose data files are relative to its
// own folder (taflab.data_files_base), so that the run resumes from any
// working folder; without it they are as given when the run began.
const dataFilesBase = "checkpoint"

// weighSurprise sets the weights of a batch's self-play samples (samples[i]
// made from rows[i]) by KataGo's policy surprise weighting at share s:
// (1 - s) + s * surprise / the mean surprise of the batch's rows with a
// full search and a known surprise; the other samples keep weight 1.
func weighSurprise(rows []datasets.PositionRow, samples []net.Sample, s float64) {
	sum, n := 0.0, 0
	for i := range rows {
		if rows[i].FullSearch && rows[i].Surprise > 0 {
			sum += float64(rows[i].Surprise)
			n++
		}
	}
	if n == 0 {
		return
	}
	mean := sum / float64(n)
	for i := range rows {
		if rows[i].FullSearch && rows[i].Surprise > 0 {
			samples[i].Weight = float32((1 - s) + s*float64(rows[i].Surprise)/mean)
		}
	}
}

// writeCheckpoint writes the network, the optimizer's state and the data
// position as one file, whole or not at all. The data files are written
// relative to the checkpoint's folder.
func writeCheckpoint(path string, cfg configs.Train, n *net.Network, tr *net.Trainer, w *datasets.Window, records, source string) error {
	tensors := append([]net.Tensor(nil), n.Tensors()...)
	for i, s := range tr.OptimizerState() {
		tensors = append(tensors, net.Tensor{Name: fmt.Sprintf("optimizer.%d", i), Shape: []int{len(s)}, Data: s, Trained: false})
	}
	dataFiles, offset := []string{}, int64(0)
	if w != nil {
		offset = w.Offset()
		for _, f := range w.Files() {
			rel, err := relativeTo(filepath.Dir(path), f)
			if err != nil {
				return fmt.Errorf("training: checkpoint %s: data file %s: %w", path, f, err)
			}
			dataFiles = append(dataFiles, rel)
		}
	}
	files, err := json.Marshal(dataFiles)
	if err != nil {
		return err
	}
	netCfg, err := json.Marshal(n.Config())
	if err != nil {
		return err
	}
	optCfg, err := json.Marshal(cfg.Optimizer)
	if err != nil {
		return err
	}
	meta := map[string]string{
		"taflab.format":          checkpointFormat,
		"taflab.input_encoding":  net.InputEncoding,
		"taflab.config":          string(netCfg),
		"taflab.optimizer":       string(optCfg),
		"taflab.step":            strconv.Itoa(tr.Step()),
		"taflab.data_offset":     strconv.FormatInt(offset, 10),
		"taflab.data_files":      string(files),
		"taflab.data_files_base": dataFilesBase,
		"taflab.network_source":  source,
		"taflab.window":          strconv.Itoa(cfg.Window),
		"taflab.seed":            strconv.FormatUint(cfg.Seed, 10),
		"taflab.records":         records,
	}
	return net.WriteSafetensors(path, tensors, meta) // its errors are net's, naming the file
}

// relativeTo returns file's path from the folder dir (both as given, made
// absolute).
func relativeTo(dir, file string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absFile, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	return filepath.Rel(absDir, absFile)
}

// resume reads a checkpoint: the network, the trainer at its step with its
// optimizer state, the window at its data position, the identity of the
// game records the run trained on (recordSource.identity; "none" for a
// checkpoint written before records were recorded) and where the run's
// network came from. A config that asks for another network than a run
// of the config's own trains, or for fewer steps than it has done, is
// ErrResume; where the network came from Options.Init, the config's
// [network] does not apply, and log is told when it differs.
func resume(path string, cfg configs.Train, threads int, log io.Writer) (*net.Network, *net.Trainer, *datasets.Window, string, string, error) {
	n, tr, w, records, source, err := readCheckpoint(path, cfg, threads, log)
	if err != nil {
		return nil, nil, nil, "", "", err
	}
	if cfg.Steps < tr.Step() {
		return nil, nil, nil, "", "", fmt.Errorf("training: resume: %s: %w: the run is at step %d, and the config asks for %d steps in all: give more (-steps) to train on", path, ErrResume, tr.Step(), cfg.Steps)
	}
	return n, tr, w, records, source, nil
}

// networkDiff lists the [network] keys in which a and b differ, "key = A
// (the run's), B (the config's)".
func networkDiff(run, config net.Config) []string {
	var diff []string
	add := func(key string, a, b int) {
		if a != b {
			diff = append(diff, fmt.Sprintf("%s = %d (the config asks for %d)", key, a, b))
		}
	}
	add("blocks", run.Blocks, config.Blocks)
	add("channels", run.Channels, config.Channels)
	add("value_channels", run.ValueChannels, config.ValueChannels)
	add("value_hidden", run.ValueHidden, config.ValueHidden)
	return diff
}

func readCheckpoint(path string, cfg configs.Train, threads int, log io.Writer) (*net.Network, *net.Trainer, *datasets.Window, string, string, error) {
	tensors, meta, err := net.ReadSafetensors(path)
	if err != nil {
		return nil, nil, nil, "", "", err // net's, naming the checkpoint
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("training: resume: %s: %s", path, fmt.Sprintf(format, args...))
	}
	if meta["taflab.format"] != checkpointFormat {
		return nil, nil, nil, "", "", bad("not a checkpoint (format %q)", meta["taflab.format"])
	}
	if meta["taflab.input_encoding"] != net.InputEncoding {
		return nil, nil, nil, "", "", bad("input encoding %q, this build reads %s", meta["taflab.input_encoding"], net.InputEncoding)
	}
	var netCfg net.Config
	if err := json.Unmarshal([]byte(meta["taflab.config"]), &netCfg); err != nil {
		return nil, nil, nil, "", "", bad("architecture: %v", err)
	}
	var optCfg net.TrainConfig
	if err := json.Unmarshal([]byte(meta["taflab.optimizer"]), &optCfg); err != nil {
		return nil, nil, nil, "", "", bad("optimizer settings: %v", err)
	}
	// The schedule may be extended by a resumed run; the optimizer must
	// stay what it was, or its state would mean something else.
	if optCfg.Optimizer != cfg.Optimizer.Optimizer {
		return nil, nil, nil, "", "", bad("optimizer %s, the config asks for %s", optCfg.Optimizer, cfg.Optimizer.Optimizer)
	}
	step, err1 := strconv.Atoi(meta["taflab.step"])
	offset, err2 := strconv.ParseInt(meta["taflab.data_offset"], 10, 64)
	window, err3 := strconv.Atoi(meta["taflab.window"])
	seed, err4 := strconv.ParseUint(meta["taflab.seed"], 10, 64)
	var files []string
	err5 := json.Unmarshal([]byte(meta["taflab.data_files"]), &files)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return nil, nil, nil, "", "", bad("metadata: %v", err)
	}
	source := meta["taflab.network_source"]
	if source == "" {
		source = networkFromConfig // a checkpoint from before sources were written
	}
	if diff := networkDiff(netCfg, cfg.Network); len(diff) > 0 {
		if source == networkFromConfig {
			return nil, nil, nil, "", "", fmt.Errorf("training: resume: %s: %w: the run trains another network than the config's [network]: %s: set [network] to the run's, or start a new run",
				path, ErrResume, strings.Join(diff, ", "))
		}
		if log != nil {
			fmt.Fprintf(log, "training: resume: %s: the run trains the network it started from (-init), not the config's [network]: %s\n", path, strings.Join(diff, ", "))
		}
	}
	if meta["taflab.data_files_base"] == dataFilesBase {
		for i, f := range files {
			if !filepath.IsAbs(f) {
				files[i] = filepath.Join(filepath.Dir(path), f)
			}
		}
	}
	n, err := net.New(netCfg, 0)
	if err != nil {
		return nil, nil, nil, "", "", bad("%v", err)
	}
	byName := map[string]net.Tensor{}
	for _, t := range tensors {
		byName[t.Name] = t
	}
	fill := func(name string, dst []float32) error {
		t, ok := byName[name]
		if !ok {
			return bad("no tensor %s", name)
		}
		if len(t.Data) != len(dst) {
			return bad("tensor %s has %d values, want %d", name, len(t.Data), len(dst))
		}
		copy(dst, t.Data)
		return nil
	}
	for _, t := range n.Tensors() {
		if err := fill(t.Name, t.Data); err != nil {
			return nil, nil, nil, "", "", err
		}
	}
	tr, err := net.NewTrainer(n, cfg.Optimizer, threads)
	if err != nil {
		return nil, nil, nil, "", "", err
	}
	for i, s := range tr.OptimizerState() {
		if err := fill(fmt.Sprintf("optimizer.%d", i), s); err != nil {
			return nil, nil, nil, "", "", err
		}
	}
	tr.SetStep(step)
	if len(files) == 0 {
		if !cfg.Records.Only() {
			return nil, nil, nil, "", "", bad("the run trained on game records alone, and the config now asks for self-play data too: start a new run")
		}
		return n, tr, nil, recordsOf(meta), source, nil
	}
	w, err := datasets.OpenWindowFiles(files, window, seed)
	if err != nil {
		return nil, nil, nil, "", "", err // datasets', naming the file
	}
	if err := w.SetOffset(offset); err != nil {
		return nil, nil, nil, "", "", bad("%v", err)
	}
	return n, tr, w, recordsOf(meta), source, nil
}

// recordsOf returns the records identity of a checkpoint's metadata.
func recordsOf(meta map[string]string) string {
	if r := meta["taflab.records"]; r != "" {
		return r
	}
	return "none"
}
