package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
)

// TestFlagRanges: every numeric flag of train and its subcommands has a
// documented range (derived from the flag sets themselves), and refuses its
// maximum plus one and its minimum minus one (NaN too where it takes
// fractions) with exit status 2 and a message naming the flag, before any
// work.
func TestFlagRanges(t *testing.T) {
	for _, cmd := range [][]string{nil, {"loop"}, {"export"}, {"adapt"}} {
		var fs *flag.FlagSet
		cli.OnRanged = func(f *flag.FlagSet, _ cli.Ranges) { fs = f }
		var help bytes.Buffer
		code := run(context.Background(), append(cmd, "-h"), &help, &help)
		cli.OnRanged = nil
		if code != 0 {
			t.Fatalf("train %v -h: got exit %d, want 0", cmd, code)
		}
		if fs == nil {
			t.Fatalf("train %v -h: got no flag set with documented ranges, want one", cmd)
		}
		ranges := cli.FlagRanges[fs.Name()]
		for _, f := range cli.NumericFlags(fs) {
			if _, ok := ranges[f]; !ok {
				t.Errorf("%s -%s: got no documented range, want one in cli.FlagRanges", fs.Name(), f)
			}
		}
		for _, c := range cli.OutOfRange(fs, ranges) {
			t.Run(fs.Name()+"/"+c.Flag+"="+c.Value, func(t *testing.T) {
				dir := t.TempDir()
				args := append(append([]string{}, cmd...), "-"+c.Flag+"="+c.Value)
				if len(cmd) == 0 {
					args = append(args, "-out", dir)
				} else {
					args = append(args, "-run", dir)
				}
				var stdout, stderr bytes.Buffer
				code := run(context.Background(), args, &stdout, &stderr)
				if code != 2 || !strings.Contains(stderr.String(), "-"+c.Flag) {
					t.Errorf("train %s: got exit %d and %q, want 2 and a message naming -%s", strings.Join(args, " "), code, stderr.String(), c.Flag)
				}
			})
		}
	}
}
