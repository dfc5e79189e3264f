package adapt

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"taflab/balance"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/internal/nettest"
	"taflab/internal/varianttest"
	"taflab/loop"
)

// tinyLoop is a loop of seconds: one generation of a few games at a few
// playouts, a few training steps, a gate and rating games of a pair.
const tinyLoop = `generations = 1
[selfplay]
games = 4
games_per_worker = 4
[selfplay.mix]
suite_share = 0.0
odds_share = 0.0
[selfplay.search]
playouts = 8
cheap_playouts = 2
[train]
steps = 4
batch_size = 16
checkpoint_every = 2
from_last = true
pretrain_steps = 0
[train.records]
file = ""
[train.optimizer]
total_steps = 4
[gate]
max_games = 2
playouts = 4
openings = "random"
[baseline]
games = 2
playouts = 4
opponent = "start"
odds = []
`

// noFort writes copenhagen without edge forts, a rule set of one's own,
// into dir and returns its file.
func noFort(t *testing.T, dir string) string {
	t.Helper()
	data, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(`name = "copenhagen"`, `name = "copenhagen-nofort"`, "edge_fort = true", "edge_fort = false").Replace(string(data))
	return varianttest.WriteFile(t, dir, "copenhagen-nofort.toml", text)
}

// tinyConfig adapts the rule set in file from a tiny network that stands
// for copenhagen's, with a small balance study beside copenhagen.
func tinyConfig(t *testing.T, file string) Config {
	t.Helper()
	v, err := configs.LoadVariant(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Variant, cfg.VariantArg = v, file
	cfg.Networks = map[string]string{"copenhagen": nettest.TinyFile(t, 1)}
	cfg.LoopText, cfg.LoopName = []byte(tinyLoop), "tiny.toml"
	cfg.Strengths, cfg.Games, cfg.Width = []int{1, 2}, 4, 0
	return cfg
}

// TestRun adapts a tiny network to copenhagen without edge forts, stopped
// in its balance study and carried on: the folder holds the plan, the
// copies, the loop, the adapted network and the study of both rule sets
// at both strengths, and the report says so.
func TestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	file := noFort(t, t.TempDir())
	cfg := tinyConfig(t, file)

	ctx, cancel := context.WithCancel(context.Background())
	stop := Options{BalanceProgress: func(p balance.Progress) {
		if p.Games == 2 {
			cancel()
		}
	}}
	if _, err := Run(ctx, dir, cfg, stop); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the run stopped in its balance study", err)
	}
	cfg.LoopText = nil // carried on with the run's own loop config
	var log strings.Builder
	rep, err := Run(context.Background(), dir, cfg, Options{Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}

	for _, f := range []string{PlanFile, RulesFile, StartFile, NetworkFile, ReportFile, ReportJSON,
		filepath.Join(LoopDir, loop.ConfigFile), filepath.Join(BalanceDir, balance.JSONFile), filepath.Join(BalanceDir, balance.JournalFile)} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v, want it in the run's folder", f, err)
		}
	}
	if got, want := [3]any{rep.Plan.Nearest, strings.Join(rep.Plan.Differences, ","), len(rep.Generations)}, [3]any{"copenhagen", "edge_fort", 1}; got != want {
		t.Errorf("got nearest, differences and generations %v, want %v", got, want)
	}
	if rep.Balance == nil || len(rep.Balance.Runs) != 4 || len(rep.Balance.Comparisons) != 2 {
		t.Fatalf("got balance %+v, want both rule sets at both strengths, compared at each", rep.Balance)
	}
	for _, r := range rep.Balance.Runs {
		want := filepath.Join(dir, NetworkFile)
		if r.Variant == "copenhagen" {
			want = cfg.Networks["copenhagen"]
		}
		if r.Games != 4 || r.Network != want {
			t.Errorf("%s %s: got %d games with %s, want 4 with %s", r.Variant, r.Player, r.Games, r.Network, want)
		}
	}
	if rep.CPUHours <= 0 || rep.LoopCPUHours <= 0 {
		t.Errorf("got %v CPU hours (loop %v), want the time counted", rep.CPUHours, rep.LoopCPUHours)
	}
	md, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	for _, w := range []string{"# copenhagen-nofort:", "which it differs from in edge_fort", "| copenhagen-nofort | own-2 | 4 |", "| own-1 | copenhagen-nofort | copenhagen |"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md: got\n%s\nwant it to hold %q", md, w)
		}
	}
	var back Report
	data, _ := os.ReadFile(filepath.Join(dir, ReportJSON))
	if err := json.Unmarshal(data, &back); err != nil || back.Plan.Variant != "copenhagen-nofort" || back.Balance == nil {
		t.Errorf("report.json: got %v, %+v; want the report", err, back.Plan)
	}
}

// TestRunRefusals: a folder keeps its rules and start network; a board the
// networks cannot play, or no network to start from, is refused before
// anything is written.
func TestRunRefusals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	file := noFort(t, t.TempDir())
	cfg := tinyConfig(t, file)
	cfg.Games = 0
	if _, err := Run(context.Background(), dir, cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Variant = variants.MustLoad("fetlar")
	if _, err := Run(context.Background(), dir, other, Options{}); err == nil || !strings.Contains(err.Error(), "this run adapts to copenhagen-nofort") {
		t.Errorf("other rules: got %v, want a refusal naming the run's rule set", err)
	}
	other = cfg
	other.From = nettest.TinyFile(t, 2)
	if _, err := Run(context.Background(), dir, other, Options{}); err == nil || !strings.Contains(err.Error(), "this run started from") {
		t.Errorf("other start: got %v, want a refusal naming the run's start network", err)
	}

	for _, tt := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"7x7", func(c *Config) { c.Variant = varianttest.Small(t) }, "7x7 boards"},
		{"no network", func(c *Config) { c.Networks = nil }, "no network to start from"},
		{"strength twice", func(c *Config) { c.Strengths = []int{4, 4} }, "Strengths"},
		{"the study's settings", func(c *Config) { c.Width, c.Confidence = 2, 2 }, "adapt: balance: Width 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tinyConfig(t, file)
			tt.edit(&c)
			fresh := filepath.Join(t.TempDir(), "run")
			if _, err := Run(context.Background(), fresh, c, Options{}); err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\nbalance: ") {
				t.Errorf("got %v, want an error naming %q, under package adapt's name alone", err, tt.want)
			}
			if _, err := os.Stat(fresh); err == nil {
				t.Errorf("%s was made, want nothing written", fresh)
			}
		})
	}
}

func TestNearest(t *testing.T) {
	all := map[string]string{}
	for _, name := range variants.Names() {
		all[name] = name + ".safetensors"
	}
	tests := []struct {
		name     string
		networks map[string]string
		nearest  string
		keys     []string
	}{
		{"every network", all, "copenhagen", []string{"edge_fort"}},
		{"only fetlar's", map[string]string{"fetlar": "f"}, "fetlar", []string{"shieldwall", "shieldwall_wins", "encirclement"}},
		{"none", map[string]string{}, "", nil},
	}
	v, err := configs.LoadVariant(noFort(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, keys := Nearest(v, tt.networks)
			if name != tt.nearest || !slices.Equal(keys, tt.keys) {
				t.Errorf("got %s %v, want %s %v", name, keys, tt.nearest, tt.keys)
			}
		})
	}
	if name, keys := Nearest(variants.MustLoad("hnefatafl11"), all); name != "hnefatafl11" || len(keys) != 0 {
		t.Errorf("a shipped rule set: got %s %v, want itself", name, keys)
	}
}

func TestSetKey(t *testing.T) {
	tests := []struct {
		name, text, table, key, value, want string
	}{
		{"top level, replaced", "# c\nvariant = \"x\"\n[train]\ninit = \"\"\n", "", "variant", "/a/b.toml",
			"# c\nvariant = '/a/b.toml'\n[train]\ninit = \"\"\n"},
		{"table, replaced", "variant = \"x\"\n[train]\nsteps = 4\n  init = \"\" # the start\n[gate]\ninit = 1\n", "train", "init", "/n",
			"variant = \"x\"\n[train]\nsteps = 4\ninit = '/n'\n[gate]\ninit = 1\n"},
		{"top level, added", "[train]\nsteps = 4\n", "", "variant", "v", "variant = 'v'\n[train]\nsteps = 4\n"},
		{"table, added", "[train]\nsteps = 4\n[train.records]\nfile = \"\"\n", "train", "init", "/n",
			"[train]\ninit = '/n'\nsteps = 4\n[train.records]\nfile = \"\"\n"},
		{"no table", "generations = 1", "train", "init", "/n", "generations = 1\n\n[train]\ninit = '/n'\n"},
		{"a quote", "", "", "variant", "it's", "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setKey([]byte(tt.text), tt.table, tt.key, tt.value)
			text := string(got)
			if err != nil {
				text = "error"
			}
			if text != tt.want {
				t.Errorf("got %q, want %q", text, tt.want)
			}
		})
	}
	// The embedded config with both keys set parses, with them.
	text, err := setKey(configs.AdaptLoopFile(), "", "variant", "fetlar")
	if err == nil {
		text, err = setKey(text, "train", "init", "/n.safetensors")
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.ParseLoop("adapt.toml", text)
	if err != nil || cfg.Variant != "fetlar" || cfg.Train.Init != "/n.safetensors" {
		t.Errorf("got %v, %q, %q; want the keys set", err, cfg.Variant, cfg.Train.Init)
	}
}
