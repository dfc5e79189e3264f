package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
)

// evalFlagSets runs every subcommand but serve with -h and returns the flag
// sets they document ranges for, by name: the flags the class test tries
// come from the flag sets themselves.
func evalFlagSets(t *testing.T) map[string]*flag.FlagSet {
	t.Helper()
	sets := map[string]*flag.FlagSet{}
	cli.OnRanged = func(fs *flag.FlagSet, _ cli.Ranges) { sets[fs.Name()] = fs }
	defer func() { cli.OnRanged = nil }()
	for _, c := range subcommands {
		if c.name == "serve" {
			continue // another's: its ranges are its own
		}
		var out bytes.Buffer
		if code := run([]string{c.name, "-h"}, nil, &out, &out); code != 0 {
			t.Fatalf("eval %s -h: got exit %d, want 0 (%s)", c.name, code, out.String())
		}
		if sets["eval "+c.name] == nil {
			t.Errorf("eval %s: got no flag set with documented ranges, want one (cli.DocumentRanges)", c.name)
		}
	}
	return sets
}

// TestFlagRangesDocumented: every numeric flag of every subcommand has a
// range in cli.FlagRanges, every range is of a flag, and -h shows it.
func TestFlagRangesDocumented(t *testing.T) {
	sets := evalFlagSets(t)
	for name, fs := range sets {
		t.Run(name, func(t *testing.T) {
			ranges := cli.FlagRanges[name]
			numeric := cli.NumericFlags(fs)
			for _, f := range numeric {
				r, ok := ranges[f]
				if !ok {
					t.Errorf("-%s: got no documented range, want one in cli.FlagRanges[%q]", f, name)
					continue
				}
				if usage := fs.Lookup(f).Usage; !strings.Contains(usage, r.String()) {
					t.Errorf("-%s: got help %q, want it to give the range %q", f, usage, r.String())
				}
			}
			for f := range ranges {
				if !slices.Contains(numeric, f) {
					t.Errorf("cli.FlagRanges[%q][%q]: got a range of no numeric flag, want none", name, f)
				}
			}
		})
	}
}

// TestFlagRanges: every numeric flag of every subcommand refuses its
// maximum plus one and its minimum minus one (and NaN where it takes
// fractions) with exit status 2 and a message naming the flag, before any
// work.
func TestFlagRanges(t *testing.T) {
	sets := evalFlagSets(t)
	names := make([]string, 0, len(sets))
	for name := range sets {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		sub := strings.TrimPrefix(name, "eval ")
		for _, c := range cli.OutOfRange(sets[name], cli.FlagRanges[name]) {
			t.Run(sub+"/"+c.Flag+"="+c.Value, func(t *testing.T) {
				dir := t.TempDir()
				args := []string{sub, "-" + c.Flag + "=" + c.Value}
				switch sub { // what else the command needs, so that only the range can be wrong
				case "suite":
					args = append(args, "-variant", "fetlar", "-out", filepath.Join(dir, "s.txt"))
				case "match", "balance":
					args = append(args, "-out", dir)
				}
				var stdout, stderr bytes.Buffer
				code := run(args, strings.NewReader(""), &stdout, &stderr)
				if code != 2 || !strings.Contains(stderr.String(), "-"+c.Flag) {
					t.Errorf("eval %s: got exit %d and %q, want 2 and a message naming -%s", strings.Join(args, " "), code, stderr.String(), c.Flag)
				}
			})
		}
	}
}

// TestFlagRangesPlayouts: the playout counts that issue 23 found wrapping
// to 32 bits are refused with the range, in flags and in player specs.
func TestFlagRangesPlayouts(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"analyze 2^31", []string{"analyze", "-net", "x.safetensors", "-playouts", "2147483648"}, "-playouts 2147483648: out of range: want 0 to 16777216"},
		{"analyze 2^32+1", []string{"analyze", "-net", "x.safetensors", "-playouts", "4294967297"}, "-playouts 4294967297: out of range"},
		{"fit", []string{"fit", "-records", "x.csv", "-search-playouts", "3000000000"}, "-search-playouts 3000000000: out of range"},
		{"match builtin", []string{"match", "-a", "builtin:playouts=3000000000", "-b", "builtin", "-out", dir}, "playouts=3000000000: want a whole number from 1 to 16777216"},
		{"match 2^32+1", []string{"match", "-a", "builtin", "-b", "builtin:playouts=4294967297", "-out", dir}, "playouts=4294967297"},
		{"balance strengths", []string{"balance", "-strengths", "50,3000000000", "-out", dir}, "-strengths"},
		{"match odds", []string{"match", "-a", "builtin", "-b", "builtin:playouts=100000", "-odds", "2,200", "-out", dir}, "-odds 2,200: 200 times B's 100000 playouts"},
		{"match workers", []string{"match", "-a", "builtin", "-b", "builtin", "-workers", "100000", "-out", dir}, "-workers 100000: out of range: want 0 to 256"},
		{"match opening plies", []string{"match", "-a", "builtin", "-b", "builtin", "-openings", "random", "-opening-plies", "5000", "-out", dir}, "-opening-plies 5000: out of range: want 0 to 100"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, nil, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("got exit %d and %q, want 2 and %q", code, stderr.String(), c.want)
			}
		})
	}
}
