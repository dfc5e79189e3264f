package ratings

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/internal/fileio"
	"taflab/match"
)

// games returns a's games against b, sides alternating (a attacks the
// even ones): a wins the first wins, draws the next draws and loses the
// rest.
func games(a, b string, wins, draws, losses int) []match.FileGame {
	results := strings.Repeat("W", wins) + strings.Repeat("D", draws) + strings.Repeat("L", losses)
	out := make([]match.FileGame, len(results))
	for i, r := range results {
		g := match.FileGame{Pair: i / 2, Attacker: a, Defender: b, Winner: "draw", Plies: 40, Moves: "d1-d3"}
		if i%2 == 1 {
			g.Attacker, g.Defender = b, a
		}
		if r != 'D' {
			g.Winner = map[bool]string{true: "attackers", false: "defenders"}[(r == 'W') == (g.Attacker == a)]
		}
		out[i] = g
	}
	return out
}

// matchOf is a match file of n games of a against b (games).
func matchOf(variant, a, b string, n, wins, draws int) match.File {
	return match.File{Variant: variant, A: match.PlayerInfo{Name: a, Playouts: 16}, B: match.PlayerInfo{Name: b, Playouts: 16},
		Decision: "none", Stopped: "max-pairs", Games: games(a, b, wins, draws, n-wins-draws)}
}

const (
	builtin = "builtin-16"
	gen1    = "gen-1"
	gen2    = "gen002"
)

// linked is three matches that link gen002, gen-1 and builtin-16.
var linked = []match.File{
	matchOf("fetlar", gen2, builtin, 40, 30, 2),
	matchOf("fetlar", gen1, builtin, 40, 22, 2),
	matchOf("fetlar", gen2, gen1, 40, 26, 0),
}

// names writes a group's players, strongest first, after its anchor.
func names(g Group) string {
	s := []string{g.Anchor + ":"}
	for _, p := range g.Players {
		s = append(s, p.Name)
	}
	return strings.Join(s, " ")
}

func TestFit(t *testing.T) {
	apart := append(append([]match.File{}, linked...), matchOf("fetlar", "net-25", "builtin-25", 20, 12, 4))
	sweep := []match.File{matchOf("fetlar", gen2, builtin, 10, 10, 0)}
	cases := []struct {
		name    string
		files   []match.File
		cfg     Config
		groups  []string // names of each group, the first first
		games   int      // of the first group
		priorSD float64
		err     string // "" for none
		fitErr  bool
	}{
		{"linked", linked, Config{}, []string{"builtin-16: gen002 gen-1 builtin-16"}, 120, 0, "", false},
		{"anchor chosen", linked, Config{Anchor: gen1}, []string{"gen-1: gen002 gen-1 builtin-16"}, 120, 0, "", false},
		{"two groups", apart, Config{}, []string{"builtin-16: gen002 gen-1 builtin-16", "builtin-25: net-25 builtin-25"}, 120, 0, "", false},
		{"anchor's group first", apart, Config{Anchor: "net-25"}, []string{"net-25: net-25 builtin-25", "builtin-16: gen002 gen-1 builtin-16"}, 20, 0, "", false},
		{"anchor's group only", apart, Config{Anchor: "builtin-25", AnchorGroupOnly: true}, []string{"builtin-25: net-25 builtin-25"}, 20, 0, "", false},
		{"a sweep fails", sweep, Config{}, nil, 0, 0, "won", true},
		{"a sweep with a prior", sweep, Config{PriorSD: 400}, []string{"builtin-16: gen002 builtin-16"}, 10, 400, "", false},
		{"a sweep falls back", sweep, Config{FallbackPriorSD: 300}, []string{"builtin-16: gen002 builtin-16"}, 10, 300, "", false},
		{"unknown anchor", linked, Config{Anchor: "nobody"}, nil, 0, 0, `Anchor "nobody"`, false},
		{"negative prior", linked, Config{PriorSD: -1}, nil, 0, 0, "PriorSD", false},
		{"two rule sets", append([]match.File{matchOf("copenhagen", gen1, builtin, 4, 2, 0)}, linked...), Config{}, nil, 0, 0, "several rule sets", false},
		{"no games", []match.File{{Variant: "fetlar"}}, Config{}, nil, 0, 0, "no games", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Fit(Matches{Files: c.files}, c.cfg)
			var fe *FitError
			if got := errors.As(err, &fe); got != c.fitErr {
				t.Errorf("got a *FitError %v (%v), want %v", got, err, c.fitErr)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "ratings: ") {
					t.Errorf("got error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			got := []string{names(rep.Group)}
			for _, g := range rep.OtherGroups {
				got = append(got, names(g))
			}
			if strings.Join(got, " | ") != strings.Join(c.groups, " | ") {
				t.Errorf("got groups %q, want %q", got, c.groups)
			}
			if rep.Games != c.games || rep.PriorSD != c.priorSD {
				t.Errorf("got %d games and prior %v, want %d and %v", rep.Games, rep.PriorSD, c.games, c.priorSD)
			}
			for _, p := range rep.Players {
				if p.Anchor != (p.Name == rep.Anchor) || p.Anchor && p.Elo != 0 || !p.Anchor && !(p.CI95 >= 1.96*p.SE && p.SE > 0) {
					t.Errorf("%s: got %+v, want the anchor at 0 and the others with SE > 0 and ±95%% >= 1.96 SE", p.Name, p)
				}
			}
		})
	}
}

// writeMatches writes each file into dir/NAME/match.json.
func writeMatches(t *testing.T, dir string, files map[string]match.File) {
	t.Helper()
	for name, f := range files {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := fileio.WriteJSON(filepath.Join(dir, name, match.FileName), f); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	writeMatches(t, dir, map[string]match.File{"m1": linked[0], "m2": linked[1], "deeper/m3": linked[2],
		"other/m4": matchOf("copenhagen", gen1, builtin, 10, 6, 0)})
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	cases := []struct {
		name    string
		cfg     Config
		files   int
		players string // of the first group, strongest first
		err     string
	}{
		{"one rule set chosen", Config{Paths: []string{dir}, Variant: "fetlar"}, 3, "gen002 gen-1 builtin-16", ""},
		{"the only rule set", Config{Paths: []string{filepath.Join(dir, "other")}}, 1, "gen-1 builtin-16", ""},
		{"a file and its folder", Config{Paths: []string{filepath.Join(dir, "m1", match.FileName), filepath.Join(dir, "m1")}}, 1, "gen002 builtin-16", ""},
		{"several rule sets", Config{Paths: []string{dir}}, 0, "", "several rule sets"},
		{"a rule set not there", Config{Paths: []string{dir}, Variant: "hnefatafl11"}, 0, "", "hnefatafl11"},
		{"two rule sets rated as one", Config{Paths: []string{dir}, Variant: "fetlar,copenhagen"}, 4, "gen002 gen-1 builtin-16", ""},
		{"one of two rule sets not there", Config{Paths: []string{dir}, Variant: "fetlar,hnefatafl11"}, 0, "", `Variant "hnefatafl11": no match file`},
		{"no match files", Config{Paths: []string{empty}}, 0, "", "no match.json"},
		{"no paths", Config{}, 0, "", "no paths"},
		{"too many files", Config{Paths: []string{dir}, MaxFiles: 2}, 0, "", "more than 2 match files"},
		{"too many bytes", Config{Paths: []string{dir}, MaxBytes: 5}, 0, "", "more than 5 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Run(context.Background(), c.cfg)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("got error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			var players []string
			for _, p := range rep.Players {
				players = append(players, p.Name)
			}
			if len(rep.Files) != c.files || strings.Join(players, " ") != c.players {
				t.Errorf("got %d files and players %q, want %d and %q", len(rep.Files), players, c.files, c.players)
			}
			if c.cfg.Variant != "" && rep.Variant != c.cfg.Variant {
				t.Errorf("got rule set %q, want %q", rep.Variant, c.cfg.Variant)
			}
		})
	}
}

func TestClashes(t *testing.T) {
	dir := t.TempDir()
	netA, netB := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
	os.WriteFile(netA, []byte("network a"), 0o644)
	os.WriteFile(netB, []byte("network b"), 0o644)
	with := func(a match.PlayerInfo) match.File {
		f := matchOf("fetlar", a.Name, builtin, 4, 2, 0)
		f.A = a
		return f
	}
	cases := []struct {
		name string
		a, b match.PlayerInfo
		want string // "" for no clash
	}{
		{"one network", match.PlayerInfo{Name: gen1, Playouts: 16, Network: netA}, match.PlayerInfo{Name: gen1, Playouts: 16, Network: netA}, ""},
		{"two networks", match.PlayerInfo{Name: gen1, Playouts: 16, Network: netA}, match.PlayerInfo{Name: gen1, Playouts: 16, Network: netB}, "network " + netB},
		{"two budgets", match.PlayerInfo{Name: gen1, Playouts: 16, Network: netA}, match.PlayerInfo{Name: gen1, Playouts: 64, Network: netA}, "at 64 playouts in m2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Matches{Paths: []string{"m1", "m2"}, Files: []match.File{with(c.a), with(c.b)}}.Clashes()
			if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)) {
				t.Errorf("got clashes %q, want one with %q (none for \"\")", got, c.want)
			}
		})
	}
}

func TestGenerationOfName(t *testing.T) {
	cases := []struct {
		name string
		gen  int
		ok   bool
	}{
		{"gen-3", 3, true}, {"gen003-abcdef-16", 3, true}, {"Generation_12", 12, true}, {"builtin-16", 0, false}, {"network", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if gen, ok := generation(c.name); gen != c.gen || ok != c.ok {
				t.Errorf("got %d %v, want %d %v", gen, ok, c.gen, c.ok)
			}
		})
	}
}

func TestReport(t *testing.T) {
	rep, err := Fit(Matches{Paths: []string{"m1", "m2", "m3"}, Files: linked}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Markdown()
	for _, want := range []string{"# Ratings: fetlar, 120 games from 3 match files", "| 1 | gen002 |", "| 3 | builtin-16 | 0.0 | anchor |", "Attackers' advantage"} {
		if !strings.Contains(md, want) {
			t.Errorf("got markdown %q, want %q in it", md, want)
		}
	}
	path := filepath.Join(t.TempDir(), "ratings.png")
	if err := rep.SaveChart(path); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(data), "\x89PNG") {
		t.Errorf("got %d bytes (%v), want a PNG", len(data), err)
	}
}
