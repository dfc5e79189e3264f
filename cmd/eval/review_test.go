package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"taflab/datasets"
	"testing"

	"taflab/analysis"
	"taflab/cmd/internal/cli"
)

// writeMatchGames writes a match folder of two short games between A and B
// (the second from a position a few moves in) and returns its games.csv.
func writeMatchGames(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	f := cli.MatchFile{Variant: "copenhagen", Games: []cli.MatchGame{
		// The attackers open rank 1 for the king, who escapes (hand-made
		// from a start of the test's own, as an opening suite's).
		{Attacker: "A", Defender: "B", Winner: "defenders", Reason: "king-escaped", Moves: "c1-c5 e1-a1",
			Start: "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1dd1dd1aa/a3d1d3a/a9a/4a6/11/2a1k1a4 a"},
		{Attacker: "B", Defender: "A", Winner: "draw", Moves: "d1-d3 h6-h9 k4-i4 f8-c8"},
	}}
	if err := cli.WriteMatchFiles(dir, f); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "games.csv")
}

// TestReview: eval review of a match's games prints a report with every
// ply, each player's figures and where the decided game turned; with -out
// it writes the report, the Markdown, a graph and an OpenTafl record with
// the labels as comments for each game, and the same seed repeats it.
func TestReview(t *testing.T) {
	games := writeMatchGames(t)
	var out, errs bytes.Buffer
	args := []string{"review", "-net", "builtin", "-playouts", "200", games}
	if code := run(args, nil, &out, &errs); code != 0 {
		t.Fatalf("got exit %d, want 0: %s", code, errs.String())
	}
	var rep analysis.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("got %q, want one JSON object: %v", out.String(), err)
	}
	if len(rep.Games) != 2 || rep.Games[0].Review == nil || len(rep.Games[0].Review.Plies) != 2 || len(rep.Games[1].Review.Plies) != 4 {
		t.Fatalf("got %+v, want two games of 2 and 4 plies reviewed", rep.Games)
	}
	first := rep.Games[0].Review.Plies[0]
	if first.Move != "c1-c5" || first.Label != analysis.Blunder {
		t.Errorf("game 1, ply 1: got %s labelled %q, want c1-c5 a blunder", first.Move, first.Label)
	}
	if len(rep.Summary.Players) != 2 || rep.Summary.Players[0].Name != "A" || rep.Summary.Players[0].Games != 2 || rep.Summary.Players[0].All.Blunders != 1 {
		t.Errorf("players: got %+v, want A and B, A with two games and one blunder", rep.Summary.Players)
	}
	if len(rep.Summary.Turns) != 1 || rep.Summary.Turns[0].Decisive == nil || rep.Summary.Turns[0].Decisive.Move != "c1-c5" {
		t.Errorf("turns: got %+v, want game 1's, decided by c1-c5", rep.Summary.Turns)
	}

	dir := t.TempDir()
	out.Reset()
	if code := run([]string{"review", "-net", "builtin", "-playouts", "200", "-game", "1", "-out", dir, games}, nil, &out, &errs); code != 0 {
		t.Fatalf("-out: got exit %d, want 0: %s", code, errs.String())
	}
	for _, name := range []string{"review.json", "review.md", "review-001.png", "game-001.otg"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v, want a file", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "game-002.otg")); err == nil {
		t.Errorf("-game 1 wrote game 2's record")
	}
	md, err := os.ReadFile(filepath.Join(dir, "review.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Players", "| A |", "c1-c5", "blunder", "review-001.png", "## Where the games turned"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("review.md: got no %q in it", want)
		}
	}
	otg, err := datasets.LoadGames(filepath.Join(dir, "game-001.otg"), datasets.GameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := otg[0]; g.Variant.Name() != "copenhagen" || len(g.Moves) != 2 || g.Attackers != "A" || !strings.HasPrefix(g.Record.Moves[0].Comment, "blunder: lost") {
		t.Errorf("game-001.otg: got %s, %d moves, attackers %q, first comment %q; want copenhagen, 2, A and the blunder", g.Variant.Name(), len(g.Moves), g.Attackers, g.Record.Moves[0].Comment)
	}
	again := t.TempDir()
	if code := run([]string{"review", "-net", "builtin", "-playouts", "200", "-game", "1", "-out", again, games}, nil, &out, &errs); code != 0 {
		t.Fatal(errs.String())
	}
	a, _ := os.ReadFile(filepath.Join(dir, "review.json"))
	b, _ := os.ReadFile(filepath.Join(again, "review.json"))
	if !bytes.Equal(a, b) {
		t.Errorf("two reviews under one seed differ")
	}
}

func TestReviewRefused(t *testing.T) {
	games := writeMatchGames(t)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"review", "-net", "builtin"}, 2, "one games file"},
		{"missing file", []string{"review", "-net", "builtin", filepath.Join(t.TempDir(), "none.csv")}, 2, "none.csv"},
		{"not a games file", []string{"review", "-net", "builtin", "notes.txt"}, 2, "not a games file"},
		{"no such game", []string{"review", "-net", "builtin", "-game", "3", games}, 2, "-game 3"},
		{"thresholds out of order", []string{"review", "-net", "builtin", "-mistake", "20", games}, 2, "thresholds"},
		{"bad network", []string{"review", "-net", filepath.Join(t.TempDir(), "x.safetensors"), games}, 2, "-net"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := run(c.args, nil, &out, &errs); code != c.code || !strings.Contains(errs.String(), c.want) {
				t.Errorf("got exit %d and %q, want %d and %q", code, errs.String(), c.code, c.want)
			}
		})
	}
}

// TestReviewStopped: a review stopped by a signal writes what it reviewed
// and exits 130.
func TestReviewStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	var out, errs bytes.Buffer
	if code := runReviewCtx(ctx, []string{"-net", "builtin", "-out", dir, writeMatchGames(t)}, &out, &errs); code != 130 {
		t.Fatalf("got exit %d, want 130: %s", code, errs.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "review.json")); err != nil {
		t.Errorf("review.json: %v, want it written", err)
	}
}
