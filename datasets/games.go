package datasets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"taflab/archive"
	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/rules"
)

// This file reads every kind of games file as Games, each game as the file
// writes it: LoadGames a file (or an embedded archive) by its name,
// ReadGames from a reader, a page of its games at a time if asked. It
// replays nothing: package rules replays a game's moves, package analysis
// reviews them.

// GameOptions say what a games file does not, and which of its games to
// keep.
type GameOptions struct {
	// Variant is the rule set of game records (CSV), which name none; nil
	// for an embedded archive's own, else the rules the match.json beside
	// the file gives (a match's games.csv), else copenhagen. Datasets and
	// OpenTafl records carry their rules.
	Variant *rules.Variant
	// Beside reads a file of the games file's folder by its name
	// (MatchFileName); an error that is fs.ErrNotExist is no such file.
	// nil reads none; LoadGames reads from the file's folder when it is
	// nil.
	Beside func(name string) ([]byte, error)
	// From is the index of the first game kept, from 0, and Max the most
	// games kept (0: every one from From). The file is read to its end
	// all the same, to count its games and check every line.
	From, Max int
}

// keeps reports whether the game of index i is kept.
func (o *GameOptions) keeps(i int) bool { return i >= o.From && (o.Max == 0 || i < o.From+o.Max) }

// MatchFileName is the file a match writes beside its games.csv (package
// match's File), which names the match's rule set and each game's players.
const MatchFileName = "match.json"

// LoadGames reads the games of a games file, or of an embedded archive
// (archive:copenhagen), within this package's limits for its kind
// (MaxRecordFileBytes, MaxArrowFileBytes).
func LoadGames(name string, opt GameOptions) ([]Game, error) {
	var data []byte
	if archive.IsName(name) {
		a, ok := archive.Lookup(name)
		if !ok {
			return nil, errctx.Errorf("datasets", "%w", archive.Stat(name))
		}
		data = a.Data()
	} else {
		kind := KindOf(name)
		if kind == "" {
			return nil, notGamesFile(name)
		}
		var err error
		if data, err = ReadFileLimit(name, kindLimit(kind), "a games file"); err != nil {
			return nil, err
		}
		if opt.Beside == nil {
			dir := filepath.Dir(name)
			opt.Beside = func(n string) ([]byte, error) {
				return ReadFileLimit(filepath.Join(dir, n), MaxRecordFileBytes, "a match file")
			}
		}
	}
	games, _, err := ReadGames(context.Background(), name, bytes.NewReader(data), opt)
	return games, err
}

// kindLimit is the largest file of a kind read.
func kindLimit(k Kind) int64 {
	if k == KindDataset {
		return MaxArrowFileBytes
	}
	return MaxRecordFileBytes
}

// ReadGames reads the games opt keeps of a games file from r, and returns
// them with the number of games the file holds; name, whose end says the
// file's kind (KindOf), labels it in errors. Game records are read a line
// at a time, within the limits of ScanRecordLines, and only the games kept
// are held; a dataset or an OpenTafl record is read whole, within
// MaxArrowFileBytes or MaxRecordFileBytes. When ctx is done it stops with
// ctx's error.
func ReadGames(ctx context.Context, name string, r io.Reader, opt GameOptions) ([]Game, int, error) {
	kind := KindOf(name)
	if kind == "" {
		return nil, 0, notGamesFile(name)
	}
	if kind == KindRecords {
		return readRecordsAsWritten(ctx, name, r, opt)
	}
	limit := kindLimit(kind)
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, 0, errctx.Errorf("datasets", "%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, 0, errctx.Errorf("datasets", "%s: more than %d bytes, the most %s file may hold", name, limit, kind)
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if kind == KindDataset {
		return readDatasetGames(name, data, &opt)
	}
	g, err := readOpenTafl(name, data)
	if err != nil {
		return nil, 0, err
	}
	if !opt.keeps(0) { // a record holds one game
		return nil, 1, nil
	}
	return []Game{g}, 1, nil
}

func notGamesFile(name string) error {
	return errctx.Errorf("datasets", "%s: not a games file (want *.games.arrow, *.csv, *.otg or %sNAME)", name, archive.Prefix)
}

// readDatasetGames reads the games opt keeps of a dataset's games table.
func readDatasetGames(name string, data []byte, opt *GameOptions) ([]Game, int, error) {
	rows, meta, err := decodeGameRows(name, data)
	if err != nil {
		return nil, 0, err
	}
	v, err := rules.Compile(meta.Definition)
	if err != nil {
		return nil, 0, errctx.Key("datasets", name+": rule set", err)
	}
	var out []Game
	for i := range rows {
		if opt.keeps(i) {
			out = append(out, datasetGame(i, v, &rows[i]))
		}
	}
	return out, len(rows), nil
}

// datasetGame is the game of a games table's row i.
func datasetGame(i int, v *rules.Variant, row *GameRow) Game {
	g := Game{Index: i, Variant: v, Start: v.Start(), Winner: row.Winner, Recorded: row.Winner.String() + " (" + row.Reason.String() + ")",
		Details: &Details{row.GameID, row.Evaluator, row.Seed, row.AttackerPlayouts, row.DefenderPlayouts}}
	if row.Start != "" {
		var err error
		if g.Start, err = rules.ParsePosition(row.Start); err != nil {
			g.Err = err
		}
	}
	for j, text := range row.Moves {
		m, captures, err := rules.ParseMove(text)
		if err != nil {
			if g.Err == nil {
				g.Err = &rules.RecordError{Ply: j + 1, Token: text, Err: err}
			}
			break
		}
		g.Moves = append(g.Moves, rules.RecordedMove{Move: m, Captures: captures})
	}
	return g
}

// readRecordsAsWritten reads the games opt keeps of a game-record file a
// line at a time: every line is checked (the first that is not a record is
// an error naming the file and the line), none but those kept is held.
func readRecordsAsWritten(ctx context.Context, name string, r io.Reader, opt GameOptions) ([]Game, int, error) {
	m, err := readMatchFile(name, opt.Beside)
	if err != nil {
		return nil, 0, err
	}
	v := opt.Variant
	if v == nil {
		if v, err = recordsVariant(name, m); err != nil {
			return nil, 0, err
		}
	}
	var out []Game
	total := 0
	err = ScanRecordGames(ctx, name, r, v, v.Start(), func(g *Game) error {
		if g.Err != nil {
			return errctx.Errorf("datasets", "%s: %w", name, g.Err)
		}
		if opt.keeps(total) {
			out = append(out, *g)
		}
		total++
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if m != nil && len(m.Games) == total {
		for i := range out {
			p := m.Games[out[i].Index]
			out[i].Attackers, out[i].Defenders = p.Attacker, p.Defender
		}
	}
	return out, total, nil
}

// ScanRecordGames calls fn with the game of each record of a game-record
// file read from r a line at a time (name labels it in errors), as written,
// under v, from start where a record gives no start of its own: blank lines
// and a header on the first line are skipped; a line that is not a record
// is a game whose Err (a *rules.RecordError) names the line, and the scan
// goes on. It stops at the limits of ScanRecordLines, when ctx is done,
// and with fn's error, returning it.
func ScanRecordGames(ctx context.Context, name string, r io.Reader, v *rules.Variant, start rules.Position, fn func(*Game) error) error {
	i := 0
	return ScanRecordLines(ctx, name, r, func(line int, text string) error {
		if strings.TrimSpace(text) == "" || line == 1 && rules.IsRecordHeader(text) {
			return nil
		}
		rec, err := rules.ParseRecord(line, text)
		g := Game{Index: i, Line: line, Variant: v, Start: start, Err: err}
		if err == nil {
			g = recordGame(i, v, start, &rec)
		}
		i++
		return fn(&g)
	})
}

// recordGame is the game of the record of index i, as written, under v,
// from start unless the record gives its own.
func recordGame(i int, v *rules.Variant, start rules.Position, rec *rules.Record) Game {
	g := Game{Index: i, Line: rec.Line, Variant: v, Start: rec.StartOr(start), Moves: rec.Moves,
		Winner: rec.Result.Winner(), Recorded: rec.Result.String()}
	if g.Recorded == "" {
		g.Recorded = "no result"
	}
	return g
}

// matchFile is what a match's match.json (package match's File, which
// writes it) says of the games of the games.csv beside it: the rule set,
// and who played each side of each game.
type matchFile struct {
	Variant string            `json:"variant"`
	Rules   *rules.Definition `json:"rules"` // a rule set that does not ship; nil for Variant
	Games   []struct {
		Attacker string `json:"attacker"`
		Defender string `json:"defender"`
	} `json:"games"`
}

// readMatchFile reads the match.json beside a game-record file, or
// returns nil when there is none.
func readMatchFile(name string, beside func(string) ([]byte, error)) (*matchFile, error) {
	if beside == nil || archive.IsName(name) {
		return nil, nil
	}
	raw, err := beside(MatchFileName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil {
		m := new(matchFile)
		if err = json.Unmarshal(raw, m); err == nil {
			return m, nil
		}
	}
	return nil, errctx.Errorf("datasets", "%s beside %s: %w", MatchFileName, name, err)
}

// recordsVariant returns the rule set of game records that do not say
// theirs: an embedded archive's own; else the match file's own rules when
// it carries them (a rule set that does not ship), else the shipped one
// it names; copenhagen without a match file.
func recordsVariant(name string, m *matchFile) (*rules.Variant, error) {
	var v *rules.Variant
	var err error
	switch {
	case archive.IsName(name):
		a, ok := archive.Lookup(name)
		if !ok {
			return nil, errctx.Errorf("datasets", "%w", archive.Stat(name))
		}
		if v, err = variants.Load(a.Variant); err != nil {
			return nil, errctx.Key("datasets", name, err)
		}
		return v, nil
	case m == nil:
		return variants.Load("copenhagen")
	case m.Rules != nil:
		v, err = rules.Compile(*m.Rules)
	default:
		v, err = variants.Load(m.Variant)
	}
	if err != nil {
		return nil, errctx.Key("datasets", MatchFileName+" beside "+name, err)
	}
	return v, nil
}
