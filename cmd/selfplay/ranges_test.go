package main

import (
	"bytes"
	"context"
	"flag"
	"slices"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
)

// TestFlagRanges: every numeric flag of selfplay has a documented range
// (derived from the flag set itself), and refuses its maximum plus one and
// its minimum minus one (NaN too where it takes fractions) with exit status
// 2 and a message naming the flag, before any game.
func TestFlagRanges(t *testing.T) {
	var fs *flag.FlagSet
	cli.OnRanged = func(f *flag.FlagSet, _ cli.Ranges) { fs = f }
	var help bytes.Buffer
	code := run(context.Background(), []string{"-h"}, &help, &help)
	cli.OnRanged = nil
	if code != 0 || fs == nil {
		t.Fatalf("selfplay -h: got exit %d and flag set %v, want 0 and the flag set", code, fs)
	}
	ranges := cli.FlagRanges[fs.Name()]
	for _, f := range cli.NumericFlags(fs) {
		if _, ok := ranges[f]; !ok {
			t.Errorf("-%s: got no documented range, want one in cli.FlagRanges[%q]", f, fs.Name())
		}
	}
	follow := []string{"games-per-worker", "shard-games", "shard-seconds"}
	for _, c := range cli.OutOfRange(fs, ranges) {
		t.Run(c.Flag+"="+c.Value, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"-" + c.Flag + "=" + c.Value, "-out", dir}
			if slices.Contains(follow, c.Flag) {
				args = []string{"-" + c.Flag + "=" + c.Value, "-follow", dir}
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, &stdout, &stderr)
			// The config's own check may answer first, naming the key the
			// flag sets ("games = 0: want at least 1").
			msg := stderr.String()
			if code != 2 || !strings.Contains(msg, "-"+c.Flag) && !strings.Contains(msg, c.Flag+" = "+c.Value) {
				t.Errorf("selfplay %s: got exit %d and %q, want 2 and a message naming -%s", strings.Join(args, " "), code, msg, c.Flag)
			}
		})
	}
}

// TestFlagRangesReproductions: the inputs of issue 23.
func TestFlagRangesReproductions(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"playouts 2^32+1", []string{"-playouts", "4294967297", "-out", dir}, "playouts = 4294967297: want from 1 to 16777216"},
		{"workers 100000", []string{"-workers", "100000", "-out", dir}, "workers = 100000: want 0 (one per core) to 256"},
		{"follower workers 100000", []string{"-workers", "100000", "-follow", dir}, "-workers 100000: out of range: want 0 to 256"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("got exit %d and %q, want 2 and %q", code, stderr.String(), c.want)
			}
		})
	}
}
