package datasets

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"taflab/internal/tomlbound"
	"taflab/rules"
)

// zeros is /dev/zero in-process: zero bytes without end, counted.
type zeros struct{ read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.read += int64(len(p))
	return len(p), nil
}

func TestScanRecordLines(t *testing.T) {
	long := strings.Repeat("a", MaxRecordLineBytes)
	cases := []struct {
		name    string
		in      func() io.Reader
		lines   []string // the lines fn sees
		wantErr string   // "" for none
	}{
		{"lines", func() io.Reader { return strings.NewReader("a\nb\r\n\nc") }, []string{"a", "b", "", "c"}, ""},
		{"a line at the limit", func() io.Reader { return strings.NewReader(long + "\r\nb\n") }, []string{long, "b"}, ""},
		{"a line one past the limit", func() io.Reader { return strings.NewReader("x\n" + long + "a\n") }, []string{"x"},
			"datasets: f.csv: line 2: longer than 1048576 bytes, the most a game-record line may hold"},
		{"a last line past the limit, no newline", func() io.Reader { return strings.NewReader(long + "a") }, nil,
			"datasets: f.csv: line 1: longer than 1048576 bytes"},
		{"/dev/zero", func() io.Reader { return &zeros{} }, nil,
			"datasets: f.csv: line 1: longer than 1048576 bytes"},
		{"a read error", func() io.Reader { return io.MultiReader(strings.NewReader("x\n"), errReader{}) }, []string{"x"},
			"datasets: f.csv: line 2: disk on fire"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			in := c.in()
			err := ScanRecordLines(context.Background(), "f.csv", in, func(line int, text string) error {
				if line != len(got)+1 {
					t.Errorf("got line %d, want %d", line, len(got)+1)
				}
				got = append(got, text)
				return nil
			})
			if (err == nil) != (c.wantErr == "") || err != nil && !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("got error %v, want %q", err, c.wantErr)
			}
			if !slices.Equal(got, c.lines) {
				t.Errorf("got %d lines, want %d", len(got), len(c.lines))
			}
			if z, ok := in.(*zeros); ok && z.read > 2*MaxRecordLineBytes {
				t.Errorf("got %d bytes read, want at most %d", z.read, 2*MaxRecordLineBytes)
			}
		})
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestScanRecordLinesStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := ScanRecordLines(ctx, "f.csv", strings.NewReader(strings.Repeat("x\n", 1000)), func(line int, text string) error {
		if n++; n == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 10 {
		t.Errorf("got %v after %d lines, want context.Canceled after 10", err, n)
	}
}

func TestReadRecordsErrors(t *testing.T) {
	_, err := ReadRecords(context.Background(), "g.csv", strings.NewReader("d1-d3,0,0,White\nd1-d3 zz,0,0,White\n"))
	var re *rules.RecordError
	if !errors.As(err, &re) || re.Line != 2 || !strings.HasPrefix(err.Error(), "datasets: g.csv: rules: line 2, ply 2") {
		t.Errorf("got %v, want a *rules.RecordError of line 2 named datasets: g.csv: rules: line 2, ply 2", err)
	}
	v, err := rules.Compile(defCopenhagen)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParseRecordGames("g.csv", append([]byte("d1-d3,0,0,White\n"), bytes.Repeat([]byte{0}, MaxRecordLineBytes+1)...), v)
	if want := "datasets: g.csv: line 2: longer than 1048576 bytes"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		limit   int64
		wantErr string
	}{
		{10, ""},
		{9, path + ": more than 9 bytes, the most an Arrow file may hold"},
	}
	for _, c := range cases {
		data, err := ReadFileLimit(path, c.limit, "an Arrow file")
		if (err == nil) != (c.wantErr == "") || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("limit %d: got %v, want %q", c.limit, err, c.wantErr)
		}
		if err == nil && string(data) != "0123456789" {
			t.Errorf("limit %d: got %q, want the file", c.limit, data)
		}
	}
	if _, err := ReadFileLimit(filepath.Join(dir, "none"), 10, "an Arrow file"); !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "datasets: ") {
		t.Errorf("a missing file: got %v, want os.ErrNotExist with the package's prefix", err)
	}
}

// FuzzReadShard feeds the Arrow readers (positions and games) any bytes:
// they must answer with rows or an error, never panic, and return no more
// rows than the file's size allows. A mutated file whose checksum fields
// are intact is resealed, so that mutations reach the Arrow decoding rather
// than stopping at the checksum.
func FuzzReadShard(f *testing.F) {
	dir := f.TempDir()
	positions, games := genShard(f, defBrandubh, 2, 8, 3)
	posPath, gamesPath := mustWriteShard(f, dir, "seed", defBrandubh, positions, games)
	for _, p := range []string{posPath, gamesPath} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("ARROW1"))
	f.Add([]byte("ARROW1\x00\x00ARROW1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tries := [][]byte{data}
		if spots, err := checksumSpots(data); err == nil {
			sealed := bytes.Clone(data)
			for _, at := range spots {
				copy(sealed[at:], "00000000")
			}
			if seal(sealed) == nil {
				tries = append(tries, sealed)
			}
		}
		for _, d := range tries {
			rows, meta, err := decodePositions(d, memory.DefaultAllocator)
			if err == nil && (len(rows) != meta.Rows || len(rows) > len(d)/minRowBytes) {
				t.Errorf("positions: got %d rows of a %d-byte file (metadata %d), want the metadata's and at most %d", len(rows), len(d), meta.Rows, len(d)/minRowBytes)
			}
			grows, gmeta, err := decodeGames(d, memory.DefaultAllocator)
			if err == nil && (len(grows) != gmeta.Rows || len(grows) > len(d)/minRowBytes) {
				t.Errorf("games: got %d rows of a %d-byte file (metadata %d), want the metadata's and at most %d", len(grows), len(d), gmeta.Rows, len(d)/minRowBytes)
			}
		}
	})
}

// FuzzReadRecords feeds the game-record reader and the replay for training
// any text: records or an error naming the file, never a panic, every
// record's line within the text's lines and in order.
func FuzzReadRecords(f *testing.F) {
	f.Add("moves,attacker_captures,defender_captures,result\nd1-d3 e5-e2 f2-i2,0,0,Black\n")
	f.Add("h1-h3 f8-i8,0,0,Ongoing\r\n\r\na4-c4 d6-d3,0,0,Draw\n")
	f.Add("d1-d3 zz,0,0,White\n")
	f.Add("d1-d3 timeout,0,0,White,3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a\n")
	f.Add("a8-b8xb7,1,0,Black\n")
	v, err := rules.Compile(defCopenhagen)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		recs, err := ReadRecords(context.Background(), "f.csv", strings.NewReader(text))
		if err != nil && !strings.HasPrefix(err.Error(), "datasets: f.csv: ") {
			t.Errorf("got error %q, want one naming the file", err)
		}
		lines := strings.Count(text, "\n") + 1
		last := 0
		for _, r := range recs {
			if r.Line <= last || r.Line > lines {
				t.Errorf("got a record of line %d after line %d, want lines in order within %d", r.Line, last, lines)
			}
			last = r.Line
		}
		games, err := ParseRecordGames("f.csv", []byte(text), v)
		if err != nil && !strings.HasPrefix(err.Error(), "datasets: f.csv: ") {
			t.Errorf("got error %q, want one naming the file", err)
		}
		for _, g := range games {
			if len(g.Positions) != len(g.Moves) {
				t.Errorf("line %d: got %d positions and %d moves, want as many", g.Line, len(g.Positions), len(g.Moves))
			}
		}
	})
}

// TestCraftedLengths: a file whose checksum is valid but whose metadata
// gives a field a billion children (FuzzReadShard's find: the Arrow
// library made a slice of them, 168 GB, and the process died) is refused
// with an error, as are batch buffers past their block.
func TestCraftedLengths(t *testing.T) {
	dir := t.TempDir()
	positions, games := genShard(t, defBrandubh, 2, 8, 3)
	posPath, _ := mustWriteShard(t, dir, "seed", defBrandubh, positions, games)
	data, err := os.ReadFile(posPath)
	if err != nil {
		t.Fatal(err)
	}
	n := len(data)
	footerLen := int(int32(binary.LittleEndian.Uint32(data[n-10:])))
	footerAt := n - 10 - footerLen
	b := fb{data[footerAt : n-10]}
	root, _ := b.root()
	schema, _ := b.ref(root, 1)
	// The first field with children (the policy list), its children vector.
	childrenAt := 0
	b.tables(schema, 1, func(f int) error {
		if at, _ := b.ref(f, 5); at != 0 && childrenAt == 0 {
			if l, _ := b.u32(at); l > 0 {
				childrenAt = at
			}
		}
		return nil
	})
	if childrenAt == 0 {
		t.Fatal("no field with children in a positions file")
	}
	cases := []struct {
		name   string
		length uint32
	}{
		{"a billion children", 1 << 30},
		{"children past the footer", uint32(footerLen)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(data)
			binary.LittleEndian.PutUint32(bad[footerAt+childrenAt:], c.length)
			resealChecksum(t, bad)
			_, _, err := decodePositions(bad, memory.DefaultAllocator)
			if err == nil || !strings.Contains(err.Error(), "corrupt Arrow metadata") {
				t.Errorf("got %v, want an error of corrupt Arrow metadata", err)
			}
		})
	}
}

// lines is a reader of the same line without end.
type lines struct {
	line string
	off  int
}

func (l *lines) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], l.line[l.off:])
		n += c
		l.off = (l.off + c) % len(l.line)
	}
	return n, nil
}

// TestScanRecordLinesFileLimit: a file past MaxRecordFileBytes is refused
// at the line that crosses the limit, counted by the lines' own bytes (the
// scanner reads ahead of them), after every whole line before it.
func TestScanRecordLinesFileLimit(t *testing.T) {
	const lineBytes = 1001 // 1,000 bytes and "\n"
	crossing := MaxRecordFileBytes/lineBytes + 1
	seen := 0
	err := ScanRecordLines(context.Background(), "f.csv", &lines{line: strings.Repeat("d", lineBytes-1) + "\n"}, func(line int, text string) error {
		seen = line
		return nil
	})
	want := fmt.Sprintf("datasets: f.csv: line %d: past %d bytes", crossing, MaxRecordFileBytes)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	if seen != crossing-1 {
		t.Errorf("got %d lines handed over, want %d", seen, crossing-1)
	}
}

// TestReadRecordsLines: blank lines and a header on the first line are
// skipped, every record keeps its line, and the first line that is not a
// record is an error naming it.
func TestReadRecordsLines(t *testing.T) {
	cases := []struct {
		name      string
		text      string
		wantLines []int
		wantErr   string
	}{
		{"header and blank lines", "moves,attacker_captures,defender_captures,result\n\nd1-d3 e5-e2,0,0,Ongoing\n\r\nh1-h3,0,0,White\n", []int{3, 5}, ""},
		{"no header, CRLF", "d1-d3,0,0,Black\r\nh1-h3,0,0,White\r\n", []int{1, 2}, ""},
		{"empty", "", nil, ""},
		{"header later is a bad line", "d1-d3,0,0,Black\nmoves,attacker_captures,defender_captures,result\n", nil, "line 2, ply 1: bad move \"moves\""},
		{"bad move names line and ply", "d1-d3,0,0,Black\nd1-d3 e5-z9,0,0,White\n", nil, "line 2, ply 2:"},
		{"bad result", "d1-d3,0,0,Won\n", nil, "line 1: result"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := ReadRecords(context.Background(), "f.csv", strings.NewReader(c.text))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, r := range recs {
				lines = append(lines, r.Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(c.wantLines) {
				t.Errorf("got lines %v, want %v", lines, c.wantLines)
			}
		})
	}
}

// TestDefinitionTOMLBounds: a shard's rule-set metadata is TOML read
// within tomlbound's bounds: nested one past MaxDepth it is refused before
// the decoder, naming the bound (the reader of every TOML file refuses
// that: TestTOMLReadersRefuseDepth in the module's root).
func TestDefinitionTOMLBounds(t *testing.T) {
	deep := "name = " + strings.Repeat("{a = ", tomlbound.MaxDepth+1) + "1" + strings.Repeat("}", tomlbound.MaxDepth+1) + "\n"
	_, err := decodeDefinition(deep)
	if want := KeyDefinition + ": line 1: a value nested 17 deep"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want an error starting %q", err, want)
	}
}
