package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
	"taflab/stats"
)

// gate plays the generation's candidate against the best network as the
// generation started (the network-free searcher before the first
// promotion) under the gate's test, and promotes it if the test accepts
// it.
func (g *generation) gate(ctx context.Context) error {
	cfg := g.run.cfg
	a, err := g.players.Load(player.NetworkSpec(g.candidate(), cfg.Gate.Playouts))
	if err != nil {
		return err
	}
	a.Name = g.name()
	bSpec := player.BuiltinSpec(cfg.Gate.Playouts)
	if g.best != "" {
		bSpec = player.NetworkSpec(g.best, cfg.Gate.Playouts)
	}
	b, err := g.players.Load(bSpec)
	if err != nil {
		return err
	}
	if g.best != "" {
		b.Name = bestName(g.run.dir, g.best)
	}
	g.logf("gating %s against %s", a.Name, b.Name)
	matchDir := filepath.Join(g.dir, string(StageGate))
	f, err := g.run.playMatch(ctx, matchDir, g.run.variant, cfg.Gate.Openings, a, b, cfg.Gate.MaxGames/2, cfg.Gate.SPRT(), g.seed(seedGate))
	if err != nil {
		return err
	}
	promoted, err := Promote(filepath.Join(g.run.dir, BestFile), g.candidate(), matchDir, f)
	if err != nil {
		return err
	}
	if promoted {
		g.logf("promoted (%s)", f.Report)
	} else {
		g.logf("not promoted (%s)", f.Report)
	}
	return nil
}

// baseline rates the generation's candidate against the baseline's
// opponent at the baseline's playouts: a fixed number of pairs.
func (g *generation) baseline(ctx context.Context) error {
	cfg := g.run.cfg
	a, err := g.players.Load(player.NetworkSpec(g.candidate(), cfg.Baseline.Playouts))
	if err != nil {
		return err
	}
	a.Name = g.name()
	base, b, err := g.run.baselinePlayer(g.players)
	if err != nil {
		return err
	}
	g.logf("rating against %s, %d games", base, cfg.Baseline.Games)
	_, err = g.run.playMatch(ctx, filepath.Join(g.dir, string(StageBaseline)), g.run.variant, cfg.Gate.Openings, a, b, cfg.Baseline.Games/2, match.FixedPairs, g.seed(seedBaseline))
	return err
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

// baselinePlayer returns the baseline's opponent (baseline.opponent) at
// its playouts: the network-free searcher, or generation 0's network named
// by its generation.
func (r *loopRun) baselinePlayer(players *player.Loader) (player.Spec, match.Player, error) {
	spec := player.BuiltinSpec(r.cfg.Baseline.Playouts)
	if r.cfg.Baseline.Opponent == configs.BaselineStart {
		start := pretrained(r.dir)
		if start == "" {
			return spec, match.Player{}, errctx.Errorf("loop", "baseline.opponent \"start\": the run has no generation 0 (its records were absent)")
		}
		spec = player.NetworkSpec(start, r.cfg.Baseline.Playouts)
	}
	p, err := players.Load(spec)
	if err != nil {
		return spec, match.Player{}, err
	}
	if r.cfg.Baseline.Opponent == configs.BaselineStart {
		p.Name = GenName(0)
	}
	return spec, p, nil
}

// climbLadder climbs the baseline's playout ladder (once a run: it does
// nothing once the ladder is climbed).
func (g *generation) climbLadder(ctx context.Context) error { return g.run.climbLadder(ctx) }

// matchConfig is the settings of the run's matches under rule set v:
// the default search, the run's self-play workers.
func (r *loopRun) matchConfig(v *rules.Variant) match.Config {
	return match.Config{Variant: v, Search: mcts.DefaultConfig(), Workers: r.cfg.SelfPlay.Workers}
}

// playMatch plays a match of pairs game pairs under v, from the openings of
// openingsSpec drawn by seed, into dir (a match.Folder) and returns its
// file (what dir's match.json holds). Each pair is appended to a journal
// (dir + PairsJournalSuffix) as it finishes, so a match that is
// interrupted picks up on resume with its finished games kept; the journal
// is removed once the match files are written.
func (r *loopRun) playMatch(ctx context.Context, dir string, v *rules.Variant, openingsSpec string, a, b match.Player, pairs int, test stats.SPRT, seed uint64) (match.File, error) {
	mf := match.Folder{Dir: dir, Journal: dir + PairsJournalSuffix}
	mc := r.matchConfig(v)
	mc.A, mc.B, mc.MaxPairs = a, b, pairs
	openings, openingsDesc, err := openings.Openings(openingsSpec, v, pairs, r.cfg.Gate.OpeningPlies, seed)
	if err != nil {
		return match.File{}, within("gate.openings", err)
	}
	mc.Openings = openings // before Open, which replays the journal's games from their openings
	if err := mf.Open(&mc, match.ResumeAny); err != nil {
		return match.File{}, err
	}
	f, _, err := mf.Play(ctx, match.RunConfig{Match: mc, Test: test, Openings: openingsDesc})
	if je := (*match.JournalError)(nil); errors.As(err, &je) {
		return match.File{}, errctx.Errorf("loop", "%s: %w", je.Path, je.Err)
	}
	if err != nil {
		return match.File{}, err
	}
	return f, nil
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
func (r *loopRun) climbLadder(ctx context.Context) error {
	cfg, v := r.cfg, r.variant
	path := filepath.Join(r.dir, LadderFile)
	_, b, err := r.baselinePlayer(new(player.Loader))
	if err != nil {
		return err
	}
	pairs := cfg.Baseline.OddsPairs
	openings, desc, err := openings.Openings(cfg.Gate.Openings, v, pairs, cfg.Gate.OpeningPlies, GenSeed(cfg.Seed, 0)+seedLadder)
	if err != nil {
		return within("gate.openings", err)
	}
	want := ladderFile{Player: b.Name, Openings: desc, Pairs: pairs}
	have, err := readLadderFile(r.dir)
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
				return errctx.Errorf("loop", "%w", err)
			}
		}
		return nil
	}
	mc := r.matchConfig(v)
	mc.Openings = openings
	fmt.Fprintf(r.log, "loop: the baseline's playout ladder: %s at %v times its playouts, %d pairs each\n", b.Name, todo, pairs)
	var werr error
	_, err = match.Ladder(ctx, match.LadderConfig{Match: mc, Base: b, Multipliers: todo, Pairs: pairs}, func(rung match.Rung) {
		fmt.Fprintf(r.log, "loop: ladder: %s: Elo %.0f [%.0f, %.0f]\n", rung.Player, rung.Report.Elo, rung.Report.EloLo, rung.Report.EloHi)
		want.Rungs = append(want.Rungs, match.NewRungInfo(rung))
		if werr == nil {
			werr = fileio.WriteJSON(path, want)
		}
	})
	if err != nil {
		return err
	}
	if werr != nil {
		return errctx.Errorf("loop", "%w", werr)
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
		return nil, errctx.Errorf("loop", "%w", err)
	}
	var f ladderFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, errctx.Errorf("loop", "%s: %w", path, err)
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
