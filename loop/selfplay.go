package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/match"
	"taflab/player"
	"taflab/selfplay"
)

// selfPlay plays the generation's self-play: in this process, or with
// external self-play (selfplay.external) by followers.
func (g *generation) selfPlay(ctx context.Context) error {
	if g.run.cfg.SelfPlay.External {
		return g.externalSelfPlay(ctx)
	}
	return g.ownSelfPlay(ctx)
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

// ownSelfPlay plays the generation's self-play in this process: the games
// of its seeds that the dataset does not hold yet, with its player.
func (g *generation) ownSelfPlay(ctx context.Context) error {
	statsPath := filepath.Join(g.dir, "selfplay.json")
	st, err := readSelfplayStats(g.dir)
	if err != nil {
		return err
	}
	worker := g.name()
	rows, err := generationGames(filepath.Join(g.run.dir, DataDir), worker)
	if err != nil {
		return err
	}
	played := map[uint64]bool{}
	for _, r := range rows {
		played[r.Seed] = true
	}
	sp := g.run.selfPlayConfig()
	sp.Seed, sp.Net = g.seed(seedSelfPlay), g.self.net
	newEval, _, err := g.self.evaluators(g.players)
	if err != nil {
		return err
	}
	opts := selfplay.Options{WorkerName: worker, Played: played, NewEvaluator: newEval}
	if st.Evaluator, err = g.self.describe(g.players); err != nil {
		return err
	}
	g.logf("self-play, %d games (%d done) with %s", sp.Games, len(played), st.Evaluator)
	progress := progress.New(g.run.log, sp.Games-len(played), "games", 10*time.Second)
	opts.OnProgress = func(s selfplay.Summary) {
		progress.Update(s.Games, fmt.Sprintf("attackers %d defenders %d draws %d", s.AttackerWins, s.DefenderWins, s.Draws))
	}
	sum, err := selfplay.Run(ctx, sp, g.run.variant, opts)
	progress.Finish()
	// The counts come from the games on disk, so that the games an earlier,
	// killed attempt wrote count too; only the time adds up by attempt.
	st.Seconds += sum.Elapsed.Seconds()
	st.Host, _ = os.Hostname()
	if rows, rerr := generationGames(filepath.Join(g.run.dir, DataDir), worker); rerr != nil {
		err = errors.Join(err, rerr)
	} else {
		all, byKind := selfplay.TallyGames(rows)
		st.setGames(all)
		st.ByKind = byKind
	}
	if werr := fileio.WriteJSON(statsPath, st); werr != nil {
		return errctx.Errorf("loop", "%w", werr)
	}
	if err != nil {
		return err
	}
	if sum.Interrupted {
		return context.Canceled
	}
	return nil
}

// describe names the player as a generation's selfplay.json does: the
// network's hash (and the planes it is shown), or "builtin". Its network,
// if any, is loaded by players.
func (p playerSpec) describe(players *player.Loader) (string, error) {
	if p.net == "" {
		return "builtin", nil
	}
	n, err := players.Network(p.net)
	if err != nil {
		return "", err
	}
	desc := "net-" + n.Hash()
	if p.planes != nil {
		desc += " (with the planes of " + p.planes.Name() + ")"
	}
	return desc, nil
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
			return nil, err // datasets', naming the file
		}
		games = append(games, rows...)
	}
	return games, nil
}
