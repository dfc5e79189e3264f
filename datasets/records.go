package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"taflab/archive"
	"taflab/internal/errctx"
	"taflab/rules"
)

// ReadRecordGames reads and replays a game-record file, or an embedded
// archive (archive.Copenhagen), under v (ParseRecordGames), within the
// limits of ScanRecordLines: each game with every position, for training
// and for measuring how well a player predicts people's moves.
func ReadRecordGames(path string, v *rules.Variant) ([]Game, error) {
	return ReadRecordGamesCtx(context.Background(), path, v)
}

// ReadRecordGamesCtx is ReadRecordGames stopped by ctx (its error is then
// ctx's) while it reads and replays.
func ReadRecordGamesCtx(ctx context.Context, path string, v *rules.Variant) ([]Game, error) {
	f, err := archive.Open(path)
	if err != nil {
		return nil, errctx.Errorf("datasets", "game records: %w", err)
	}
	defer f.Close()
	return readRecordGames(ctx, path, f, v)
}

// ParseRecordGames replays the game records of data, read from the file
// name, under v from its start position (or each record's own) and returns
// their games, each with every position (Game.Positions) and the
// captures the rules make. It is strict, because every position becomes a training
// target: a move the rules refuse, or written captures that differ from
// the captures the rules make, is an error naming the file, the record's
// line and the ply. Moves recorded after the rules ended a game (people
// played on past a third repetition the server did not enforce) are
// dropped, and the rules' result stands. A line or a file past the limits
// of ScanRecordLines is an error naming the file and the line.
func ParseRecordGames(name string, data []byte, v *rules.Variant) ([]Game, error) {
	return readRecordGames(context.Background(), name, bytes.NewReader(data), v)
}

func readRecordGames(ctx context.Context, name string, r io.Reader, v *rules.Variant) ([]Game, error) {
	recs, err := ReadRecords(ctx, name, r)
	if re := (*rules.RecordError)(nil); errors.As(err, &re) {
		return nil, errctx.Key("datasets", name, re)
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, errctx.Errorf("datasets", "%s: no game records in it", name)
	}
	games, err := replayRecords(ctx, v, recs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, errctx.Key("datasets", name, err)
	}
	return games, nil
}

// replayRecords replays recs under v; its errors name the line.
func replayRecords(ctx context.Context, v *rules.Variant, recs []rules.Record) ([]Game, error) {
	games := make([]Game, 0, len(recs))
	g := rules.NewGame(v)
	for i, rec := range recs {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		game, err := replayRecord(g, v, i, rec)
		if err != nil {
			return nil, err
		}
		games = append(games, game)
	}
	return games, nil
}

// replayRecord replays the record of index i under v on g (the caller's
// scratch); its errors name the line (a *rules.RecordError, or one that
// starts at the line).
func replayRecord(g *rules.Game, v *rules.Variant, i int, rec rules.Record) (Game, error) {
	start := rec.StartOr(v.Start())
	res := rules.Replay(v, start, rec.Moves, rec.Line)
	if res.Err != nil {
		return Game{}, res.Err
	}
	if k := res.FirstMismatch; k > 0 {
		return Game{}, fmt.Errorf("line %d, ply %d: move %s: the rules capture %s: are these records of rule set %s?",
			rec.Line, k, rec.Moves[k-1], captureList(res.Moves[k-1].Captures), v.Name())
	}
	game := recordGame(i, v, start, &rec)
	game.Moves, game.Positions = res.Moves, make([]rules.Position, len(res.Moves))
	if err := g.ResetTo(start); err != nil {
		return Game{}, fmt.Errorf("line %d: start: %v", rec.Line, err) // Replay checked it
	}
	for j, m := range res.Moves {
		game.Positions[j] = g.Position()
		g.Make(m.Move)
	}
	if res.Outcome.Over() {
		game.Winner = res.Outcome.Winner
	}
	return game, nil
}

// captureList names a set of captured squares, or "nothing".
func captureList(b rules.Bitboard) string {
	if b.Empty() {
		return "nothing"
	}
	var names []string
	for b.Any() {
		names = append(names, b.PopFirst().String())
	}
	return strings.Join(names, ", ")
}

// HeldOut reports whether the record on line is held out of training when
// one record in every is kept back for measurement: the records whose line
// is a multiple of every. every 0 holds nothing out.
func HeldOut(line, every int) bool { return every > 0 && line%every == 0 }

// SplitRecords returns the games that training uses and those held out
// (HeldOut with every).
func SplitRecords(games []Game, every int) (train, heldOut []Game) {
	for _, g := range games {
		if HeldOut(g.Line, every) {
			heldOut = append(heldOut, g)
		} else {
			train = append(train, g)
		}
	}
	return train, heldOut
}
