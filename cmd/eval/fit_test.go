package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/internal/nettest"
)

// fitGames are three short openings of the archive: 3, 4 and 3 moves.
var fitGames = []string{
	"d1-d3 e5-e2 f2-i2,0,0,Black",
	"h1-h3 f8-i8 f10-i10 d6-d3,0,0,White",
	"b6-b10 f4-c4 a4-b4,0,0,Ongoing",
}

// writeFitFile writes lines as a file in a new temporary folder.
func writeFitFile(t *testing.T, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fitRecords writes 20 records: line i is fitGames[i%3].
func fitRecords(t *testing.T) string {
	t.Helper()
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, fitGames[i%3])
	}
	return writeFitFile(t, "games.csv", lines...)
}

// runFitCmd runs eval fit and decodes its report strictly.
func runFitCmd(t *testing.T, args ...string) (int, *fitOutput, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"fit"}, args...), nil, &stdout, &stderr)
	if code != 0 {
		return code, nil, stderr.String()
	}
	var out fitOutput
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("got %q on standard output, want one JSON report: %v", stdout.String(), err)
	}
	if dec.More() {
		t.Errorf("got more than one JSON value on standard output")
	}
	return code, &out, stderr.String()
}

func TestFit(t *testing.T) {
	records, network := fitRecords(t), nettest.TinyFile(t, 1)
	cases := []struct {
		name               string
		args               []string
		games, positions   int
		label              string
		predictors         []string
		valueLossPredictor int // index of the one with a value, or -1
	}{
		// Held out: lines 10 and 20, fitGames[1] and [2].
		{"heldout", []string{"-search-playouts", "8"}, 2, 7, "held-out",
			[]string{"uniform", "builtin:playouts=8"}, -1},
		// Every 5th: lines 5, 10, 15, 20: 3+4+3+3 moves.
		{"heldout every 5", []string{"-holdout-every", "5", "-search-playouts", "0", "-net", network}, 4, 13, "held-out",
			[]string{"uniform", "net-"}, 1},
		// All: 6 of fitGames[0], 7 of [1] and 7 of [2], 67 moves; training
		// leaves out the held-out 7.
		{"train", []string{"-split", "train", "-search-playouts", "0"}, 18, 60, "training records",
			[]string{"uniform"}, -1},
		{"all", []string{"-split", "all", "-search-playouts", "4", "-workers", "3", "-net", network}, 20, 67, "all records",
			[]string{"uniform", "builtin:playouts=4", "net-"}, 2},
		// -holdout-every 0 (as records.holdout_every = 0) holds none out:
		// training has every record.
		{"train, none held out", []string{"-split", "train", "-holdout-every", "0", "-search-playouts", "0"}, 20, 67, "training records",
			[]string{"uniform"}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runFitCmd(t, append([]string{"-records", records}, c.args...)...)
			if code != 0 {
				t.Fatalf("got exit %d, want 0: %s", code, stderr)
			}
			if out.Games != c.games || out.Positions != c.positions {
				t.Errorf("got %d games, %d positions, want %d, %d", out.Games, out.Positions, c.games, c.positions)
			}
			if out.Variant != "copenhagen-classic" || out.Records != records {
				t.Errorf("got variant %q, records %q, want copenhagen-classic, %q", out.Variant, out.Records, records)
			}
			if len(out.Predictors) != len(c.predictors) {
				t.Fatalf("got %d predictors, want %v", len(out.Predictors), c.predictors)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != len(c.predictors) {
				t.Errorf("got %q on standard error, want one line per predictor", stderr)
			}
			for i, p := range out.Predictors {
				if !strings.HasPrefix(p.Name, c.predictors[i]) {
					t.Errorf("got predictor %q, want %q", p.Name, c.predictors[i])
				}
				if p.Top1.Mean > p.Top5.Mean || p.Top1.Positions != c.positions {
					t.Errorf("%s: got top-1 %+v, top-5 %+v, want top-1 at most top-5, over %d positions", p.Name, p.Top1, p.Top5, c.positions)
				}
				if (p.ValueLogLoss != nil) != (i == c.valueLossPredictor) {
					t.Errorf("%s: got value log loss %v, want one only for the network", p.Name, p.ValueLogLoss)
				}
				want := fmt.Sprintf("eval fit: %s (%s, %d positions of %d games): top-1 ", p.Name, c.label, c.positions, c.games)
				if i < len(lines) && !strings.HasPrefix(lines[i], want) {
					t.Errorf("got line %q, want one that starts %q", lines[i], want)
				}
				if i == c.valueLossPredictor && i < len(lines) && !strings.Contains(lines[i], "value log loss") {
					t.Errorf("got line %q, want the value log loss in it", lines[i])
				}
			}
		})
	}
}

func TestFitBadInput(t *testing.T) {
	records, network := fitRecords(t), nettest.TinyFile(t, 1)
	badLine := writeFitFile(t, "bad.csv", fitGames[0], "d1-d3 e5-e2 d1-d4,0,0,Black")
	three := writeFitFile(t, "three.csv", fitGames...)
	garbage := writeFitFile(t, "garbage.safetensors", "not a network")
	missing := filepath.Join(t.TempDir(), "none.csv")
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"empty records", []string{"-records", ""}, 2, []string{"-records is empty", "archive:copenhagen"}},
		{"unknown flag", []string{"-records", records, "-bogus"}, 2, []string{"-bogus"}},
		{"stray argument", []string{"-records", records, "extra"}, 2, []string{`"extra"`}},
		{"bad split", []string{"-records", records, "-split", "test"}, 2, []string{"-split", "test"}},
		// As records.holdout_every: 1 would hold every record out.
		{"holdout 1", []string{"-records", records, "-holdout-every", "1"}, 2, []string{"-holdout-every 1", "0 (none held out) or 2 or more"}},
		{"negative holdout", []string{"-records", records, "-holdout-every", "-3"}, 2, []string{"-holdout-every -3"}},
		// 0 holds none out: the held-out split is empty.
		{"holdout 0, heldout", []string{"-records", records, "-holdout-every", "0"}, 2, []string{"-split heldout", "-holdout-every 0"}},
		{"bad playouts", []string{"-records", records, "-search-playouts", "-1"}, 2, []string{"-search-playouts"}},
		{"bad workers", []string{"-records", records, "-workers", "-2"}, 2, []string{"-workers"}},
		{"not a number", []string{"-records", records, "-workers", "two"}, 2, []string{"-workers"}},
		{"unknown rule set", []string{"-records", records, "-variant", "chess"}, 2, []string{"-variant", "chess"}},
		{"missing records", []string{"-records", missing}, 2, []string{"-records", "none.csv"}},
		{"bad record", []string{"-records", badLine}, 2, []string{"bad.csv", "line 2", "ply 3", "d1-d4"}},
		{"empty split", []string{"-records", three}, 2, []string{"-split heldout", "3 records"}},
		{"missing network", []string{"-records", records, "-net", filepath.Join(t.TempDir(), "none.safetensors")}, 2, []string{"-net", "none.safetensors"}},
		{"not a network", []string{"-records", records, "-net", garbage}, 2, []string{"-net", "garbage.safetensors"}},
		{"network on 7x7", []string{"-records", records, "-net", network, "-variant", writeFitFile(t, "small.toml", smallVariant(t))}, 2, []string{"-variant", "11x11"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runFitCmd(t, c.args...)
			if code != c.code {
				t.Errorf("got exit %d, want %d: %s", code, c.code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("got %q, want a message naming %q", stderr, w)
				}
			}
			if strings.Contains(stderr, "panic") {
				t.Errorf("got %q, want no panic", stderr)
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"fit", "-h"}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "usage: eval fit") || !strings.Contains(stderr.String(), "-search-playouts") {
			t.Errorf("got exit %d and %q, want 0 and the help with the flags", code, stderr.String())
		}
		stdout.Reset()
		if run([]string{"-h"}, nil, &stdout, &stderr); !strings.Contains(stdout.String(), "fit ") {
			t.Errorf("got %q, want fit among the subcommands", stdout.String())
		}
	})
}

// smallVariant is a 7x7 rule set, which the network cannot play.
func smallVariant(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../configs/variants/copenhagen-classic.toml")
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(`name = "copenhagen-classic"`, `name = "small"`, "size = 11", "size = 7",
		"3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a", "7/7/7/1d1k3/7/7/1ad4 a").Replace(string(data))
}

// TestFitHumanGames measures the baselines on the held-out games of the
// human archive that ships inside taflab, which eval fit reads when no
// -records is given: people's moves are far from random, and even a short
// search finds several times more of them than chance.
func TestFitHumanGames(t *testing.T) {
	code, out, stderr := runFitCmd(t, "-search-playouts", "32")
	if code != 0 {
		t.Fatalf("got exit %d, want 0: %s", code, stderr)
	}
	if out.Games != 87 || out.Positions < 4000 || out.GamesWithResult == 0 {
		t.Errorf("got %d games, %d positions, %d with a result, want the 87 held-out games of the archive", out.Games, out.Positions, out.GamesWithResult)
	}
	uniform, search := out.Predictors[0], out.Predictors[1]
	if uniform.Name != "uniform" || search.Name != "builtin:playouts=32" {
		t.Fatalf("got predictors %q and %q, want uniform and builtin:playouts=32", uniform.Name, search.Name)
	}
	if !(uniform.Top1.Mean < 0.03 && search.Top1.Mean > 3*uniform.Top1.Mean && search.Top1.CI95[0] > uniform.Top1.CI95[1]) {
		t.Errorf("got uniform top-1 %v %v, builtin %v %v, want uniform far below", uniform.Top1.Mean, uniform.Top1.CI95, search.Top1.Mean, search.Top1.CI95)
	}
	t.Logf("%s", stderr)
}
