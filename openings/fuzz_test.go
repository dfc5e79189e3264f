package openings

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"taflab/configs/variants"
)

// FuzzParseSuite feeds opening-suite files to ParseSuite: it must never
// panic, an error names the package and the file, and a suite it accepts
// holds only positions a game can start from (rules.Variant.CheckStart),
// which FormatSuite writes back to the same suite. Run with
//
//	go test ./openings -run '^$' -fuzz '^FuzzParseSuite$' -fuzztime 2m -parallel 1
func FuzzParseSuite(f *testing.F) {
	for _, name := range variants.Names() {
		data, err := os.ReadFile("../configs/openings/" + name + ".txt")
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		f.Add(name, bytes.Join(lines[:min(len(lines), 8)], nil))
	}
	for _, s := range []string{
		"11/11/11/11/11/5k5/11/11/11/11/11 a\n",      // issue 23: no attacker
		"k10/11/11/11/11/11/11/11/11/11/1a9 d # x\n", // the king on a corner
		"11/11/11/11/11/5k5/11/11/d10/ad9/11 a\n",    // an attacker boxed in
		"3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a\n",        // another board's size
		"# only a comment\n\n",
		"3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 x\n",
		"\xff\xfe\n",
	} {
		f.Add("copenhagen", []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		v, err := variants.Load(name)
		if err != nil {
			return
		}
		entries, err := ParseSuite("fuzz.txt", data, v)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "openings: fuzz.txt: ") {
				t.Errorf("got %q, want an error naming the package and the file", err)
			}
			return
		}
		for i, e := range entries {
			if err := v.CheckStart(e.Position); err != nil {
				t.Errorf("entry %d %s: got %v, want a start a game can be played from", i, e.Position, err)
			}
		}
		again, err := ParseSuite("again.txt", FormatSuite([]string{"header"}, entries), v)
		if err != nil || len(again) != len(entries) {
			t.Fatalf("written and read again: got %d entries, %v; want %d", len(again), err, len(entries))
		}
		for i := range entries {
			if again[i].Position != entries[i].Position {
				t.Errorf("entry %d: got %s written and read again, want %s", i, again[i].Position, entries[i].Position)
			}
		}
	})
}
