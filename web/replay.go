package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"

	"taflab/datasets"
	"taflab/rules"
)

// maxListed bounds the files a listing returns.
const maxListed = 5000

func fileKind(name string) string {
	switch {
	case strings.HasSuffix(name, ".games.arrow"):
		return "dataset"
	case strings.HasSuffix(name, ".csv") && name != "metrics.csv":
		return "records"
	}
	return ""
}

// handleFiles lists the games files in the served folders.
func (s *Server) handleFiles(w http.ResponseWriter, r *http.Request) {
	out := []FileInfo{}
	for _, src := range []string{"data", "run"} {
		root, err := s.root(src)
		if err != nil {
			continue
		}
		fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || len(out) >= maxListed {
				return nil
			}
			if d.IsDir() && p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if d.Type().IsRegular() {
				if k := fileKind(d.Name()); k != "" {
					out = append(out, FileInfo{src, p, k})
				}
			}
			return nil
		})
	}
	writeJSON(w, out)
}

// fileGame is one game as a file holds it, before replay.
type fileGame struct {
	line     int
	start    rules.Position
	moves    []rules.RecordedMove
	recorded string
	info     *GameDetails
	err      error
}

// readGames reads a games file: a dataset's games table, or game records
// (CSV) under the rule set named by variant, or else the one the match.json
// beside it names, or else copenhagen.
//
// It reads in one of the server's read slots, until ctx is done; the
// caller releases the slot once it has answered.
func (s *Server) readGames(ctx context.Context, src, rel, variant string) (release func(), v *rules.Variant, games []fileGame, err error) {
	free, err := s.reads.acquire(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	handed := false // whether the caller got the slot to release
	defer func() {
		if !handed { // an error, or a panic: the slot is free again
			free()
		}
	}()
	v, games, err = s.readGamesFile(src, rel, variant)
	if err != nil {
		return nil, nil, nil, err
	}
	handed = true
	return free, v, games, nil
}

func (s *Server) readGamesFile(src, rel, variant string) (*rules.Variant, []fileGame, error) {
	data, err := s.readFile(src, rel)
	if err != nil {
		return nil, nil, err
	}
	switch fileKind(path.Base(rel)) {
	case "dataset":
		rows, meta, err := datasets.DecodeGames(src+"/"+rel, data)
		if err != nil {
			return nil, nil, errorf(http.StatusUnprocessableEntity, "%v", err)
		}
		v, err := rules.Compile(meta.Definition)
		if err != nil {
			return nil, nil, errorf(http.StatusUnprocessableEntity, "%s/%s: rule set: %v", src, rel, err)
		}
		out := make([]fileGame, len(rows))
		for i, row := range rows {
			fg := fileGame{start: v.Start(), recorded: row.Winner.String() + " (" + row.Reason.String() + ")",
				info: &GameDetails{row.GameID, row.Evaluator, row.Seed, row.AttackerPlayouts, row.DefenderPlayouts}}
			if row.Start != "" {
				if fg.start, err = rules.ParsePosition(row.Start); err != nil {
					fg.err = err
				}
			}
			for j, text := range row.Moves {
				m, captures, err := rules.ParseMove(text)
				if err != nil && fg.err == nil {
					fg.err = &rules.RecordError{Ply: j + 1, Token: text, Err: err}
				}
				fg.moves = append(fg.moves, rules.RecordedMove{Move: m, Captures: captures})
			}
			out[i] = fg
		}
		return v, out, nil
	case "records":
		var v *rules.Variant
		if variant == "" {
			v, err = s.matchVariant(src, rel)
		} else {
			v, err = loadVariant(variant, "")
		}
		if err != nil {
			return nil, nil, err
		}
		recs, err := datasets.ReadRecords(context.Background(), src+"/"+rel, bytes.NewReader(data))
		if err != nil {
			return nil, nil, errorf(http.StatusUnprocessableEntity, "%v", err) // it names the file and the line
		}
		out := make([]fileGame, len(recs))
		for i, rec := range recs {
			res := rec.Result.String()
			if res == "" {
				res = "no result"
			}
			out[i] = fileGame{line: rec.Line, start: rec.StartOr(v.Start()), moves: rec.Moves, recorded: res}
		}
		return v, out, nil
	}
	return nil, nil, errorf(http.StatusBadRequest, "%s/%s: not a games file (want *.games.arrow or *.csv)", src, rel)
}

// matchVariant returns the rule set of the match.json beside a games.csv:
// its own rules when it carries them (a rule set that does not ship),
// else the shipped one it names; copenhagen without one.
func (s *Server) matchVariant(src, rel string) (*rules.Variant, error) {
	where := path.Join(path.Dir(rel), "match.json")
	data, err := s.readFile(src, where)
	if err != nil {
		return loadVariant("copenhagen", "")
	}
	var m struct {
		Variant string            `json:"variant"`
		Rules   *rules.Definition `json:"rules"`
	}
	if json.Unmarshal(data, &m) != nil {
		return loadVariant("copenhagen", "")
	}
	if m.Rules != nil {
		v, err := rules.Compile(*m.Rules)
		if err != nil {
			return nil, errorf(http.StatusUnprocessableEntity, "%s/%s: rules: %v", src, where, err)
		}
		return v, nil
	}
	return loadVariant(m.Variant, "")
}

// replay plays a file's game through the rules; with full, it keeps every
// position and move.
func replay(v *rules.Variant, i int, fg fileGame, full bool) ReplayedGame {
	rg := ReplayedGame{Index: i, Line: fg.line, Board: newBoardInfo(v), Start: fg.start.String(), Recorded: fg.recorded, Info: fg.info}
	rg.Label = "game " + strconv.Itoa(i+1)
	if fg.line > 0 {
		rg.Label = "line " + strconv.Itoa(fg.line)
	}
	if fg.err != nil {
		rg.Error = fg.err.Error()
		return rg
	}
	g, err := rules.NewGameFrom(v, fg.start)
	if err != nil {
		rg.Error = "start: " + err.Error()
		return rg
	}
	if full {
		rg.Positions = append(rg.Positions, g.Position().String())
	}
	for j, rm := range fg.moves {
		if g.Outcome().Over() {
			rg.Error = strconv.Itoa(len(fg.moves)-j) + " moves left after the end of the game"
			break
		}
		if err := g.Play(rm.Move); err != nil {
			rg.Error = "ply " + strconv.Itoa(j+1) + ": " + err.Error()
			break
		}
		_, captured := g.LastMove()
		if rm.Captures.Without(g.Position().King) != captured {
			rg.Mismatch++
		}
		if full {
			rg.Positions = append(rg.Positions, g.Position().String())
			rg.Moves = append(rg.Moves, newMoveInfo(rules.RecordedMove{Move: rm.Move, Captures: captured}))
			rg.Written = append(rg.Written, rm.String())
		}
	}
	rg.Plies = g.Ply()
	rg.Outcome = newOutcomeInfo(g.Outcome())
	return rg
}

// handleFileGames lists a file's games, each replayed for its end.
func (s *Server) handleFileGames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	release, v, games, err := s.readGames(r.Context(), q.Get("src"), q.Get("path"), q.Get("variant"))
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	out := make([]ReplayedGame, len(games))
	for i, fg := range games {
		out[i] = replay(v, i, fg, false)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Index < out[b].Index })
	writeJSON(w, out)
}

// handleReplay returns one game of a file, every position and move.
func (s *Server) handleReplay(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	i, err := strconv.Atoi(q.Get("game"))
	if err != nil || i < 0 {
		writeError(w, errorf(http.StatusBadRequest, "game %q: want a game's index from 0", q.Get("game")))
		return
	}
	release, v, games, err := s.readGames(r.Context(), q.Get("src"), q.Get("path"), q.Get("variant"))
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	if i >= len(games) {
		writeError(w, errorf(http.StatusNotFound, "game %d: the file has %d games", i, len(games)))
		return
	}
	writeJSON(w, replay(v, i, games[i], true))
}
