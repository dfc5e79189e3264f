package datasets

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/apache/arrow-go/v18/arrow"

	"taflab/internal/tomlbound"
	"taflab/rules"
)

// SchemaVersion is the version of the file layout this build writes. Raise
// it on any change to the columns, their meaning or the metadata.
const SchemaVersion = 3

// OldestSchemaVersion is the oldest version this build reads: version 2,
// whose positions table lacks policy_surprise (read as 0, unknown).
const OldestSchemaVersion = 2

// File name endings of a shard's two files.
const (
	PositionsSuffix = ".positions.arrow"
	GamesSuffix     = ".games.arrow"
)

// Tables named by the KeyTable metadata entry.
const (
	TablePositions = "positions"
	TableGames     = "games"
)

// Schema metadata keys.
const (
	KeySchemaVersion = "taflab.schema_version"      // SchemaVersion in decimal
	KeyTable         = "taflab.table"               // TablePositions or TableGames
	KeyRuleSet       = "taflab.rule_set"            // the rule set's name
	KeyDefinition    = "taflab.rule_set_definition" // the rules.Definition as TOML
	KeyRows          = "taflab.rows"                // the number of rows in decimal
	KeyMoveLayout    = "taflab.move_layout"         // the move encoding in words
	KeySquareLayout  = "taflab.square_layout"       // the square and bitboard layout in words
	KeyResult        = "taflab.result"              // the result and value columns in words
)

var (
	moveLayout = fmt.Sprintf("policy.move is a uint16: bits 0-7 the from-square, bits 8-15 the to-square; "+
		"square index = rank*%d + file, from 0 (a1 = 0, b1 = 1, a2 = %d)", rules.MaxSize, rules.MaxSize)
	squareLayout = fmt.Sprintf("square index = rank*%d + file, from 0 (a1 = 0, b1 = 1, a2 = %d), on every board size; "+
		"a bitboard is 128 bits, *_lo holding bits 0-63 and *_hi bits 64-127; bit i is the square with index i; "+
		"king is the king's square index", rules.MaxSize, rules.MaxSize)
	resultLayout = "result: the game's final result for the side to move, +1 win, 0 draw, -1 loss; " +
		"root_value: the search's value of the position for the side to move, from -1 to +1; " +
		"policy.prob: the search's visit share of the move; full_search: whether the search had its full budget; " +
		"policy_surprise: the policy target's KL divergence from the network's prior at the root, in nats (0: not known)"
)

// Column indices of the positions table.
const (
	pGameID = iota
	pPly
	pRuleSet
	pSideToMove
	pAttackersLo
	pAttackersHi
	pDefendersLo
	pDefendersHi
	pKing
	pBoardSize
	pPosition
	pPolicy
	pFullSearch
	pRootValue
	pResult
	pReason
	pSurprise // from version 3
	pColumns
)

// Column indices of the games table.
const (
	gGameID = iota
	gRuleSet
	gMoves
	gWinner
	gReason
	gLength
	gSeed
	gEvaluator
	gStart
	gAttackerPlayouts
	gDefenderPlayouts
	gColumns
)

var (
	policyEntryType = arrow.StructOf(
		arrow.Field{Name: "move", Type: arrow.PrimitiveTypes.Uint16},
		arrow.Field{Name: "prob", Type: arrow.PrimitiveTypes.Float32},
	)
	positionFields = []arrow.Field{
		pGameID:      {Name: "game_id", Type: arrow.BinaryTypes.String},
		pPly:         {Name: "ply", Type: arrow.PrimitiveTypes.Int32},
		pRuleSet:     {Name: "rule_set", Type: arrow.BinaryTypes.String},
		pSideToMove:  {Name: "side_to_move", Type: arrow.BinaryTypes.String},
		pAttackersLo: {Name: "attackers_lo", Type: arrow.PrimitiveTypes.Uint64},
		pAttackersHi: {Name: "attackers_hi", Type: arrow.PrimitiveTypes.Uint64},
		pDefendersLo: {Name: "defenders_lo", Type: arrow.PrimitiveTypes.Uint64},
		pDefendersHi: {Name: "defenders_hi", Type: arrow.PrimitiveTypes.Uint64},
		pKing:        {Name: "king", Type: arrow.PrimitiveTypes.Uint8},
		pBoardSize:   {Name: "board_size", Type: arrow.PrimitiveTypes.Uint8},
		pPosition:    {Name: "position", Type: arrow.BinaryTypes.String},
		pPolicy:      {Name: "policy", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: policyEntryType})},
		pFullSearch:  {Name: "full_search", Type: arrow.FixedWidthTypes.Boolean},
		pRootValue:   {Name: "root_value", Type: arrow.PrimitiveTypes.Float32},
		pResult:      {Name: "result", Type: arrow.PrimitiveTypes.Int8},
		pReason:      {Name: "reason", Type: arrow.BinaryTypes.String},
		pSurprise:    {Name: "policy_surprise", Type: arrow.PrimitiveTypes.Float32},
	}
	gameFields = []arrow.Field{
		gGameID:           {Name: "game_id", Type: arrow.BinaryTypes.String},
		gRuleSet:          {Name: "rule_set", Type: arrow.BinaryTypes.String},
		gMoves:            {Name: "moves", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.BinaryTypes.String})},
		gWinner:           {Name: "winner", Type: arrow.BinaryTypes.String},
		gReason:           {Name: "reason", Type: arrow.BinaryTypes.String},
		gLength:           {Name: "length", Type: arrow.PrimitiveTypes.Int32},
		gSeed:             {Name: "seed", Type: arrow.PrimitiveTypes.Uint64},
		gEvaluator:        {Name: "evaluator", Type: arrow.BinaryTypes.String},
		gStart:            {Name: "start", Type: arrow.BinaryTypes.String},
		gAttackerPlayouts: {Name: "attacker_playouts", Type: arrow.PrimitiveTypes.Int32},
		gDefenderPlayouts: {Name: "defender_playouts", Type: arrow.PrimitiveTypes.Int32},
	}
)

func init() {
	if len(positionFields) != pColumns || len(gameFields) != gColumns {
		panic("datasets: column tables out of step")
	}
}

// Meta is what a file's schema metadata says.
type Meta struct {
	SchemaVersion int              // from OldestSchemaVersion to SchemaVersion for a file that was read
	Table         string           // TablePositions or TableGames
	Definition    rules.Definition // the rule set of every row; its Name is the rows' RuleSet
	Rows          int              // the number of rows
}

// newSchema returns the schema of a table with its metadata.
func newSchema(table string, def rules.Definition, rows int) (*arrow.Schema, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(def); err != nil {
		return nil, fmt.Errorf("encoding rule set %q as TOML: %w", def.Name, err)
	}
	md := arrow.NewMetadata(
		[]string{KeySchemaVersion, KeyTable, KeyRuleSet, KeyDefinition, KeyRows, KeyMoveLayout, KeySquareLayout, KeyResult, KeyChecksum},
		[]string{strconv.Itoa(SchemaVersion), table, def.Name, buf.String(), strconv.Itoa(rows), moveLayout, squareLayout, resultLayout, checksumBlank},
	)
	fields := positionFields
	if table == TableGames {
		fields = gameFields
	}
	return arrow.NewSchema(fields, &md), nil
}

// checkSchema checks a file's schema against the table's and decodes its
// metadata. The version is checked first, so that a file of another version
// is reported as such rather than as a column mismatch.
func checkSchema(s *arrow.Schema, table string) (Meta, error) {
	var meta Meta
	md := s.Metadata()
	v, ok := md.GetValue(KeySchemaVersion)
	if !ok {
		return meta, fmt.Errorf("no %s in the schema metadata: not a taflab dataset file", KeySchemaVersion)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < OldestSchemaVersion || n > SchemaVersion {
		return meta, fmt.Errorf("schema version %q, this build reads versions %d to %d", v, OldestSchemaVersion, SchemaVersion)
	}
	meta.SchemaVersion = n
	meta.Table, _ = md.GetValue(KeyTable)
	if meta.Table != table {
		return meta, fmt.Errorf("table %q, want %q", meta.Table, table)
	}
	want := positionFields
	if n == 2 {
		want = positionFields[:pSurprise] // version 2 had no surprise
	}
	if table == TableGames {
		want = gameFields
	}
	if s.NumFields() != len(want) {
		return meta, fmt.Errorf("%d columns, want %d (%s)", s.NumFields(), len(want), fieldNames(want))
	}
	for i, f := range s.Fields() {
		if f.Name != want[i].Name || !arrow.TypeEqual(f.Type, want[i].Type) {
			return meta, fmt.Errorf("column %d is %s %s, want %s %s", i, f.Name, f.Type, want[i].Name, want[i].Type)
		}
	}
	text, ok := md.GetValue(KeyDefinition)
	if !ok {
		return meta, fmt.Errorf("no %s in the schema metadata", KeyDefinition)
	}
	if meta.Definition, err = decodeDefinition(text); err != nil {
		return meta, err
	}
	if name, _ := md.GetValue(KeyRuleSet); name != meta.Definition.Name {
		return meta, fmt.Errorf("%s is %q but the definition's name is %q", KeyRuleSet, name, meta.Definition.Name)
	}
	rows, _ := md.GetValue(KeyRows)
	if meta.Rows, err = strconv.Atoi(rows); err != nil || meta.Rows < 0 {
		return meta, fmt.Errorf("%s = %q: want a row count", KeyRows, rows)
	}
	return meta, nil
}

// decodeDefinition reads a rule set definition written by newSchema,
// refusing unknown keys and invalid definitions.
func decodeDefinition(text string) (rules.Definition, error) {
	var def rules.Definition
	md, err := tomlbound.Decode([]byte(text), &def)
	if err != nil {
		return def, fmt.Errorf("%s: %v", KeyDefinition, err)
	}
	if extra := md.Undecoded(); len(extra) > 0 {
		return def, fmt.Errorf("%s: unknown key %s", KeyDefinition, extra[0])
	}
	if err := def.Validate(); err != nil {
		return def, fmt.Errorf("%s: %v", KeyDefinition, err)
	}
	return def, nil
}

func fieldNames(fs []arrow.Field) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
