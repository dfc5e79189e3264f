package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"taflab/rules"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		def      rules.Definition
		games    int
		maxPlies int
	}{
		{"copenhagen", defCopenhagen, 6, 300},
		{"tablut", defTablut, 5, 200},
		{"brandubh", defBrandubh, 8, 100},
		{"no rows", defCopenhagen, 0, 0},
		{"games of no moves", defBrandubh, 3, 0},
		{"several batches", defBrandubh, 1400, 100}, // more than batchRows positions
	}
	dir := t.TempDir() // one directory: several rule sets in separate shards
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			positions, games := genShard(t, tt.def, tt.games, tt.maxPlies, uint64(i))
			if tt.name == "several batches" && len(positions) <= batchRows {
				t.Fatalf("got %d positions, want more than %d", len(positions), batchRows)
			}
			posPath, gamesPath := mustWriteShard(t, dir, ShardName(testTime(i), "test", i), tt.def, positions, games)

			gotPos, meta, err := ReadPositionsFile(posPath)
			if err != nil {
				t.Fatalf("ReadPositionsFile: %v", err)
			}
			if want := (Meta{SchemaVersion: SchemaVersion, Table: TablePositions, Definition: tt.def, Rows: len(positions)}); meta != want {
				t.Errorf("positions meta: got %+v, want %+v", meta, want)
			}
			if want := normalize(positions); !reflect.DeepEqual(gotPos, want) {
				t.Errorf("positions: got %d rows, want %d; first difference: %s", len(gotPos), len(want), firstDiff(gotPos, want))
			}

			gotGames, meta, err := ReadGamesFile(gamesPath)
			if err != nil {
				t.Fatalf("ReadGamesFile: %v", err)
			}
			if want := (Meta{SchemaVersion: SchemaVersion, Table: TableGames, Definition: tt.def, Rows: len(games)}); meta != want {
				t.Errorf("games meta: got %+v, want %+v", meta, want)
			}
			if want := normalizeGames(games); !reflect.DeepEqual(gotGames, want) {
				t.Errorf("games: got %v, want %v", gotGames, want)
			}
		})
	}
	t.Run("separate files", func(t *testing.T) {
		def := defTablut
		positions, games := genShard(t, def, 2, 50, 9)
		posPath := filepath.Join(dir, "loose.positions.arrow")
		gamesPath := filepath.Join(dir, "loose.games.arrow")
		for range 2 { // the second write overwrites
			if err := WritePositionsFile(posPath, def, positions); err != nil {
				t.Fatal(err)
			}
			if err := WriteGamesFile(gamesPath, def, games); err != nil {
				t.Fatal(err)
			}
		}
		gotPos, _, err := ReadPositionsFile(posPath)
		if err != nil || !reflect.DeepEqual(gotPos, normalize(positions)) {
			t.Errorf("positions: got %d rows (error %v), want %d: %s", len(gotPos), err, len(positions), firstDiff(gotPos, normalize(positions)))
		}
		gotGames, _, err := ReadGamesFile(gamesPath)
		if err != nil || !reflect.DeepEqual(gotGames, games) {
			t.Errorf("games: got %v (error %v), want %v", gotGames, err, games)
		}
	})
	for _, name := range listDir(t, dir) {
		if !strings.HasSuffix(name, ".arrow") {
			t.Errorf("got %s in the directory, want only .arrow files (no temporary files left)", name)
		}
	}
}

// TestNoLeaks checks that writing and reading release every Arrow buffer.
func TestNoLeaks(t *testing.T) {
	positions, games := genShard(t, defTablut, 3, 80, 3)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	pb, err := encodePositions(mem, defTablut, positions)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := encodeGames(mem, defTablut, games)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := decodePositions(pb, mem); err != nil {
		t.Fatal(err)
	}
	if _, _, err := decodeGames(gb, mem); err != nil {
		t.Fatal(err)
	}
	// A refused file releases what it had read too.
	bad := rewriteFile(t, pb, func(md map[string]string) { md[KeyRows] = "1" }, nil)
	if _, _, err := decodePositions(bad, mem); err == nil {
		t.Errorf("got no error for a wrong row count, want one")
	}
}

func TestSchemaMetadata(t *testing.T) {
	dir := t.TempDir()
	for i, def := range []rules.Definition{defCopenhagen, defTablut, defBrandubh} {
		t.Run(def.Name, func(t *testing.T) {
			positions, games := genShard(t, def, 1, 20, uint64(i))
			posPath, gamesPath := mustWriteShard(t, dir, "meta-"+def.Name, def, positions, games)
			for _, f := range []struct {
				path, table string
				rows        int
			}{{posPath, TablePositions, len(positions)}, {gamesPath, TableGames, len(games)}} {
				md := readMetadata(t, f.path)
				want := map[string]string{
					KeySchemaVersion: strconv.Itoa(SchemaVersion),
					KeyTable:         f.table,
					KeyRuleSet:       def.Name,
					KeyRows:          strconv.Itoa(f.rows),
				}
				for k, v := range want {
					if md[k] != v {
						t.Errorf("%s: metadata %s: got %q, want %q", f.table, k, md[k], v)
					}
				}
				for _, k := range []string{KeyMoveLayout, KeySquareLayout, KeyResult} {
					if !strings.Contains(md[k], "rank*11 + file") && k != KeyResult || md[k] == "" {
						t.Errorf("%s: metadata %s: got %q, want the layout in words", f.table, k, md[k])
					}
				}
				got, err := decodeDefinition(md[KeyDefinition])
				if err != nil {
					t.Fatalf("%s: decoding %s: %v", f.table, KeyDefinition, err)
				}
				if got != def {
					t.Errorf("%s: definition: got %+v, want %+v", f.table, got, def)
				}
				if !strings.Contains(md[KeyDefinition], "shieldwall = \""+def.Shieldwall.String()+"\"") {
					t.Errorf("%s: definition TOML %q: want the shieldwall rule by name", f.table, md[KeyDefinition])
				}
			}
		})
	}
}

// readMetadata reads a file's schema metadata with the Arrow library alone.
func readMetadata(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Schema().Metadata().ToMap()
}

func TestWriteRefuses(t *testing.T) {
	positions, games := genShard(t, defBrandubh, 2, 30, 5)
	badDef := defBrandubh
	badDef.Size = 8
	tests := []struct {
		name      string
		shard     string
		def       rules.Definition
		positions func([]PositionRow)
		games     func([]GameRow)
		want      string
	}{
		{name: "invalid definition", def: badDef, want: "size"},
		{name: "bad shard name", shard: "a/b", want: "shard name"},
		{name: "hidden shard name", shard: ".x", want: "shard name"},
		{name: "other rule set", positions: func(r []PositionRow) { r[3].RuleSet = "copenhagen" }, want: "position row 3"},
		{name: "other size", positions: func(r []PositionRow) { r[1].Position.Size = 9 }, want: "9x9"},
		{name: "king off the board", positions: func(r []PositionRow) { r[1].Position.King = rules.NewSquare(8, 2) }, want: "king"},
		{name: "piece off the board", positions: func(r []PositionRow) { r[2].Position.Attackers.Hi |= 1 << 60 }, want: "off the"},
		{name: "two pieces on a square", positions: func(r []PositionRow) { r[0].Position.Defenders = r[0].Position.Defenders.With(r[0].Position.King) }, want: "two pieces"},
		{name: "no move", positions: func(r []PositionRow) { r[0].Policy = []rules.MoveProb{{Move: rules.NoMove, Prob: 1}} }, want: "policy move"},
		{name: "diagonal move", positions: func(r []PositionRow) {
			r[0].Policy = []rules.MoveProb{{Move: rules.NewMove(rules.NewSquare(0, 0), rules.NewSquare(1, 1)), Prob: 1}}
		}, want: "policy move"},
		{name: "probability", positions: func(r []PositionRow) { r[0].Policy = []rules.MoveProb{{Move: rules.NewMove(3, 5), Prob: 1.5}} }, want: "probability"},
		{name: "root value", positions: func(r []PositionRow) { r[0].RootValue = 2 }, want: "root value"},
		{name: "result", positions: func(r []PositionRow) { r[0].Result = 2 }, want: "result"},
		{name: "empty game id", positions: func(r []PositionRow) { r[0].GameID = "" }, want: "game id"},
		{name: "game length", games: func(g []GameRow) { g[0].Length++ }, want: "length"},
		{name: "game move", games: func(g []GameRow) { g[1].Moves, g[1].Length = []string{"d1-z9"}, 1 }, want: "move 1"},
		{name: "game move off the board", games: func(g []GameRow) { g[1].Moves, g[1].Length = []string{"d1-d9"}, 1 }, want: "off the 7x7"},
		{name: "game rule set", games: func(g []GameRow) { g[1].RuleSet = "fetlar" }, want: "game row 1"},
		{name: "game start", games: func(g []GameRow) { g[0].Start = "3a3/zz" }, want: "start"},
		{name: "game start of another size", games: func(g []GameRow) {
			g[0].Start = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a"
		}, want: "11x11 board in a file of 7x7"},
		{name: "game playouts", games: func(g []GameRow) { g[1].DefenderPlayouts = -1 }, want: "playouts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := append([]PositionRow(nil), positions...)
			for i := range p {
				p[i].Policy = append([]rules.MoveProb(nil), p[i].Policy...)
			}
			g := append([]GameRow(nil), games...)
			if tt.positions != nil {
				tt.positions(p)
			}
			if tt.games != nil {
				tt.games(g)
			}
			def := defBrandubh
			if tt.def.Name != "" {
				def = tt.def
			}
			shard := "shard"
			if tt.shard != "" {
				shard = tt.shard
			}
			err := WriteShard(dir, shard, def, p, g)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "datasets: ") {
				t.Errorf("got error %v, want one starting \"datasets: \" and mentioning %q", err, tt.want)
			}
			if names := listDir(t, dir); len(names) != 0 {
				t.Errorf("got %v left in the directory, want nothing", names)
			}
		})
	}
	t.Run("existing shard", func(t *testing.T) {
		dir := t.TempDir()
		mustWriteShard(t, dir, "shard", defBrandubh, positions, games)
		err := WriteShard(dir, "shard", defBrandubh, positions, games)
		wantFileError(t, err, filepath.Join(dir, "shard"), "second write")
		if !strings.Contains(err.Error(), "already exists") {
			t.Errorf("got %v, want \"already exists\"", err)
		}
	})
}

func TestTruncated(t *testing.T) {
	dir := t.TempDir()
	positions, games := genShard(t, defBrandubh, 2, 40, 7)
	posPath, gamesPath := mustWriteShard(t, dir, "whole", defBrandubh, positions, games)
	for _, src := range []string{posPath, gamesPath} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		n := len(data)
		cuts := []int{0, 1, 5, 6, 8, 64, n / 3, n / 2, n - 100, n - 11, n - 10, n - 6, n - 1}
		for cut := 0; cut < n; cut += 97 {
			cuts = append(cuts, cut)
		}
		for _, cut := range cuts {
			t.Run(filepath.Base(src)+"/"+strconv.Itoa(cut), func(t *testing.T) {
				path := filepath.Join(dir, "cut"+strconv.Itoa(cut)+filepath.Base(src)[len("whole"):])
				if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
				var err error
				if strings.HasSuffix(src, PositionsSuffix) {
					_, _, err = ReadPositionsFile(path)
				} else {
					_, _, err = ReadGamesFile(path)
				}
				wantFileError(t, err, path, "truncated to "+strconv.Itoa(cut)+" bytes")
			})
		}
	}
}

// TestCorrupt flips bytes all over a file: each read must give an error
// (naming the file: some go through the file functions), and never panic. The checksum catches every flip; the
// "resealed" cases flip bytes of the record batch's body and then fix the
// checksum, as a faulty writer would, to exercise the checks behind it: the
// Arrow buffers' validation and the values' checks. They must give an error
// or rows that pass every check.
func TestCorrupt(t *testing.T) {
	dir := t.TempDir()
	positions, games := genShard(t, defBrandubh, 2, 12, 11)
	posPath, gamesPath := mustWriteShard(t, dir, "whole", defBrandubh, positions, games)
	for _, src := range []string{posPath, gamesPath} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		isPositions := strings.HasSuffix(src, PositionsSuffix)
		decode := func(data []byte) error {
			var err error
			if isPositions {
				_, _, err = decodePositions(data, memory.DefaultAllocator)
			} else {
				_, _, err = decodeGames(data, memory.DefaultAllocator)
			}
			return err
		}
		// The files named in errors: a few flips go through the file functions.
		path := filepath.Join(dir, "corrupt"+filepath.Base(src)[len("whole"):])
		readFile := func(t *testing.T, bad []byte, what string) {
			t.Helper()
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if isPositions {
				_, _, err = ReadPositionsFile(path)
			} else {
				_, _, err = ReadGamesFile(path)
			}
			wantFileError(t, err, path, what)
		}
		t.Run(filepath.Base(src), func(t *testing.T) {
			bad := make([]byte, len(data))
			for off := range data {
				for _, mask := range []byte{0x01, 0x80, 0xff} {
					copy(bad, data)
					bad[off] ^= mask
					if err := decode(bad); err == nil {
						t.Fatalf("byte %d ^ %#x: got no error, want one", off, mask)
					}
					if off%1000 == 0 {
						readFile(t, bad, "byte "+strconv.Itoa(off))
					}
				}
			}
		})
		t.Run(filepath.Base(src)+"/resealed", func(t *testing.T) {
			from, to := bodyRange(t, data)
			refused, accepted := 0, 0
			bad := make([]byte, len(data))
			for off := from; off < to; off++ {
				for _, mask := range []byte{0x01, 0x10, 0x80, 0xff} {
					copy(bad, data)
					bad[off] ^= mask
					resealChecksum(t, bad)
					if err := decode(bad); err != nil {
						refused++
						if refused%500 == 1 {
							readFile(t, bad, "resealed byte "+strconv.Itoa(off))
						}
					} else {
						accepted++
					}
				}
			}
			t.Logf("body bytes %d to %d: %d flips refused, %d read as rows that pass every check (padding, or values still in range)", from, to, refused, accepted)
			if refused == 0 {
				t.Errorf("got no flip refused, want the checks to catch some")
			}
		})
	}
}

// bodyRange returns the byte range of the body of the only record batch of
// an Arrow IPC file: after the batch's message, before the end-of-stream
// marker that precedes the footer.
func bodyRange(t *testing.T, data []byte) (int, int) {
	t.Helper()
	le := func(at int) int {
		return int(int32(uint32(data[at]) | uint32(data[at+1])<<8 | uint32(data[at+2])<<16 | uint32(data[at+3])<<24))
	}
	schemaEnd := fileHeaderLen + 8 + le(fileHeaderLen+4)
	batchMeta := le(schemaEnd + 4)
	from := schemaEnd + 8 + batchMeta
	to := len(data) - fileTrailerLen - le(len(data)-fileTrailerLen) - 8
	if from >= to {
		t.Fatalf("no body found: %d to %d", from, to)
	}
	return from, to
}

// resealChecksum writes a file's checksum anew after a change.
func resealChecksum(t *testing.T, data []byte) {
	t.Helper()
	spots, err := checksumSpots(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range spots {
		copy(data[at:], "00000000")
	}
	if err := seal(data); err != nil {
		t.Fatal(err)
	}
}

// rewriteFile returns an Arrow file with the batches of data under a schema
// changed by fields (the columns, nil for the same) and md (the metadata).
func rewriteFile(tb testing.TB, data []byte, md func(map[string]string), fields func([]arrow.Field) []arrow.Field) []byte {
	tb.Helper()
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	meta := r.Schema().Metadata().ToMap()
	meta[KeyChecksum] = checksumBlank
	md(meta)
	fs := r.Schema().Fields()
	if fields != nil {
		fs = fields(fs)
	}
	schema := arrow.NewSchema(fs, func() *arrow.Metadata { m := arrow.MetadataFrom(meta); return &m }())
	var out bytes.Buffer
	w, err := ipc.NewFileWriter(&out, ipc.WithSchema(schema))
	if err != nil {
		tb.Fatal(err)
	}
	if fields == nil {
		for i := range r.NumRecords() {
			rec, err := r.RecordBatch(i)
			if err != nil {
				tb.Fatal(err)
			}
			rec = array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())
			if err := w.Write(rec); err != nil {
				tb.Fatal(err)
			}
			rec.Release()
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if _, ok := meta[KeyChecksum]; ok {
		if err := seal(out.Bytes()); err != nil {
			tb.Fatal(err)
		}
	}
	return out.Bytes()
}

func TestRefusedFiles(t *testing.T) {
	dir := t.TempDir()
	positions, games := genShard(t, defTablut, 2, 30, 13)
	posPath, gamesPath := mustWriteShard(t, dir, "good", defTablut, positions, games)
	posData, err := os.ReadFile(posPath)
	if err != nil {
		t.Fatal(err)
	}
	gamesData, err := os.ReadFile(gamesPath)
	if err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer // the Arrow stream format, not the file format
	{
		r, err := ipc.NewFileReader(bytes.NewReader(posData))
		if err != nil {
			t.Fatal(err)
		}
		w := ipc.NewWriter(&stream, ipc.WithSchema(r.Schema()))
		rec, err := r.RecordBatch(0)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		w.Close()
		r.Close()
	}
	meta := func(f func(map[string]string)) []byte { return rewriteFile(t, posData, f, nil) }
	cols := func(f func([]arrow.Field) []arrow.Field) []byte {
		return rewriteFile(t, posData, func(map[string]string) {}, f)
	}
	tests := []struct {
		name  string
		data  []byte
		games bool // read with ReadGamesFile
		want  string
	}{
		{name: "empty file", data: nil, want: "not an Arrow IPC file"},
		{name: "text", data: []byte("game_id,ply\nx,1\n"), want: "not an Arrow IPC file"},
		{name: "Arrow stream format", data: stream.Bytes(), want: "not an Arrow IPC file"},
		{name: "magic only", data: []byte("ARROW1\x00\x00ARROW1"), want: "too short"},
		{name: "no checksum", data: meta(func(m map[string]string) { delete(m, KeyChecksum) }), want: "no taflab.checksum"},
		{name: "newer version", data: meta(func(m map[string]string) { m[KeySchemaVersion] = "4" }), want: `schema version "4", this build reads versions 2 to 3`},
		{name: "older version", data: meta(func(m map[string]string) { m[KeySchemaVersion] = "1" }), want: `schema version "1", this build reads versions 2 to 3`},
		{name: "version 2 with version 3's columns", data: meta(func(m map[string]string) { m[KeySchemaVersion] = "2" }), want: "17 columns, want 16"},
		{name: "version not a number", data: meta(func(m map[string]string) { m[KeySchemaVersion] = "one" }), want: "schema version"},
		{name: "no version", data: meta(func(m map[string]string) { delete(m, KeySchemaVersion) }), want: "not a taflab dataset file"},
		{name: "games file read as positions", data: gamesData, want: `table "games", want "positions"`},
		{name: "positions file read as games", data: posData, games: true, want: `table "positions", want "games"`},
		{name: "row count", data: meta(func(m map[string]string) { m[KeyRows] = "7" }), want: "the metadata says 7"},
		{name: "no definition", data: meta(func(m map[string]string) { delete(m, KeyDefinition) }), want: KeyDefinition},
		{name: "bad definition", data: meta(func(m map[string]string) { m[KeyDefinition] += "\nsize = 8\n" }), want: KeyDefinition},
		{name: "invalid definition", data: meta(func(m map[string]string) {
			m[KeyDefinition] = strings.Replace(m[KeyDefinition], "size = 9", "size = 8", 1)
		}), want: "size"},
		{name: "unknown definition key", data: meta(func(m map[string]string) { m[KeyDefinition] += "\nflying_king = true\n" }), want: "unknown key flying_king"},
		{name: "rule set name", data: meta(func(m map[string]string) { m[KeyRuleSet] = "fetlar" }), want: "fetlar"},
		{name: "wrong column type", data: cols(func(fs []arrow.Field) []arrow.Field {
			fs[pPly].Type = arrow.PrimitiveTypes.Int64
			return fs
		}), want: "column 1 is ply int64, want ply int32"},
		{name: "wrong policy type", data: cols(func(fs []arrow.Field) []arrow.Field {
			fs[pPolicy].Type = arrow.ListOf(arrow.StructOf(
				arrow.Field{Name: "move", Type: arrow.BinaryTypes.String},
				arrow.Field{Name: "prob", Type: arrow.PrimitiveTypes.Float32}))
			return fs
		}), want: "column 11 is policy"},
		{name: "renamed column", data: cols(func(fs []arrow.Field) []arrow.Field {
			fs[pKing].Name = "king_square"
			return fs
		}), want: "want king uint8"},
		{name: "missing column", data: cols(func(fs []arrow.Field) []arrow.Field { return fs[:len(fs)-1] }), want: "16 columns, want 17"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".arrow")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if tt.games {
				_, _, err = ReadGamesFile(path)
			} else {
				_, _, err = ReadPositionsFile(path)
			}
			wantFileError(t, err, path, tt.name)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %q, want one mentioning %q", err, tt.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(dir, "absent.positions.arrow")
		_, _, err := ReadPositionsFile(path)
		wantFileError(t, err, path, "missing file")
	})
}

// TestPositionColumnChecked changes the position text of a row: the reader
// compares it with the bitboards.
func TestPositionColumnChecked(t *testing.T) {
	positions, _ := genShard(t, defBrandubh, 1, 5, 17)
	data, err := encodePositions(memory.DefaultAllocator, defBrandubh, positions)
	if err != nil {
		t.Fatal(err)
	}
	text := positions[2].Position.String() // the start position's rows differ from it
	i := bytes.Index(data, []byte(text))
	if i < 0 {
		t.Fatalf("position %q not found in the file", text)
	}
	bad := bytes.Clone(data)
	bad[i+len(text)-1] ^= 'a' ^ 'd' // the side to move
	if _, _, err := decodePositions(bad, memory.DefaultAllocator); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("got error %v, want a checksum error", err)
	}
	resealChecksum(t, bad)
	_, _, err = decodePositions(bad, memory.DefaultAllocator)
	if err == nil || !strings.Contains(err.Error(), "does not match the bitboards") {
		t.Errorf("got error %v, want one saying the position does not match the bitboards", err)
	}
}

func TestAppendPosition(t *testing.T) {
	for _, def := range []rules.Definition{defCopenhagen, defTablut, defBrandubh} {
		positions, _ := genShard(t, def, 2, 60, 19)
		for _, r := range positions {
			if got, want := string(r.Position.AppendText(nil)), r.Position.String(); got != want {
				t.Fatalf("%s: got %q, want %q", def.Name, got, want)
			}
		}
	}
}

// firstDiff describes the first row where got and want differ.
func firstDiff(got, want []PositionRow) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return "row " + strconv.Itoa(i) + ": got " + describe(got[i]) + ", want " + describe(want[i])
		}
	}
	if len(got) != len(want) {
		return "lengths differ"
	}
	return "none"
}

func describe(r PositionRow) string {
	var b strings.Builder
	b.WriteString(r.GameID + " " + strconv.Itoa(int(r.Ply)) + " " + r.Position.String())
	for _, mp := range r.Policy {
		b.WriteString(" " + mp.Move.String() + "=" + strconv.FormatFloat(float64(mp.Prob), 'g', -1, 32))
	}
	return b.String()
}

// TestReadsVersion2: a positions file of schema version 2, which had no
// policy_surprise column, reads as the same rows with Surprise 0; version
// 3 keeps each row's surprise.
func TestReadsVersion2(t *testing.T) {
	dir := t.TempDir()
	positions, games := genShard(t, defTablut, 2, 30, 13)
	for i := range positions {
		positions[i].Surprise = float32(i%7) / 4
	}
	posPath, _ := mustWriteShard(t, dir, "v3", defTablut, positions, games)
	got, meta, err := ReadPositionsFile(posPath)
	if err != nil {
		t.Fatal(err)
	}
	if meta.SchemaVersion != SchemaVersion || !reflect.DeepEqual(got, positions) {
		t.Fatalf("version %d: the rows read back differ from those written", meta.SchemaVersion)
	}
	data, err := os.ReadFile(posPath)
	if err != nil {
		t.Fatal(err)
	}
	// The same file as version 2 wrote it: the metadata's version, and the
	// columns but the last.
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md := r.Schema().Metadata().ToMap()
	md[KeyChecksum], md[KeySchemaVersion] = checksumBlank, "2"
	schema := arrow.NewSchema(r.Schema().Fields()[:pSurprise], func() *arrow.Metadata { m := arrow.MetadataFrom(md); return &m }())
	var out bytes.Buffer
	w, err := ipc.NewFileWriter(&out, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.NumRecords() {
		rec, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		old := array.NewRecordBatch(schema, rec.Columns()[:pSurprise], rec.NumRows())
		if err := w.Write(old); err != nil {
			t.Fatal(err)
		}
		old.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := seal(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	v2 := filepath.Join(dir, "v2"+PositionsSuffix)
	if err := os.WriteFile(v2, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, meta, err = ReadPositionsFile(v2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range positions {
		positions[i].Surprise = 0
	}
	if meta.SchemaVersion != 2 || !reflect.DeepEqual(got, positions) {
		t.Errorf("version %d: got rows that differ from those written with no surprise", meta.SchemaVersion)
	}
}
