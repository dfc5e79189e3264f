package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/internal/varianttest"
	"taflab/protocol"
	"taflab/rules"
)

// openTaflCopenhagen is OpenTafl's Copenhagen as its RulesSerializer writes
// it (../shared/notes/opentafl.md).
const openTaflCopenhagen = "dim:11 name:Copenhagen atkf:y surf:y efe:y tfr:w sw:s start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"

// TestLoadVariantOTR: -variant takes an OpenTafl rules string after otr:,
// or a file holding one, compiled and refereed as OpenTafl referees; rule
// sets by name and TOML files as before; a bad string is refused with the
// key named.
func TestLoadVariantOTR(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return varianttest.WriteFile(t, dir, name, text) }
	toml, err := os.ReadFile("variants/fetlar.toml")
	if err != nil {
		t.Fatal(err)
	}
	copenhagen := variants.MustLoad("copenhagen")
	for _, c := range []struct {
		name, arg, want string
		referee         rules.RefereeRule
	}{
		{"by name", "copenhagen", "copenhagen", rules.RefereeTaflab},
		// OpenTafl's Copenhagen is not taflab's: its name says so.
		{"otr string", "otr:" + openTaflCopenhagen, "opentafl-copenhagen", rules.RefereeOpenTafl},
		{"otr string, taflab's referee", "otr:" + openTaflCopenhagen + " x-referee:taflab", "opentafl-copenhagen", rules.RefereeTaflab},
		{"otr file", write("copenhagen.otr", openTaflCopenhagen+"\n"), "opentafl-copenhagen", rules.RefereeOpenTafl},
		{"otr file with prefix and comment", write("c.txt", "# OpenTafl's Copenhagen\n\notr:"+openTaflCopenhagen+"\n"), "opentafl-copenhagen", rules.RefereeOpenTafl},
		{"otr string of taflab's copenhagen", "otr:" + mustRulesString(t, copenhagen.Definition()), "copenhagen", rules.RefereeTaflab},
		{"otr string, a name of its own", "otr:" + strings.Replace(openTaflCopenhagen, "name:Copenhagen", "name:My_Tafl", 1), "my_tafl", rules.RefereeOpenTafl},
		{"toml file", write("mine.toml", string(toml)), "fetlar", rules.RefereeTaflab},
		{"toml file, other name", write("mine.rules", string(toml)), "fetlar", rules.RefereeTaflab},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := LoadVariant(c.arg)
			if err != nil {
				t.Fatal(err)
			}
			if v.Name() != c.want || v.Definition().Referee != c.referee {
				t.Errorf("got %s refereed by %v, want %s by %v", v.Name(), v.Definition().Referee, c.want, c.referee)
			}
			if strings.HasSuffix(c.want, "copenhagen") && v.Start() != copenhagen.Start() {
				t.Errorf("got start %v, want %v", v.Start(), copenhagen.Start())
			}
		})
	}
	for _, c := range []struct{ name, arg, want string }{
		{"bad otr key", "otr:dim:11 wibble:y start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/", `-variant "otr:dim:11 wibble:y`},
		{"bad otr start", "otr:dim:11 start:/3t3/", "key start:"},
		{"bad otr file", write("bad.otr", "dim:11 tfr:q start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/\n"), `rule-set file "` + filepath.Join(dir, "bad.otr") + `": key tfr:`},
		{"unknown name", "copenhagn", `unknown rule set "copenhagn"`},
		{"an OpenTafl string's name", "opentafl-copenhagen", `unknown rule set "opentafl-copenhagen": not an embedded one (copenhagen, copenhagen-classic, fetlar, hnefatafl11), not otr:RULES and not a rule-set file; opentafl-NAME is an OpenTafl rules string's name: give the string as otr:RULES`},
		{"toml file, a shipped name, OpenTafl's referee", write("ot.toml", strings.Replace(string(toml), `referee = "taflab"`, `referee = "opentafl"`, 1)),
			`name "fetlar" is a shipped rule set's, but the rules differ from it in referee: give the changed rule set a name of its own (OpenTafl's reading of it is opentafl-fetlar)`},
		{"toml file, a shipped name, other rules", write("changed.toml", strings.Replace(string(toml), "edge_fort = false", "edge_fort = true", 1)),
			`name "fetlar" is a shipped rule set's, but the rules differ from it in edge_fort: give`},
		{"a file without end", "/dev/zero", `/dev/zero: a device, not a regular file`}, // it read without bound
		{"a file past the bound", sparse(t, filepath.Join(dir, "big.toml"), 1<<20+1), `big.toml: more than 1048576 bytes`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadVariant(c.arg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// sparse makes a file of size bytes that takes no disk, and returns its
// path.
func sparse(t *testing.T, path string, size int64) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustRulesString writes def as an OpenTafl rules string.
func mustRulesString(t *testing.T, def rules.Definition) string {
	t.Helper()
	otr, err := protocol.RulesString(def)
	if err != nil {
		t.Fatal(err)
	}
	return otr
}
