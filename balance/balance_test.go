package balance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/nettest"
	"taflab/player"
)

// tiny is a small study: the builtin player at 4 playouts, a few games a
// run, one worker of two games, a fixed seed.
func tiny(names ...string) Config {
	cfg := DefaultConfig()
	cfg.Variants = nil
	for _, name := range names {
		cfg.Variants = append(cfg.Variants, variants.MustLoad(name))
	}
	cfg.Players = []player.Spec{player.BuiltinSpec(4)}
	cfg.MaxGames, cfg.Width, cfg.Workers, cfg.GamesPerWorker, cfg.Seed = 4, 0, 1, 2, 7
	return cfg
}

// syntheticRecords are five recorded games, one of each record ending.
func syntheticRecords(t *testing.T) RecordFile {
	t.Helper()
	text := "moves,attacker_captures,defender_captures,result\n" +
		"d1-d3 e5-e2 f2-i2,0,0,White\n" + // resigned
		"d1-d3 e5-e2 timeout,0,0,Black\n" +
		"d1-d3,0,0,Ongoing\n" +
		"d1-d3 e5-e2,0,0,Draw\n" +
		"d1-d3 d1-d4,0,0,White\n" // d1 is empty after the first move
	recs, err := datasets.ReadRecords(context.Background(), "games.csv", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return RecordFile{Name: "games.csv", Records: recs}
}

// TestRun plays small studies and checks that the counts add up: every
// run's games are its wins and draws and its endings, the rates hold their
// intervals, each pair of rule sets at a strength is compared, and
// Progress hears of each game between the run's start and end.
func TestRun(t *testing.T) {
	tests := []struct {
		name        string
		cfg         func(Config) Config
		players     []string
		games       int // of each run
		stopped     string
		comparisons int
	}{
		{"two budgets", func(c Config) Config { c.Strengths = []int{4, 8}; return c },
			[]string{"builtin-4", "builtin-8"}, 4, "max-games", 2},
		{"early stop", func(c Config) Config { c.MaxGames, c.Width, c.MinGames = 20, 1, 3; return c },
			[]string{"builtin-4"}, 3, "precision", 1},
		{"odd games, two workers", func(c Config) Config { c.MaxGames, c.Workers = 3, 2; return c },
			[]string{"builtin-4"}, 3, "max-games", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg(tiny("copenhagen", "fetlar"))
			calls := map[string][]Progress{}
			cfg.Progress = func(p Progress) { calls[p.Variant+" "+p.Player] = append(calls[p.Variant+" "+p.Player], p) }
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(rep.Runs), len(tt.players)*2; got != want {
				t.Fatalf("got %d runs, want %d", got, want)
			}
			for i, r := range rep.Runs {
				what := r.Variant + " " + r.Player
				if got, want := r.Player, tt.players[i/2]; got != want {
					t.Errorf("run %d: got player %v, want %v", i, got, want)
				}
				if got, want := [2]any{r.Games, r.Stopped}, [2]any{tt.games, tt.stopped}; got != want {
					t.Errorf("%s: got games and stop %v, want %v", what, got, want)
				}
				if got := r.Outcomes().Games(); got != r.Games {
					t.Errorf("%s: got %d wins and draws, want %d", what, got, r.Games)
				}
				ended := 0
				for _, e := range RuleEndings {
					ended += r.Endings[e]
				}
				if ended != r.Games {
					t.Errorf("%s: got endings %v, want %d games by the rules' endings", what, r.Endings, r.Games)
				}
				for _, rate := range []Rate{r.Attackers, r.Defenders, r.Draws} {
					if !(rate.Games == r.Games && rate.Lo <= rate.Rate && rate.Rate <= rate.Hi) {
						t.Errorf("%s: got rate %+v, want %d games and lo <= rate <= hi", what, rate, r.Games)
					}
				}
				p := calls[what]
				if got, want := len(p), r.Games+2; got != want {
					t.Fatalf("%s: got %d progress calls, want %d (start, each game, end)", what, got, want)
				}
				if got, want := [3]any{p[0].Games, p[len(p)-2].Games, p[len(p)-1].Done}, [3]any{0, r.Games, true}; got != want {
					t.Errorf("%s: got first games, last games and done %v, want %v", what, got, want)
				}
			}
			if got := len(rep.Comparisons); got != tt.comparisons {
				t.Errorf("got %d comparisons, want %d", got, tt.comparisons)
			}
		})
	}
}

// TestRunSameSeed: the same seed gives the same games whatever the workers.
func TestRunSameSeed(t *testing.T) {
	var reps []Report
	for _, workers := range []int{1, 2} {
		cfg := tiny("fetlar")
		cfg.Workers, cfg.MaxGames = workers, 5
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	a, b := reps[0].Runs[0], reps[1].Runs[0]
	if a.Lengths != b.Lengths || a.Defenders != b.Defenders {
		t.Errorf("got %+v %+v, want the same as %+v %+v", b.Lengths, b.Defenders, a.Lengths, a.Defenders)
	}
}

// TestRunLoadsNetworkOnce: the budgets of a network player share the one
// network its Loader loaded: a run goes on after the file is gone.
func TestRunLoadsNetworkOnce(t *testing.T) {
	file := nettest.TinyFile(t, 1)
	loader := new(player.Loader)
	if _, err := loader.Network(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	cfg := tiny("fetlar")
	cfg.Players, cfg.Strengths, cfg.MaxGames, cfg.Loader = []player.Spec{player.NetworkSpec(file, 1)}, []int{1, 2}, 2, loader
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("got %v, want the runs played on the loaded network", err)
	}
	if got, want := len(rep.Runs), 2; got != want {
		t.Fatalf("got %d runs, want %d", got, want)
	}
	for i, r := range rep.Runs {
		if got, want := r.Playouts, cfg.Strengths[i]; got != want || r.Network != file || r.Games != 2 {
			t.Errorf("run %d: got %d playouts, network %q, %d games, want %d, %q, 2", i, got, r.Network, r.Games, want, file)
		}
	}
	// Without the loader the file is read, and it is gone.
	cfg.Loader = nil
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "tiny.safetensors") {
		t.Errorf("got %v, want an error naming the missing file", err)
	} else if !strings.HasPrefix(err.Error(), "balance: player ") || strings.Contains(err.Error(), "net: ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want it as the balance's error of the player, with one package prefix, that is os.ErrNotExist", err)
	}
}

func TestLadder(t *testing.T) {
	engine, err := player.ParseSpec("uci:cmd=engine,nodes=5")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		specs     []player.Spec
		strengths []int
		want      string // the specs, or the error's words
	}{
		{"no strengths", []player.Spec{player.BuiltinSpec(200)}, nil, "[builtin:playouts=200]"},
		{"budgets", []player.Spec{player.BuiltinSpec(200), player.NetworkSpec("a.safetensors", 800)}, []int{50, 400},
			"[builtin:playouts=50 builtin:playouts=400 net=a.safetensors,playouts=50 net=a.safetensors,playouts=400]"},
		{"engine as it is", []player.Spec{engine}, nil, "[" + engine.String() + "]"},
		{"engine at budgets", []player.Spec{engine}, []int{50}, "engine program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := Ladder(tt.specs, tt.strengths)
			var got []string
			for _, s := range specs {
				got = append(got, s.String())
			}
			text := "[" + strings.Join(got, " ") + "]"
			if err != nil {
				text = err.Error()
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("got %v, want %v", text, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // in the error; "" for none
	}{
		{"defaults", func(c *Config) {}, ""},
		{"records only", func(c *Config) { c.Variants, c.Records = nil, []RecordFile{{Name: "x"}} }, ""},
		{"no games", func(c *Config) { c.MaxGames = 0 }, "MaxGames"},
		{"wide", func(c *Config) { c.Width = 1.5 }, "Width"},
		{"confidence 1", func(c *Config) { c.Confidence = 1 }, "Confidence"},
		{"negative workers", func(c *Config) { c.Workers = -1 }, "Workers"},
		{"strength twice", func(c *Config) { c.Strengths = []int{50, 50} }, "Strengths"},
		{"strength 0", func(c *Config) { c.Strengths = []int{0} }, "Strengths"},
		{"rule set twice", func(c *Config) { c.Variants = append(c.Variants, c.Variants[0]) }, "Variants"},
		{"no players", func(c *Config) { c.Players = nil }, "no Players"},
		{"nothing", func(c *Config) { c.Variants = nil }, "nothing to report"},
		{"records without a rule set", func(c *Config) { c.Records, c.RecordsVariant = []RecordFile{{}}, nil }, "RecordsVariant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.edit(&cfg)
			err := cfg.Validate()
			if got := err != nil && strings.HasPrefix(err.Error(), "balance: ") && strings.Contains(err.Error(), tt.want); got != (tt.want != "") {
				t.Errorf("got %v, want an error naming %q (none for \"\")", err, tt.want)
			}
		})
	}
}

// TestReportRecords: each recorded game gets its ending, Ongoing games
// are left out of the rates, and a study of records only charts them.
func TestReportRecords(t *testing.T) {
	rf := syntheticRecords(t)
	r := ReportRecords(rf, variants.MustLoad("copenhagen-classic"), 0.95)
	want := map[string]int{EndResigned: 1, EndTimedOut: 1, EndUnfinished: 1, EndAgreedDraw: 1, EndIllegal: 1}
	for e, n := range want {
		if r.Endings[e] != n {
			t.Errorf("%s: got %d, want %d (all: %v)", e, r.Endings[e], n, r.Endings)
		}
	}
	if got, want := [5]int{r.Games, r.Ongoing, r.Attackers.Wins, r.Defenders.Wins, r.Draws.Wins}, [5]int{5, 1, 1, 2, 1}; got != want {
		t.Errorf("got games, ongoing, attacker, defender wins and draws %v, want %v", got, want)
	}
	if r.Illegal != 1 || !strings.HasPrefix(r.FirstError, "games.csv: ") {
		t.Errorf("got %d illegal, first %q, want 1 naming games.csv", r.Illegal, r.FirstError)
	}

	cfg := tiny()
	cfg.Records = []RecordFile{rf}
	rep, err := Run(context.Background(), cfg)
	if err != nil || len(rep.Records) != 1 || len(rep.Runs) != 0 {
		t.Fatalf("got %v, %d record reports and %d runs, want 1 and 0", err, len(rep.Records), len(rep.Runs))
	}
	if md := rep.Markdown(); !strings.Contains(md, "## Game records") || !strings.Contains(md, "| games.csv | copenhagen-classic | 5 | 1 |") {
		t.Errorf("got\n%s\nwant the records' table", md)
	}
	checkChart(t, rep)
}

// TestReportFiles: the report's JSON has balance.json's field names, in
// its order, its Markdown the runs' table, and its chart is a PNG.
func TestReportFiles(t *testing.T) {
	cfg := tiny("fetlar")
	cfg.Strengths = []int{4, 6}
	cfg.Records = []RecordFile{syntheticRecords(t)}
	cfg.Variants = append(cfg.Variants, variants.MustLoad("copenhagen-classic"))
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{`{"variants":`, `"players":`, `"max_games":`, `"width":`, `"confidence":`, `"min_games":`, `"seed":`,
		`"search":{"full_search_prob":`, `"interrupted":`, `"runs":[{"variant":`, `"player":`, `"playouts":`, `"openings":`,
		`"games":`, `"stopped":`, `"attackers":{"wins":`, `"games":`, `"rate":`, `"lo":`, `"hi":`, `"defenders":`, `"draws":`,
		`"endings":{`, `"lengths":{"mean":`, `"median":`, `"min":`, `"max":`, `"seconds":`, `"comparisons":[{"player":`,
		`"a":`, `"b":`, `"diff":`, `"z":`, `"p":`, `"p_holm":`, `"records":[{"file":`, `"variant":`, `"games":`, `"ongoing":`,
		`"attackers":`, `"rules_disagree":`, `"illegal":`, `"first_error":`, `"baselines":[{"file":`}
	rest := data
	for _, k := range wantKeys {
		i := bytes.Index(rest, []byte(k))
		if i < 0 {
			t.Fatalf("balance.json: got %s, want %s next", rest, k)
		}
		rest = rest[i+len(k):]
	}
	md := rep.Markdown()
	for _, w := range []string{"| fetlar | builtin-4 | 4 | max-games |", "| copenhagen-classic | builtin-6 |", "Records against self-play"} {
		if !strings.Contains(md, w) {
			t.Errorf("got\n%s\nwant it to hold %q", md, w)
		}
	}
	checkChart(t, rep)
}

// checkChart draws the report's chart and checks that it is a PNG.
func checkChart(t *testing.T, rep Report) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "balance.png")
	if err := Chart(rep, path); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("got %d bytes (%v), want a PNG", len(png), err)
	}
}

// TestRunInterrupted: a study stopped before its games returns its
// report marked interrupted, with ctx's error.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := Run(ctx, tiny("fetlar"))
	if got, want := [2]any{rep.Interrupted, err}, [2]any{true, context.Canceled}; got != want {
		t.Errorf("got interrupted and error %v, want %v", got, want)
	}
	if rep.Runs == nil || !strings.Contains(rep.Markdown(), "**Interrupted**") {
		t.Errorf("got runs %v, want a report that says it was interrupted", rep.Runs)
	}
}
