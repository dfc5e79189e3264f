package cli

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"taflab/internal/tomlbound"
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
	cases := []rangeCase{
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
	checkRangeCases(t, newSet, ranges, cases)
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

// TestOpenRange: a range's open end is refused, named in the help and
// the error, and tried by OutOfRange; a closed end beside it is taken.
func TestOpenRange(t *testing.T) {
	ranges := Ranges{
		"p": {Min: 0, Max: 1, MinOpen: true, MaxOpen: true},
		"q": {Min: 0, Max: 100, MinOpen: true, Note: "at most -r"},
		"r": {Min: 0, Max: 100, MaxOpen: true},
	}
	newSet := func() *flag.FlagSet {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Float64("p", 0.5, "")
		fs.Float64("q", 5, "")
		fs.Float64("r", 5, "")
		return fs
	}
	cases := []rangeCase{
		{[]string{"-p", "0.001", "-q", "100", "-r", "0"}, ""},
		{[]string{"-p", "0.999"}, ""},
		{[]string{"-p", "0"}, "-p 0: out of range: want 0 to 1; strictly between the two"},
		{[]string{"-p", "1"}, "-p 1: out of range: want 0 to 1; strictly between the two"},
		{[]string{"-p", "NaN"}, "-p NaN: out of range: want 0 to 1; strictly between the two"},
		{[]string{"-q", "0"}, "-q 0: out of range: want 0 to 100; more than 0; at most -r"},
		{[]string{"-r", "100"}, "-r 100: out of range: want 0 to 100; less than 100"},
	}
	checkRangeCases(t, newSet, ranges, cases)
	t.Run("documented in the help", func(t *testing.T) {
		fs := newSet()
		DocumentRanges(fs, ranges)
		if got, want := fs.Lookup("p").Usage, "(range 0 to 1; strictly between the two)"; !strings.Contains(got, want) {
			t.Errorf("got usage %q, want it to hold %q", got, want)
		}
	})
	t.Run("out of range values", func(t *testing.T) {
		got := OutOfRange(newSet(), ranges)
		want := []RangeCase{{"p", "2"}, {"p", "-1"}, {"p", "1"}, {"p", "0"}, {"p", "NaN"},
			{"q", "101"}, {"q", "-1"}, {"q", "0"}, {"q", "NaN"}, {"r", "101"}, {"r", "-1"}, {"r", "100"}, {"r", "NaN"}}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
}

// rangeCase is a command line and the error CheckRanges must give for it
// ("" for none).
type rangeCase struct {
	args []string
	want string
}

// checkRangeCases parses each case's arguments into a new set and checks
// CheckRanges' error against the case's.
func checkRangeCases(t *testing.T, newSet func() *flag.FlagSet, ranges Ranges, cases []rangeCase) {
	t.Helper()
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
}

func TestReadConfigLimit(t *testing.T) {
	// ReadConfig refuses a config past the TOML bound rather than reading
	// it all, and a device at once.
	big := filepath.Join(t.TempDir(), "big.toml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(tomlbound.MaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct{ file, want string }{
		{big, "more than 1048576 bytes, the most a TOML config file may hold"},
		{"/dev/zero", "/dev/zero: a device, not a regular file"},
	} {
		if _, err := ReadConfig("cmd", c.file, 0, func(string, []byte) (int, error) { return 1, nil }); err == nil ||
			!strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadConfig(%s): got %v, want %q", c.file, err, c.want)
		}
	}
}
