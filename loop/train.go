package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"taflab/archive"
	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/net"
	"taflab/training"
)

// pretrain trains the generation-0 network on the game records alone
// (train.pretrain_steps), once: the first candidate starts from it and it
// plays the first self-play, so that a run learns from people's games
// before its own.
//
// Whether optional records are there is decided here, once for the run
// (gen-000's StageSkipped marks their absence): records that turn up
// later change neither its first players nor the data of a training that
// resumes (trainConfig leaves them out).
//
// With train.init, generation 0 is that network (startFrom), trained on
// the records first if pretrain_steps says so, and the best from the start.
func (r *loopRun) pretrain(ctx context.Context) error {
	dir := GenDir(r.dir, 0)
	if done(dir, StageTrain) || done(dir, StageSkipped) {
		return nil
	}
	if r.cfg.Train.Init != "" {
		return r.startFrom(ctx)
	}
	rec := r.cfg.Train.Records
	if err := archive.Stat(rec.File); rec.File != "" && rec.Optional && errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(r.log, "loop: no game records at %s: the run learns from self-play alone\n", rec.File)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return errctx.Errorf("loop", "%w", err)
		}
		return mark(dir, StageSkipped)
	}
	if r.cfg.Train.PretrainSteps == 0 {
		return nil
	}
	tc := r.trainConfig(0)
	tc.Data, tc.Records.Share, tc.Steps = "", 1, r.cfg.Train.PretrainSteps
	tc.Optimizer.TotalSteps = max(tc.Optimizer.TotalSteps, tc.Steps)
	_, statErr := os.Stat(filepath.Join(tc.Out, training.CheckpointFile))
	resume := statErr == nil
	fmt.Fprintf(r.log, "loop: generation 0: training on the game records %s alone, %d steps (resume %v)\n", tc.Records.File, tc.Steps, resume)
	if err := r.runTraining(ctx, tc, training.Options{Resume: resume, Log: r.log}); err != nil {
		return err
	}
	return mark(dir, StageTrain)
}

// startFrom makes train.init generation 0, once: the network, with the
// run's planes adopted if its file names another rule set's, trained on
// the records for pretrain_steps if any, and the best network of the run
// (best.json) until a candidate beats it.
func (r *loopRun) startFrom(ctx context.Context) error {
	cfg, v := r.cfg, r.variant
	dir := GenDir(r.dir, 0)
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
	fmt.Fprintf(r.log, "loop: generation 0: %s (net-%s), %s\n", cfg.Train.Init, n.Hash(), from)
	if cfg.Train.PretrainSteps > 0 {
		tc := r.trainConfig(0)
		tc.Data, tc.Records.Share, tc.Steps = "", 1, cfg.Train.PretrainSteps
		tc.Optimizer.TotalSteps = max(tc.Optimizer.TotalSteps, tc.Steps)
		opts := training.Options{Log: r.log, Init: n}
		if _, err := os.Stat(filepath.Join(tc.Out, training.CheckpointFile)); err == nil {
			opts.Init, opts.Resume = nil, true
		}
		fmt.Fprintf(r.log, "loop: generation 0: training it on the game records %s alone, %d steps (resume %v)\n", tc.Records.File, tc.Steps, opts.Resume)
		if err := r.runTraining(ctx, tc, opts); err != nil {
			return err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(netFile), 0o755); err != nil {
			return errctx.Errorf("loop", "%w", err)
		}
		if err := n.Save(netFile, map[string]string{"taflab.init": cfg.Train.Init}); err != nil {
			return within("generation 0", err)
		}
	}
	abs, err := filepath.Abs(netFile)
	if err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	if err := fileio.WriteJSON(filepath.Join(r.dir, BestFile), BestPointer{Network: abs, Promoted: time.Now().UTC()}); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	return mark(dir, StageTrain)
}

// train trains the generation's candidate: from new weights, the best
// network's or generation 0's (train.from_best: its self-play player's),
// or the last candidate's (train.from_last); a stopped training resumes
// from its checkpoint.
func (g *generation) train(ctx context.Context) error {
	init := "" // new weights
	if g.run.cfg.Train.FromBest {
		init = g.self.net
	}
	if g.run.cfg.Train.FromLast && g.n > 1 {
		last := filepath.Join(GenDir(g.run.dir, g.n-1), "train", training.NetworkFile)
		if _, err := os.Stat(last); err != nil {
			return errctx.Errorf("loop", "train.from_last: generation %d's candidate: %w", g.n-1, err)
		}
		init = last
	}
	tc := g.run.trainConfig(g.n)
	opts := training.Options{Log: g.run.log}
	st, err := readSelfplayStats(g.dir)
	if err != nil {
		return err
	}
	if st.External {
		if opts.Files, err = trainFiles(g.run.dir, g.n); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(tc.Out, training.CheckpointFile)); err == nil {
		opts.Resume = true
	} else if init != "" {
		if opts.Init, err = g.players.Network(init); err != nil { // training starts from a copy
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
	g.logf("training, %d steps from %s", tc.Steps, from)
	return g.run.runTraining(ctx, tc, opts)
}

// runTraining runs a training stage with a progress line; a stopped run
// returns context.Canceled after writing its checkpoint.
func (r *loopRun) runTraining(ctx context.Context, tc configs.Train, opts training.Options) error {
	progress := progress.New(r.log, tc.Steps, "steps", 10*time.Second)
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
