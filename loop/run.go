package loop

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"taflab/configs"
	"taflab/mcts"
	"taflab/player"
	"taflab/rules"
	"taflab/training"
)

// loopRun is a run of the loop in its folder with the config it runs:
// what its generations, and the followers that play its self-play, share.
// Its fields are set once (newLoopRun) and only read after.
type loopRun struct {
	dir string // the run folder
	// cfg is the run's config, its selfplay.mix.suite read from the run's
	// copy (SuiteFile): never from the path in loop.toml, which is the
	// loop's (relative to its working folder), so that followers on other
	// machines play the same suite.
	cfg     configs.Loop
	variant *rules.Variant
	outside []outsidePlayer // baseline.outside, read once
	// poll is how often external self-play looks at the data folder.
	poll time.Duration
	log  io.Writer // one line per stage, and progress lines
}

// newLoopRun returns the run in folder dir of cfg (the config as given)
// and its rule set; it logs nowhere until log is set.
func newLoopRun(dir string, cfg configs.Loop, v *rules.Variant) *loopRun {
	if cfg.SelfPlay.Mix.Suite != "" {
		cfg.SelfPlay.Mix.Suite = filepath.Join(dir, SuiteFile)
	}
	return &loopRun{dir: dir, cfg: cfg, variant: v, poll: 2 * time.Second, log: io.Discard}
}

// selfPlayConfig is the one conversion of the loop's config into a
// self-play run's: the run's rule set and [selfplay] games, into its data
// folder. A generation adds its seed and player, a follower its own
// workers and shards.
func (r *loopRun) selfPlayConfig() configs.SelfPlay {
	sp := configs.DefaultSelfPlay()
	sp.Variant, sp.SelfPlayGames, sp.Out = r.cfg.Variant, r.cfg.SelfPlay.SelfPlayGames, filepath.Join(r.dir, DataDir)
	return sp
}

// trainConfig is the one conversion of the loop's config into a training
// run's: generation g's, into its folder, on the run's data.
func (r *loopRun) trainConfig(g int) configs.Train {
	return trainConfig(r.dir, GenDir(r.dir, g), r.cfg, g)
}

// trainConfig is the training configuration of generation g's stage in
// folder dir of the run in folder run.
func trainConfig(run, dir string, cfg configs.Loop, g int) configs.Train {
	tc := configs.DefaultTrain()
	tc.Data, tc.Out, tc.Seed, tc.Training = filepath.Join(run, DataDir), filepath.Join(dir, "train"), GenSeed(cfg.Seed, g)+seedTrain, cfg.Train.Training
	if done(GenDir(run, 0), StageSkipped) {
		tc.Records = configs.Records{} // absent when the run began (pretrain)
	}
	return tc
}

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

// pretrained returns the generation-0 network, or "" if the run has none.
func pretrained(run string) string {
	dir := GenDir(run, 0)
	if !done(dir, StageTrain) {
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

// selfPlayer is the player of the run's self-play while bestNet is the
// best network (playerSpec).
func (r *loopRun) selfPlayer(bestNet string) (playerSpec, error) {
	if bestNet != "" {
		return playerSpec{net: bestNet}, nil
	}
	pre := pretrained(r.dir)
	if pre == "" {
		return playerSpec{}, nil
	}
	rv, err := configs.LoadVariant(r.cfg.Train.Records.Variant)
	if err != nil {
		return playerSpec{}, within("train.records.variant", err)
	}
	if rv.Definition() == r.variant.Definition() {
		return playerSpec{net: pre}, nil
	}
	return playerSpec{net: pre, planes: rv}, nil
}

// currentPlayer is the player of the run's self-play now: what the loop's
// next generation plays with (selfPlayer of the best network).
func (r *loopRun) currentPlayer() (playerSpec, error) {
	b, err := best(r.dir)
	if err != nil {
		return playerSpec{}, err
	}
	return r.selfPlayer(b)
}

// key names a player: two specs with the same key play alike.
func (p playerSpec) key() string {
	if p.planes == nil {
		return p.net
	}
	return p.net + " as " + p.planes.Name()
}

// evaluators returns the evaluators of the player's workers, its network
// loaded by players, and the label its games carry in the dataset's
// evaluator column (the evaluators' ID): the label by which the loop
// counts a generation's games.
func (p playerSpec) evaluators(players *player.Loader) (func() (mcts.Evaluator, error), string, error) {
	if p.net == "" {
		return func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }, mcts.NewHeuristic().ID(), nil
	}
	n, err := players.Network(p.net)
	if err != nil {
		return nil, "", err
	}
	// The planes of the records' rule set (selfPlayer) are of the
	// network's board size: training refuses other records.
	factory := player.Evaluators(n, 1, p.planes)
	e, err := factory()
	if err != nil {
		return nil, "", err
	}
	return factory, e.ID(), nil
}
