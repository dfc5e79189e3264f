package variants_test

import (
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// FuzzParseVariant feeds rule-set files to Parse: it must never panic, and a
// file it accepts must be a rule set that can be played: its start passes
// CheckStart (the side to move has a legal move, the game is not over), and
// its definition compiles again to the same start. Run with
//
//	go test ./configs/variants -run '^$' -fuzz '^FuzzParseVariant$' -fuzztime 2m -parallel 1
func FuzzParseVariant(f *testing.F) {
	for _, name := range variants.Names() {
		data, err := variants.File(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	cop, err := variants.File("copenhagen")
	if err != nil {
		f.Fatal(err)
	}
	start := "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a"
	for _, s := range []string{
		"11/11/11/11/11/5k5/11/11/11/11/11 a",        // issue 23: no attacker, no move
		"k10/11/11/11/11/11/11/11/11/11/1a9 a",       // the king on a corner
		"11/11/11/11/11/5k5/11/11/d10/ad9/11 a",      // an attacker boxed in
		"3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a",          // a 7x7 board under size = 11
		"3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa d", // too few rows
	} {
		f.Add([]byte(strings.Replace(string(cop), start, s, 1)))
	}
	f.Add([]byte(strings.Replace(string(cop), "size = 11", "size = 7", 1)))
	f.Add([]byte(strings.Replace(string(cop), `referee = "taflab"`, `referee = "opentafl"`, 1)))
	f.Add([]byte("name = \"x\"\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := variants.Parse("fuzz.toml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "variants: ") {
				t.Errorf("got %q, want an error with the package prefix", err)
			}
			return
		}
		if err := v.CheckStart(v.Start()); err != nil {
			t.Errorf("accepted rule set %s: its start: got %v, want a playable start", v.Name(), err)
		}
		g := rules.NewGame(v)
		if !g.HasMove() || len(g.GenerateMoves(nil)) == 0 {
			t.Errorf("accepted rule set %s: got no legal move at the start, want one", v.Name())
		}
		again, err := rules.Compile(v.Definition())
		if err != nil || again.Start() != v.Start() {
			t.Errorf("accepted rule set %s: compiled again: got %v, want the same start", v.Name(), err)
		}
	})
}
