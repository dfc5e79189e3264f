package tomlbound_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"taflab/internal/tomlbound"
)

// treeDepth returns the deepest node of a decoded document: the tables,
// arrays and inline tables around it (MaxDepth's measure); -1 for none.
func treeDepth(v any, d int) int {
	deepest := d
	switch t := v.(type) {
	case map[string]any:
		for _, c := range t {
			deepest = max(deepest, treeDepth(c, d+1))
		}
	case []map[string]any:
		for _, c := range t {
			deepest = max(deepest, treeDepth(c, d+1))
		}
	case []any:
		for _, c := range t {
			deepest = max(deepest, treeDepth(c, d+1))
		}
	}
	return deepest
}

func docDepth(m map[string]any) int {
	deepest := -1
	for _, c := range m {
		deepest = max(deepest, treeDepth(c, 0))
	}
	return deepest
}

// nest returns TOML text whose deepest value is n deep, in one of the
// ways a file nests.
func nest(kind string, n int) string {
	switch kind {
	case "header": // [a.a.a] x = 1: x is n deep
		return "[" + strings.TrimSuffix(strings.Repeat("a.", n), ".") + "]\nx = 1\n"
	case "dotted key": // a.a.x = 1
		return strings.Repeat("a.", n) + "x = 1\n"
	case "array":
		return "x = " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "\n"
	case "inline table": // x = {a = {a = 1}}
		return "x = " + strings.Repeat("{a = ", n) + "1" + strings.Repeat("}", n) + "\n"
	case "array of tables": // [[a]] [[a.a]] ...: each level an array and its table
		var b strings.Builder
		for k := 1; 2*k-1 <= n; k++ { // level k's table is 2k-1 deep
			b.WriteString("[[" + strings.TrimSuffix(strings.Repeat("a.", k), ".") + "]]\n")
		}
		if n%2 == 0 {
			b.WriteString("x = 1\n")
		}
		return b.String()
	}
	panic(kind)
}

// TestBounds checks each bound at its limit (decoded) and past it
// (refused before the decoder, naming the line and the bound), for every
// way a file nests.
func TestBounds(t *testing.T) {
	type tc struct {
		name     string
		text     string
		wantErr  string // "" for none
		wantLine int
	}
	var cases []tc
	for _, kind := range []string{"header", "dotted key", "array", "inline table", "array of tables"} {
		cases = append(cases,
			tc{kind + " at the bound", nest(kind, tomlbound.MaxDepth), "", 0},
			tc{kind + " past the bound", nest(kind, tomlbound.MaxDepth+1), "nested 17 deep, past the most a TOML file may nest (16 tables, arrays and inline tables)", 0})
	}
	key := func(n int) string { return strings.Repeat("k", n) + " = 1\n" }
	cases = append(cases,
		tc{"key at the bound", key(tomlbound.MaxKeyBytes), "", 0},
		tc{"key past the bound", key(tomlbound.MaxKeyBytes + 1), "a key 1025 bytes long with its tables', past the most a TOML key may be (1024 bytes)", 1},
		tc{"key with its table past the bound", "[" + strings.Repeat("t", 1000) + "]\n\n" + strings.Repeat("k", 25) + " = 1\n", "a key 1025 bytes long", 3},
		tc{"quoted key decoded", `"` + strings.Repeat(`\u0041`, tomlbound.MaxKeyBytes) + `" = 1` + "\n", "", 0},
		tc{"values at the bound", "x = [" + strings.Repeat("1,", tomlbound.MaxValues-1) + "]\n", "", 0},
		tc{"values past the bound", "x = [" + strings.Repeat("1,", tomlbound.MaxValues) + "]\n", "more than 10000 keys, tables and array elements, the most a TOML file may hold", 1},
		tc{"keys past the bound", strings.Repeat("[[t]]\n", tomlbound.MaxValues+1), "more than 10000 keys", tomlbound.MaxValues + 1},
		tc{"size at the bound", "x = '" + strings.Repeat("y", tomlbound.MaxBytes-7) + "'\n", "", 0},
		tc{"size past the bound", "x = '" + strings.Repeat("y", tomlbound.MaxBytes-6) + "'\n", "more than 1048576 bytes, the most a TOML file may hold", 0},
		// The findings of issue 36: an 80 KB header of 40,000 parts, and
		// inline tables 8,000 deep.
		tc{"issue 36: header of 40,000 parts", "[" + strings.Repeat("a.", 40000) + "b]\n", "nested 17 deep", 1},
		tc{"issue 36: inline tables 8,000 deep", "x = " + strings.Repeat("{a=", 8000) + "1" + strings.Repeat("}", 8000) + "\n", "nested 17 deep", 1},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m map[string]any
			_, err := tomlbound.Decode([]byte(c.text), &m)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("got %v, want the file decoded", err)
				}
				return
			}
			var le *tomlbound.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LimitError", err)
			}
			if !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("got %q, want it to say %q", err, c.wantErr)
			}
			if c.wantLine != 0 && le.Line != c.wantLine {
				t.Errorf("got line %d, want %d", le.Line, c.wantLine)
			}
		})
	}
}

// TestScanMatchesDecoder checks the scan's measures against the decoder's
// result on files of every construct: the depth against the decoded tree,
// the keys against MetaData.Keys.
func TestScanMatchesDecoder(t *testing.T) {
	for i, text := range scanSeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkAgainstDecoder(t, []byte(text), true)
		})
	}
}

// scanSeeds are files of every construct the scan follows; each decodes.
var scanSeeds = []string{
	"",
	"# only a comment\n",
	"x = 1",
	"x = 1 # a comment\ny = 'two'\n",
	"a.b.c = 1\na.d = 2\n",
	"[a]\nx = 1\n[a.b]\ny = [1, [2, [3]]]\n",
	"[[a]]\nx = 1\n[[a]]\n[a.b]\nc = 1\n",
	"[[a]]\n[[a.b]]\n[[a.b.c]]\nx = {y = {z = [1]}}\n",
	"[[x.a]]\n[x]\na.b = 1\n",
	"x = [{a = 1}, {b = {c = 2}}]\n",
	"x = {a = 1, b.c = 2, }\n",
	"x = {\n  a = 1, # a comment\n  b = 2\n}\n",
	"x = [\n  1, # one\n  2,\n]\n",
	"\"quoted.key\" = 1\n'lit.key' = 2\n\"a\\u0041\".b = 3\n[\"t.1\" . 'x']\nk = 1\n",
	"s = \"a # not a comment [not = a table]\"\n",
	"s = 'a \" b'\n",
	"s = \"\"\"\nline [one]\n\\\"\"\"\nline = two\"\"\"\"\"\n",
	"s = '''\n[not a table]\nx = ''''\n",
	"d = 1979-05-27 07:32:00Z\ne = [1979-05-27 07:32:00Z, 1979-05-27]\n",
	"f = [+inf, -nan, 1_000, 0x1F, 1e3]\n",
	"t = true\nu = [false]\n",
	"a = []\nb = [[]]\nc = {}\nd = [{}]\n",
	"[a]\n[b]\n[c.d.e]\n",
	"  [ a . b ]  # spaced\n  k  =  1\n",
	"x = 1\r\ny = 2\r\n",
	"\"\" = 1\n",
	"\xef\xbb\xbfx = 1\n",
	"x = {a = 1,\n}\n",
	"s = \"\"\"\\\\\"\"\"\"\"\"\n", // six quotes after an escaped backslash: the decoder takes them
	"s = \"\"\"a\\\"\"\"\"\"\"\n",  // five after an escaped quote
}

// checkAgainstDecoder decodes text with the decoder and, when it decodes,
// checks that the scan went through it (no give-up) and measured its
// depth and keys. wantDecoded fails a file the decoder refuses.
func checkAgainstDecoder(t *testing.T, data []byte, wantDecoded bool) {
	t.Helper()
	st, err := tomlbound.Scan(data)
	if err != nil {
		var le *tomlbound.LimitError
		if !errors.As(err, &le) {
			t.Fatalf("Scan: got %v, want nil or a *LimitError", err)
		}
		return // the decoder never sees it
	}
	var m map[string]any
	md, decErr := toml.Decode(string(data), &m)
	if decErr != nil {
		if wantDecoded {
			t.Fatalf("the decoder refuses %q: %v", data, decErr)
		}
		return
	}
	if st.GaveUp {
		t.Errorf("%q: the scan gave up, but the decoder read it", data)
	}
	if want := docDepth(m); st.Depth != want {
		t.Errorf("%q: scan depth %d, want %d (the decoded tree's)", data, st.Depth, want)
	}
	if want := len(md.Keys()); st.Keys != want {
		t.Errorf("%q: scan keys %d, want %d (MetaData.Keys)", data, st.Keys, want)
	}
}

// FuzzScan checks the scan against the decoder on any file: where the
// decoder reads a file the scan did not refuse, the scan went through it
// to its end and measured the decoded tree's depth and the decoder's keys
// exactly; nothing panics. The seeds nest in every way a file nests. Run
// with
//
//	go test ./internal/tomlbound -run '^$' -fuzz '^FuzzScan$' -fuzztime 5m -parallel 1
func FuzzScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, kind := range []string{"header", "dotted key", "array", "inline table", "array of tables"} {
		f.Add([]byte(nest(kind, 5)))
		f.Add([]byte(nest(kind, tomlbound.MaxDepth)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstDecoder(t, data, false)
	})
}
