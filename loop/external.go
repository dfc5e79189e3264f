package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/internal/progress"
	"taflab/match"
	"taflab/selfplay"
)

// shardInfo is a whole shard of the data folder as external self-play sees
// it: who wrote it, the player of its games, and its games' figures.
type shardInfo struct {
	Name      string `json:"name"`   // the shard's name, without the file suffixes
	Worker    string `json:"worker"` // the writer's name in it (host-pid for a follower)
	Evaluator string `json:"evaluator"`
	Games     int    `json:"games"`
	Positions int    `json:"positions"`

	all    match.Tally            // its games, and by kind: read once, not kept in files
	byKind map[string]match.Tally // (the counts of a resumed stage come from the files again)
}

// mixed is the evaluator of a shard whose games were played by several
// (no follower writes one; such a shard counts for no generation).
const mixed = "(mixed)"

// shardScanner lists the data folder's whole shards and reads each games
// file once (a shard never changes once its files are renamed in).
// It is used by one goroutine.
type shardScanner struct {
	dir   string
	known map[string]*shardInfo // by name; nil for a shard that cannot be read
	log   io.Writer
}

func newShardScanner(dir string, log io.Writer) *shardScanner {
	return &shardScanner{dir: dir, known: map[string]*shardInfo{}, log: log}
}

// scan returns every whole shard of a follower, by name (oldest first).
// A shard is whole when both its files are there: the games file is renamed
// in first, so a writer killed between the two renames leaves a games file
// alone, which is not counted. A games file the reader refuses is named in
// the log once and skipped.
func (s *shardScanner) scan() ([]*shardInfo, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, errctx.Errorf("loop", "%w", err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	var out []*shardInfo
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), datasets.GamesSuffix)
		if !ok || strings.HasPrefix(name, ".") || !have[name+datasets.PositionsSuffix] {
			continue
		}
		_, worker, _, ok := datasets.ParseShardName(name)
		if _, own := ParseGenName(worker); !ok || own { // the loop's in-process self-play's
			continue
		}
		info, seen := s.known[name]
		if !seen {
			info = s.read(name, worker)
			s.known[name] = info
		}
		if info != nil {
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b *shardInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (s *shardScanner) read(name, worker string) *shardInfo {
	path := filepath.Join(s.dir, name+datasets.GamesSuffix)
	rows, _, err := datasets.ReadGamesFile(path)
	if err != nil {
		fmt.Fprintf(s.log, "loop: %v: skipped\n", err)
		return nil
	}
	info := &shardInfo{Name: name, Worker: worker, Games: len(rows)}
	for i := range rows {
		if i == 0 {
			info.Evaluator = rows[i].Evaluator
		} else if rows[i].Evaluator != info.Evaluator {
			info.Evaluator = mixed
		}
		info.Positions += int(rows[i].Length) // one searched position a move
	}
	info.all, info.byKind = selfplay.TallyGames(rows)
	return info
}

// consumed returns the shards that generations before g took.
func consumed(run string, g int) (map[string]int, error) {
	taken := map[string]int{}
	for h := 1; h < g; h++ {
		st, err := readSelfplayStats(GenDir(run, h))
		if err != nil {
			return nil, err
		}
		for _, sh := range st.Shards {
			taken[sh.Name] = h
		}
	}
	return taken, nil
}

// readSelfplayStats reads a generation's selfplay.json; none reads as zero.
func readSelfplayStats(dir string) (selfplayStats, error) {
	var st selfplayStats
	path := filepath.Join(dir, "selfplay.json")
	data, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "this file")
	if os.IsNotExist(err) {
		return st, nil
	}
	if err != nil {
		return st, errctx.Errorf("loop", "%w", err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, errctx.Errorf("loop", "%s: %w", path, err)
	}
	return st, nil
}

// externalSelfPlay waits until followers have written the
// generation's quota of games played by its player (the best network, as
// the in-process stage would play), then takes the oldest such shards
// that no earlier generation took, whole, until they hold the quota, and
// records them in selfplay.json. Games of any other player (a follower
// that has not switched yet, or games of a network that was since
// replaced) are never counted; a player's games beyond a quota wait for
// the next generation with the same player (when a candidate is not
// promoted).
func (g *generation) externalSelfPlay(ctx context.Context) error {
	run, dir, cfg, log := g.run.dir, g.dir, g.run.cfg, g.run.log
	statsPath := filepath.Join(dir, "selfplay.json")
	st, err := readSelfplayStats(dir)
	if err != nil {
		return err
	}
	_, label, err := g.self.evaluators(g.players)
	if err != nil {
		return err
	}
	taken, err := consumed(run, g.n)
	if err != nil {
		return err
	}
	quota := cfg.SelfPlay.Games
	g.logf("waiting for %d self-play games of %s from followers (selfplay -follow %s)", quota, label, run)
	progress := progress.New(log, quota, "games", 10*time.Second)
	scanner := newShardScanner(filepath.Join(run, DataDir), log)
	started, first := time.Now(), -1
	var take []*shardInfo
	for {
		shards, err := scanner.scan()
		if err != nil {
			return err
		}
		n, workers := 0, map[string]bool{}
		take = take[:0]
		for _, sh := range shards {
			if sh.Evaluator != label || taken[sh.Name] != 0 {
				continue
			}
			workers[sh.Worker] = true
			if n < quota {
				take = append(take, sh)
			}
			n += sh.Games
		}
		if first < 0 {
			first = n
		}
		rate := 0.0
		if m := time.Since(started).Minutes(); m > 0 {
			rate = float64(n-first) / m
		}
		progress.Update(min(n, quota), fmt.Sprintf("games of %s: %d of %d, %.1f games/min from %d workers", label, n, quota, rate, len(workers)))
		if n >= quota {
			break
		}
		select {
		case <-ctx.Done():
			progress.Finish()
			st.Seconds += time.Since(started).Seconds()
			st.External, st.Evaluator = true, label
			if err := fileio.WriteJSON(statsPath, st); err != nil {
				return errctx.Errorf("loop", "%w", err)
			}
			return ctx.Err()
		case <-time.After(g.run.poll):
		}
	}
	progress.Finish()
	st.Seconds += time.Since(started).Seconds()
	st.External, st.Evaluator, st.Host = true, label, ""
	var all match.Tally
	st.ByKind, st.Shards = map[string]match.Tally{}, nil
	for _, sh := range take {
		st.Shards = append(st.Shards, *sh)
		all.Merge(sh.all)
		for k, t := range sh.byKind {
			u := st.ByKind[k]
			u.Merge(t)
			st.ByKind[k] = u
		}
	}
	st.setGames(all)
	// selfplay.json names the shards before the stage is marked done, so a
	// generation's shards are taken once: a stage killed between the two
	// chooses again, and its choice is the one that counts.
	if err := fileio.WriteJSON(statsPath, st); err != nil {
		return errctx.Errorf("loop", "%w", err)
	}
	g.logf("%d games of %s in %d shards", st.Games, label, len(st.Shards))
	return nil
}

// trainFiles returns the positions files generation g of an external run
// trains on, newest first: the shards generation g took, then those of
// generation g-1, and so on (an in-process generation's are the shards
// its own self-play wrote), of which training keeps the newest window.
// So a generation trains on the games of its own player and on the window
// of earlier generations' games, as in-process; never on a follower's
// games that no generation took.
func trainFiles(run string, g int) ([]string, error) {
	dataDir := filepath.Join(run, DataDir)
	var files []string
	for h := g; h >= 1; h-- {
		st, err := readSelfplayStats(GenDir(run, h))
		if err != nil {
			return nil, err
		}
		var names []string
		if st.External {
			for _, sh := range st.Shards {
				names = append(names, sh.Name)
			}
		} else {
			matches, err := filepath.Glob(filepath.Join(dataDir, "*"+datasets.PositionsSuffix))
			if err != nil {
				return nil, errctx.Errorf("loop", "%w", err)
			}
			for _, m := range matches {
				name := strings.TrimSuffix(filepath.Base(m), datasets.PositionsSuffix)
				if _, worker, _, ok := datasets.ParseShardName(name); ok && worker == GenName(h) {
					names = append(names, name)
				}
			}
		}
		slices.Sort(names)
		for i := len(names) - 1; i >= 0; i-- {
			files = append(files, filepath.Join(dataDir, names[i]+datasets.PositionsSuffix))
		}
	}
	return files, nil
}
