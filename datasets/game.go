package datasets

import (
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"taflab/archive"
	"taflab/protocol"
	"taflab/rules"
)

// Game is a finished game: the one type of it in taflab. Every games file
// is read into Games (LoadGames and ReadGames read each kind: game
// records, a match's games with its players, a dataset's games table, an
// OpenTafl record, each game as the file writes it); so are game records
// replayed through the rules for training (ReadRecordGames, each game with
// every position and the captures the rules make); the review takes one
// (package analysis), and the web page replays one.
//
// A game in play is rules.Game; what a file holds of a game, before it is
// read, is that format's row (rules.Record, GameRow, protocol.GameRecord,
// a match file's games).
type Game struct {
	// Index is the game's place in its file, from 0; Line is a game
	// record's line (CSV), from 1, and 0 for other kinds.
	Index, Line int
	// Variant is the rule set the game is played under, and Start the
	// position it started from.
	Variant *rules.Variant
	Start   rules.Position
	// Moves are the moves with their captures: as written (LoadGames,
	// ReadGames: the rules' may differ, rules.Replay tells), or as the
	// rules made them (ReadRecordGames).
	Moves []rules.RecordedMove
	// Positions[i] is the position before Moves[i], for a game replayed
	// through the rules (ReadRecordGames); nil for a game read as written.
	Positions []rules.Position
	// Winner is the game's result (NoWinner for none): the file's, or the
	// rules' where they ended a game replayed (ReadRecordGames).
	Winner rules.Winner
	// Recorded says the result for people as the file does ("White",
	// "attackers (king-escaped)", "-1"; "no result" for none).
	Recorded string
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

// Result returns the game's result for the side to move at ply i (a game
// with Positions): +1 a win, -1 a loss, 0 a draw; ok is false when the
// game has no result.
func (g *Game) Result(i int) (result int8, ok bool) {
	return resultFor(g.Winner, g.Positions[i].ToMove)
}

// resultFor returns a game's result, won by winner, for side: +1 a win,
// -1 a loss, 0 a draw; ok is false for NoWinner.
func resultFor(winner rules.Winner, side rules.Side) (result int8, ok bool) {
	switch winner {
	case rules.NoWinner:
		return 0, false
	case rules.Draw:
		return 0, true
	}
	if (winner == rules.AttackersWin) == (side == rules.Attackers) {
		return 1, true
	}
	return -1, true
}

// Details is what a self-play dataset says of a game besides its moves.
type Details struct {
	GameID           string `json:"game_id"`
	Evaluator        string `json:"evaluator"`
	Seed             uint64 `json:"seed"`
	AttackerPlayouts int32  `json:"attacker_playouts"`
	DefenderPlayouts int32  `json:"defender_playouts"`
}

// Kind is a kind of games file, told by the end of its name (KindOf).
type Kind string

// The kinds of games file.
const (
	KindDataset  Kind = "dataset"  // a self-play dataset's games table: *.games.arrow
	KindRecords  Kind = "records"  // game records in the archive's CSV format: *.csv (not metrics.csv)
	KindOpenTafl Kind = "opentafl" // an OpenTafl game record: *.otg
)

// KindOf returns the kind of games file a name ends as, or "" for a file
// that is none (a training run's metrics.csv among them). An embedded
// archive's name (archive:copenhagen) is KindRecords.
func KindOf(name string) Kind {
	base := path.Base(filepath.ToSlash(name))
	switch {
	case archive.IsName(name):
		return KindRecords
	case strings.HasSuffix(base, ".games.arrow"):
		return KindDataset
	case strings.HasSuffix(base, ".csv") && base != "metrics.csv":
		return KindRecords
	case strings.HasSuffix(base, ".otg"):
		return KindOpenTafl
	}
	return ""
}
