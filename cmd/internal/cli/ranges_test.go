package cli

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/datasets"
)

func TestCheckRanges(t *testing.T) {
	ranges := Ranges{
		"n":    IntRange(1, 10, ""),
		"w":    IntRange(0, MaxWorkers, "0: one per core"),
		"r":    {Min: 0, Max: 1},
		"seed": FullUint64,
		"d":    {Min: 0, Max: 60},
	}
	newSet := func() *flag.FlagSet {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 5, "")
		fs.Int("w", 0, "")
		fs.Float64("r", 0.5, "")
		fs.Uint64("seed", 1, "")
		fs.Duration("d", time.Second, "")
		fs.String("s", "", "")
		return fs
	}
	cases := []struct {
		args []string
		want string // "" for no error
	}{
		{nil, ""},
		{[]string{"-n", "1", "-n", "10", "-w", "256", "-r", "1", "-seed", "18446744073709551615", "-d", "60s"}, ""},
		{[]string{"-n", "11"}, "-n 11: out of range: want 1 to 10"},
		{[]string{"-n", "0"}, "-n 0: out of range: want 1 to 10"},
		{[]string{"-n", "4294967297"}, "-n 4294967297: out of range: want 1 to 10"},
		{[]string{"-w", "100000"}, "-w 100000: out of range: want 0 to 256; 0: one per core"},
		{[]string{"-r", "NaN"}, "-r NaN: out of range: want 0 to 1"},
		{[]string{"-r", "1.5"}, "-r 1.5: out of range: want 0 to 1"},
		{[]string{"-d", "61s"}, "-d 1m1s: out of range: want 0 to 60"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			fs := newSet()
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			err := CheckRanges(fs, ranges)
			if (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	t.Run("a numeric flag without a range", func(t *testing.T) {
		fs := newSet()
		fs.Int("new", 0, "")
		err := CheckRanges(fs, ranges)
		if want := "-new: no documented range"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	})
	t.Run("documented in the help", func(t *testing.T) {
		fs := newSet()
		DocumentRanges(fs, ranges)
		if got, want := fs.Lookup("w").Usage, "(range 0 to 256; 0: one per core)"; !strings.Contains(got, want) {
			t.Errorf("got usage %q, want it to hold %q", got, want)
		}
	})
	t.Run("out of range values", func(t *testing.T) {
		fs := newSet()
		got := OutOfRange(fs, ranges)
		want := []RangeCase{{"d", "61"}, {"d", "-1"}, {"n", "11"}, {"n", "0"}, {"r", "2"}, {"r", "-1"}, {"r", "NaN"},
			{"seed", "18446744073709551616"}, {"seed", "-1"}, {"w", "257"}, {"w", "-1"}}
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("case %d: got %v, want %v", i, got[i], want[i])
			}
		}
	})
}

func TestParsePlayerPlayoutRange(t *testing.T) {
	cases := []struct {
		spec string
		want string // "" for none
	}{
		{"builtin:playouts=16777216", ""},
		{"builtin:playouts=16777217", "playouts=16777217: want a whole number from 1 to 16777216"},
		{"builtin:playouts=3000000000", "playouts=3000000000: want a whole number from 1 to 16777216"},
		{"builtin:playouts=4294967297", "playouts=4294967297"},
		{"net=x.safetensors,playouts=3000000000", "playouts=3000000000"},
		{"builtin:playouts=0", "playouts=0"},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			_, err := ParsePlayer(c.spec)
			if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestOpeningsRandomRange(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	t.Run("Openings refuses plies out of range", func(t *testing.T) {
		if _, _, err := Openings("random", v, 2, 101, 1); err == nil || !strings.Contains(err.Error(), "want 0 to 100") {
			t.Errorf("got %v, want an error giving the range", err)
		}
	})
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFileLimit(path, 10); err != nil || string(data) != "0123456789" {
		t.Errorf("at the limit: got %q, %v, want the file", data, err)
	}
	if _, err := ReadFileLimit(path, 9); err == nil || !strings.Contains(err.Error(), path+": more than 9 bytes") {
		t.Errorf("past the limit: got %v, want an error naming the file and the limit", err)
	}
	if _, err := ReadFileLimit(filepath.Join(dir, "none"), 9); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: got %v, want os.ErrNotExist as os.ReadFile gives", err)
	}
	// ReadConfig refuses a config past the limit rather than reading it all.
	if _, err := ReadConfig("cmd", "/dev/zero", 0, func(string, []byte) (int, error) { return 1, nil }); err == nil ||
		!strings.Contains(err.Error(), "more than 67108864 bytes") {
		t.Errorf("ReadConfig(/dev/zero): got %v, want the size limit", err)
	}
}

// TestWriteFileAtomicRemovesStale: a temporary file that a killed writer
// left (issue 23 item 8) goes at the next write of the same file; a fresh
// one and another file's stay.
func TestWriteFileAtomicRemovesStale(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * datasets.StaleTempAge)
	files := map[string]bool{ // name: want it removed
		".best.json.tmp-123": true,
		".best.json.tmp-456": false, // fresh
		".other.json.tmp-7":  false, // another file's
	}
	for name, stale := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale || name == ".other.json.tmp-7" {
			os.Chtimes(path, old, old)
		}
	}
	if err := WriteFileAtomic(filepath.Join(dir, "best.json"), []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	for name, remove := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := err != nil; gone != remove {
			t.Errorf("%s: got removed %v, want %v", name, gone, remove)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "best.json")); err != nil || string(data) != "{}\n" {
		t.Errorf("got %q, %v, want the file written", data, err)
	}
}
