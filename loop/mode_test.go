package loop

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"taflab/configs"
)

// TestWithExternal records the mode in texts of each layout: the key's
// line (comment kept), a [selfplay] table without it, no such table, and
// a table header with a comment; every other key and comment stays.
func TestWithExternal(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"the key's line", "[selfplay]\ngames = 4\nexternal = false # here or there\n", "external = true # here or there\n"},
		{"no key", "generations = 2\n[selfplay]\ngames = 4\n[train]\nsteps = 3\n", "[selfplay]\nexternal = true\ngames = 4\n"},
		{"no table", "generations = 2\n# the end", "# the end\n\n[selfplay]\nexternal = true\n"},
		{"sub-tables only", "[selfplay.mix]\nodds = 2\n", "odds = 2\n\n[selfplay]\nexternal = true\n"},
		{"the embedded tiny config", string(configs.TinyLoopFile()), "external = true\n# Where games start"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, err := configs.ParseLoop("in.toml", []byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			out, err := WithExternal([]byte(c.text), true)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("got\n%s\nwant it to hold %q", out, c.want)
			}
			after, err := configs.ParseLoop("out.toml", out)
			if err != nil {
				t.Fatal(err)
			}
			before.SelfPlay.External = true
			if !reflect.DeepEqual(after, before) {
				t.Errorf("got %+v, want the input's config with selfplay.external = true", after)
			}
			if again, err := WithExternal(out, true); err != nil || string(again) != string(out) {
				t.Errorf("a text that says so already: got %v and a change, want it as it is", err)
			}
		})
	}
	// A layout the edit does not know is refused, not written wrong.
	if _, err := WithExternal([]byte("selfplay = {games = 4}\n"), true); err == nil || !strings.Contains(err.Error(), "selfplay.external") {
		t.Errorf("an inline table: got %v, want an error naming selfplay.external", err)
	}
}

// TestRunKeepsItsMode: a run started in one mode records it in its
// loop.toml, and carrying it on in the other is refused, naming the key,
// before any work; so is a run whose generations' self-play says so (a run
// set up before loop.toml recorded the mode).
func TestRunKeepsItsMode(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	ext := cfg
	ext.SelfPlay.External = true
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // set up, then stop at the first stage
	if err := Run(ctx, run, ext, configs.TinyLoopFile(), Options{}); err == nil {
		t.Fatal("got no error from a stopped run, want the context's")
	}
	text, err := os.ReadFile(filepath.Join(run, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if own, err := configs.ParseLoop("loop.toml", text); err != nil || !own.SelfPlay.External {
		t.Fatalf("the run's loop.toml: got external %v (%v), want true", own.SelfPlay.External, err)
	}
	err = Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{})
	if err == nil || !strings.Contains(err.Error(), "selfplay.external = true") || !strings.Contains(err.Error(), ConfigFile) {
		t.Errorf("in-process on an external run: got %v, want a refusal naming selfplay.external and loop.toml", err)
	}

	// A generation's selfplay.json of the other mode.
	old := filepath.Join(t.TempDir(), "old")
	if err := os.MkdirAll(GenDir(old, 1), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(GenDir(old, 1), "selfplay.json"), []byte(`{"games": 3, "external": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkMode(old, cfg); err == nil || !strings.Contains(err.Error(), "gen-001") {
		t.Errorf("in-process on a run whose generation 1 was external: got %v, want a refusal naming gen-001", err)
	}
	if err := checkMode(old, ext); err != nil {
		t.Errorf("external on it: got %v, want none", err)
	}
}
