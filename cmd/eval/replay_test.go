package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs/variants"
)

// game2 is the second game of the human archive: seven moves, one capture.
const game2 = "d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8xb7"

// game2After is the position after game2.
const game2After = "3aaaaa3/5a5/3d7/1a3d4a/a4dd3a/aa2dkdd1aa/2a2dd3a/a4d4a/3a7/4d3a2/4aaaa3 d"

// shuffle brings about the start a third time with a defenders' move.
const shuffle = "b6-b7 f8-i8 b7-b6 i8-f8 b6-b7 f8-i8 b7-b6 i8-f8"

// escape is a position in which the king walks to a1.
const escape = "4a6/11/11/11/11/11/k10/11/7d3/11/4a6 d"

// runEval runs the command and returns its exit status, its output split in
// lines and its error output.
func runEval(t *testing.T, stdin string, args ...string) (int, []string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := run(args, strings.NewReader(stdin), &stdout, &stderr)
	out := strings.TrimSuffix(stdout.String(), "\n")
	var lines []string
	if out != "" {
		lines = strings.Split(out, "\n")
	}
	return status, lines, stderr.String()
}

// decode reads the JSON lines of replay.
func decode(t *testing.T, lines []string) []gameReport {
	t.Helper()
	reports := make([]gameReport, len(lines))
	for i, line := range lines {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&reports[i]); err != nil {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
	}
	return reports
}

func str(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

func TestReplayOneGame(t *testing.T) {
	status, lines, stderr := runEval(t, "", "replay", "-variant", "copenhagen-classic", "-moves", game2)
	if status != 0 {
		t.Fatalf("got status %v, want 0; stderr: %s", status, stderr)
	}
	// The whole line: the field order is the spec's.
	want := `{"game":1,"plies":7,"moves":["d1-d3","e5-e2","f2-i2","d6-d9","a5-c5","e7-b7","a8-b8xb7"],` +
		`"capture_mismatches":0,"moves_after_end":0,"outcome":null,"record_result":null,` +
		`"position":"` + game2After + `","error":null}`
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("got %v, want %v", lines, want)
	}
}

func TestReplayGames(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		stdin  string
		status int
		want   []string // per game: plies, mismatches, after end, outcome, record result, error (substrings)
	}{
		{"moves, captures corrected", []string{"-moves", "d1-d3xd4 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8"}, "", 0,
			[]string{"7 2 0 null null null"}},
		{"no moves", []string{"-moves", ""}, "", 0, []string{"0 0 0 null null null"}},
		{"king escapes, moves after", []string{"-start", escape, "-moves", "a5-a1 e1-e2 h3-h4"}, "", 0,
			[]string{"1 0 2 defenders/king-escaped/1 null null"}},
		{"repetition loses under copenhagen", []string{"-moves", shuffle}, "", 0,
			[]string{"8 0 0 attackers/repetition/8 null null"}},
		{"stdin", []string{"-variant", "copenhagen-classic", "-"},
			"moves,attacker_captures,defender_captures,result\n" + game2 + ",1,0,Ongoing\r\n\n" + "h1-h3 f8-i8 timeout,0,0,White\n", 0,
			[]string{"7 0 0 null Ongoing null", "2 0 0 null White null"}},
		{"stdin without a final newline", []string{"-"}, "d1-d3,0,0,Draw", 0, []string{"1 0 0 null Draw null"}},
		{"illegal move, then the next game", []string{"-"}, "d1-d3 d1-d2 e5-e2,0,0,Black\n" + game2 + ",1,0,Ongoing\n", 1,
			[]string{"1 0 0 null Black stdin: rules: line 1, ply 2: illegal move d1-d2: defenders to move, but no piece stands on d1",
				"7 0 0 null Ongoing null"}},
		{"illegal move in -moves", []string{"-moves", "d1-d3 f4-f2"}, "", 1,
			[]string{"1 0 0 null null rules: ply 2: illegal move f4-f2: f2 is occupied"}},
		{"malformed line, then the next game", []string{"-"}, "d1-d3,0,0\nd1-d3 e5-e,0,0,White\n" + game2 + ",1,0,Ongoing\n", 1,
			[]string{"0 0 0 null null stdin: rules: line 1: 3 fields, want 4",
				`0 0 0 null null stdin: rules: line 2, ply 2: bad move "e5-e"`,
				"7 0 0 null Ongoing null"}},
		{"malformed -moves", []string{"-moves", "d1-d3 e5"}, "", 1, []string{`0 0 0 null null rules: ply 2: bad move "e5"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, lines, stderr := runEval(t, c.stdin, append([]string{"replay"}, c.args...)...)
			if status != c.status {
				t.Errorf("got status %v, want %v; stderr: %s", status, c.status, stderr)
			}
			reports := decode(t, lines)
			if len(reports) != len(c.want) {
				t.Fatalf("got %d games, want %d: %v", len(reports), len(c.want), lines)
			}
			for i, r := range reports {
				outcome := "null"
				if r.Outcome != nil {
					outcome = r.Outcome.Winner + "/" + r.Outcome.Reason + "/" + itoa(r.Outcome.Ply)
				}
				got := strings.Join([]string{itoa(r.Plies), itoa(r.CaptureMismatches), itoa(r.MovesAfterEnd),
					outcome, str(r.RecordResult), str(r.Error)}, " ")
				if r.Game != i+1 || !strings.HasPrefix(got, c.want[i]) {
					t.Errorf("game %d: got game %v: %v, want %v", i+1, r.Game, got, c.want[i])
				}
				if len(r.Moves) != r.Plies {
					t.Errorf("game %d: got %v moves, want plies = %v", i+1, len(r.Moves), r.Plies)
				}
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestReplayFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(a, []byte(game2+",1,0,Ongoing\nd1-d3,0,0,Draw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("d1-d3 d1-d2,0,0,Black\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, lines, stderr := runEval(t, "", "replay", a, filepath.Join(dir, "missing.csv"), b)
	if status != 1 {
		t.Errorf("got status %v, want 1", status)
	}
	if !strings.Contains(stderr, "missing.csv") {
		t.Errorf("stderr: got %q, want it to name missing.csv", stderr)
	}
	reports := decode(t, lines)
	if len(reports) != 3 {
		t.Fatalf("got %d games, want 3: %v", len(reports), lines)
	}
	for i, want := range []string{"null", "null", b + ": rules: line 1, ply 2: illegal move d1-d2"} {
		if got := str(reports[i].Error); reports[i].Game != i+1 || !strings.HasPrefix(got, want) {
			t.Errorf("game %d: got game %v, error %v, want error %v", i+1, reports[i].Game, got, want)
		}
	}
}

func TestReplayVariantFile(t *testing.T) {
	data, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.toml")
	text := strings.Replace(string(data), `repetition = "mover-loses"`, `repetition = "none"`, 1)
	text = strings.Replace(text, `name = "copenhagen"`, `name = "mine"`, 1)
	if err := os.WriteFile(mine, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.toml")
	if err := os.WriteFile(broken, []byte(strings.Replace(text, "edge_fort = true", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	noSuffix := filepath.Join(dir, "rules-without-suffix")
	if err := os.WriteFile(noSuffix, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		variant string
		status  int
		outcome string // the outcome of shuffle, or a substring of stderr
	}{
		{"embedded", "copenhagen", 0, "attackers/repetition"},
		{"user file, repetition off", mine, 0, "null"},
		{"user file without .toml", noSuffix, 0, "null"},
		{"missing key", broken, 2, `broken.toml: missing key "edge_fort"`},
		{"missing file", filepath.Join(dir, "nothing.toml"), 2, "nothing.toml"},
		{"unknown name", "copenhagn", 2, `unknown rule set "copenhagn"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, lines, stderr := runEval(t, "", "replay", "-variant", c.variant, "-moves", shuffle)
			if status != c.status {
				t.Fatalf("got status %v, want %v; stderr: %s", status, c.status, stderr)
			}
			if c.status != 0 {
				if len(lines) != 0 || !strings.Contains(stderr, c.outcome) {
					t.Errorf("got output %v, stderr %q, want no output and %q", lines, stderr, c.outcome)
				}
				return
			}
			r := decode(t, lines)
			got := "null"
			if len(r) == 1 && r[0].Outcome != nil {
				got = r[0].Outcome.Winner + "/" + r[0].Outcome.Reason
			}
			if len(r) != 1 || got != c.outcome {
				t.Errorf("got %v, want one game with outcome %v", lines, c.outcome)
			}
		})
	}
}

func TestReplayBadFlags(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"unknown flag", []string{"replay", "-bogus"}, "flag provided but not defined: -bogus"},
		{"flag without value", []string{"replay", "-moves"}, "flag needs an argument"},
		{"moves and files", []string{"replay", "-moves", "d1-d3", "games.csv"}, "not both"},
		{"nothing to replay", []string{"replay"}, "nothing to replay"},
		{"bad start", []string{"replay", "-start", "11/11 a", "-moves", ""}, "-start"},
		{"start of another size", []string{"replay", "-start", "7/7/7/3k3/7/7/7 a", "-moves", ""}, "7x7"},
		{"no subcommand", nil, "missing subcommand"},
		{"unknown subcommand", []string{"replya"}, `unknown subcommand "replya"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, lines, stderr := runEval(t, "", c.args...)
			if status != 2 {
				t.Errorf("got status %v, want 2", status)
			}
			if len(lines) != 0 {
				t.Errorf("got output %v, want none", lines)
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr: got %q, want it to contain %q", stderr, c.stderr)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"eval", []string{"-h"}, []string{"replay", "SUBCOMMAND -h"}},
		{"replay", []string{"replay", "-h"}, []string{"-variant", "-start", "-moves", "capture_mismatches", "moves_after_end",
			"record_result", "no-progress", "Exit status", "2 for bad flags", "- for standard input"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if status := run(c.args, strings.NewReader(""), &stdout, &stderr); status != 0 {
				t.Errorf("got status %v, want 0", status)
			}
			for _, w := range c.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("help: got %q, want it to mention %q", stdout.String(), w)
				}
			}
		})
	}
}
