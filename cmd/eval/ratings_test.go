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

// TestRatingsGroups reproduces a run folder as the loop leaves it: the
// generations' gates and baselines link gen-1, gen002 and builtin-16, while
// each final-N match is a network against the searcher at budget N that no
// game links to the others. "final-100" sorts first, so its builtin-100 was
// the default anchor and the command refused the whole run ("no chain of
// games links these players"), with a prior too. Each group is fitted on
// its own now, the one with the most games first.
func TestRatingsGroups(t *testing.T) {
	dir := t.TempDir()
	writeMatchFile(t, filepath.Join(dir, "final-100"), "fetlar", pairGames("network-100", "builtin-100", 20, 14, 2))
	writeMatchFile(t, filepath.Join(dir, "final-25"), "fetlar", pairGames("network-25", "builtin-25", 20, 12, 4))
	writeMatchFile(t, filepath.Join(dir, "gen-001", "baseline"), "fetlar", pairGames(gen1, builtin16, 40, 22, 2))
	writeMatchFile(t, filepath.Join(dir, "gen-002", "baseline"), "fetlar", pairGames(gen2, builtin16, 40, 30, 2))
	writeMatchFile(t, filepath.Join(dir, "gen-002", "gate"), "fetlar", pairGames(gen2, gen1, 40, 26, 0))
	for _, args := range [][]string{nil, {"-prior-sd", "400"}} {
		t.Run(strings.Join(append([]string{"flags"}, args...), " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			if code := run(append(append([]string{"ratings", "-out", out}, args...), dir), nil, &stdout, &stderr); code != 0 {
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
			names := func(g groupJSON) string {
				var s []string
				for _, p := range g.Players {
					s = append(s, p.Name)
				}
				return strings.Join(s, " ")
			}
			got := []string{rep.Anchor + ": " + names(rep.groupJSON)}
			for _, g := range rep.OtherGroups {
				got = append(got, g.Anchor+": "+names(g))
			}
			want := []string{builtin16 + ": " + gen2 + " " + gen1 + " " + builtin16,
				"builtin-100: network-100 builtin-100", "builtin-25: network-25 builtin-25"}
			if strings.Join(got, " | ") != strings.Join(want, " | ") {
				t.Errorf("got groups %q, want %q", got, want)
			}
			if rep.Games != 120 || rep.AllGames != 160 {
				t.Errorf("got %d games in the first group and %d in all, want 120 and 160", rep.Games, rep.AllGames)
			}
			for _, g := range rep.OtherGroups {
				if g.Players[1].Elo != 0 || !(g.Players[0].Elo > 0 && g.Players[0].CI95 > 0) {
					t.Errorf("group of %s: got %+v, want the network above its anchor with an interval", g.Anchor, g.Players)
				}
			}
			md := stdout.String()
			for _, w := range []string{"these 3 groups", "## Group 1 of 3: 3 players, 120 games", "## Group 3 of 3: 2 players, 20 games", "builtin-25 fixed at 0 Elo"} {
				if !strings.Contains(md, w) {
					t.Errorf("got stdout %q, want %q in it", md, w)
				}
			}
		})
	}
	// -anchor puts its group first.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"ratings", "-anchor", "network-25", dir}, nil, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "## Group 1 of 3: 2 players, 20 games\n\nBradley-Terry (logistic Elo) fit with an attackers' advantage term; network-25 fixed at 0 Elo") {
		t.Errorf("-anchor network-25: got exit %d and %q, want 0 and its group first with it as anchor", code, stdout.String()+stderr.String())
	}
}

// TestRatingsNameClash: players are matched by name, so two runs' gen-1 (two
// networks) or one name at two budgets would be rated as one player; the
// command says so. The same network written once relative and once
// absolute is one player.
func TestRatingsNameClash(t *testing.T) {
	dir := t.TempDir()
	netA, netB := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
	os.WriteFile(netA, []byte("network a"), 0o644)
	os.WriteFile(netB, []byte("network b"), 0o644)
	relA, err := filepath.Rel(mustGetwd(t), netA)
	if err != nil {
		t.Fatal(err)
	}
	write := func(sub string, a cli.PlayerInfo) {
		games := pairGames(a.Name, builtin16, 20, 12, 2)
		path := writeMatchFile(t, filepath.Join(dir, sub), "fetlar", games)
		f, err := cli.ReadMatchFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f.A, f.B = a, cli.PlayerInfo{Name: builtin16, Playouts: 16}
		if err := cli.WriteJSON(path, f); err != nil {
			t.Fatal(err)
		}
	}
	write("same/m1", cli.PlayerInfo{Name: gen1, Playouts: 16, Network: netA})
	write("same/m2", cli.PlayerInfo{Name: gen1, Playouts: 16, Network: relA})
	write("nets/m1", cli.PlayerInfo{Name: gen1, Playouts: 16, Network: netA})
	write("nets/m2", cli.PlayerInfo{Name: gen1, Playouts: 16, Network: netB})
	write("budgets/m1", cli.PlayerInfo{Name: gen1, Playouts: 16, Network: netA})
	write("budgets/m2", cli.PlayerInfo{Name: gen1, Playouts: 64, Network: netA})
	for _, c := range []struct {
		sub, want string
	}{
		{"same", ""},
		{"nets", "network " + netB},
		{"budgets", "at 64 playouts"},
	} {
		t.Run(c.sub, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"ratings", filepath.Join(dir, c.sub)}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("got exit %d, want 0: %s", code, stderr.String())
			}
			warned := strings.Contains(stderr.String(), `warning: "`+gen1+`" names 2 different players`) &&
				strings.Contains(stdout.String(), "**Warning**: \""+gen1+"\" names 2 different players")
			if warned != (c.want != "") || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("got stderr %q and stdout %q, want a warning %v naming %q", stderr.String(), stdout.String(), c.want != "", c.want)
			}
		})
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
