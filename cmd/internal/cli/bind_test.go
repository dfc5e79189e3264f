package cli

import (
	"bytes"
	"strings"
	"testing"
)

// config is a config the tests bind flags to.
type config struct {
	Games int
	Share float64
	Out   string
	Trace []string // the fields set, in order
}

func bindTestFlags(stderr *bytes.Buffer) (*Flags, *Binding[config]) {
	fs := NewFlags("cmd", "usage: cmd\n", stderr)
	b := Bind[config](fs)
	b.Int("games", 0, IntRange(1, 100, ""), "`number` of games", func(c *config, n int) { c.Games = n; c.Trace = append(c.Trace, "games") })
	b.Float64("share", 0, Range{Min: 0, Max: 1}, "a `share`", func(c *config, x float64) { c.Share = x; c.Trace = append(c.Trace, "share") })
	b.String("out", "", "a `folder`", func(c *config, s string) { c.Out = s; c.Trace = append(c.Trace, "out") })
	return fs, b
}

// TestBinding: the flags given set their fields, in the order declared,
// and the others keep the config's values; a value out of its range is
// refused naming the flag, and -h shows each range.
func TestBinding(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		code  int
		done  bool
		want  config
		error string
	}{
		{"none given", nil, 0, false, config{Games: 7, Share: 0.5, Out: "def"}, ""},
		{"some given", []string{"-out", "x", "-games", "3"}, 0, false, config{Games: 3, Share: 0.5, Out: "x", Trace: []string{"games", "out"}}, ""},
		{"out of range", []string{"-games", "101"}, 2, true, config{}, "cmd: -games 101: out of range: want 1 to 100"},
		{"NaN", []string{"-share", "NaN"}, 2, true, config{}, "cmd: -share NaN: out of range: want 0 to 1"},
		{"help", []string{"-h"}, 0, true, config{}, "(range 1 to 100)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			fs, b := bindTestFlags(&stderr)
			code, done := fs.Parse(c.args, nil, nil, &stderr, &stderr)
			if code != c.code || done != c.done {
				t.Fatalf("Parse: got %d, %v, want %d, %v (%s)", code, done, c.code, c.done, stderr.String())
			}
			if c.error != "" && !strings.Contains(stderr.String(), c.error) {
				t.Errorf("got %q, want it to hold %q", stderr.String(), c.error)
			}
			if done {
				return
			}
			got := config{Games: 7, Share: 0.5, Out: "def"}
			b.Apply(&got)
			if got.Games != c.want.Games || got.Share != c.want.Share || got.Out != c.want.Out || strings.Join(got.Trace, ",") != strings.Join(c.want.Trace, ",") {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			if r := FlagRanges["cmd"]["games"]; r != IntRange(1, 100, "") {
				t.Errorf("FlagRanges: got %v for -games, want its declared range", r)
			}
		})
	}
}

// TestParseUnchecked: a command that checks the ranges itself, after
// checks of its own, gets the flags parsed and the ranges' error later.
func TestParseUnchecked(t *testing.T) {
	var stderr bytes.Buffer
	fs, _ := bindTestFlags(&stderr)
	if code, done := fs.ParseUnchecked([]string{"-games", "0"}, nil, nil, &stderr, &stderr); code != 0 || done {
		t.Fatalf("got %d, %v, want the flags parsed", code, done)
	}
	if err := fs.CheckRanges(); err == nil || err.Error() != "-games 0: out of range: want 1 to 100" {
		t.Errorf("CheckRanges: got %v, want -games out of range", err)
	}
	fs.Document() // a second time: the help says each range once
	if usage := fs.Lookup("games").Usage; strings.Count(usage, "(range") != 1 {
		t.Errorf("got usage %q, want the range once", usage)
	}
}
