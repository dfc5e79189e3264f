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
// Each generation plays its stages in order (steps: self-play, training,
// the gate, the baseline, the outside players), each a method of the
// generation, done once and marked done in its folder (Stage), so that a
// stopped run carries on at the stage it stopped in. Its seeds are its
// GenSeed plus a named offset a part (seedGate, seedBaseline, ...).
// docs/DEVELOPING.md says how to add a stage.
//
// With external self-play (selfplay.external) the loop plays no games:
// followers (Follow, the command selfplay -follow RUN) on any machines that
// share the run folder write them into data/, and each generation waits
// for its quota of games of its player (generation.externalSelfPlay).
//
//	sum, err := loop.Follow(ctx, runDir, loop.FollowOptions{Log: os.Stdout})
package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
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
var ErrRunKept = errctx.Errorf("loop", "a run keeps its config and self-play mode")

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
	// One loop at a time writes a run folder: two once played a generation
	// twice into one data folder (issue 36). Followers, which add shards
	// to its data folder by design, take no lock.
	if err := os.MkdirAll(run, 0o755); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	lock, err := fileio.LockDir(run, "train loop")
	if err != nil {
		return errctx.Errorf("loop", "run folder %w", err)
	}
	defer lock.Unlock()
	r, err := startRun(run, cfg, configText, opt)
	if err != nil {
		return err
	}
	if !done(GenDir(run, cfg.Generations), StageSelfPlay) {
		if err := os.Remove(filepath.Join(run, DoneFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return errctx.Errorf("loop", "%w", err)
		}
	}
	if err := os.MkdirAll(GenDir(run, 0), 0o755); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	if err := timed(GenDir(run, 0), StageTrain, func() error { return r.pretrain(ctx) }); err != nil {
		return err
	}
	for g := 1; g <= cfg.Generations; g++ {
		if err := r.playGeneration(ctx, g); err != nil {
			return err
		}
		sum, err := writeSummary(run, cfg, r.log)
		if err != nil {
			return err
		}
		if opt.OnGeneration != nil {
			opt.OnGeneration(sum)
		}
	}
	return selfplayDone(run, cfg.Generations)
}

// startRun checks the run's config, rule set, outside players and mode,
// sets the run folder up (setUp) and returns the run.
func startRun(run string, cfg configs.Loop, configText []byte, opt Options) (*loopRun, error) {
	if err := checkConfig(run, configText, opt.ConfigName); err != nil {
		return nil, err
	}
	v, err := configs.LoadVariant(cfg.Variant)
	if err != nil {
		return nil, within("variant", err)
	}
	outside, err := readOutside(cfg, v)
	if err != nil {
		return nil, err
	}
	// The run records its self-play mode (ModeFile), which a flag may have
	// chosen (train loop -external), and a resumed run keeps it.
	if err := checkMode(run, cfg); err != nil {
		return nil, err
	}
	if err := setUp(run, cfg, configText, v); err != nil {
		return nil, err
	}
	r := newLoopRun(run, cfg, v)
	r.outside = outside
	if opt.Log != nil {
		r.log = opt.Log
	}
	if opt.Poll > 0 {
		r.poll = opt.Poll
	}
	return r, nil
}

// selfplayDone writes DoneFile (whole): generation g, the last, has its
// games, so followers may stop.
func selfplayDone(run string, g int) error {
	if err := fileio.WriteJSON(filepath.Join(run, DoneFile), map[string]any{"generation": g, "written": time.Now().UTC()}); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	return nil
}

// within puts another package's error under a key of the loop's input:
// "loop: KEY: MESSAGE" (errctx.Key).
func within(key string, err error) error { return errctx.Key("loop", key, err) }
