package loop

import (
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/rules"
)

// TestSetUpRuleSet: a run folder keeps its rule set; set up again with
// another one it is refused, and with the same rules under a new name
// (what an older build named an OpenTafl rules string) the refusal says
// which name to give its file.
func TestSetUpRuleSet(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Gate.Openings, cfg.SelfPlay.Mix.SuiteShare = "random", 0 // a renamed rule set has no suite of its own
	run := filepath.Join(t.TempDir(), "run")
	if err := setUp(run, cfg, configs.TinyLoopFile(), variants.MustLoad(cfg.Variant)); err != nil {
		t.Fatal(err)
	}
	renamed := variants.MustLoad(cfg.Variant).Definition()
	renamed.Name = "opentafl-" + renamed.Name
	sameRules, err := rules.Compile(renamed)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		v    *rules.Variant
		want string
	}{
		{"the same", variants.MustLoad(cfg.Variant), ""},
		{"other rules", variants.MustLoad("fetlar"), "this run plays another rule set than fetlar"},
		{"the same rules, renamed", sameRules, `this run's rules are opentafl-copenhagen's under another name, which an older build gave them: change its name to "opentafl-copenhagen"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := setUp(run, cfg, configs.TinyLoopFile(), c.v)
			if c.want == "" {
				if err != nil {
					t.Errorf("got %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Join(run, VariantFile)) {
				t.Errorf("got %v, want an error naming %s with %q", err, VariantFile, c.want)
			}
		})
	}
}
