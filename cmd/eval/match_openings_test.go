package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
	"taflab/configs/variants"
	"taflab/openings"
	"taflab/rules"
)

// fetlarSuiteFile writes an opening suite of two fetlar positions, each a
// few random moves from the start, and returns the file and the positions
// in notation.
func fetlarSuiteFile(t *testing.T) (string, []string) {
	t.Helper()
	v := variants.MustLoad("fetlar")
	var entries []openings.SuiteEntry
	var positions []string
	for i, o := range openings.Book(v, 2, 3, 11) {
		g := rules.NewGame(v)
		for _, m := range o.Moves {
			if err := g.Play(m); err != nil {
				t.Fatalf("opening %d: %v", i, err)
			}
		}
		p := g.Position()
		entries = append(entries, openings.SuiteEntry{Position: p, Comment: "test position"})
		positions = append(positions, p.String())
	}
	if positions[0] == positions[1] {
		t.Fatalf("got one position twice, want two: %s", positions[0])
	}
	path := filepath.Join(t.TempDir(), "fetlar-suite.txt")
	if err := os.WriteFile(path, openings.FormatSuite([]string{"two fetlar positions for a test"}, entries), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, positions
}

// csvLines returns the lines of a match's games.csv.
func csvLines(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "games.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestMatchOpenings plays tiny matches from an opening-suite file and from
// random openings: the games of a suite start from its positions, which
// match.json and games.csv (as a fifth field) give, so that eval replay
// replays every game as it was played; random openings start from the
// rule set's start and write no start.
func TestMatchOpenings(t *testing.T) {
	suite, positions := fetlarSuiteFile(t)
	tests := []struct {
		name       string
		openings   string
		fromSuite  bool
		wantDesc   string
		wantFields int
	}{
		{"suite file", suite, true, "the opening suite " + suite, 5},
		{"random", "random", false, "random openings", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "match")
			code, out := runMatchTest(t, "-variant", "fetlar", "-a", "builtin:playouts=4", "-b", "builtin:playouts=4",
				"-max-games", "4", "-openings", tt.openings, "-workers", "1", "-out", dir)
			if code != 0 {
				t.Fatalf("got exit %d, want 0\n%s", code, out)
			}
			f, err := cli.ReadMatchFile(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Games) != 4 {
				t.Fatalf("got %d games, want %d", len(f.Games), 4)
			}
			if !strings.Contains(f.Openings, tt.wantDesc) {
				t.Errorf("got openings %q, want them described as %q", f.Openings, tt.wantDesc)
			}
			starts := map[int]string{} // by pair
			for i, g := range f.Games {
				switch {
				case !tt.fromSuite && g.Start != "":
					t.Errorf("game %d: got start %q, want none (the rule set's start)", i, g.Start)
				case tt.fromSuite && g.Start != positions[0] && g.Start != positions[1]:
					t.Errorf("game %d: got start %q, want one of the suite's %q", i, g.Start, positions)
				}
				if s, ok := starts[g.Pair]; ok && s != g.Start {
					t.Errorf("pair %d: got starts %q and %q, want both games of a pair from one start", g.Pair, s, g.Start)
				}
				starts[g.Pair] = g.Start
			}
			if tt.fromSuite && len(starts) == 2 && starts[0] == starts[1] {
				t.Errorf("got both pairs from %q, want the suite's two positions", starts[0])
			}

			lines := csvLines(t, dir)
			if len(lines) != len(f.Games) {
				t.Fatalf("games.csv: got %d lines, want %d", len(lines), len(f.Games))
			}
			for i, line := range lines {
				fields := strings.Split(line, ",")
				if len(fields) != tt.wantFields {
					t.Errorf("games.csv line %d: got %d fields, want %d: %q", i+1, len(fields), tt.wantFields, line)
					continue
				}
				if fields[0] != f.Games[i].Moves {
					t.Errorf("games.csv line %d: got moves %q, want match.json's %q", i+1, fields[0], f.Games[i].Moves)
				}
				if tt.fromSuite && fields[4] != f.Games[i].Start {
					t.Errorf("games.csv line %d: got start %q, want match.json's %q", i+1, fields[4], f.Games[i].Start)
				}
			}

			// The games replay under the rules, each from its own start, to
			// the end match play recorded.
			code, replayed, stderr := runEval(t, "", "replay", "-variant", "fetlar", filepath.Join(dir, "games.csv"))
			if code != 0 {
				t.Fatalf("replay: got exit %d, want 0\n%s\n%s", code, strings.Join(replayed, "\n"), stderr)
			}
			reports := decode(t, replayed)
			if len(reports) != len(f.Games) {
				t.Fatalf("replay: got %d games, want %d", len(reports), len(f.Games))
			}
			for i, r := range reports {
				g := f.Games[i]
				if r.Error != nil {
					t.Errorf("game %d: got error %s, want none", i+1, *r.Error)
				}
				if r.Plies != g.Plies || r.MovesAfterEnd != 0 || r.CaptureMismatches != 0 {
					t.Errorf("game %d: got %d plies, %d after the end, %d capture mismatches, want %d, 0 and 0",
						i+1, r.Plies, r.MovesAfterEnd, r.CaptureMismatches, g.Plies)
				}
				if r.Outcome == nil || r.Outcome.Winner != g.Winner || r.Outcome.Reason != g.Reason {
					t.Errorf("game %d: got outcome %+v, want %s by %s as match play recorded", i+1, r.Outcome, g.Winner, g.Reason)
				}
				if strings.Join(r.Moves, " ") != g.Moves {
					t.Errorf("game %d: got moves %q, want %q", i+1, strings.Join(r.Moves, " "), g.Moves)
				}
			}
		})
	}
}

// TestMatchOpeningsBadFile: -openings naming a missing file, or a suite
// with a line that is not a position, exits 2 naming it, and writes
// nothing.
func TestMatchOpeningsBadFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-suite.txt")
	bad := filepath.Join(dir, "bad-suite.txt")
	if err := os.WriteFile(bad, []byte("# a suite\n\nnot a position\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		file  string
		wants []string
	}{
		{"missing file", missing, []string{"-openings", missing}},
		{"bad line", bad, []string{"-openings", bad, "line 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tt.name, " ", "-"))
			var stdout, stderr bytes.Buffer
			code := runMatchCtx(t.Context(), []string{"-variant", "fetlar", "-a", "builtin:playouts=4", "-b", "builtin:playouts=4",
				"-max-games", "4", "-openings", tt.file, "-out", out}, &stdout, &stderr)
			if code != 2 {
				t.Errorf("got exit %d, want 2\n%s", code, stderr.String())
			}
			for _, want := range tt.wants {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("got message %q, want one naming %q", stderr.String(), want)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("bad input wrote %s: want nothing written", out)
			}
		})
	}
}
