package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/openings"
	"taflab/rules"
)

// runSuiteTest runs eval suite into dir/suite.txt and returns the exit
// status, the output and the file (nil when none was written).
func runSuiteTest(t *testing.T, ctx context.Context, dir string, args ...string) (int, string, []byte) {
	t.Helper()
	out := filepath.Join(dir, "suite.txt")
	var buf bytes.Buffer
	code := runSuiteCtx(ctx, append(args, "-out", out), &buf, &buf)
	data, err := os.ReadFile(out)
	if err != nil {
		return code, buf.String(), nil
	}
	return code, buf.String(), data
}

// fastSuite are the flags of a quick build: 8 playouts, 2 games a
// candidate, every rate kept.
var fastSuite = []string{"-player", "builtin:playouts=8", "-games", "2", "-min", "0", "-max", "1"}

func TestSuiteRandom(t *testing.T) {
	cases := []struct {
		variant string
		size    int
	}{
		{"fetlar", 4},
		{"copenhagen", 3},
	}
	for _, c := range cases {
		t.Run(c.variant, func(t *testing.T) {
			args := append([]string{"-variant", c.variant, "-random", "6", "-random-plies", "4", "-size", fmt.Sprint(c.size)}, fastSuite...)
			var files [2][]byte
			for i, workers := range []string{"2", "1"} {
				dir := t.TempDir()
				code, msg, data := runSuiteTest(t, context.Background(), dir, append(args, "-workers", workers)...)
				if code != 0 || data == nil {
					t.Fatalf("got exit %d and no file, want 0 and a suite:\n%s", code, msg)
				}
				if !strings.Contains(msg, fmt.Sprintf("%d positions written", c.size)) {
					t.Errorf("got output %q, want a summary line", msg)
				}
				files[i] = data
				v := variants.MustLoad(c.variant)
				entries, err := cli.LoadSuite(filepath.Join(dir, "suite.txt"), v)
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) != c.size {
					t.Errorf("got %d positions, want %d", len(entries), c.size)
				}
				for _, e := range entries {
					if !strings.HasPrefix(e.Comment, "random opening ") || !strings.Contains(e.Comment, "; defenders ") {
						t.Errorf("got comment %q, want the source and the result", e.Comment)
					}
				}
			}
			for _, want := range []string{"# " + c.variant + ": opening suite built by eval suite", "# command: eval suite -variant " + c.variant,
				"# reference: builtin-8 against itself, 2 games a position", "# filter: defender rate within [0, 1]", "random 4 plies"} {
				if !bytes.Contains(files[0], []byte(want)) {
					t.Errorf("got\n%s\nwant the header to hold %q", files[0], want)
				}
			}
			// The same but for the command line (-workers, -out).
			if a, b := withoutCommand(files[0]), withoutCommand(files[1]); a != b {
				t.Errorf("1 worker: got\n%s\nwant 2 workers'\n%s", b, a)
			}
		})
	}
}

// TestSuiteCandidates measures a suite's positions again (-candidates):
// every position comes back with its first source and a new measure.
func TestSuiteCandidates(t *testing.T) {
	dir := t.TempDir()
	code, msg, first := runSuiteTest(t, context.Background(), dir, append([]string{"-variant", "fetlar", "-random", "5", "-random-plies", "4"}, fastSuite...)...)
	if code != 0 {
		t.Fatalf("got exit %d, want 0:\n%s", code, msg)
	}
	again := filepath.Join(t.TempDir(), "first.txt")
	if err := os.WriteFile(again, first, 0o644); err != nil {
		t.Fatal(err)
	}
	code, msg, data := runSuiteTest(t, context.Background(), t.TempDir(), "-variant", "fetlar", "-random", "0", "-candidates", again, "-player", "builtin:playouts=8", "-games", "3", "-min", "0", "-max", "1")
	if code != 0 {
		t.Fatalf("got exit %d, want 0:\n%s", code, msg)
	}
	v := variants.MustLoad("fetlar")
	before, err := openings.ParseSuite("first", first, v)
	if err != nil {
		t.Fatal(err)
	}
	after, err := openings.ParseSuite("again", data, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("got %d positions, want the %d measured again (bounds [0, 1])", len(after), len(before))
	}
	sources := map[string]string{}
	for _, e := range before {
		sources[e.Position.String()], _, _ = strings.Cut(e.Comment, ";")
	}
	for _, e := range after {
		src, rest, _ := strings.Cut(e.Comment, ";")
		if src != sources[e.Position.String()] || !strings.Contains(rest, "of 3") && !strings.Contains(rest, "/3") {
			t.Errorf("got comment %q, want the first source %q and a measure of 3 games", e.Comment, sources[e.Position.String()])
		}
	}
	if !bytes.Contains(data, []byte("positions of the suite "+again)) {
		t.Errorf("got header\n%s\nwant it to name the candidates' suite", data)
	}
}

// withoutCommand returns a suite file without its command-line comment.
func withoutCommand(data []byte) string {
	var keep []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "# command: ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

func TestSuiteHumanPrefixes(t *testing.T) {
	if _, err := os.Stat(humanGames); err != nil {
		t.Skipf("the human games are not here (%v): skipping", err)
	}
	cases := []struct {
		variant string
		plies   string
		allowed map[int]bool
	}{
		{"copenhagen", "8-12", map[int]bool{8: true, 12: true}},
		{"fetlar", "9", map[int]bool{9: true}},
	}
	games, err := datasets.ReadRecordGames(humanGames, variants.MustLoad("copenhagen-classic"))
	if err != nil {
		t.Fatal(err)
	}
	byLine := map[int]datasets.Game{}
	for _, g := range games {
		byLine[g.Line] = g
	}
	for _, c := range cases {
		t.Run(c.variant, func(t *testing.T) {
			dir := t.TempDir()
			code, msg, _ := runSuiteTest(t, context.Background(), dir, append([]string{"-variant", c.variant, "-records", humanGames,
				"-plies", c.plies, "-every", "4", "-random", "0", "-size", "5"}, fastSuite...)...)
			if code != 0 {
				t.Fatalf("got exit %d, want 0:\n%s", code, msg)
			}
			v := variants.MustLoad(c.variant)
			entries, err := cli.LoadSuite(filepath.Join(dir, "suite.txt"), v)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 5 {
				t.Errorf("got %d positions, want 5", len(entries))
			}
			for _, e := range entries {
				var line, ply int
				if _, err := fmt.Sscanf(e.Comment, "human line %d, ply %d;", &line, &ply); err != nil || !c.allowed[ply] {
					t.Errorf("got comment %q, want a human prefix at plies %s", e.Comment, c.plies)
					continue
				}
				// The position is the game's first moves under the suite's rule set.
				g := rules.NewGame(v)
				for _, m := range byLine[line].Moves[:ply] {
					if err := g.Play(m.Move); err != nil {
						t.Fatalf("line %d: %v", line, err)
					}
				}
				if got := g.Position(); got != e.Position {
					t.Errorf("%s: got %s, want %s", e.Comment, e.Position, got)
				}
			}
		})
	}
}

func TestSuiteNothingPasses(t *testing.T) {
	dir := t.TempDir()
	// No rate of 8 games lies within [0.3, 0.32].
	code, msg, data := runSuiteTest(t, context.Background(), dir, "-variant", "fetlar", "-random", "3",
		"-player", "builtin:playouts=8", "-games", "8", "-min", "0.3", "-max", "0.32")
	if code != 1 || data != nil || !strings.Contains(msg, "nothing written") {
		t.Errorf("got exit %d, a file %v and %q, want 1, none and a message", code, data != nil, msg)
	}
}

func TestSuiteInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	code, msg, data := runSuiteTest(t, ctx, dir, append([]string{"-variant", "fetlar", "-random", "4"}, fastSuite...)...)
	if code != 130 || data != nil {
		t.Errorf("got exit %d and a file %v, want 130 and none:\n%s", code, data != nil, msg)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("got %v left in the folder, want nothing", left)
	}
}

func TestSuiteBadInput(t *testing.T) {
	tmp := t.TempDir()
	badRecords := filepath.Join(tmp, "bad.csv")
	os.WriteFile(badRecords, []byte("d1-d3,0,0,White\nd1-d3 zz,0,0,White\n"), 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no -variant", []string{"-variant", ""}, "-variant"},
		{"unknown rule set", []string{"-variant", "chess"}, "chess"},
		{"no -out", []string{"-out", ""}, "-out"},
		{"-out in a missing folder", []string{"-out", filepath.Join(tmp, "none", "suite.txt")}, "-out"},
		{"-out a folder", []string{"-out", tmp}, "-out"},
		{"missing records", []string{"-records", filepath.Join(tmp, "none.csv")}, "none.csv"},
		{"malformed records", []string{"-records", badRecords}, "bad.csv"},
		{"unknown records rule set", []string{"-records", badRecords, "-records-variant", "chess"}, "-records-variant"},
		{"plies not a range", []string{"-plies", "8-x"}, "-plies"},
		{"plies backwards", []string{"-plies", "40-8"}, "-plies"},
		{"every 0", []string{"-every", "0"}, "-every"},
		{"negative random", []string{"-random", "-1"}, "-random"},
		{"random plies 0", []string{"-random-plies", "0"}, "-random-plies"},
		{"bad player", []string{"-player", "builtin:playouts=0"}, "-player"},
		{"games 0", []string{"-games", "0"}, "-games"},
		{"min below 0", []string{"-min", "-0.1"}, "-min"},
		{"max above 1", []string{"-max", "1.1"}, "-max"},
		{"max NaN", []string{"-max", "NaN"}, "-max"},
		{"min above max", []string{"-min", "0.9", "-max", "0.1"}, "-min"},
		{"negative size", []string{"-size", "-1"}, "-size"},
		{"negative workers", []string{"-workers", "-1"}, "-workers"},
		{"games per worker 0", []string{"-games-per-worker", "0"}, "-games-per-worker"},
		{"unknown flag", []string{"-bogus"}, "-bogus"},
		{"argument", []string{"games.csv"}, "games.csv"},
		{"no candidates", []string{"-random", "0"}, "no candidates"},
		{"bad winner", []string{"-winner", "king"}, "-winner"},
		{"missing candidates", []string{"-candidates", filepath.Join(tmp, "none.txt")}, "-candidates"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "suite.txt")
			var buf bytes.Buffer
			args := append([]string{"suite", "-variant", "fetlar", "-out", out}, c.args...)
			code := run(args, nil, &buf, &buf)
			if code != 2 || !strings.Contains(buf.String(), c.want) {
				t.Errorf("got exit %d and %q, want 2 and a message naming %q", code, buf.String(), c.want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
				t.Errorf("bad input wrote %v: want nothing written", left)
			}
		})
	}
}
