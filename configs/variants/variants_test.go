package variants_test

import (
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

func TestEmbeddedVariants(t *testing.T) {
	want := map[string]rules.Definition{
		"copenhagen": {Shieldwall: rules.ShieldwallAttackers, ShieldwallWins: true, EdgeFort: true, Encirclement: true,
			Repetition: rules.RepetitionMoverLoses},
		"copenhagen-classic": {Shieldwall: rules.ShieldwallBoth, EdgeFort: true, Encirclement: true,
			Repetition: rules.RepetitionDefendersLose},
		"fetlar":      {Repetition: rules.RepetitionMoverLoses},
		"hnefatafl11": {KingCapturedOnEdge: true, Repetition: rules.RepetitionMoverLoses},
	}
	const start = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a"
	if got := strings.Join(variants.Names(), ","); got != "copenhagen,copenhagen-classic,fetlar,hnefatafl11" {
		t.Fatalf("VariantNames: got %v, want the four rule sets of the spec", got)
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			v, err := variants.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			w.Name, w.Size, w.Start, w.NoProgressMoves = name, 11, start, 100
			if got := v.Definition(); got != w {
				t.Errorf("got %+v, want %+v", got, w)
			}
		})
	}
}

// copenhagenWith returns the embedded copenhagen file with one line replaced
// (or, with an empty replacement, removed) and extra lines appended.
func copenhagenWith(t *testing.T, key, replacement, extra string) []byte {
	t.Helper()
	data, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	found := key == ""
	for _, line := range strings.Split(string(data), "\n") {
		if key != "" && strings.HasPrefix(line, key+" =") {
			found = true
			if replacement == "" {
				continue
			}
			line = replacement
		}
		out = append(out, line)
	}
	if !found {
		t.Fatalf("copenhagen.toml has no key %s", key)
	}
	return []byte(strings.Join(out, "\n") + extra)
}

func TestParseVariantErrors(t *testing.T) {
	cases := []struct {
		name, key, replacement, extra string
		want                          []string // fragments the error must hold
	}{
		{"unknown key", "", "", "\nedge_forts = true\n", []string{"my.toml", `unknown key "edge_forts"`}},
		{"missing key", "encirclement", "", "", []string{"my.toml", `missing key "encirclement"`}},
		{"wrong type", "size", `size = "eleven"`, "", []string{"my.toml", "line", "size"}},
		{"bad enum", "shieldwall", `shieldwall = "sometimes"`, "", []string{"my.toml", "shieldwall", "none, attackers, both"}},
		{"bad repetition", "repetition", `repetition = "always"`, "", []string{"my.toml", "repetition", "mover-loses", "draw"}},
		{"even size", "size", "size = 10", "", []string{"my.toml", "key size", "odd"}},
		{"size too big", "size", "size = 13", "", []string{"my.toml", "key size"}},
		{"start of another size", "size", "size = 9", "", []string{"my.toml", "key start", "11x11"}},
		{"impossible combination", "shieldwall", `shieldwall = "none"`, "", []string{"my.toml", "key shieldwall_wins"}},
		{"negative limit", "no_progress_moves", "no_progress_moves = -1", "", []string{"my.toml", "key no_progress_moves"}},
		{"two kings", "start", `start = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aakaa3 a"`, "",
			[]string{"my.toml", "key start", "2 kings"}},
		{"a start with no legal move (issue 23)", "start", `start = "11/11/11/11/11/5k5/11/11/11/11/11 a"`, "",
			[]string{"my.toml", "key start", "no attacker is left", "the game is over"}},
		{"the king on a corner at the start", "start", `start = "k2aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1dd1dd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a"`, "",
			[]string{"my.toml", "key start", "the king is on a corner"}},
		{"attackers boxed in at the start", "start", `start = "11/11/11/11/11/5k5/11/11/d10/ad9/11 a"`, "",
			[]string{"my.toml", "key start", "the attackers have no legal move"}},
		{"soldier on the throne", "start", `start = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1dddkd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a"`, "",
			[]string{"my.toml", "key start", "f6"}},
		{"bad name", "name", `name = "My Variant"`, "", []string{"my.toml", "key name"}},
		{"not toml", "", "", "\n[[[\n", []string{"my.toml", "line"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := variants.Parse("my.toml", copenhagenWith(t, c.key, c.replacement, c.extra))
			if err == nil {
				t.Fatalf("got no error, want one holding %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to hold %q", err, w)
				}
			}
		})
	}
}

// TestUserVariant is the promise to users: copy a file, change a switch, play.
func TestUserVariant(t *testing.T) {
	data := copenhagenWith(t, "name", `name = "no-fort"`, "")
	data = []byte(strings.Replace(string(data), "edge_fort = true", "edge_fort = false", 1))
	v, err := variants.Parse("no-fort.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Definition(); got.Name != "no-fort" || got.EdgeFort || !got.Encirclement {
		t.Errorf("got %+v, want copenhagen without the edge fort", got)
	}
	// A draw by repetition: the switch none of the four rule sets uses.
	data = copenhagenWith(t, "repetition", `repetition = "draw"`, "")
	// Under the shipped name it is refused, the change named: a shipped
	// name stands for the shipped rules alone.
	if _, err := variants.Parse("repdraw.toml", data); err == nil || !strings.Contains(err.Error(), `repdraw.toml: name "copenhagen" is a shipped rule set's, but the rules differ from it in repetition`) {
		t.Errorf("got %v, want the shipped name refused for other rules", err)
	}
	v, err = variants.Parse("repdraw.toml", []byte(strings.Replace(string(data), `name = "copenhagen"`, `name = "repdraw"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Definition().Repetition, rules.RepetitionDraw; got != want {
		t.Errorf("repetition: got %v, want %v", got, want)
	}
	if _, err := variants.Load("no-such"); err == nil || !strings.Contains(err.Error(), "copenhagen-classic") {
		t.Errorf("got %v, want an error that lists the embedded rule sets", err)
	}
}

// TestDifferences: the keys in which a definition differs from the
// shipped rule set of its name, none for the shipped rule set itself or a
// name none ships under; IsShipped only for the shipped rule sets.
func TestDifferences(t *testing.T) {
	shipped := variants.MustLoad("copenhagen").Definition()
	changed := shipped
	changed.EdgeFort, changed.Referee = false, rules.RefereeOpenTafl
	renamed := changed
	renamed.Name = "mine"
	for _, c := range []struct {
		name    string
		def     rules.Definition
		want    []string
		shipped bool
	}{
		{"the shipped rule set", shipped, nil, true},
		{"two switches changed", changed, []string{"edge_fort", "referee"}, false},
		{"a name of its own", renamed, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := variants.Differences(c.def); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			v, err := rules.Compile(c.def)
			if err != nil {
				t.Fatal(err)
			}
			if got := variants.IsShipped(v); got != c.shipped {
				t.Errorf("IsShipped: got %v, want %v", got, c.shipped)
			}
		})
	}
}

// TestKeysDiffering: the keys two definitions differ in, the name among
// them, in the files' order.
func TestKeysDiffering(t *testing.T) {
	fetlar := variants.MustLoad("fetlar").Definition()
	for _, c := range []struct {
		name string
		b    rules.Definition
		want []string
	}{
		{"itself", fetlar, nil},
		{"copenhagen", variants.MustLoad("copenhagen").Definition(), []string{"name", "shieldwall", "shieldwall_wins", "edge_fort", "encirclement"}},
		{"hnefatafl11", variants.MustLoad("hnefatafl11").Definition(), []string{"name", "king_captured_on_edge"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := variants.KeysDiffering(fetlar, c.b); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
