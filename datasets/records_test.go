package datasets_test

import (
	"bytes"
	"context"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/archive"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/rules"
)

func writeRecords(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "games.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadRecordGames(t *testing.T) {
	v := variants.MustLoad("copenhagen-classic")
	path := writeRecords(t, "moves,attacker_captures,defender_captures,result\n"+
		"d1-d3 e5-e2 f2-i2,0,0,Black\n"+
		"h1-h3 f8-i8,0,0,Ongoing\n"+
		"a4-c4 d6-d3,0,0,Draw\n")
	games, err := datasets.ReadRecordGames(path, v)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(games), 3; got != want {
		t.Fatalf("got %d games, want %d", got, want)
	}
	g := games[0]
	if got, want := g.Line, 2; got != want {
		t.Errorf("line: got %d, want %d", got, want)
	}
	if got, want := len(g.Positions), 3; got != want {
		t.Fatalf("positions: got %d, want %d", got, want)
	}
	if got, want := g.Positions[0], v.Start(); got != want {
		t.Errorf("first position: got %v, want the start %v", got, want)
	}
	// The position before ply 2 is the start with d1-d3 played.
	game := rules.NewGame(v)
	game.Make(g.Moves[0].Move)
	if got, want := g.Positions[1], game.Position(); got != want {
		t.Errorf("second position: got %v, want %v", got, want)
	}
	results := []struct {
		game, ply int
		want      int8
		ok        bool
	}{
		{0, 0, 1, true},  // attackers to move, attackers won
		{0, 1, -1, true}, // defenders to move
		{1, 0, 0, false}, // Ongoing: no result
		{2, 1, 0, true},  // a draw
	}
	for _, r := range results {
		got, ok := games[r.game].Result(r.ply)
		if got != r.want || ok != r.ok {
			t.Errorf("game %d ply %d: got result %d, %v, want %d, %v", r.game, r.ply, got, ok, r.want, r.ok)
		}
	}
}

func TestReadRecordGamesRefusesBadRecords(t *testing.T) {
	v := variants.MustLoad("copenhagen-classic")
	cases := []struct {
		name, text, want string
	}{
		{"illegal move", "d1-d3,0,0,Black\nd1-d3 e5-e2 d3-d1 d6-d4 d1-d11,0,0,White\n", "games.csv: line 2, ply 5: illegal move d1-d11"},
		{"capture the rules do not make", "d1-d3 e5-e2xe3,1,0,White\n", "games.csv: line 1, ply 2: move e5-e2xe3: the rules capture nothing"},
		{"unreadable line", "d1-d3,0,0,Black\nd1-d3,zero,0,White\n", "games.csv: line 2: attacker_captures"},
		{"no records", "moves,attacker_captures,defender_captures,result\n", "no game records"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := datasets.ReadRecordGames(writeRecords(t, c.text), v)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "datasets: ") {
				t.Fatalf("got error %v, want one starting datasets: and containing %q", err, c.want)
			}
		})
	}
	if _, err := datasets.ReadRecordGames(filepath.Join(t.TempDir(), "none.csv"), v); err == nil {
		t.Error("a missing file: got no error")
	}
}

func TestSplitRecords(t *testing.T) {
	var games []datasets.Game
	for line := 1; line <= 25; line++ {
		games = append(games, datasets.Game{Line: line})
	}
	train, held := datasets.SplitRecords(games, 10)
	var heldLines []int
	for _, g := range held {
		heldLines = append(heldLines, g.Line)
	}
	if got, want := len(train), 23; got != want {
		t.Errorf("training games: got %d, want %d", got, want)
	}
	if got, want := heldLines, []int{10, 20}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("held-out lines: got %v, want %v", got, want)
	}
	if train, held := datasets.SplitRecords(games, 0); len(train) != 25 || len(held) != 0 {
		t.Errorf("every 0: got %d training and %d held out, want 25 and 0", len(train), len(held))
	}
}

// TestHumanRecordGames replays the human archive under its rule set: every
// record is accepted, and the positions add up to the archive's plies.
func TestHumanRecordGames(t *testing.T) {
	games, err := datasets.ReadRecordGames(archive.Copenhagen, variants.MustLoad("copenhagen-classic"))
	if err != nil {
		t.Fatal(err)
	}
	positions, finished := 0, 0
	for _, g := range games {
		positions += len(g.Positions)
		if g.Winner != rules.NoWinner {
			finished++
		}
	}
	t.Logf("%d games, %d positions, %d with a result", len(games), positions, finished)
	if got, want := len(games), 876; got != want {
		t.Errorf("games: got %d, want %d", got, want)
	}
	if positions < 40000 {
		t.Errorf("positions: got %d, want the archive's 44,000 or so", positions)
	}
	if got, want := finished, 860; got != want {
		t.Errorf("games with a result: got %d, want %d (876 less 16 Ongoing)", got, want)
	}
}

// TestRecordSet: a record set of the archive holds, position for position,
// what Game holds of the records kept (every move, the positions made
// again from its checkpoints, the results), with the archive's checksum;
// and it refuses a bad record as ParseRecordGames does.
func TestRecordSet(t *testing.T) {
	v := variants.MustLoad("copenhagen-classic") // the archive's rules
	f, err := archive.Open(archive.Copenhagen)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	games, err := datasets.ParseRecordGames(archive.Copenhagen, data, v)
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := datasets.SplitRecords(games, 10)
	set, sum, err := datasets.ReadRecordSet(context.Background(), archive.Copenhagen, bytes.NewReader(data), v, func(line int) bool { return !datasets.HeldOut(line, 10) })
	if err != nil {
		t.Fatal(err)
	}
	if want := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)); sum != want {
		t.Errorf("got checksum %08x, want %08x", sum, want)
	}
	if set.Games() != len(kept) {
		t.Fatalf("got %d games, want %d", set.Games(), len(kept))
	}
	g := rules.NewGame(v)
	i := 0
	for _, game := range kept {
		for ply := range game.Moves {
			p, m, result, ok := set.At(i, g)
			wantResult, wantOK := game.Result(ply)
			if p != game.Positions[ply] || m != game.Moves[ply].Move || result != wantResult || ok != wantOK {
				t.Fatalf("position %d (line %d, ply %d): got %v %v %d %v, want %v %v %d %v", i, game.Line, ply, p, m, result, ok,
					game.Positions[ply], game.Moves[ply].Move, wantResult, wantOK)
			}
			i++
		}
	}
	if set.Len() != i {
		t.Errorf("got %d positions, want %d", set.Len(), i)
	}
	bad := "d1-d3 e5-e2 f2-i2,0,0,Black\nd1-d9,0,0,Black\n"
	_, _, err = datasets.ReadRecordSet(context.Background(), "bad.csv", strings.NewReader(bad), v, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "datasets: bad.csv: line 2, ply 1:") {
		t.Errorf("a record the rules refuse: got %v, want an error naming the file, the line and the ply", err)
	}
}
