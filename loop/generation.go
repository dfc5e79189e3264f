package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/player"
	"taflab/selfplay"
	"taflab/training"
)

// Stage names a stage of a generation: the stage is done once its marker,
// the file NAME.done in the generation's folder, is there.
type Stage string

// The stages of a generation, in the order they run, and generation 0's.
const (
	StageSelfPlay Stage = "selfplay" // the generation's self-play games
	StageTrain    Stage = "train"    // its candidate's training (generation 0: on the game records alone)
	StageGate     Stage = "gate"     // the candidate against the best network, promoted if it wins
	StageBaseline Stage = "baseline" // the candidate against the network-free searcher
	// StageSkipped marks generation 0 as skipped: the run's optional
	// game records were absent when it began.
	StageSkipped Stage = "skipped"
)

// outsideStage is the stage of a generation's match against an outside
// player (baseline.outside) of that name.
func outsideStage(name string) Stage { return Stage(OutsideDir + "-" + name) }

// mark records that a stage of the generation in folder dir is done; done
// asks.
func mark(dir string, s Stage) error {
	if err := fileio.WriteFile(filepath.Join(dir, string(s)+".done"), nil); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	return nil
}

func done(dir string, s Stage) bool {
	_, err := os.Stat(filepath.Join(dir, string(s)+".done"))
	return err == nil
}

// GenSeed derives generation g's seed from the run's seed: its parts'
// seeds are this plus their offset (seedSelfPlay and the others).
func GenSeed(seed uint64, g int) uint64 { return selfplay.GameSeed(seed^0x5eed10_0f, g) }

// The offsets of a generation's seeds from GenSeed: its self-play (whose
// games' seeds are selfplay.GameSeed of it), its training and its gate
// share the generation's seed; each other match has its own, so that no
// two of its matches play the same openings.
const (
	seedSelfPlay = 0
	seedTrain    = 0
	seedGate     = 0 // the gate's openings
	seedBaseline = 1 // the baseline's openings
	seedOutside  = 2 // the first outside player's openings; the i-th's is seedOutside+i
	// seedLadder is the offset of the baseline's playout ladder, climbed
	// once a run, from generation 0's seed.
	seedLadder = 0
)

// A step is one step of a generation, run in the order of steps: a stage,
// done once and then marked done (its Stage's marker), or, with no Stage,
// a step run each time the generation is played that does nothing once
// its work is done. Wanted, if set, says whether a run has the step.
type step struct {
	Stage  Stage
	Wanted func(r *loopRun) bool
	Run    func(g *generation, ctx context.Context) error
	// Timed adds the process's CPU time in the stage to the generation's
	// CPUFile, by its Stage.
	Timed bool
}

// steps are a generation's steps in the order they run. To add a stage,
// write a method of generation that does it and add it here (see
// docs/DEVELOPING.md); a run then plays it in every generation and, once
// done, never again.
var steps = []step{
	{Stage: StageSelfPlay, Run: (*generation).selfPlay, Timed: true},
	{Run: (*generation).lastSelfPlayDone},
	{Stage: StageTrain, Run: (*generation).train, Timed: true},
	{Stage: StageGate, Run: (*generation).gate, Timed: true},
	{Wanted: hasLadder, Run: (*generation).climbLadder},
	{Stage: StageBaseline, Wanted: hasBaseline, Run: (*generation).baseline, Timed: true},
}

// hasBaseline says whether the run rates its generations against the
// baseline's opponent.
func hasBaseline(r *loopRun) bool { return r.cfg.Baseline.Games > 0 }

// hasLadder says whether the run climbs the baseline's playout ladder.
func hasLadder(r *loopRun) bool { return hasBaseline(r) && len(r.cfg.Baseline.Odds) > 0 }

// steps returns the run's steps: steps, then one match a generation
// against each outside player.
func (r *loopRun) steps() []step {
	var out []step
	for _, s := range steps {
		if s.Wanted == nil || s.Wanted(r) {
			out = append(out, s)
		}
	}
	for i, o := range r.outside {
		out = append(out, step{Stage: outsideStage(o.name), Run: func(g *generation, ctx context.Context) error {
			if err := g.playOutside(ctx, i, o); err != nil {
				return within(o.key+" ("+o.name+")", err)
			}
			return nil
		}})
	}
	return out
}

// generation is one generation of a run, as it starts: its players, and
// a method per stage.
type generation struct {
	run *loopRun
	n   int    // its number, from 1
	dir string // its folder (GenDir)
	// best is the best network as the generation starts ("" the
	// network-free searcher): the gate's opponent.
	best string
	// self is the player of its self-play, whose weights its candidate
	// starts from with train.from_best.
	self playerSpec
	// players loads each network file once: the best one plays self-play
	// and the gate, the candidate the gate and the baseline.
	players *player.Loader
}

// complete reports whether generation n has done every stage of the run.
func (r *loopRun) complete(n int) bool {
	dir := GenDir(r.dir, n)
	for _, s := range r.steps() {
		if s.Stage != "" && !done(dir, s.Stage) {
			return false
		}
	}
	return true
}

// playGeneration plays the stages of generation n that are not done.
func (r *loopRun) playGeneration(ctx context.Context, n int) error {
	if r.complete(n) {
		return nil
	}
	g := &generation{run: r, n: n, dir: GenDir(r.dir, n), players: new(player.Loader)}
	if err := os.MkdirAll(g.dir, 0o755); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	var err error
	if g.best, err = best(r.dir); err != nil {
		return err
	}
	if g.self, err = r.selfPlayer(g.best); err != nil {
		return err
	}
	for _, s := range r.steps() {
		if s.Stage != "" && done(g.dir, s.Stage) {
			continue
		}
		run := func() error { return s.Run(g, ctx) }
		if s.Timed {
			err = timed(g.dir, s.Stage, run)
		} else {
			err = run()
		}
		if err != nil {
			return err
		}
		if s.Stage != "" {
			if err := mark(g.dir, s.Stage); err != nil {
				return err
			}
		}
	}
	return nil
}

// name is the generation's name: its folder's, and its candidate's in
// matches.
func (g *generation) name() string { return GenName(g.n) }

// seed returns the seed of the generation's part at offset (seedGate and
// the others).
func (g *generation) seed(offset uint64) uint64 { return GenSeed(g.run.cfg.Seed, g.n) + offset }

// candidate is the generation's candidate network: its training's.
func (g *generation) candidate() string { return filepath.Join(g.dir, "train", training.NetworkFile) }

// logf writes a line of the generation's progress.
func (g *generation) logf(format string, a ...any) {
	fmt.Fprintf(g.run.log, "loop: generation %d: "+format+"\n", append([]any{g.n}, a...)...)
}

// lastSelfPlayDone tells followers, once the last generation has its
// games, that the run needs no more self-play (DoneFile).
func (g *generation) lastSelfPlayDone(context.Context) error {
	if g.n != g.run.cfg.Generations {
		return nil
	}
	return selfplayDone(g.run.dir, g.n)
}
