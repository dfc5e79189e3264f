package datasets

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"taflab/internal/errctx"
	"taflab/rules"
)

// minRowBytes is less than any row takes in a file: it bounds the memory
// reserved from a row count in the metadata, which a corrupt file may
// overstate.
const minRowBytes = 16

// arrowMagic opens and closes every Arrow IPC file.
const arrowMagic = "ARROW1"

// ReadPositionsFile reads a positions file whole and checks it (see the
// package comment). Errors name the file.
func ReadPositionsFile(path string) ([]PositionRow, Meta, error) {
	data, err := ReadFileLimit(path, MaxArrowFileBytes, "an Arrow file")
	if err != nil {
		return nil, Meta{}, err
	}
	rows, meta, err := decodePositions(data, memory.DefaultAllocator)
	if err != nil {
		return nil, Meta{}, errctx.Errorf("datasets", "%s: %w", path, err)
	}
	return rows, meta, nil
}

// ReadGamesFile reads a games file whole and checks it (see the package
// comment). Errors name the file.
func ReadGamesFile(path string) ([]GameRow, Meta, error) {
	data, err := ReadFileLimit(path, MaxArrowFileBytes, "an Arrow file")
	if err != nil {
		return nil, Meta{}, err
	}
	rows, meta, err := decodeGames(data, memory.DefaultAllocator)
	if err != nil {
		return nil, Meta{}, errctx.Errorf("datasets", "%s: %w", path, err)
	}
	return rows, meta, nil
}

// openFile checks the magic and the checksum and opens an Arrow IPC file
// held in data, telling a file that is no Arrow file from a truncated or a
// corrupt one.
func openFile(data []byte, mem memory.Allocator) (*ipc.FileReader, error) {
	if len(data) < len(arrowMagic) || string(data[:len(arrowMagic)]) != arrowMagic {
		return nil, fmt.Errorf("not an Arrow IPC file (it does not start with %q)", arrowMagic)
	}
	if !bytes.HasSuffix(data, []byte(arrowMagic)) {
		return nil, fmt.Errorf("truncated: an Arrow IPC file of %d bytes without its closing %q", len(data), arrowMagic)
	}
	if err := verify(data); err != nil {
		return nil, err
	}
	// The library trusts the lengths in the metadata: check them first,
	// and bound what it may allocate by the file's size (see verify.go).
	if err := checkArrowMetadata(data); err != nil {
		return nil, err
	}
	mem = newBoundedAllocator(mem, 4*int64(len(data))+1<<20)
	r, err := ipc.NewFileReader(bytes.NewReader(data), ipc.WithAllocator(mem))
	if err != nil {
		return nil, fmt.Errorf("corrupt Arrow IPC file: %v", err)
	}
	return r, nil
}

// recoverCorrupt turns a panic of the Arrow library on corrupt data into an
// error; use as defer recoverCorrupt(&err).
func recoverCorrupt(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("corrupt Arrow data: %v", p)
	}
}

// forEachBatch checks the file's schema and calls fn with every record
// batch after checking its buffers and that it has no nulls; it checks the
// total row count against the metadata.
func forEachBatch(data []byte, mem memory.Allocator, table string, fn func(meta *Meta, rec arrow.RecordBatch) error) (meta Meta, err error) {
	defer recoverCorrupt(&err)
	r, err := openFile(data, mem)
	if err != nil {
		return meta, err
	}
	defer r.Close()
	if meta, err = checkSchema(r.Schema(), table); err != nil {
		return meta, err
	}
	rows := 0
	for i := range r.NumRecords() {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			return meta, fmt.Errorf("record batch %d: %v", i, err)
		}
		err = checkBatch(rec)
		if err == nil {
			err = fn(&meta, rec)
		}
		rows += int(rec.NumRows())
		rec.Release()
		if err != nil {
			return meta, fmt.Errorf("record batch %d: %w", i, err)
		}
	}
	if rows != meta.Rows {
		return meta, fmt.Errorf("%d rows, but the metadata says %d", rows, meta.Rows)
	}
	return meta, nil
}

// checkBatch checks every column's Arrow buffers (offsets within bounds and
// in order, lengths) and that no column holds nulls.
func checkBatch(rec arrow.RecordBatch) error {
	for i, col := range rec.Columns() {
		name := rec.ColumnName(i)
		if int64(col.Len()) != rec.NumRows() {
			return fmt.Errorf("column %s has %d rows, the batch %d", name, col.Len(), rec.NumRows())
		}
		if err := array.ValidateFull(col); err != nil {
			return fmt.Errorf("column %s: %v", name, err)
		}
		if err := noNulls(name, col.Data()); err != nil {
			return err
		}
	}
	return nil
}

func noNulls(name string, d arrow.ArrayData) error {
	if d.NullN() != 0 {
		return fmt.Errorf("column %s holds %d nulls", name, d.NullN())
	}
	for _, c := range d.Children() {
		if err := noNulls(name, c); err != nil {
			return err
		}
	}
	return nil
}

// stringColumn gives the values of a string array as strings that share one
// allocation: the column's bytes copied once.
type stringColumn struct {
	all  string
	offs []int32 // len n+1; value i is all[offs[i]-offs[0] : offs[i+1]-offs[0]]
}

func newStringColumn(a *array.String) stringColumn {
	if a.Len() == 0 {
		return stringColumn{}
	}
	return stringColumn{all: string(a.ValueBytes()), offs: a.ValueOffsets()}
}

func (c *stringColumn) value(i int) string {
	base := c.offs[0]
	return c.all[c.offs[i]-base : c.offs[i+1]-base]
}

// listOffsets returns the offsets of a list array's rows (len n+1).
func listOffsets(a *array.List) []int32 {
	if a.Len() == 0 {
		return nil
	}
	off := a.Data().Offset()
	return a.Offsets()[off : off+a.Len()+1]
}

// decodePositions reads and checks a positions file held in data.
func decodePositions(data []byte, mem memory.Allocator) (rows []PositionRow, meta Meta, err error) {
	var scratch []byte
	meta, err = forEachBatch(data, mem, TablePositions, func(meta *Meta, rec arrow.RecordBatch) error {
		n := int(rec.NumRows())
		if n == 0 {
			return nil
		}
		var (
			gameID     = newStringColumn(rec.Column(pGameID).(*array.String))
			ply        = rec.Column(pPly).(*array.Int32).Int32Values()
			ruleSet    = rec.Column(pRuleSet).(*array.String)
			side       = rec.Column(pSideToMove).(*array.String)
			attLo      = rec.Column(pAttackersLo).(*array.Uint64).Uint64Values()
			attHi      = rec.Column(pAttackersHi).(*array.Uint64).Uint64Values()
			defLo      = rec.Column(pDefendersLo).(*array.Uint64).Uint64Values()
			defHi      = rec.Column(pDefendersHi).(*array.Uint64).Uint64Values()
			king       = rec.Column(pKing).(*array.Uint8).Uint8Values()
			size       = rec.Column(pBoardSize).(*array.Uint8).Uint8Values()
			position   = rec.Column(pPosition).(*array.String)
			policy     = rec.Column(pPolicy).(*array.List)
			entries    = policy.ListValues().(*array.Struct)
			move       = entries.Field(0).(*array.Uint16).Uint16Values()
			prob       = entries.Field(1).(*array.Float32).Float32Values()
			fullSearch = rec.Column(pFullSearch).(*array.Boolean)
			rootValue  = rec.Column(pRootValue).(*array.Float32).Float32Values()
			result     = rec.Column(pResult).(*array.Int8).Int8Values()
			reason     = rec.Column(pReason).(*array.String)
			surprise   []float32 // none before version 3
		)
		if meta.SchemaVersion >= 3 {
			surprise = rec.Column(pSurprise).(*array.Float32).Float32Values()
		}
		offs := listOffsets(policy)
		probs := make([]rules.MoveProb, offs[n]-offs[0])
		for i := range probs {
			k := int(offs[0]) + i
			probs[i] = rules.MoveProb{Move: rules.Move(move[k]), Prob: prob[k]}
		}
		if rows == nil {
			rows = make([]PositionRow, 0, min(meta.Rows, len(data)/minRowBytes))
		}
		start := len(rows)
		for i := range n {
			r := PositionRow{
				GameID:  gameID.value(i),
				Ply:     ply[i],
				RuleSet: meta.Definition.Name,
				Position: rules.Position{
					Attackers: rules.Bitboard{Lo: attLo[i], Hi: attHi[i]},
					Defenders: rules.Bitboard{Lo: defLo[i], Hi: defHi[i]},
					King:      rules.Square(king[i]),
					Size:      size[i],
				},
				FullSearch: fullSearch.Value(i),
				RootValue:  rootValue[i],
				Result:     result[i],
			}
			if surprise != nil {
				r.Surprise = surprise[i]
			}
			if rs := ruleSet.Value(i); rs != meta.Definition.Name {
				return fmt.Errorf("row %d: rule set %q in a file of rule set %q", start+i, rs, meta.Definition.Name)
			}
			s, ok := sideNames.lookup(side.Value(i))
			if !ok {
				return fmt.Errorf("row %d: side to move %q", start+i, side.Value(i))
			}
			r.Position.ToMove = rules.Side(s)
			why, ok := reasonNames.lookup(reason.Value(i))
			if !ok {
				return fmt.Errorf("row %d: reason %q", start+i, reason.Value(i))
			}
			r.Reason = rules.Reason(why)
			a, b := offs[i]-offs[0], offs[i+1]-offs[0]
			if a < b {
				r.Policy = probs[a:b:b]
			}
			if err := checkPosition(&meta.Definition, &r); err != nil {
				return fmt.Errorf("row %d (game %q, ply %d): %v", start+i, r.GameID, r.Ply, err)
			}
			scratch = r.Position.AppendText(scratch[:0])
			if text := position.Value(i); text != string(scratch) {
				return fmt.Errorf("row %d (game %q, ply %d): position %q does not match the bitboards (%s)", start+i, r.GameID, r.Ply, text, scratch)
			}
			rows = append(rows, r)
		}
		return nil
	})
	if err != nil {
		return nil, meta, err
	}
	return rows, meta, nil
}

// decodeGames reads and checks a games file held in data.
func decodeGames(data []byte, mem memory.Allocator) (rows []GameRow, meta Meta, err error) {
	meta, err = forEachBatch(data, mem, TableGames, func(meta *Meta, rec arrow.RecordBatch) error {
		n := int(rec.NumRows())
		if n == 0 {
			return nil
		}
		var (
			gameID    = newStringColumn(rec.Column(gGameID).(*array.String))
			ruleSet   = rec.Column(gRuleSet).(*array.String)
			moves     = rec.Column(gMoves).(*array.List)
			move      = moves.ListValues().(*array.String)
			winner    = rec.Column(gWinner).(*array.String)
			reason    = rec.Column(gReason).(*array.String)
			length    = rec.Column(gLength).(*array.Int32).Int32Values()
			seed      = rec.Column(gSeed).(*array.Uint64).Uint64Values()
			evaluator = newStringColumn(rec.Column(gEvaluator).(*array.String))
			startPos  = newStringColumn(rec.Column(gStart).(*array.String))
			attackerP = rec.Column(gAttackerPlayouts).(*array.Int32).Int32Values()
			defenderP = rec.Column(gDefenderPlayouts).(*array.Int32).Int32Values()
		)
		offs := listOffsets(moves)
		moveText := newStringColumn(move)
		allMoves := make([]string, offs[n]-offs[0])
		for i := range allMoves {
			allMoves[i] = moveText.value(int(offs[0]) + i)
		}
		if rows == nil {
			rows = make([]GameRow, 0, min(meta.Rows, len(data)/minRowBytes))
		}
		start := len(rows)
		for i := range n {
			g := GameRow{
				GameID:           gameID.value(i),
				RuleSet:          meta.Definition.Name,
				Length:           length[i],
				Seed:             seed[i],
				Evaluator:        evaluator.value(i),
				Start:            startPos.value(i),
				AttackerPlayouts: attackerP[i],
				DefenderPlayouts: defenderP[i],
			}
			if rs := ruleSet.Value(i); rs != meta.Definition.Name {
				return fmt.Errorf("row %d: rule set %q in a file of rule set %q", start+i, rs, meta.Definition.Name)
			}
			w, ok := winnerNames.lookup(winner.Value(i))
			if !ok {
				return fmt.Errorf("row %d: winner %q", start+i, winner.Value(i))
			}
			g.Winner = rules.Winner(w)
			why, ok := reasonNames.lookup(reason.Value(i))
			if !ok {
				return fmt.Errorf("row %d: reason %q", start+i, reason.Value(i))
			}
			g.Reason = rules.Reason(why)
			a, b := offs[i]-offs[0], offs[i+1]-offs[0]
			if a < b {
				g.Moves = allMoves[a:b:b]
			}
			if err := checkGame(&meta.Definition, &g); err != nil {
				return fmt.Errorf("row %d (game %q): %v", start+i, g.GameID, err)
			}
			rows = append(rows, g)
		}
		return nil
	})
	if err != nil {
		return nil, meta, err
	}
	return rows, meta, nil
}
