package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"taflab/archive"
	"taflab/datasets"
	"taflab/gamefile"
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
	case strings.HasSuffix(name, ".otg"):
		return "opentafl"
	}
	return ""
}

// archiveSrc is the src of the game records embedded in taflab (package
// archive): people's games, which Replay lists first.
const archiveSrc = "archive"

// handleFiles lists the embedded archives, then the games files in the
// served folders.
func (s *Server) handleFiles(w http.ResponseWriter, r *http.Request) {
	out := []FileInfo{}
	for _, a := range archive.All() {
		out = append(out, FileInfo{archiveSrc, strings.TrimPrefix(a.Name, archive.Prefix), "records"})
	}
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
	index    int // its place in the file, from 0
	line     int
	start    rules.Position
	moves    []rules.RecordedMove
	recorded string
	info     *GameDetails
	err      error
}

// The bounds of the answers about games, which hold what the server reads
// of a file, not the whole file: a listing (/api/file-games) holds at most
// GamesPage games, some 350 bytes each (175 KB), and a game replayed
// (/api/replay) at most MaxPlies plies, some 250 bytes each (2.5 MB); a
// game played on the page ends at MaxPlies plies too (its state holds its
// moves). The file itself is read a line at a time (game records) or
// whole within Config.MaxFileBytes (a dataset).
const (
	GamesPage = 500
	MaxPlies  = 10_000
)

// gamesRange is a listing's range of a file's games: from, and at most n.
type gamesRange struct{ from, n int }

func (r gamesRange) holds(i int) bool { return i >= r.from && i < r.from+r.n }

// readGames reads the games in want of a games file: a dataset's games
// table, or game records (CSV) under the rule set named by variant, or
// else the one the match.json beside it names, or else copenhagen. It
// returns them and how many games the file holds.
//
// It reads in one of the server's read slots, until ctx is done; the
// caller releases the slot once it has answered.
func (s *Server) readGames(ctx context.Context, src, rel, variant string, want gamesRange) (release func(), v *rules.Variant, games []fileGame, total int, err error) {
	free, err := s.reads.acquire(ctx)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	handed := false // whether the caller got the slot to release
	defer func() {
		if !handed { // an error, or a panic: the slot is free again
			free()
		}
	}()
	v, games, total, err = s.readGamesFile(ctx, src, rel, variant, want)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	handed = true
	return free, v, games, total, nil
}

func (s *Server) readGamesFile(ctx context.Context, src, rel, variant string, want gamesRange) (*rules.Variant, []fileGame, int, error) {
	if src == archiveSrc {
		return s.readArchive(ctx, rel, variant, want)
	}
	f, err := s.openFile(src, rel)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	switch fileKind(path.Base(rel)) {
	case "dataset":
		data, err := s.readAll(src, rel, f)
		if err != nil {
			return nil, nil, 0, err
		}
		rows, meta, err := datasets.DecodeGames(src+"/"+rel, data)
		if err != nil {
			return nil, nil, 0, errorf(http.StatusUnprocessableEntity, "%v", err)
		}
		v, err := rules.Compile(meta.Definition)
		if err != nil {
			return nil, nil, 0, errorf(http.StatusUnprocessableEntity, "%s/%s: rule set: %v", src, rel, err)
		}
		var out []fileGame
		for i := want.from; i < min(len(rows), want.from+want.n); i++ {
			row := &rows[i]
			fg := fileGame{index: i, start: v.Start(), recorded: row.Winner.String() + " (" + row.Reason.String() + ")",
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
			out = append(out, fg)
		}
		return v, out, len(rows), nil
	case "records":
		var v *rules.Variant
		var err error
		if variant == "" {
			v, err = s.matchVariant(src, rel)
		} else {
			v, err = loadVariant(variant, "")
		}
		if err != nil {
			return nil, nil, 0, err
		}
		out, total, err := s.readRecords(ctx, src+"/"+rel, f, v, want)
		return v, out, total, err
	case "opentafl":
		data, err := s.readAll(src, rel, f)
		if err != nil {
			return nil, nil, 0, err
		}
		games, err := gamefile.Decode(src+"/"+rel, data, gamefile.Options{})
		if err != nil {
			return nil, nil, 0, errorf(http.StatusUnprocessableEntity, "%v", err)
		}
		g := games[0] // a record holds one game
		var out []fileGame
		if want.holds(0) {
			out = append(out, fileGame{start: g.Start, moves: g.Moves, recorded: g.Result})
		}
		return g.Variant, out, 1, nil
	}
	return nil, nil, 0, errorf(http.StatusBadRequest, "%s/%s: not a games file (want *.games.arrow, *.csv or *.otg)", src, rel)
}

// readArchive reads the games in want of an embedded archive (its name
// without archive.Prefix), under the rule set its games were played under
// unless variant names another.
func (s *Server) readArchive(ctx context.Context, name, variant string, want gamesRange) (*rules.Variant, []fileGame, int, error) {
	a, ok := archive.Lookup(archive.Prefix + name)
	if !ok {
		return nil, nil, 0, errorf(http.StatusNotFound, "archive %q: no such archive (GET /api/files lists them)", name)
	}
	if variant == "" {
		variant = a.Variant
	}
	v, err := loadVariant(variant, "")
	if err != nil {
		return nil, nil, 0, err
	}
	out, total, err := s.readRecords(ctx, a.Name, bytes.NewReader(a.Data()), v, want)
	return v, out, total, err
}

// readRecords reads a game-record file (name, opened as f) a line at a time, within
// Config.MaxFileBytes and datasets' line bound, and keeps the records in
// want: every line is checked (the first that is not a record is refused,
// naming it), none but those kept is held.
func (s *Server) readRecords(ctx context.Context, name string, f io.Reader, v *rules.Variant, want gamesRange) ([]fileGame, int, error) {
	var out []fileGame
	total := 0
	err := datasets.ScanRecordLines(ctx, name, io.LimitReader(f, s.cfg.MaxFileBytes), func(line int, text string) error {
		if strings.TrimSpace(text) == "" || line == 1 && rules.IsRecordHeader(text) {
			return nil
		}
		rec, err := rules.ParseRecord(line, text)
		if err != nil {
			return fmt.Errorf("datasets: %s: %w", name, err)
		}
		if want.holds(total) {
			res := rec.Result.String()
			if res == "" {
				res = "no result"
			}
			out = append(out, fileGame{index: total, line: rec.Line, start: rec.StartOr(v.Start()), moves: rec.Moves, recorded: res})
		}
		total++
		return nil
	})
	if ctx.Err() != nil {
		return nil, 0, canceled(ctx)
	}
	if err != nil {
		return nil, 0, errorf(http.StatusUnprocessableEntity, "%v", err) // it names the file and the line
	}
	return out, total, nil
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
func replay(v *rules.Variant, fg fileGame, full bool) ReplayedGame {
	i := fg.index
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

// handleFileGames lists a page of a file's games, each replayed for its
// end: GamesPage games from offset (0 by default).
func (s *Server) handleFileGames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset := 0
	if text := q.Get("offset"); text != "" {
		var err error
		if offset, err = strconv.Atoi(text); err != nil || offset < 0 {
			writeError(w, errorf(http.StatusBadRequest, "offset %q: want a game's index from 0", text))
			return
		}
	}
	release, v, games, total, err := s.readGames(r.Context(), q.Get("src"), q.Get("path"), q.Get("variant"), gamesRange{offset, GamesPage})
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	out := FileGames{Total: total, Offset: offset, Games: make([]ReplayedGame, len(games))}
	for i, fg := range games {
		out.Games[i] = replay(v, fg, false)
	}
	writeJSON(w, out)
}

// handleReplay returns one game of a file, every position and move; a
// game of more than MaxPlies plies is refused.
func (s *Server) handleReplay(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	i, err := strconv.Atoi(q.Get("game"))
	if err != nil || i < 0 {
		writeError(w, errorf(http.StatusBadRequest, "game %q: want a game's index from 0", q.Get("game")))
		return
	}
	release, v, games, total, err := s.readGames(r.Context(), q.Get("src"), q.Get("path"), q.Get("variant"), gamesRange{i, 1})
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	if len(games) == 0 {
		writeError(w, errorf(http.StatusNotFound, "game %d: the file has %d games", i, total))
		return
	}
	if n := len(games[0].moves); n > MaxPlies {
		writeError(w, errorf(http.StatusUnprocessableEntity, "game %d: %d plies, more than the %d the page replays a game of", i, n, MaxPlies))
		return
	}
	writeJSON(w, replay(v, games[0], true))
}
