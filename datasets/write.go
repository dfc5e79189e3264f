package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/rules"
)

// batchRows is the most rows a record batch of a written file holds.
const batchRows = 1 << 16

// WriteShard writes a shard: dir/name.positions.arrow and
// dir/name.games.arrow, every row under the rule set def. Each file is
// written whole or not at all (see the package comment); the games file
// appears first. It refuses a name that is not a plain file name, a shard
// that already exists, an invalid definition and a row that does not fit
// the rule set (another rule set's name, a position of another size, a
// move off the board, a probability out of 0..1, ...), naming the row.
func WriteShard(dir, name string, def rules.Definition, positions []PositionRow, games []GameRow) error {
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`) || name != filepath.Base(name) {
		return errctx.Errorf("datasets", "shard name %q: want a plain file name that does not start with '.'", name)
	}
	posPath := filepath.Join(dir, name+PositionsSuffix)
	gamesPath := filepath.Join(dir, name+GamesSuffix)
	for _, p := range []string{posPath, gamesPath} {
		if _, err := os.Lstat(p); err == nil {
			return errctx.Errorf("datasets", "%s: already exists", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return errctx.Errorf("datasets", "%w", err)
		}
	}
	mem := memory.DefaultAllocator
	gamesTmp, err := writeTemp(gamesPath, func() ([]byte, error) { return encodeGames(mem, def, games) })
	if err != nil {
		return err
	}
	posTmp, err := writeTemp(posPath, func() ([]byte, error) { return encodePositions(mem, def, positions) })
	if err != nil {
		os.Remove(gamesTmp)
		return err
	}
	if err := os.Rename(gamesTmp, gamesPath); err != nil {
		os.Remove(gamesTmp)
		os.Remove(posTmp)
		return errctx.Errorf("datasets", "%w", err)
	}
	if err := os.Rename(posTmp, posPath); err != nil {
		os.Remove(posTmp)
		os.Remove(gamesPath)
		return errctx.Errorf("datasets", "%w", err)
	}
	if err := fileio.SyncDir(dir); err != nil {
		return errctx.Errorf("datasets", "%w", err)
	}
	return nil
}

// WritePositionsFile writes one positions file at path, whole or not at all.
// It refuses what WriteShard refuses, and overwrites an existing file.
func WritePositionsFile(path string, def rules.Definition, rows []PositionRow) error {
	return writeFile(path, func() ([]byte, error) { return encodePositions(memory.DefaultAllocator, def, rows) })
}

// WriteGamesFile writes one games file at path, whole or not at all.
// It refuses what WriteShard refuses, and overwrites an existing file.
func WriteGamesFile(path string, def rules.Definition, rows []GameRow) error {
	return writeFile(path, func() ([]byte, error) { return encodeGames(memory.DefaultAllocator, def, rows) })
}

// writeFile writes the bytes encode gives to path (fileio.WriteFile).
func writeFile(path string, encode func() ([]byte, error)) error {
	data, err := encode()
	if err != nil {
		return errctx.Errorf("datasets", "%s: %w", path, err)
	}
	if err := fileio.WriteFile(path, data); err != nil {
		return errctx.Errorf("datasets", "%w", err)
	}
	return nil
}

// writeTemp writes the bytes encode gives to a temporary file beside path
// (fileio.WriteTemp: .BASE.tmp-RANDOM, which starts with '.' and does not
// end in .arrow, so no reader takes it for a shard) and returns its name.
// Errors name path.
func writeTemp(path string, encode func() ([]byte, error)) (string, error) {
	data, err := encode()
	if err != nil {
		return "", errctx.Errorf("datasets", "%s: %w", path, err)
	}
	tmp, err := fileio.WriteTemp(path, data)
	if err != nil {
		return "", errctx.Errorf("datasets", "%w", err)
	}
	return tmp, nil
}

// encodePositions checks the rows and returns them as a sealed Arrow IPC
// file.
func encodePositions(mem memory.Allocator, def rules.Definition, rows []PositionRow) ([]byte, error) {
	if err := def.Validate(); err != nil {
		return nil, err
	}
	for i := range rows {
		if err := checkPosition(&def, &rows[i]); err != nil {
			return nil, fmt.Errorf("position row %d (game %q, ply %d): %v", i, rows[i].GameID, rows[i].Ply, err)
		}
	}
	schema, err := newSchema(TablePositions, def, len(rows))
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	var (
		gameID     = b.Field(pGameID).(*array.StringBuilder)
		ply        = b.Field(pPly).(*array.Int32Builder)
		ruleSet    = b.Field(pRuleSet).(*array.StringBuilder)
		side       = b.Field(pSideToMove).(*array.StringBuilder)
		attLo      = b.Field(pAttackersLo).(*array.Uint64Builder)
		attHi      = b.Field(pAttackersHi).(*array.Uint64Builder)
		defLo      = b.Field(pDefendersLo).(*array.Uint64Builder)
		defHi      = b.Field(pDefendersHi).(*array.Uint64Builder)
		king       = b.Field(pKing).(*array.Uint8Builder)
		size       = b.Field(pBoardSize).(*array.Uint8Builder)
		position   = b.Field(pPosition).(*array.StringBuilder)
		policy     = b.Field(pPolicy).(*array.ListBuilder)
		entry      = policy.ValueBuilder().(*array.StructBuilder)
		move       = entry.FieldBuilder(0).(*array.Uint16Builder)
		prob       = entry.FieldBuilder(1).(*array.Float32Builder)
		fullSearch = b.Field(pFullSearch).(*array.BooleanBuilder)
		rootValue  = b.Field(pRootValue).(*array.Float32Builder)
		result     = b.Field(pResult).(*array.Int8Builder)
		reason     = b.Field(pReason).(*array.StringBuilder)
		surprise   = b.Field(pSurprise).(*array.Float32Builder)
		text       []byte
	)
	return writeBatches(mem, schema, b, len(rows), func(i int) {
		r := &rows[i]
		p := &r.Position
		gameID.Append(r.GameID)
		ply.Append(r.Ply)
		ruleSet.Append(r.RuleSet)
		side.Append(p.ToMove.String())
		attLo.Append(p.Attackers.Lo)
		attHi.Append(p.Attackers.Hi)
		defLo.Append(p.Defenders.Lo)
		defHi.Append(p.Defenders.Hi)
		king.Append(uint8(p.King))
		size.Append(p.Size)
		text = p.AppendText(text[:0])
		position.BinaryBuilder.Append(text)
		policy.Append(true)
		for _, mp := range r.Policy {
			entry.Append(true)
			move.Append(uint16(mp.Move))
			prob.Append(mp.Prob)
		}
		fullSearch.Append(r.FullSearch)
		rootValue.Append(r.RootValue)
		result.Append(r.Result)
		reason.Append(r.Reason.String())
		surprise.Append(r.Surprise)
	})
}

// encodeGames checks the rows and returns them as a sealed Arrow IPC file.
func encodeGames(mem memory.Allocator, def rules.Definition, rows []GameRow) ([]byte, error) {
	if err := def.Validate(); err != nil {
		return nil, err
	}
	for i := range rows {
		if err := checkGame(&def, &rows[i]); err != nil {
			return nil, fmt.Errorf("game row %d (game %q): %v", i, rows[i].GameID, err)
		}
	}
	schema, err := newSchema(TableGames, def, len(rows))
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	var (
		gameID    = b.Field(gGameID).(*array.StringBuilder)
		ruleSet   = b.Field(gRuleSet).(*array.StringBuilder)
		moves     = b.Field(gMoves).(*array.ListBuilder)
		move      = moves.ValueBuilder().(*array.StringBuilder)
		winner    = b.Field(gWinner).(*array.StringBuilder)
		reason    = b.Field(gReason).(*array.StringBuilder)
		length    = b.Field(gLength).(*array.Int32Builder)
		seed      = b.Field(gSeed).(*array.Uint64Builder)
		evaluator = b.Field(gEvaluator).(*array.StringBuilder)
		start     = b.Field(gStart).(*array.StringBuilder)
		attackerP = b.Field(gAttackerPlayouts).(*array.Int32Builder)
		defenderP = b.Field(gDefenderPlayouts).(*array.Int32Builder)
	)
	return writeBatches(mem, schema, b, len(rows), func(i int) {
		g := &rows[i]
		gameID.Append(g.GameID)
		ruleSet.Append(g.RuleSet)
		moves.Append(true)
		for _, m := range g.Moves {
			move.Append(m)
		}
		winner.Append(g.Winner.String())
		reason.Append(g.Reason.String())
		length.Append(g.Length)
		seed.Append(g.Seed)
		evaluator.Append(g.Evaluator)
		start.Append(g.Start)
		attackerP.Append(g.AttackerPlayouts)
		defenderP.Append(g.DefenderPlayouts)
	})
}

// writeBatches returns a sealed Arrow IPC file of n rows, appending row i to
// the builder with add, in record batches of at most batchRows rows. A file
// of no rows holds the schema and no batch.
func writeBatches(mem memory.Allocator, schema *arrow.Schema, b *array.RecordBuilder, n int, add func(i int)) ([]byte, error) {
	var buf bytes.Buffer
	fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err != nil {
		return nil, err
	}
	for start := 0; start < n; start += batchRows {
		end := min(start+batchRows, n)
		b.Reserve(end - start)
		for i := start; i < end; i++ {
			add(i)
		}
		rec := b.NewRecordBatch()
		err := fw.Write(rec)
		rec.Release()
		if err != nil {
			fw.Close()
			return nil, err
		}
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if err := seal(data); err != nil {
		return nil, err
	}
	return data, nil
}
