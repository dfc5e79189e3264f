// Package varianttest makes rule sets and files for tests: a copy of an
// embedded rule set with changes, a 7x7 one that a network cannot play,
// and small files in a test's folder.
//
//	v := varianttest.Edited(t, "mine", "edge_fort = true", "edge_fort = false")
package varianttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// Edited returns copenhagen-classic's rule set named name, with the
// replacements (old, new, ...) made in its file's text.
func Edited(t testing.TB, name string, replacements ...string) *rules.Variant {
	t.Helper()
	data, err := variants.File("copenhagen-classic")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(append([]string{`name = "copenhagen-classic"`, `name = "` + name + `"`}, replacements...)...).Replace(string(data))
	v, err := variants.Parse(name+".toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if v.Name() != name {
		t.Fatalf("got rule set %q, want %q", v.Name(), name)
	}
	return v
}

// Small is a 7x7 rule set, which the network (11x11) cannot play.
func Small(t testing.TB) *rules.Variant {
	return Edited(t, "small", "size = 11", "size = 7",
		"3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a", "7/7/7/1d1k3/7/7/1ad4 a")
}

// WriteFile writes text into dir/name and returns the path.
func WriteFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
