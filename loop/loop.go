// Package loop runs the training loop in a run folder: generations of
// self-play, training and gating, each stage resumable, and a summary of the
// run.
//
//	cfg, err := configs.ParseLoop("my.toml", text)
//	var sum loop.RunSummary
//	err = loop.Run(ctx, runDir, cfg, text, loop.Options{Log: os.Stdout, OnGeneration: func(s loop.RunSummary) { sum = s }})
//	fmt.Println(sum.Ratings.ByGeneration())
//
// A run folder holds: loop.toml (the configuration the run was given),
// mode.json (its self-play mode, ModeFile), variant.toml (its rule set), selfplay-suite.txt (a copy of the suite
// file selfplay.mix.suite names, if any), manifest.json (versions, seeds, start),
// data/ (the self-play shards of every generation), gen-NNN/ (per
// generation: selfplay.json, cpu.json (CPUFile), train/ (a training run folder), gate/ and
// baseline/ (match folders), outside/NAME/ (a match folder per outside
// player of baseline.outside), gate.pairs.jsonl, baseline.pairs.jsonl and
// outside/NAME.pairs.jsonl (the finished pairs of a match still going, so
// that a resumed match keeps them), and a marker file per finished stage),
// best.json (the best network so far; absent while the network-free
// searcher is the best), workers/ (the followers' records),
// selfplay-done.json (once the last generation's games are in) and
// summary.md, summary.json, summary.png.
//
// With external self-play (selfplay.external) the loop plays no games:
// followers (Follow, the command selfplay -follow RUN) on any machines that
// share the run folder write them into data/, and each generation waits
// for its quota of games of its player (externalSelfPlayStage).
//
//	sum, err := loop.Follow(ctx, runDir, loop.FollowOptions{Log: os.Stdout})
package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"taflab/archive"
	"taflab/configs"
	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/match"
	"taflab/mcts"
	"taflab/net"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
	"taflab/selfplay"
	"taflab/stats"
	"taflab/training"
)

// Files of a run folder.
const (
	ConfigFile   = "loop.toml"
	VariantFile  = "variant.toml"
	ManifestFile = "manifest.json"
	BestFile     = "best.json"
	DataDir      = "data"
	LadderFile   = "ladder.json" // the baseline's playout ladder
	// DoneFile says the run needs no more self-play: the loop writes it
	// once its last generation's games are in (selfplayDone), and followers
	// stop when they see it. A run carried on to more generations removes
	// it as it starts.
	DoneFile = "selfplay-done.json"
	// SuiteFile is the run's copy of selfplay.mix.suite, when the config
	// names a file: the loop's self-play and every follower read it, so
	// that followers on other machines, in other folders, play the same
	// suite, and a resumed run keeps it.
	SuiteFile = "selfplay-suite.txt"
)

// Options are what a caller adds to a run.
type Options struct {
	// Log receives one line per stage and progress lines; nil discards.
	Log io.Writer
	// Poll is how often external self-play (selfplay.external) looks at
	// the data folder for new games; 0 means 2 seconds.
	Poll time.Duration
	// OnGeneration, if set, receives the run's summary (what summary.json
	// holds) after each generation: the results as values.
	OnGeneration func(RunSummary)
	// ConfigName names the config text in messages (a file name): Run
	// refuses a text other than the run's own loop.toml, naming it. ""
	// reads "the config given".
	ConfigName string
}

// ErrRunKept is what Run's refusals to change a run are (errors.Is): a
// run keeps the config it started with (its loop.toml, byte for byte) and
// its self-play mode (ModeFile), and a start with another config or mode
// is refused before any work. The fault is the caller's input.
var ErrRunKept = errors.New("loop: a run keeps its config and self-play mode")

// keptError is a refusal to change a run: ErrRunKept.
type keptError struct{ msg string }

func (e *keptError) Error() string { return e.msg }

func (e *keptError) Is(target error) bool { return target == ErrRunKept }

// GenName is generation g's name ("gen-001"): its folder in the run
// (GenDir), its candidate's name in the run's matches, and the worker name
// of its in-process self-play in shard names. ParseGenName reads it back.
func GenName(g int) string { return fmt.Sprintf("gen-%03d", g) }

// ParseGenName reads a name that GenName made ("gen-" and at least three
// digits): its generation and true, or 0 and false for a name of another
// form.
func ParseGenName(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "gen-")
	if !ok || len(digits) < 3 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	g, err := strconv.Atoi(digits)
	return g, err == nil
}

// GenDir returns the folder of generation g.
func GenDir(run string, g int) string { return filepath.Join(run, GenName(g)) }

// Run carries the run in folder run on until cfg.Generations generations are
// done, starting where it stopped. cfg is configText parsed (a flag may
// have changed Generations or selfplay.external); a new run records the
// text as its loop.toml and its self-play mode as its ModeFile, and a run
// that has them is carried on only with the same text and mode (else an
// ErrRunKept). It returns ctx's error if stopped; every finished game,
// checkpoint and match result stays in the folder.
func Run(ctx context.Context, run string, cfg configs.Loop, configText []byte, opt Options) error {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if err := checkConfig(run, configText, opt.ConfigName); err != nil {
		return err
	}
	v, err := configs.LoadVariant(cfg.Variant)
	if err != nil {
		return within("variant", err)
	}
	outside, err := readOutside(cfg, v)
	if err != nil {
		return err
	}
	// The run records its self-play mode (ModeFile), which a flag may have
	// chosen (train loop -external), and a resumed run keeps it.
	if err := checkMode(run, cfg); err != nil {
		return err
	}
	if err := setUp(run, cfg, configText, v); err != nil {
		return err
	}
	if cfg.SelfPlay.Mix.Suite != "" {
		cfg.SelfPlay.Mix.Suite = filepath.Join(run, SuiteFile)
	}
	if !done(GenDir(run, cfg.Generations), "selfplay") {
		if err := os.Remove(filepath.Join(run, DoneFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("loop: %w", err)
		}
	}
	if err := os.MkdirAll(GenDir(run, 0), 0o755); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	if err := timed(GenDir(run, 0), "train", func() error { return pretrainStage(ctx, run, cfg, v, log) }); err != nil {
		return err
	}
	for g := 1; g <= cfg.Generations; g++ {
		if err := generation(ctx, run, cfg, v, outside, g, opt.Poll, log); err != nil {
			return err
		}
		sum, err := writeSummary(run, cfg, log)
		if err != nil {
			return err
		}
		if opt.OnGeneration != nil {
			opt.OnGeneration(sum)
		}
	}
	return selfplayDone(run, cfg.Generations)
}

// selfplayDone writes DoneFile (whole): generation g, the last, has its
// games, so followers may stop.
func selfplayDone(run string, g int) error {
	if err := fileio.WriteJSON(filepath.Join(run, DoneFile), map[string]any{"generation": g, "written": time.Now().UTC()}); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// checkConfig refuses to carry a run on with another config text than its
// own loop.toml (the one it was set up with); name names the text.
func checkConfig(run string, configText []byte, name string) error {
	own := filepath.Join(run, ConfigFile)
	have, err := fileio.ReadFileLimit(own, fileio.MaxConfigBytes, "this file")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("loop: the run's config: %w", err)
	}
	if !bytes.Equal(have, configText) {
		if name == "" {
			name = "the config given"
		}
		return &keptError{fmt.Sprintf("loop: %s differs from the run's own %s: a run keeps its config (start a new run folder)", name, own)}
	}
	return nil
}

// setUp records what the run uses, once: the config, the rule set and the
// manifest. A run folder with another rule set is refused.
func setUp(run string, cfg configs.Loop, configText []byte, v *rules.Variant) error {
	// What a later stage reads is checked before any work: the openings of
	// the gates and of self-play.
	if _, _, err := openings.Openings(cfg.Gate.Openings, v, 1, cfg.Gate.OpeningPlies, 0); err != nil {
		return within("gate.openings", err)
	}
	if cfg.SelfPlay.Mix.Suite == "" && cfg.SelfPlay.Mix.SuiteShare > 0 {
		if _, err := openings.LoadSuite("", v); err != nil {
			return within("selfplay.mix.suite", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(run, DataDir), 0o755); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	if cfg.SelfPlay.Mix.Suite != "" && cfg.SelfPlay.Mix.SuiteShare > 0 {
		if err := copySuite(run, cfg.SelfPlay.Mix.Suite, v); err != nil {
			return err
		}
	}
	def, err := variantTOML(v)
	if err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	variantPath := filepath.Join(run, VariantFile)
	if old, err := fileio.ReadFileLimit(variantPath, fileio.MaxConfigBytes, "this file"); err == nil {
		if string(old) != def {
			var was rules.Definition
			if _, err := toml.Decode(string(old), &was); err == nil && was.Name != v.Name() {
				if was.Name = v.Name(); was == v.Definition() {
					// The same rules under an older build's name (an
					// OpenTafl rules string's, before such names had
					// variants.OpenTaflPrefix).
					return fmt.Errorf("loop: %s: this run's rules are %s's under another name, which an older build gave them: change its name to %q to carry the run on",
						variantPath, v.Name(), v.Name())
				}
			}
			return fmt.Errorf("loop: %s: this run plays another rule set than %s", variantPath, v.Name())
		}
	} else if err := fileio.WriteFile(variantPath, []byte(def)); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	if _, err := os.Stat(filepath.Join(run, ConfigFile)); errors.Is(err, os.ErrNotExist) {
		if err := fileio.WriteFile(filepath.Join(run, ConfigFile), configText); err != nil {
			return fmt.Errorf("loop: %w", err)
		}
	}
	if err := recordMode(run, cfg); err != nil {
		return err
	}
	repeat := "go run ./cmd/train loop -run NEWDIR -config " + filepath.Join(run, ConfigFile)
	if cfg.SelfPlay.External {
		repeat += " -external"
	}
	manifestPath := filepath.Join(run, ManifestFile)
	if _, err := os.Stat(manifestPath); err == nil {
		return nil
	}
	m := map[string]any{
		"started": time.Now().UTC(), "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
		"cores": runtime.NumCPU(), "seed": cfg.Seed, "variant": v.Name(), "input_encoding": net.InputEncoding,
		"dataset_schema_version": datasets.SchemaVersion,
		"repeat":                 repeat + " (with -variant's file: " + filepath.Join(run, VariantFile) + ")",
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		m["module"] = info.Main.Path + "@" + info.Main.Version
		for _, s := range info.Settings {
			if strings.HasPrefix(s.Key, "vcs.") {
				m[s.Key] = s.Value
			}
		}
		deps := map[string]string{}
		for _, d := range info.Deps {
			deps[d.Path] = d.Version
		}
		m["dependencies"] = deps
	}
	if err := fileio.WriteJSON(manifestPath, m); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// variantTOML is the rule set as VariantFile holds it.
func variantTOML(v *rules.Variant) (string, error) {
	var def strings.Builder
	err := toml.NewEncoder(&def).Encode(v.Definition())
	return def.String(), err
}

// copySuite copies the suite file that selfplay.mix.suite names (read
// from the loop's working folder, as every path of the config is) into
// the run folder as SuiteFile, once, after checking it. A run whose copy
// differs from the file is refused; a file no longer there (the run folder
// moved) leaves the copy to be used.
func copySuite(run, file string, v *rules.Variant) error {
	path := filepath.Join(run, SuiteFile)
	have, haveErr := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "this file")
	data, err := fileio.ReadFileLimit(file, fileio.MaxConfigBytes, "this file")
	if err != nil {
		if haveErr == nil && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("loop: selfplay.mix.suite: %w", err)
	}
	if haveErr == nil {
		if !bytes.Equal(have, data) {
			return fmt.Errorf("loop: selfplay.mix.suite: %s differs from this run's copy %s: a run keeps its suite (start a new run folder)", file, path)
		}
		return nil
	}
	if _, err := openings.ParseSuite(file, data, v); err != nil {
		return within("selfplay.mix.suite", err)
	}
	if err := fileio.WriteFile(path, data); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

// mark records that a stage of a generation is done; done asks.
func mark(dir, stage string) error {
	if err := fileio.WriteFile(filepath.Join(dir, stage+".done"), nil); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return nil
}

func done(dir, stage string) bool {
	_, err := os.Stat(filepath.Join(dir, stage+".done"))
	return err == nil
}

// GenSeed derives generation g's seed from the run's seed: the seed of its
// self-play (whose games' seeds are selfplay.GameSeed of it), its
// training and its matches.
func GenSeed(seed uint64, g int) uint64 { return selfplay.GameSeed(seed^0x5eed10_0f, g) }

// best returns the best network so far, or "" for the network-free searcher.
func best(run string) (string, error) {
	p, err := ReadBestPointer(filepath.Join(run, BestFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return resolveNet(run, p.Network), nil
}

// resolveNet finds a network of the run that the best-network pointer
// names: at the path the loop saw it under, or, when the run folder is
// mounted elsewhere (a follower on another machine), at the same place in
// run (gen-NNN/train/network.safetensors).
func resolveNet(run, path string) string {
	if _, err := os.Stat(path); err == nil {
		return path
	}
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if _, ok := ParseGenName(parts[i]); ok {
			alt := filepath.Join(append([]string{run}, parts[i:]...)...)
			if _, err := os.Stat(alt); err == nil {
				return alt
			}
			break
		}
	}
	return path
}

func generation(ctx context.Context, run string, cfg configs.Loop, v *rules.Variant, outside []outsidePlayer, g int, poll time.Duration, log io.Writer) error {
	dir := GenDir(run, g)
	if (done(dir, "baseline") || done(dir, "gate") && cfg.Baseline.Games == 0) && outsideDone(dir, outside) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	bestNet, err := best(run)
	if err != nil {
		return err
	}
	self, err := selfPlayer(run, cfg, v, bestNet)
	if err != nil {
		return err
	}
	// The generation's players load each network file once: the best one
	// plays self-play and the gate, the candidate the gate and the baseline.
	players := new(player.Loader)
	if !done(dir, "selfplay") {
		err := timed(dir, "selfplay", func() error {
			if cfg.SelfPlay.External {
				return externalSelfPlayStage(ctx, run, dir, cfg, g, self, players, poll, log)
			}
			return selfPlayStage(ctx, run, dir, cfg, v, g, self, players, log)
		})
		if err != nil {
			return err
		}
	}
	if g == cfg.Generations {
		if err := selfplayDone(run, g); err != nil {
			return err
		}
	}
	candidate := filepath.Join(dir, "train", training.NetworkFile)
	if !done(dir, "train") {
		init := "" // new weights
		if cfg.Train.FromBest {
			init = self.net
		}
		if cfg.Train.FromLast && g > 1 {
			last := filepath.Join(GenDir(run, g-1), "train", training.NetworkFile)
			if _, err := os.Stat(last); err != nil {
				return fmt.Errorf("loop: train.from_last: generation %d's candidate: %w", g-1, err)
			}
			init = last
		}
		if err := timed(dir, "train", func() error { return trainStage(ctx, run, dir, cfg, g, init, players, log) }); err != nil {
			return err
		}
	}
	if !done(dir, "gate") {
		if err := timed(dir, "gate", func() error { return gateStage(ctx, run, dir, cfg, v, g, candidate, bestNet, players, log) }); err != nil {
			return err
		}
	}
	if cfg.Baseline.Games > 0 && len(cfg.Baseline.Odds) > 0 {
		if err := climbLadder(ctx, run, cfg, v, log); err != nil {
			return err
		}
	}
	if cfg.Baseline.Games > 0 && !done(dir, "baseline") {
		if err := timed(dir, "baseline", func() error { return baselineStage(ctx, run, dir, cfg, v, g, candidate, players, log) }); err != nil {
			return err
		}
	}
	return outsideStages(ctx, dir, cfg, v, g, candidate, players, outside, log)
}

// ladderFile is the baseline's playout ladder as LadderFile holds it: the
// settings it was climbed with, and each rung climbed so far.
type ladderFile struct {
	Player   string           `json:"player"`
	Openings string           `json:"openings"`
	Pairs    int              `json:"pairs"`
	Rungs    []match.RungInfo `json:"rungs"`
}

// climbLadder climbs the baseline's playout ladder once per run, into
// LadderFile: the network-free searcher at each multiple of its playouts
// against itself, on the gate's openings. Each generation's rating then
// reads as playout odds in the summary. The file is written after every
// rung, so a stopped run keeps the rungs it climbed; a ladder of other
// settings is climbed again.
func climbLadder(ctx context.Context, run string, cfg configs.Loop, v *rules.Variant, log io.Writer) error {
	path := filepath.Join(run, LadderFile)
	_, b, err := baselinePlayer(run, cfg, new(player.Loader))
	if err != nil {
		return err
	}
	pairs := cfg.Baseline.OddsPairs
	openings, desc, err := openings.Openings(cfg.Gate.Openings, v, pairs, cfg.Gate.OpeningPlies, GenSeed(cfg.Seed, 0))
	if err != nil {
		return within("gate.openings", err)
	}
	want := ladderFile{Player: b.Name, Openings: desc, Pairs: pairs}
	have, err := readLadderFile(run)
	if err != nil {
		return err
	}
	climbed := map[int]match.RungInfo{}
	if have != nil && have.Player == want.Player && have.Openings == want.Openings && have.Pairs == want.Pairs {
		for _, r := range have.Rungs {
			climbed[r.Multiplier] = r
		}
	}
	var todo []int
	for _, k := range cfg.Baseline.Odds {
		if r, ok := climbed[k]; ok {
			want.Rungs = append(want.Rungs, r)
		} else {
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		if have == nil || len(have.Rungs) != len(want.Rungs) {
			if err := fileio.WriteJSON(path, want); err != nil {
				return fmt.Errorf("loop: %w", err)
			}
		}
		return nil
	}
	mc := match.Config{Variant: v, Search: mcts.DefaultConfig(), Openings: openings, Workers: cfg.SelfPlay.Workers}
	fmt.Fprintf(log, "loop: the baseline's playout ladder: %s at %v times its playouts, %d pairs each\n", b.Name, todo, pairs)
	var werr error
	_, err = match.Ladder(ctx, match.LadderConfig{Match: mc, Base: b, Multipliers: todo, Pairs: pairs}, func(r match.Rung) {
		fmt.Fprintf(log, "loop: ladder: %s: Elo %.0f [%.0f, %.0f]\n", r.Player, r.Report.Elo, r.Report.EloLo, r.Report.EloHi)
		want.Rungs = append(want.Rungs, match.NewRungInfo(r))
		if werr == nil {
			werr = fileio.WriteJSON(path, want)
		}
	})
	if err != nil {
		return err
	}
	if werr != nil {
		return fmt.Errorf("loop: %w", werr)
	}
	return nil
}

// readLadderFile reads the run's ladder, or nil if it has none.
func readLadderFile(run string) (*ladderFile, error) {
	path := filepath.Join(run, LadderFile)
	data, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "this file")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	var f ladderFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("loop: %s: %w", path, err)
	}
	return &f, nil
}

// readLadder returns the run's ladder as stats.PlayoutOdds reads it, or nil.
func readLadder(run string) ([]stats.LadderPoint, error) {
	f, err := readLadderFile(run)
	if err != nil || f == nil {
		return nil, err
	}
	points := make([]stats.LadderPoint, len(f.Rungs))
	for i, r := range f.Rungs {
		points[i] = r.Point()
	}
	return points, nil
}

// selfplayStats is a generation's self-play, kept across resumed attempts.
type selfplayStats struct {
	// Tally counts the games: who won them, in how many plies.
	match.Tally
	Positions int     `json:"positions"`
	Seconds   float64 `json:"seconds"`
	Evaluator string  `json:"evaluator"`
	// ByKind splits the games by how they were set up (selfplay.Kind).
	ByKind map[string]match.Tally `json:"by_kind"`
	// Host is the machine of in-process self-play, "" for external.
	Host string `json:"host,omitempty"`
	// External says followers played the games (selfplay.external), and
	// Shards are the shards of theirs this generation took: its games, none
	// of them taken by another generation.
	External bool        `json:"external,omitempty"`
	Shards   []shardInfo `json:"shards,omitempty"`
}

// setGames sets the counts of the generation's games, all: their
// positions are their plies (one searched position a move).
func (st *selfplayStats) setGames(all match.Tally) {
	st.Tally = all
	st.Positions = all.AttackerPlies + all.DefenderPlies + all.DrawPlies
}

// pretrainStage trains the generation-0 network on the game records alone
// (train.pretrain_steps), once: the first candidate starts from it and it
// plays the first self-play, so that a run learns from people's games
// before its own.
//
// Whether optional records are there is decided here, once for the run
// (gen-000/skipped marks their absence): records that turn up later
// change neither its first players nor the data of a training that
// resumes (trainConfig leaves them out).
//
// With train.init, generation 0 is that network (initStage), trained on
// the records first if pretrain_steps says so, and the best from the start.
func pretrainStage(ctx context.Context, run string, cfg configs.Loop, v *rules.Variant, log io.Writer) error {
	dir := GenDir(run, 0)
	if done(dir, "train") || done(dir, "skipped") {
		return nil
	}
	if cfg.Train.Init != "" {
		return initStage(ctx, run, cfg, v, log)
	}
	rec := cfg.Train.Records
	if err := archive.Stat(rec.File); rec.File != "" && rec.Optional && errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(log, "loop: no game records at %s: the run learns from self-play alone\n", rec.File)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("loop: %w", err)
		}
		return mark(dir, "skipped")
	}
	if cfg.Train.PretrainSteps == 0 {
		return nil
	}
	tc := trainConfig(run, dir, cfg, 0)
	tc.Data, tc.Records.Share, tc.Steps = "", 1, cfg.Train.PretrainSteps
	tc.Optimizer.TotalSteps = max(tc.Optimizer.TotalSteps, tc.Steps)
	_, statErr := os.Stat(filepath.Join(tc.Out, training.CheckpointFile))
	resume := statErr == nil
	fmt.Fprintf(log, "loop: generation 0: training on the game records %s alone, %d steps (resume %v)\n", tc.Records.File, tc.Steps, resume)
	if err := runTraining(ctx, tc, training.Options{Resume: resume, Log: log}, log); err != nil {
		return err
	}
	return mark(dir, "train")
}

// initStage makes train.init generation 0, once: the network, with the
// run's planes adopted if its file names another rule set's, trained on
// the records for pretrain_steps if any, and the best network of the run
// (best.json) until a candidate beats it.
func initStage(ctx context.Context, run string, cfg configs.Loop, v *rules.Variant, log io.Writer) error {
	dir := GenDir(run, 0)
	n, _, err := net.Load(cfg.Train.Init)
	if err != nil {
		return within("train.init", err)
	}
	from := "its own planes"
	if known := n.PlanesOf(); known != nil && known.Definition() != v.Definition() {
		if err := n.AdoptPlanes(known, v); err != nil {
			return within("train.init", err)
		}
		from = fmt.Sprintf("the planes of %s adopted for %s's", known.Name(), v.Name())
	}
	netFile := filepath.Join(dir, "train", training.NetworkFile)
	fmt.Fprintf(log, "loop: generation 0: %s (net-%s), %s\n", cfg.Train.Init, n.Hash(), from)
	if cfg.Train.PretrainSteps > 0 {
		tc := trainConfig(run, dir, cfg, 0)
		tc.Data, tc.Records.Share, tc.Steps = "", 1, cfg.Train.PretrainSteps
		tc.Optimizer.TotalSteps = max(tc.Optimizer.TotalSteps, tc.Steps)
		opts := training.Options{Log: log, Init: n}
		if _, err := os.Stat(filepath.Join(tc.Out, training.CheckpointFile)); err == nil {
			opts.Init, opts.Resume = nil, true
		}
		fmt.Fprintf(log, "loop: generation 0: training it on the game records %s alone, %d steps (resume %v)\n", tc.Records.File, tc.Steps, opts.Resume)
		if err := runTraining(ctx, tc, opts, log); err != nil {
			return err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(netFile), 0o755); err != nil {
			return fmt.Errorf("loop: %w", err)
		}
		if err := n.Save(netFile, map[string]string{"taflab.init": cfg.Train.Init}); err != nil {
			return within("generation 0", err)
		}
	}
	abs, err := filepath.Abs(netFile)
	if err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	if err := fileio.WriteJSON(filepath.Join(run, BestFile), BestPointer{Network: abs, Promoted: time.Now().UTC()}); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	return mark(dir, "train")
}

// pretrained returns the generation-0 network, or "" if the run has none.
func pretrained(run string) string {
	dir := GenDir(run, 0)
	if !done(dir, "train") {
		return ""
	}
	return filepath.Join(dir, "train", training.NetworkFile)
}

// playerSpec is the network that plays a generation's self-play and the
// weights its candidate starts from: the best network, else the
// generation-0 one (shown the planes of the records' rule set if the run
// plays another), else none (the built-in evaluator, random weights).
type playerSpec struct {
	net    string
	planes *rules.Variant // nil: the run's own
}

func selfPlayer(run string, cfg configs.Loop, v *rules.Variant, bestNet string) (playerSpec, error) {
	if bestNet != "" {
		return playerSpec{net: bestNet}, nil
	}
	pre := pretrained(run)
	if pre == "" {
		return playerSpec{}, nil
	}
	rv, err := configs.LoadVariant(cfg.Train.Records.Variant)
	if err != nil {
		return playerSpec{}, within("train.records.variant", err)
	}
	if rv.Definition() == v.Definition() {
		return playerSpec{net: pre}, nil
	}
	return playerSpec{net: pre, planes: rv}, nil
}

func selfPlayStage(ctx context.Context, run, dir string, cfg configs.Loop, v *rules.Variant, g int, self playerSpec, players *player.Loader, log io.Writer) error {
	statsPath := filepath.Join(dir, "selfplay.json")
	st, err := readSelfplayStats(dir)
	if err != nil {
		return err
	}
	worker := GenName(g)
	rows, err := generationGames(filepath.Join(run, DataDir), worker)
	if err != nil {
		return err
	}
	played := map[uint64]bool{}
	for _, r := range rows {
		played[r.Seed] = true
	}
	sp := configs.DefaultSelfPlay()
	sp.Variant, sp.SelfPlayGames = cfg.Variant, cfg.SelfPlay.SelfPlayGames
	sp.Seed, sp.Out, sp.Net = GenSeed(cfg.Seed, g), filepath.Join(run, DataDir), self.net
	newEval, _, err := self.evaluators(players)
	if err != nil {
		return err
	}
	opts := selfplay.Options{WorkerName: worker, Played: played, NewEvaluator: newEval}
	st.Evaluator = "builtin"
	if self.net != "" {
		n, err := players.Network(self.net) // loaded by evaluators
		if err != nil {
			return err
		}
		st.Evaluator = "net-" + n.Hash()
		if self.planes != nil {
			st.Evaluator += " (with the planes of " + self.planes.Name() + ")"
		}
	}
	fmt.Fprintf(log, "loop: generation %d: self-play, %d games (%d done) with %s\n", g, sp.Games, len(played), st.Evaluator)
	progress := progress.New(log, sp.Games-len(played), "games", 10*time.Second)
	opts.OnProgress = func(s selfplay.Summary) {
		progress.Update(s.Games, fmt.Sprintf("attackers %d defenders %d draws %d", s.AttackerWins, s.DefenderWins, s.Draws))
	}
	sum, err := selfplay.Run(ctx, sp, v, opts)
	progress.Finish()
	// The counts come from the games on disk, so that the games an earlier,
	// killed attempt wrote count too; only the time adds up by attempt.
	st.Seconds += sum.Elapsed.Seconds()
	st.Host, _ = os.Hostname()
	if rows, rerr := generationGames(filepath.Join(run, DataDir), worker); rerr != nil {
		err = errors.Join(err, rerr)
	} else {
		all, byKind := selfplay.TallyGames(rows)
		st.setGames(all)
		st.ByKind = byKind
	}
	if werr := fileio.WriteJSON(statsPath, st); werr != nil {
		return fmt.Errorf("loop: %w", werr)
	}
	if err != nil {
		return err
	}
	if sum.Interrupted {
		return context.Canceled
	}
	return mark(dir, "selfplay")
}

// generationGames returns the games generation worker (its name in the
// shard names, GenName) wrote into the dataset.
func generationGames(dataDir, worker string) ([]datasets.GameRow, error) {
	files, err := filepath.Glob(filepath.Join(dataDir, "*"+datasets.GamesSuffix))
	if err != nil {
		return nil, err
	}
	var games []datasets.GameRow
	for _, f := range files {
		if _, w, _, ok := datasets.ParseShardName(strings.TrimSuffix(filepath.Base(f), datasets.GamesSuffix)); !ok || w != worker {
			continue
		}
		rows, _, err := datasets.ReadGamesFile(f)
		if err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
		games = append(games, rows...)
	}
	return games, nil
}

// trainConfig is the training configuration of generation g's stage.
func trainConfig(run, dir string, cfg configs.Loop, g int) configs.Train {
	tc := configs.DefaultTrain()
	tc.Data, tc.Out, tc.Seed, tc.Training = filepath.Join(run, DataDir), filepath.Join(dir, "train"), GenSeed(cfg.Seed, g), cfg.Train.Training
	if done(GenDir(run, 0), "skipped") {
		tc.Records = configs.Records{} // absent when the run began (pretrainStage)
	}
	return tc
}

// trainStage trains generation g's candidate from the weights of init (the
// best network or generation 0's, or the last candidate; "": new weights).
func trainStage(ctx context.Context, run, dir string, cfg configs.Loop, g int, init string, players *player.Loader, log io.Writer) error {
	tc := trainConfig(run, dir, cfg, g)
	opts := training.Options{Log: log}
	st, err := readSelfplayStats(dir)
	if err != nil {
		return err
	}
	if st.External {
		if opts.Files, err = trainFiles(run, g); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(tc.Out, training.CheckpointFile)); err == nil {
		opts.Resume = true
	} else if init != "" {
		if opts.Init, err = players.Network(init); err != nil { // training starts from a copy
			return err
		}
	}
	from := "new weights"
	switch {
	case opts.Resume:
		from = "its checkpoint"
	case init != "":
		from = init
	}
	fmt.Fprintf(log, "loop: generation %d: training, %d steps from %s\n", g, tc.Steps, from)
	if err := runTraining(ctx, tc, opts, log); err != nil {
		return err
	}
	return mark(dir, "train")
}

// runTraining runs a training stage with a progress line; a stopped run
// returns context.Canceled after writing its checkpoint.
func runTraining(ctx context.Context, tc configs.Train, opts training.Options, log io.Writer) error {
	progress := progress.New(log, tc.Steps, "steps", 10*time.Second)
	opts.OnStep = func(s training.Step) {
		progress.Update(s.Step, fmt.Sprintf("loss %.3f (policy %.3f, value %.3f)", s.Losses.Total(), s.Losses.Policy, s.Losses.Value))
	}
	sum, err := training.Run(ctx, tc, opts)
	progress.Finish()
	if err != nil {
		return err
	}
	if sum.Interrupted {
		return context.Canceled
	}
	return nil
}

// gateStage plays generation g's candidate against the best network
// (bestNet; "" for the network-free searcher) under the gate's test, and
// promotes it if the test accepts it.
func gateStage(ctx context.Context, run, dir string, cfg configs.Loop, v *rules.Variant, g int, candidate, bestNet string, players *player.Loader, log io.Writer) error {
	a, err := players.Load(player.NetworkSpec(candidate, cfg.Gate.Playouts))
	if err != nil {
		return err
	}
	a.Name = GenName(g)
	bSpec := player.BuiltinSpec(cfg.Gate.Playouts)
	if bestNet != "" {
		bSpec = player.NetworkSpec(bestNet, cfg.Gate.Playouts)
	}
	b, err := players.Load(bSpec)
	if err != nil {
		return err
	}
	if bestNet != "" {
		b.Name = bestName(run, bestNet)
	}
	fmt.Fprintf(log, "loop: generation %d: gating %s against %s\n", g, a.Name, b.Name)
	matchDir := filepath.Join(dir, "gate")
	f, err := playMatch(ctx, matchDir, cfg, v, cfg.Gate.Openings, a, b, cfg.Gate.MaxGames/2, cfg.Gate.SPRT(), GenSeed(cfg.Seed, g))
	if err != nil {
		return err
	}
	promoted, err := Promote(filepath.Join(run, BestFile), candidate, matchDir, f)
	if err != nil {
		return err
	}
	if promoted {
		fmt.Fprintf(log, "loop: generation %d: promoted (%s)\n", g, f.Report)
	} else {
		fmt.Fprintf(log, "loop: generation %d: not promoted (%s)\n", g, f.Report)
	}
	return mark(dir, "gate")
}

// baselineStage rates generation g's candidate against the baseline's
// opponent at the baseline's playouts: a fixed number of pairs.
func baselineStage(ctx context.Context, run, dir string, cfg configs.Loop, v *rules.Variant, g int, candidate string, players *player.Loader, log io.Writer) error {
	a, err := players.Load(player.NetworkSpec(candidate, cfg.Baseline.Playouts))
	if err != nil {
		return err
	}
	a.Name = GenName(g)
	base, b, err := baselinePlayer(run, cfg, players)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "loop: generation %d: rating against %s, %d games\n", g, base, cfg.Baseline.Games)
	if _, err := playMatch(ctx, filepath.Join(dir, "baseline"), cfg, v, cfg.Gate.Openings, a, b, cfg.Baseline.Games/2, match.FixedPairs, GenSeed(cfg.Seed, g)+1); err != nil {
		return err
	}
	return mark(dir, "baseline")
}

// baselinePlayer returns the baseline's opponent (baseline.opponent) at
// its playouts: the network-free searcher, or generation 0's network named
// by its generation.
func baselinePlayer(run string, cfg configs.Loop, players *player.Loader) (player.Spec, match.Player, error) {
	spec := player.BuiltinSpec(cfg.Baseline.Playouts)
	if cfg.Baseline.Opponent == configs.BaselineStart {
		start := pretrained(run)
		if start == "" {
			return spec, match.Player{}, errors.New("loop: baseline.opponent \"start\": the run has no generation 0 (its records were absent)")
		}
		spec = player.NetworkSpec(start, cfg.Baseline.Playouts)
	}
	p, err := players.Load(spec)
	if err != nil {
		return spec, match.Player{}, err
	}
	if cfg.Baseline.Opponent == configs.BaselineStart {
		p.Name = GenName(0)
	}
	return spec, p, nil
}

// bestName names the best network by its generation folder. best.json
// holds an absolute path and run may be relative: both are made absolute.
func bestName(run, bestNet string) string {
	absRun, err1 := filepath.Abs(run)
	absNet, err2 := filepath.Abs(bestNet)
	rel, err := filepath.Rel(absRun, absNet)
	if err1 != nil || err2 != nil || err != nil || strings.HasPrefix(rel, "..") {
		return filepath.Base(bestNet)
	}
	return strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
}

// playMatch plays a match into dir and returns its file (what dir's
// match.json holds). Each pair is appended to a journal (dir +
// PairsJournalSuffix) as it finishes, so a match that is interrupted picks
// up on resume with its finished games kept; the journal is removed once
// the match files are written.
func playMatch(ctx context.Context, dir string, cfg configs.Loop, v *rules.Variant, openingsSpec string, a, b match.Player, pairs int, test stats.SPRT, seed uint64) (match.File, error) {
	mf := match.Folder{Dir: dir, Journal: dir + PairsJournalSuffix}
	mc := match.Config{Variant: v, A: a, B: b, Search: mcts.DefaultConfig(), MaxPairs: pairs, Workers: cfg.SelfPlay.Workers}
	if err := mf.Open(&mc, match.ResumeAny); err != nil {
		return match.File{}, err
	}
	openings, openingsDesc, err := openings.Openings(openingsSpec, v, pairs, cfg.Gate.OpeningPlies, seed)
	if err != nil {
		return match.File{}, within("gate.openings", err)
	}
	mc.Openings = openings
	f, _, err := mf.Play(ctx, match.RunConfig{Match: mc, Test: test, Openings: openingsDesc})
	if je := (*match.JournalError)(nil); errors.As(err, &je) {
		return match.File{}, fmt.Errorf("loop: %s: %w", je.Path, je.Err)
	}
	if err != nil {
		return match.File{}, err
	}
	return f, nil
}

// errs puts other packages' errors in a context of this one: "loop: CONTEXT:
// MESSAGE", the message without the other package's prefix.
var errs = errctx.Wrapper{Prefix: "loop: ", Strip: []string{"loop: ", "configs: ", "variants: ", "openings: ", "match: ", "ratings: ", "datasets: ", "rules: "}}

// within puts another package's error in context (see errs).
func within(context string, err error) error { return errs.Within(context, err) }
