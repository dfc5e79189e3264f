package loop

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"time"

	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
)

// HostThroughput is one worker host's self-play over the run: the games and
// positions its processes wrote, and their rate per hour of the time it had
// a process playing.
type HostThroughput struct {
	Host             string  `json:"host"`
	Processes        int     `json:"processes"` // follower processes, or 1 for the loop's own self-play
	Games            int     `json:"games"`
	Positions        int     `json:"positions"`
	Hours            float64 `json:"hours"`
	GamesPerHour     float64 `json:"games_per_hour"`
	PositionsPerHour float64 `json:"positions_per_hour"`
}

// Throughput adds up the run's self-play by worker host: each follower's
// record in WorkersDir (from its start to its last shard; a host's time is
// the union of its processes' times, so processes side by side are not
// counted twice), and the loop's own self-play of in-process generations
// (their time summed). A follower's games count whether or not a
// generation took them: this is what the hosts produced.
func Throughput(run string, cfg configs.Loop) ([]HostThroughput, error) {
	type span struct{ from, to time.Time }
	byHost := map[string]*HostThroughput{}
	spans := map[string][]span{}
	get := func(host string) *HostThroughput {
		if byHost[host] == nil {
			byHost[host] = &HostThroughput{Host: host}
		}
		return byHost[host]
	}
	files, err := filepath.Glob(filepath.Join(run, WorkersDir, "*.json"))
	if err != nil {
		return nil, errctx.Errorf("loop", "%w", err)
	}
	for _, f := range files {
		data, err := fileio.ReadFileLimit(f, fileio.MaxConfigBytes, "this file")
		if err != nil {
			return nil, errctx.Errorf("loop", "%w", err)
		}
		var w workerStats
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, errctx.Errorf("loop", "%s: %w", f, err)
		}
		h := get(w.Host)
		h.Processes++
		h.Games += w.Games
		h.Positions += w.Positions
		if w.Updated.After(w.Started) {
			spans[w.Host] = append(spans[w.Host], span{w.Started, w.Updated})
		}
	}
	for host, ss := range spans {
		sort.Slice(ss, func(i, j int) bool { return ss[i].from.Before(ss[j].from) })
		var total time.Duration
		cur := ss[0]
		for _, s := range ss[1:] {
			if s.from.After(cur.to) {
				total += cur.to.Sub(cur.from)
				cur = s
			} else if s.to.After(cur.to) {
				cur.to = s.to
			}
		}
		total += cur.to.Sub(cur.from)
		byHost[host].Hours += total.Hours()
	}
	for g := 1; g <= cfg.Generations; g++ {
		st, err := readSelfplayStats(GenDir(run, g))
		if err != nil {
			return nil, err
		}
		if st.External || st.Host == "" {
			continue
		}
		h := get(st.Host + " (loop)")
		h.Processes = 1
		h.Games += st.Games
		h.Positions += st.Positions
		h.Hours += st.Seconds / 3600
	}
	out := make([]HostThroughput, 0, len(byHost))
	for _, h := range byHost {
		if h.Hours > 0 {
			h.GamesPerHour, h.PositionsPerHour = float64(h.Games)/h.Hours, float64(h.Positions)/h.Hours
		}
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out, nil
}
