// Package gamefile reads every kind of games file taflab reads as one list
// of games: game records in the archive's CSV format (the human archive, a
// match's games.csv, with the players and rules of the match.json beside
// it), self-play datasets' games tables (*.games.arrow) and OpenTafl's game
// records (*.otg). The review (`eval review`) and the web page's Replay
// read their games through it:
//
//	games, err := gamefile.ReadFile("runs/vs-builtin/games.csv", gamefile.Options{})
//	for _, g := range games {
//		if g.Err != nil { ... } // a game that could not be read; the others are there
//		moves := g.Moves       // as the file writes them, from g.Start under g.Variant
//	}
//
// It replays nothing: a game's moves are as written (package rules replays
// them, and package analysis reviews them).
package gamefile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"taflab/archive"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/match"
	"taflab/protocol"
	"taflab/rules"
)

// Kind is a kind of games file, told by the end of its name (KindOf).
type Kind string

// The kinds of games file.
const (
	Dataset  Kind = "dataset"  // a self-play dataset's games table: *.games.arrow
	Records  Kind = "records"  // game records in the archive's CSV format: *.csv (not metrics.csv)
	OpenTafl Kind = "opentafl" // an OpenTafl game record: *.otg
)

// KindOf returns the kind of games file a name ends as, or "" for a file
// that is none (a training run's metrics.csv among them). An embedded
// archive's name (archive:copenhagen) is Records.
func KindOf(name string) Kind {
	base := path.Base(filepath.ToSlash(name))
	switch {
	case archive.IsName(name):
		return Records
	case strings.HasSuffix(base, ".games.arrow"):
		return Dataset
	case strings.HasSuffix(base, ".csv") && base != "metrics.csv":
		return Records
	case strings.HasSuffix(base, ".otg"):
		return OpenTafl
	}
	return ""
}

// Game is one game of a games file, as the file writes it.
type Game struct {
	// Index is the game's place in its file, from 0; Line is a game
	// record's line (CSV), from 1, and 0 for other kinds.
	Index, Line int
	// Variant is the rule set the game is played under, and Start the
	// position it started from.
	Variant *rules.Variant
	Start   rules.Position
	// Moves are the moves as written, with the captures written after
	// them (the rules' may differ: replay them).
	Moves []rules.RecordedMove
	// Winner is the result the file states (NoWinner for none), and
	// Result says it for people as the file does ("White", "attackers
	// (king-escaped)", "-1").
	Winner rules.Winner
	Result string
	// Attackers and Defenders name the players where the file does (a
	// match's match.json, an OpenTafl record's tags); "" otherwise.
	Attackers, Defenders string
	// Details is what a dataset says of its game besides its moves; nil
	// for other kinds.
	Details *Details
	// Record is an OpenTafl record as read (its tags and comments); nil
	// for other kinds.
	Record *protocol.GameRecord
	// Err says why the game could not be read whole (a move that is not
	// notation); Moves hold what came before it.
	Err error
}

// Label names the game for people: "line 12" for a game record, else
// "game 3" (from 1).
func (g *Game) Label() string {
	if g.Line > 0 {
		return "line " + strconv.Itoa(g.Line)
	}
	return "game " + strconv.Itoa(g.Index+1)
}

// Details is what a self-play dataset says of a game besides its moves.
type Details struct {
	GameID           string `json:"game_id"`
	Evaluator        string `json:"evaluator"`
	Seed             uint64 `json:"seed"`
	AttackerPlayouts int32  `json:"attacker_playouts"`
	DefenderPlayouts int32  `json:"defender_playouts"`
}

// Options say what a games file does not.
type Options struct {
	// Variant is the rule set of game records (CSV), which name none; nil
	// for the rules the match.json beside the file gives (a match's
	// games.csv), else an embedded archive's own, else copenhagen. Datasets
	// and OpenTafl records carry their rules.
	Variant *rules.Variant
	// Beside reads a file of the games file's folder by its name
	// (match.json); nil reads none. ReadFile reads from the file's folder
	// when it is nil.
	Beside func(name string) ([]byte, error)
}

// ReadFile reads a games file (an embedded archive's name such as
// archive:copenhagen as well), within datasets' limits for its kind.
func ReadFile(name string, opt Options) ([]Game, error) {
	if archive.IsName(name) {
		a, ok := archive.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("gamefile: %w", archive.Stat(name))
		}
		if opt.Variant == nil {
			v, err := variants.Load(a.Variant)
			if err != nil {
				return nil, fmt.Errorf("gamefile: %s: %w", name, err)
			}
			opt.Variant = v
		}
		return Decode(name, a.Data(), opt)
	}
	kind := KindOf(name)
	if kind == "" {
		return nil, notGamesFile(name)
	}
	limit := int64(datasets.MaxRecordFileBytes)
	if kind == Dataset {
		limit = datasets.MaxArrowFileBytes
	}
	data, err := datasets.ReadFileLimit(name, limit, "a games file")
	if err != nil {
		return nil, fmt.Errorf("gamefile: %w", err)
	}
	if opt.Beside == nil {
		dir := filepath.Dir(name)
		opt.Beside = func(n string) ([]byte, error) {
			return datasets.ReadFileLimit(filepath.Join(dir, n), datasets.MaxRecordFileBytes, "a match file")
		}
	}
	return Decode(name, data, opt)
}

// Decode reads the games of a games file's bytes; name is the file's
// name, whose end says its kind (KindOf), and labels it in errors.
func Decode(name string, data []byte, opt Options) ([]Game, error) {
	switch KindOf(name) {
	case Dataset:
		return decodeDataset(name, data)
	case Records:
		return decodeRecords(name, data, opt)
	case OpenTafl:
		g, err := decodeOpenTafl(name, data)
		if err != nil {
			return nil, err
		}
		return []Game{g}, nil
	}
	return nil, notGamesFile(name)
}

func notGamesFile(name string) error {
	return fmt.Errorf("gamefile: %s: not a games file (want *.games.arrow, *.csv, *.otg or %sNAME)", name, archive.Prefix)
}

func decodeDataset(name string, data []byte) ([]Game, error) {
	rows, meta, err := datasets.DecodeGames(name, data)
	if err != nil {
		return nil, fmt.Errorf("gamefile: %w", err)
	}
	v, err := rules.Compile(meta.Definition)
	if err != nil {
		return nil, fmt.Errorf("gamefile: %s: rule set: %w", name, err)
	}
	out := make([]Game, len(rows))
	for i, row := range rows {
		g := Game{Index: i, Variant: v, Start: v.Start(), Winner: row.Winner, Result: row.Winner.String() + " (" + row.Reason.String() + ")",
			Details: &Details{row.GameID, row.Evaluator, row.Seed, row.AttackerPlayouts, row.DefenderPlayouts}}
		if row.Start != "" {
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
		out[i] = g
	}
	return out, nil
}

func decodeRecords(name string, data []byte, opt Options) ([]Game, error) {
	var m *match.File
	if opt.Beside != nil {
		if raw, err := opt.Beside(match.FileName); err == nil {
			m = new(match.File)
			if err := json.Unmarshal(raw, m); err != nil {
				return nil, fmt.Errorf("gamefile: %s beside %s: %w", match.FileName, name, err)
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("gamefile: %s beside %s: %w", match.FileName, name, err)
		}
	}
	v := opt.Variant
	if v == nil {
		var err error
		if v, err = matchVariant(m); err != nil {
			return nil, fmt.Errorf("gamefile: %s beside %s: %w", match.FileName, name, err)
		}
	}
	recs, err := datasets.ReadRecords(context.Background(), name, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gamefile: %w", err) // it names the file and the line
	}
	out := make([]Game, len(recs))
	for i, rec := range recs {
		g := Game{Index: i, Line: rec.Line, Variant: v, Start: rec.StartOr(v.Start()), Moves: rec.Moves,
			Winner: rec.Result.Winner(), Result: rec.Result.String()}
		if g.Result == "" {
			g.Result = "no result"
		}
		if m != nil && len(m.Games) == len(recs) {
			g.Attackers, g.Defenders = m.Games[i].Attacker, m.Games[i].Defender
		}
		out[i] = g
	}
	return out, nil
}

// matchVariant returns the rule set a match file names: its own rules
// when it carries them (a rule set that does not ship), else the shipped
// one it names; copenhagen without a match file.
func matchVariant(m *match.File) (*rules.Variant, error) {
	switch {
	case m == nil:
		return variants.Load("copenhagen")
	case m.Rules != nil:
		return rules.Compile(*m.Rules)
	}
	return variants.Load(m.Variant)
}

func decodeOpenTafl(name string, data []byte) (Game, error) {
	rec, err := protocol.ParseGameRecord(data)
	if err != nil {
		return Game{}, fmt.Errorf("gamefile: %s: %w", name, err)
	}
	v, start, err := openTaflRules(rec)
	if err != nil {
		return Game{}, fmt.Errorf("gamefile: %s: %w", name, err)
	}
	g := Game{Variant: v, Start: start, Record: rec, Attackers: rec.Tag(protocol.TagAttackers), Defenders: rec.Tag(protocol.TagDefenders),
		Result: rec.Tag(protocol.TagResult)}
	switch g.Result {
	case "1":
		g.Winner = rules.AttackersWin
	case "-1":
		g.Winner = rules.DefendersWin
	case "0":
		g.Winner = rules.Draw
	}
	if g.Result == "" {
		g.Result = "no result"
	}
	for _, m := range rec.Moves {
		g.Moves = append(g.Moves, rules.RecordedMove{Move: m.Move, Captures: m.Captures})
	}
	return g, nil
}

// openTaflRules compiles a record's rules string (configs.LoadVariant's
// otr:), and its start: the position tag's board if it has one, else the
// rules string's start. A rules string that is a shipped rule set's but
// for its start (taflab writes a game from an opening suite so, as
// OpenTafl starts a record from its rules' start) is that rule set.
func openTaflRules(rec *protocol.GameRecord) (*rules.Variant, rules.Position, error) {
	v, err := configs.LoadVariant(configs.OTRPrefix + rec.Tag(protocol.TagRules))
	if err != nil {
		return nil, rules.Position{}, err
	}
	start := v.Start()
	if text := rec.Tag(protocol.TagPosition); text != "" {
		if start, err = protocol.ParseBoard(text, start.ToMove); err != nil {
			return nil, rules.Position{}, fmt.Errorf("position tag: %w", err)
		}
	}
	base := strings.TrimPrefix(v.Name(), variants.OpenTaflPrefix)
	if shipped, err := variants.Load(base); err == nil {
		def := v.Definition()
		def.Name, def.Start = base, shipped.Definition().Start
		if variants.Differences(def) == nil {
			v = shipped
		}
	}
	return v, start, nil
}
