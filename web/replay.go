package web

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"taflab/archive"
	"taflab/datasets"
	"taflab/rules"
)

// maxListed bounds the files a listing returns.
const maxListed = 5000

// archiveSrc is the src of the game records embedded in taflab (package
// archive): people's games, which Replay lists first.
const archiveSrc = "archive"

// handleFiles lists the embedded archives, then the games files in the
// served folders.
func (s *Server) handleFiles(w http.ResponseWriter, r *http.Request) {
	out := []FileInfo{}
	for _, a := range archive.All() {
		out = append(out, FileInfo{archiveSrc, strings.TrimPrefix(a.Name, archive.Prefix), string(datasets.KindRecords)})
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
				if k := datasets.KindOf(d.Name()); k != "" {
					out = append(out, FileInfo{src, p, string(k)})
				}
			}
			return nil
		})
	}
	writeJSON(w, out)
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

// readGames reads the games want keeps of a games file (datasets.ReadGames):
// a dataset's games table, an OpenTafl record, or game records (CSV) under
// the rule set named by variant, or else the one the match.json beside
// them names, or else copenhagen. It returns them and how many games the
// file holds.
//
// It reads in one of the server's read slots, until ctx is done; the
// caller releases the slot once it has answered.
func (s *Server) readGames(ctx context.Context, src, rel, variant string, want datasets.GameOptions) (release func(), games []datasets.Game, total int, err error) {
	free, err := s.reads.acquire(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	handed := false // whether the caller got the slot to release
	defer func() {
		if !handed { // an error, or a panic: the slot is free again
			free()
		}
	}()
	games, total, err = s.readGamesFile(ctx, src, rel, variant, want)
	if err != nil {
		return nil, nil, 0, err
	}
	handed = true
	return free, games, total, nil
}

func (s *Server) readGamesFile(ctx context.Context, src, rel, variant string, want datasets.GameOptions) ([]datasets.Game, int, error) {
	name, in := src+"/"+rel, io.Reader(nil)
	if src == archiveSrc {
		a, ok := archive.Lookup(archive.Prefix + rel)
		if !ok {
			return nil, 0, errorf(http.StatusNotFound, "archive %q: no such archive (GET /api/files lists them)", rel)
		}
		if variant == "" {
			variant = a.Variant
		}
		name, in = a.Name, bytes.NewReader(a.Data())
	} else {
		f, err := s.openFile(src, rel)
		if err != nil {
			return nil, 0, err
		}
		defer f.Close()
		switch datasets.KindOf(path.Base(rel)) {
		case "":
			return nil, 0, errorf(http.StatusBadRequest, "%s/%s: not a games file (want *.games.arrow, *.csv or *.otg)", src, rel)
		case datasets.KindRecords:
			if in = f; variant == "" {
				want.Beside = s.beside(src, rel)
			}
		default: // read whole, within Config.MaxFileBytes; it carries its rules
			data, err := s.readAll(src, rel, f)
			if err != nil {
				return nil, 0, err
			}
			in, variant = bytes.NewReader(data), ""
		}
	}
	if variant != "" {
		v, err := loadVariant(variant, "")
		if err != nil {
			return nil, 0, err
		}
		want.Variant = v
	}
	// Game records are read a line at a time, within Config.MaxFileBytes.
	games, total, err := datasets.ReadGames(ctx, name, io.LimitReader(in, s.cfg.MaxFileBytes), want)
	switch {
	case ctx.Err() != nil:
		return nil, 0, canceled(ctx)
	case err != nil:
		return nil, 0, errorf(http.StatusUnprocessableEntity, "%v", err) // it names the file, and the line
	}
	return games, total, nil
}

// beside reads a file beside the games file src/rel (the match.json of a
// match's games.csv) for datasets.ReadGames: one the server may not read is
// as if there were none.
func (s *Server) beside(src, rel string) func(name string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		data, err := s.readFile(src, path.Join(path.Dir(rel), name))
		if err != nil {
			return nil, fs.ErrNotExist
		}
		return data, nil
	}
}

// replay plays a file's game through the rules; with full, it keeps every
// position and move.
func replay(fg *datasets.Game, full bool) ReplayedGame {
	rg := ReplayedGame{Index: fg.Index, Line: fg.Line, Label: fg.Label(), Board: newBoardInfo(fg.Variant), Start: fg.Start.String(), Recorded: fg.Recorded, Info: fg.Details}
	if fg.Err != nil {
		rg.Error = fg.Err.Error()
		return rg
	}
	g, err := rules.NewGameFrom(fg.Variant, fg.Start)
	if err != nil {
		rg.Error = "start: " + err.Error()
		return rg
	}
	if full {
		rg.Positions = append(rg.Positions, g.Position().String())
	}
	for j, rm := range fg.Moves {
		if g.Outcome().Over() {
			rg.Error = strconv.Itoa(len(fg.Moves)-j) + " moves left after the end of the game"
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
	release, games, total, err := s.readGames(r.Context(), q.Get("src"), q.Get("path"), q.Get("variant"), datasets.GameOptions{From: offset, Max: GamesPage})
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	out := FileGames{Total: total, Offset: offset, Games: make([]ReplayedGame, len(games))}
	for i := range games {
		out.Games[i] = replay(&games[i], false)
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
	release, games, total, err := s.readGames(r.Context(), q.Get("src"), q.Get("path"), q.Get("variant"), datasets.GameOptions{From: i, Max: 1})
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	if len(games) == 0 {
		writeError(w, errorf(http.StatusNotFound, "game %d: the file has %d games", i, total))
		return
	}
	if n := len(games[0].Moves); n > MaxPlies {
		writeError(w, errorf(http.StatusUnprocessableEntity, "game %d: %d plies, more than the %d the page replays a game of", i, n, MaxPlies))
		return
	}
	writeJSON(w, replay(&games[0], true))
}
