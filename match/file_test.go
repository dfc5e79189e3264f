package match

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/internal/fileio"
	"taflab/rules"
	"taflab/stats"
)

// TestFileRules: a match of a rule set that does not ship carries its
// rules in its file, read back as written; a shipped one names it alone;
// rules that do not fit the file are refused, named.
func TestFileRules(t *testing.T) {
	own := variants.MustLoad("copenhagen").Definition()
	own.Name, own.EdgeFort = "no-fort", false
	noFort, err := rules.Compile(own)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		v         *rules.Variant
		wantRules bool
	}{
		{"shipped", variants.MustLoad("copenhagen"), false},
		{"its own", noFort, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := NewFile(c.v, Player{Name: "a"}, Player{Name: "b"}, stats.SPRT{}, Result{})
			dir := t.TempDir()
			if err := fileio.WriteJSON(filepath.Join(dir, FileName), f); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(dir)
			if err != nil {
				t.Fatal(err)
			}
			if (got.Rules != nil) != c.wantRules || (got.Rules != nil && *got.Rules != c.v.Definition()) {
				t.Errorf("got rules %+v, want %v (the rule set's own: %v)", got.Rules, c.v.Definition(), c.wantRules)
			}
		})
	}
	for _, c := range []struct {
		name  string
		rules rules.Definition
		want  string
	}{
		{"another name", variants.MustLoad("fetlar").Definition(), `rules named "fetlar" for variant "no-fort"`},
		{"rules that do not compile", func() rules.Definition { d := own; d.Size = 4; return d }(), "rules: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := json.Marshal(map[string]any{"variant": "no-fort", "rules": c.rules, "games": []any{}})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("got %v, want an error naming %s with %q", err, path, c.want)
			}
		})
	}
}
