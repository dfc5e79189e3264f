package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
)

// pairGames returns n games of a against b, sides alternating (a attacks
// the even ones): a wins the first wins, then draws, then b wins the rest.
func pairGames(a, b string, n, wins, draws int) []cli.MatchGame {
	var out []cli.MatchGame
	for i := range n {
		g := cli.MatchGame{Pair: i / 2, Attacker: a, Defender: b, Plies: 40, Moves: "d1-d3"}
		aAttacks := i%2 == 0
		if !aAttacks {
			g.Attacker, g.Defender = b, a
		}
		switch {
		case i < wins && aAttacks, i >= wins+draws && !aAttacks:
			g.Winner = "attackers"
		case i < wins, i >= wins+draws:
			g.Winner = "defenders"
		default:
			g.Winner = "draw"
		}
		out = append(out, g)
	}
	return out
}

// writeMatchFile writes a match.json of the given games into dir.
func writeMatchFile(t *testing.T, dir, variant string, games []cli.MatchGame) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := cli.MatchFile{Variant: variant, A: cli.PlayerInfo{Name: games[0].Attacker}, B: cli.PlayerInfo{Name: games[0].Defender},
		Decision: "none", Stopped: "max-pairs", Games: games}
	path := filepath.Join(dir, cli.MatchFileName)
	if err := cli.WriteJSON(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	builtin16 = "builtin-16"
	gen1      = "gen-1-aaaaaa-16"
	gen2      = "gen002-bbbbbb-16"
)

// ratingsFixture writes three matches of one rule set, the third deeper in
// the tree: gen002 beats gen-1, which beats builtin-16.
func ratingsFixture(t *testing.T) string {
	dir := t.TempDir()
	writeMatchFile(t, filepath.Join(dir, "m1"), "fetlar", pairGames(gen2, builtin16, 40, 30, 2))
	writeMatchFile(t, filepath.Join(dir, "m2"), "fetlar", pairGames(gen1, builtin16, 40, 22, 2))
	writeMatchFile(t, filepath.Join(dir, "deeper", "m3"), "fetlar", pairGames(gen2, gen1, 40, 26, 0))
	return dir
}

func TestRatings(t *testing.T) {
	dir := ratingsFixture(t)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"ratings", "-out", out, dir}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("got exit %d, want 0: %s", code, stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "ratings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep ratingsJSON
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 3 || rep.Games != 120 {
		t.Errorf("got %d files and %d games, want 3 and 120", len(rep.Files), rep.Games)
	}
	if rep.Anchor != builtin16 {
		t.Errorf("got anchor %q, want the builtin player %q", rep.Anchor, builtin16)
	}
	var order []string
	for _, p := range rep.Players {
		order = append(order, p.Name)
		if p.Anchor != (p.Name == builtin16) {
			t.Errorf("%s: got anchor %v", p.Name, p.Anchor)
		}
		if p.Anchor && (p.Elo != 0 || p.SE != 0) {
			t.Errorf("anchor %s: got Elo %v SE %v, want 0 and 0", p.Name, p.Elo, p.SE)
		}
		if !p.Anchor && !(p.SE > 0 && p.CI95 >= 1.96*p.SE) {
			t.Errorf("%s: got SE %v, ±95%% %v, want SE > 0 and ±95%% >= 1.96 SE", p.Name, p.SE, p.CI95)
		}
		if p.Games != 80 {
			t.Errorf("%s: got %d games, want 80", p.Name, p.Games)
		}
	}
	if want := []string{gen2, gen1, builtin16}; strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("got ratings order %v, want %v (the player that wins more rated higher)", order, want)
	}
	if g := rep.Players[0].Generation; g == nil || *g != 2 {
		t.Errorf("got generation %v for %s, want 2", g, gen2)
	}
	if rep.Players[2].Generation != nil {
		t.Errorf("got a generation for %s, want none", builtin16)
	}
	if !(rep.SideAdvantageSE > 0) {
		t.Errorf("got side advantage SE %v, want > 0", rep.SideAdvantageSE)
	}
	md, err := os.ReadFile(filepath.Join(out, "ratings.md"))
	if err != nil || !strings.Contains(string(md), "| 1 | "+gen2+" |") || !strings.Contains(string(md), "Attackers' advantage") {
		t.Errorf("ratings.md: got %q (%v), want the table with %s first", md, err, gen2)
	}
	if !strings.Contains(stdout.String(), "| 1 | "+gen2+" |") {
		t.Errorf("got stdout %q, want the table", stdout.String())
	}
	png, err := os.ReadFile(filepath.Join(out, "ratings.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("ratings.png: got %d bytes (%v), want a PNG", len(png), err)
	}
}

func TestRatingsErrors(t *testing.T) {
	good := ratingsFixture(t)
	tmp := t.TempDir()
	badJSON := filepath.Join(tmp, "bad", cli.MatchFileName)
	os.MkdirAll(filepath.Dir(badJSON), 0o755)
	os.WriteFile(badJSON, []byte(`{"variant": "fetlar", "games": [`), 0o644)
	empty := filepath.Join(tmp, "empty")
	os.MkdirAll(empty, 0o755)
	mixed := filepath.Join(tmp, "mixed")
	writeMatchFile(t, filepath.Join(mixed, "a"), "fetlar", pairGames(gen2, builtin16, 10, 6, 0))
	writeMatchFile(t, filepath.Join(mixed, "b"), "copenhagen", pairGames(gen2, builtin16, 10, 6, 0))
	noGames := filepath.Join(tmp, "nogames", cli.MatchFileName)
	os.MkdirAll(filepath.Dir(noGames), 0o755)
	os.WriteFile(noGames, []byte(`{"variant": "fetlar", "games": []}`), 0o644)
	sweep := writeMatchFile(t, filepath.Join(tmp, "sweep"), "fetlar", pairGames(gen2, builtin16, 10, 10, 0))

	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no paths", nil, 2, "no PATH"},
		{"missing path", []string{filepath.Join(tmp, "none")}, 2, "none"},
		{"bad JSON", []string{badJSON}, 2, badJSON},
		{"folder without matches", []string{empty}, 2, "no match.json"},
		{"mixed rule sets", []string{mixed}, 2, "-variant"},
		{"rule set not present", []string{"-variant", "hnefatafl11", good}, 2, "hnefatafl11"},
		{"unknown anchor", []string{"-anchor", "nobody", good}, 2, "nobody"},
		{"negative prior", []string{"-prior-sd", "-5", good}, 2, "-prior-sd"},
		{"no games", []string{noGames}, 2, "no games"},
		{"unbounded rating", []string{sweep}, 1, "-prior-sd"},
		{"mixed, one chosen", []string{"-variant", "copenhagen", "-prior-sd", "400", mixed}, 0, "| 1 |"},
		{"unbounded with a prior", []string{"-prior-sd", "400", sweep}, 0, "| 1 | " + gen2},
		{"anchor chosen", []string{"-anchor", gen1, good}, 0, "| " + gen1 + " | 0.0 | anchor |"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"ratings", "-out", out}, c.args...), nil, &stdout, &stderr)
			msg := stderr.String() + stdout.String()
			if code != c.code || !strings.Contains(msg, c.want) {
				t.Errorf("got exit %d and %q, want %d and a message with %q", code, msg, c.code, c.want)
			}
			if _, err := os.Stat(out); (err == nil) != (c.code == 0) {
				t.Errorf("got -out written %v, want %v", err == nil, c.code == 0)
			}
		})
	}
}
