package datasets_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/archive"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/match"
	"taflab/protocol"
	"taflab/rules"
)

func TestKindOf(t *testing.T) {
	cases := []struct {
		name string
		want datasets.Kind
	}{
		{"data/x.games.arrow", datasets.KindDataset},
		{"data/x.positions.arrow", ""},
		{"runs/m/games.csv", datasets.KindRecords},
		{"runs/t/metrics.csv", ""},
		{"realgamelog.otg", datasets.KindOpenTafl},
		{archive.Copenhagen, datasets.KindRecords},
		{"notes.txt", ""},
	}
	for _, c := range cases {
		if got := datasets.KindOf(c.name); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// randomMoves plays random legal moves of v from start, at most plies.
func randomMoves(v *rules.Variant, start rules.Position, seed uint64, plies int) []rules.Move {
	rng := rand.New(rand.NewPCG(seed, 9))
	g, err := rules.NewGameFrom(v, start)
	if err != nil {
		panic(err)
	}
	var out []rules.Move
	for !g.Outcome().Over() && len(out) < plies {
		moves := g.GenerateMoves(nil)
		m := moves[rng.IntN(len(moves))]
		g.Make(m)
		out = append(out, m)
	}
	return out
}

func sameMoves(t *testing.T, what string, got []rules.RecordedMove, want []rules.Move) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d moves, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i].Move != want[i] {
			t.Fatalf("%s: move %d: got %s, want %s", what, i+1, got[i].Move, want[i])
		}
	}
}

// TestMatchGames: a match's games.csv is read under the rules of the
// match.json beside it, each game with its players.
func TestMatchGames(t *testing.T) {
	dir := t.TempDir()
	v := variants.MustLoad("fetlar")
	moves := randomMoves(v, v.Start(), 1, 40)
	var text []string
	for _, m := range moves {
		text = append(text, m.String())
	}
	f := match.File{Variant: "fetlar", Games: []match.FileGame{
		{Attacker: "A", Defender: "B", Winner: "draw", Moves: strings.Join(text, " ")},
		{Attacker: "B", Defender: "A", Winner: "draw", Moves: strings.Join(text[:3], " ")},
	}}
	if err := match.WriteFiles(dir, f); err != nil {
		t.Fatal(err)
	}
	games, err := datasets.LoadGames(filepath.Join(dir, "games.csv"), datasets.GameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 2 || games[0].Variant.Name() != "fetlar" || games[1].Attackers != "B" || games[1].Defenders != "A" {
		t.Fatalf("got %d games, rule set %s, players %q/%q; want 2 of fetlar, the second B against A", len(games), games[0].Variant.Name(), games[1].Attackers, games[1].Defenders)
	}
	sameMoves(t, "game 1", games[0].Moves, moves)
	if games[0].Label() != "line 1" {
		t.Errorf("label: got %q, want line 1", games[0].Label())
	}
	// A match.json that is not one is an error naming it.
	if err := os.WriteFile(filepath.Join(dir, match.FileName), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := datasets.LoadGames(filepath.Join(dir, "games.csv"), datasets.GameOptions{}); err == nil || !strings.Contains(err.Error(), "match.json") {
		t.Errorf("a broken match.json: got %v, want an error naming it", err)
	}
	// One that names no rule set there is is an error naming both, under
	// package datasets' name alone.
	if err := os.WriteFile(filepath.Join(dir, match.FileName), []byte(`{"variant":"nope"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := datasets.LoadGames(filepath.Join(dir, "games.csv"), datasets.GameOptions{}); err == nil || !strings.Contains(err.Error(), "match.json beside") ||
		!strings.Contains(err.Error(), `"nope"`) || strings.Count(err.Error(), ": unknown rule set") != 1 || strings.Contains(err.Error(), "variants: ") {
		t.Errorf("a match.json of an unknown rule set: got %v, want an error naming it and the rule set, under package datasets' name alone", err)
	}
}

// TestDatasetGames: a dataset's games table is read with its rules, starts
// and details.
func TestDatasetGames(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	moves := randomMoves(v, v.Start(), 2, 30)
	row := datasets.GameRow{GameID: "g1", RuleSet: v.Name(), Seed: 7, Evaluator: "heuristic-v1", Winner: rules.NoWinner, Length: int32(len(moves))}
	g := rules.NewGame(v)
	for _, m := range moves {
		g.Make(m)
		_, caps := g.LastMove()
		row.Moves = append(row.Moves, rules.RecordedMove{Move: m, Captures: caps}.String())
	}
	file := filepath.Join(t.TempDir(), "x.games.arrow")
	if err := datasets.WriteGamesFile(file, v.Definition(), []datasets.GameRow{row}); err != nil {
		t.Fatal(err)
	}
	games, err := datasets.LoadGames(file, datasets.GameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 1 || games[0].Details == nil || games[0].Details.Seed != 7 || games[0].Variant.Name() != "copenhagen" {
		t.Fatalf("got %+v, want one copenhagen game of seed 7", games)
	}
	sameMoves(t, "the game", games[0].Moves, moves)
}

// TestArchive: the embedded archive is read under its own rule set.
func TestArchive(t *testing.T) {
	games, err := datasets.LoadGames(archive.Copenhagen, datasets.GameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 876 || games[0].Variant.Name() != "copenhagen-classic" {
		t.Errorf("got %d games of %s, want 876 of copenhagen-classic", len(games), games[0].Variant.Name())
	}
	if _, err := datasets.LoadGames("archive:none", datasets.GameOptions{}); err == nil {
		t.Errorf("an unknown archive: got no error, want one")
	}
}

// TestOpenTaflRoundTrip: a game written as an OpenTafl record, from the
// rule set's start or from an opening suite's, with comments, reads back
// as the same game under the same rule set.
func TestOpenTaflRoundTrip(t *testing.T) {
	for _, name := range variants.Names() {
		v := variants.MustLoad(name)
		starts := []rules.Position{v.Start()}
		// A start a few moves in, as an opening suite's.
		g := rules.NewGame(v)
		for _, m := range randomMoves(v, v.Start(), 3, 6) {
			g.Make(m)
		}
		starts = append(starts, g.Position())
		for i, start := range starts {
			moves := randomMoves(v, start, uint64(i)+4, 60)
			comments := make([]string, len(moves))
			comments[len(moves)/2] = "blunder: lost 31.0 points [a|b]"
			rec, err := datasets.OpenTaflRecord(v, start, moves, []protocol.Tag{{Key: protocol.TagAttackers, Value: "A"}}, comments)
			if err != nil {
				t.Fatal(err)
			}
			data, err := protocol.FormatGameRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			games, _, err := datasets.ReadGames(context.Background(), "x.otg", bytes.NewReader(data), datasets.GameOptions{})
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, data)
			}
			got := games[0]
			if got.Variant.Name() != v.Name() || got.Variant.Definition() != v.Definition() || got.Start != start || got.Attackers != "A" {
				t.Fatalf("%s, start %d: got %s from %s by %q, want %s from %s by A", name, i, got.Variant.Name(), got.Start, got.Attackers, name, start)
			}
			sameMoves(t, name, got.Moves, moves)
			if c := got.Record.Moves[len(moves)/2].Comment; c != "blunder: lost 31.0 points (a/b)" {
				t.Errorf("%s: comment read back %q", name, c)
			}
		}
	}
}

// TestOpenTaflShipped: OpenTafl's own records read as games under their
// rules (OpenTafl's Copenhagen is opentafl-copenhagen, not taflab's).
func TestOpenTaflShipped(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "opentafl", "records")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("OpenTafl's records: %v (they are in ../shared beside the project)", err)
	}
	cases := []struct {
		file, variant string
		winner        rules.Winner
	}{
		{"realgamelog.otg", "opentafl", rules.DefendersWin},
		{"Fish-Nasa-2015-Fetlar.otg", "fetlar_defenders_first", rules.DefendersWin},
	}
	for _, c := range cases {
		games, err := datasets.LoadGames(filepath.Join(dir, c.file), datasets.GameOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g := games[0]
		if g.Variant.Name() != c.variant || g.Winner != c.winner {
			t.Errorf("%s: got %s, winner %s; want %s, %s", c.file, g.Variant.Name(), g.Winner, c.variant, c.winner)
		}
		if r := rules.Replay(g.Variant, g.Start, g.Moves, 0); r.Err != nil || r.CaptureMismatches != 0 {
			t.Errorf("%s: replay: %v, %d capture mismatches", c.file, r.Err, r.CaptureMismatches)
		}
	}
	if _, err := datasets.LoadGames(filepath.Join(dir, "Copenhagen-Escape-Puzzle.otg"), datasets.GameOptions{}); err == nil || !strings.Contains(err.Error(), "starti") {
		t.Errorf("a 7x7 puzzle with a corner moved: got %v, want its rules refused, naming starti", err)
	}
}

// TestReadGamesPage: ReadGames keeps the page of games asked for (From,
// Max) and counts every game of the file, each kept game with its index,
// line and players.
func TestReadGamesPage(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	moves := randomMoves(v, v.Start(), 5, 8)
	var text []string
	for _, m := range moves {
		text = append(text, m.String())
	}
	f := match.File{Variant: "copenhagen"}
	for i := range 7 {
		f.Games = append(f.Games, match.FileGame{Attacker: fmt.Sprint("A", i), Defender: "B", Winner: "draw", Moves: strings.Join(text[:i+1], " ")})
	}
	dir := t.TempDir()
	if err := match.WriteFiles(dir, f); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "games.csv"))
	if err != nil {
		t.Fatal(err)
	}
	beside := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
	cases := []struct {
		from, max int
		want      []int // the indexes kept
	}{
		{0, 0, []int{0, 1, 2, 3, 4, 5, 6}},
		{2, 3, []int{2, 3, 4}},
		{5, 10, []int{5, 6}},
		{7, 1, nil},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("from %d max %d", c.from, c.max), func(t *testing.T) {
			games, total, err := datasets.ReadGames(context.Background(), "m/games.csv", bytes.NewReader(data), datasets.GameOptions{From: c.from, Max: c.max, Beside: beside})
			if err != nil {
				t.Fatal(err)
			}
			if total != 7 || len(games) != len(c.want) {
				t.Fatalf("got %d games of %d, want %d of 7", len(games), total, len(c.want))
			}
			for i, g := range games {
				k := c.want[i]
				if g.Index != k || g.Line != k+1 || len(g.Moves) != k+1 || g.Attackers != fmt.Sprint("A", k) || g.Label() != fmt.Sprint("line ", k+1) {
					t.Errorf("game %d: got index %d, line %d, %d moves, attackers %q; want %d, %d, %d, A%d", i, g.Index, g.Line, len(g.Moves), g.Attackers, k, k+1, k+1, k)
				}
			}
		})
	}
	// A bad line past the page is an error all the same, naming it.
	bad := append(append([]byte(nil), data...), "d1-d3 z9,0,0,Draw\n"...)
	if _, _, err := datasets.ReadGames(context.Background(), "m/games.csv", bytes.NewReader(bad), datasets.GameOptions{Max: 1}); err == nil || !strings.Contains(err.Error(), "datasets: m/games.csv: rules: line 8, ply 2") {
		t.Errorf("a bad line after the page: got %v, want an error naming the file, line 8 and ply 2", err)
	}
}
