package openings

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/internal/varianttest"
	"taflab/match"
	"taflab/rules"
)

func TestOpeningsRandom(t *testing.T) {
	v := variants.MustLoad("fetlar")
	tests := []struct {
		pairs, plies int
	}{{5, 4}, {1, 2}, {3, 0}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d pairs of %d plies", tt.pairs, tt.plies), func(t *testing.T) {
			got, desc, err := Openings("random", v, tt.pairs, tt.plies, 7)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if len(got) != tt.pairs {
				t.Fatalf("got %d openings, want %d", len(got), tt.pairs)
			}
			for i, o := range got {
				if !o.StartsAtStart() || len(o.Moves) != tt.plies {
					t.Errorf("opening %d: got start %v and %d moves, want the start and %d moves", i, o.Start, len(o.Moves), tt.plies)
				}
			}
			if want := Book(v, tt.pairs, tt.plies, 7); !sameOpenings(got, want) {
				t.Errorf("got openings %v, want Book's %v", got, want)
			}
			if !strings.Contains(desc, "random") || !strings.Contains(desc, "seed 7") {
				t.Errorf("got description %q, want random openings and the seed", desc)
			}
		})
	}
}

func sameOpenings(a, b []match.Opening) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Start != b[i].Start || !slices.Equal(a[i].Moves, b[i].Moves) {
			return false
		}
	}
	return true
}

func startsOf(openings []match.Opening) []string {
	var out []string
	for _, o := range openings {
		out = append(out, o.Start.String())
	}
	return out
}

// TestOpeningsSuite: copenhagen's embedded suite comes whole, every
// position a start of copenhagen, in an order the seed fixes.
func TestOpeningsSuite(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	entries, err := LoadSuite("", v)
	if err != nil {
		t.Fatalf("copenhagen's embedded suite: %v", err)
	}
	if len(entries) < 2 {
		t.Fatalf("got %d positions in copenhagen's suite, want several", len(entries))
	}
	var suite []string
	for _, e := range entries {
		suite = append(suite, e.Position.String())
	}
	get := func(seed uint64) []string {
		t.Helper()
		openings, desc, err := Openings("suite", v, 4, 4, seed)
		if err != nil {
			t.Fatalf("seed %d: got error %v, want none", seed, err)
		}
		if !strings.Contains(desc, "copenhagen") {
			t.Errorf("got description %q, want the rule set named", desc)
		}
		for i, o := range openings {
			if o.StartsAtStart() || len(o.Moves) != 0 {
				t.Errorf("seed %d, opening %d: got %v and moves %v, want a suite position and no moves", seed, i, o.Start, o.Moves)
			}
			if err := v.CheckStart(o.Start); err != nil {
				t.Errorf("seed %d, opening %d: got %v, want a start of copenhagen", seed, i, err)
			}
		}
		return startsOf(openings)
	}
	tests := []struct {
		name       string
		a, b       uint64
		wantSameAs bool
	}{
		{"one seed twice", 1, 1, true},
		{"seeds 1 and 2", 1, 2, false},
		{"seeds 3 and 4", 3, 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := get(tt.a), get(tt.b)
			for _, order := range [][]string{a, b} {
				if !slices.Equal(slices.Sorted(slices.Values(order)), slices.Sorted(slices.Values(suite))) {
					t.Fatalf("got %d positions, want the suite's %d, each once", len(order), len(suite))
				}
			}
			if same := slices.Equal(a, b); same != tt.wantSameAs {
				t.Errorf("seeds %d and %d: got the same order %v, want %v", tt.a, tt.b, same, tt.wantSameAs)
			}
		})
	}
	t.Run("shuffled", func(t *testing.T) {
		if a := get(1); slices.Equal(a, suite) {
			t.Errorf("got the suite in the file's order, want it shuffled")
		}
	})
}

// TestOpeningsSuiteErrors: a rule set of its own has no embedded suite,
// "" is no openings, and a suite file's bad line is named.
func TestOpeningsSuiteErrors(t *testing.T) {
	mine := varianttest.Edited(t, "mine", "edge_fort = true", "edge_fort = false")
	// A copy of copenhagen-classic with a switch changed and the name kept
	// (no rule-set file may say so, but a dataset's or a network's
	// definition is compiled as it stands): the shipped suite was balanced
	// under other rules.
	def := variants.MustLoad("copenhagen-classic").Definition()
	def.EdgeFort = false
	changed, err := rules.Compile(def)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string { return varianttest.WriteFile(t, dir, name, text) }
	start := variants.MustLoad("copenhagen").Start().String()
	good := write("good.txt", "# a suite\n"+start+"  # the start\n")
	badPosition := write("bad-position.txt", "# a suite\n"+start+"\n\nnot/a/position a\n")
	wrongSize := write("wrong-size.txt", start+"\n7/7/7/3k3/7/7/7 a\n")
	empty := write("empty.txt", "# nothing\n\n")
	tests := []struct {
		name  string
		spec  string
		v     *rules.Variant
		wants []string
	}{
		{"own rule set, no suite", "suite", mine, []string{"mine", "no opening suite"}},
		{"a shipped name with other rules", "suite", changed, []string{"copenhagen-classic", "no opening suite"}},
		{"no spec", "", variants.MustLoad("copenhagen"), []string{"no openings"}},
		{"missing file", filepath.Join(dir, "none.txt"), variants.MustLoad("copenhagen"), []string{"none.txt"}},
		{"bad line", badPosition, variants.MustLoad("copenhagen"), []string{badPosition, "line 4"}},
		{"board of another size", wrongSize, variants.MustLoad("copenhagen"), []string{wrongSize, "line 2"}},
		{"no positions", empty, variants.MustLoad("copenhagen"), []string{empty, "no positions"}},
		{"suite: of no shipped rule set", "suite:mine", mine, []string{"suite:mine", "want a shipped rule set's suite"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := Openings(tt.spec, tt.v, 4, 4, 1)
			if err == nil {
				t.Fatalf("got %d openings, want an error naming %q", len(got), tt.wants)
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("got error %q, want one naming %q", err, want)
				}
			}
		})
	}
	t.Run("LoadSuite bad line", func(t *testing.T) {
		_, err := LoadSuite(badPosition, variants.MustLoad("copenhagen"))
		if err == nil || !strings.Contains(err.Error(), badPosition) || !strings.Contains(err.Error(), "line 4") {
			t.Errorf("got error %v, want one naming %s and line 4", err, badPosition)
		}
	})
	t.Run("suite:NAME under another reading of its rules", func(t *testing.T) {
		// changed has no suite of its own; copenhagen-classic's suite plays
		// under it, every position once.
		own, err := LoadSuite("", variants.MustLoad("copenhagen-classic"))
		if err != nil {
			t.Fatal(err)
		}
		got, desc, err := Openings("suite:copenhagen-classic", changed, len(own), 4, 1)
		if err != nil || len(got) != len(own) {
			t.Fatalf("got %d openings, %v; want the suite's %d", len(got), err, len(own))
		}
		for i, o := range got {
			if err := changed.CheckStart(o.Start); err != nil {
				t.Errorf("opening %d: got %v, want a start of the rule set played", i, err)
			}
		}
		if !strings.Contains(desc, "the opening suite of copenhagen-classic") {
			t.Errorf("got description %q, want the suite's rule set named", desc)
		}
	})
	t.Run("a suite file of its own rule set", func(t *testing.T) {
		// mine has no embedded suite, but a file serves it.
		got, desc, err := Openings(good, mine, 4, 4, 1)
		if err != nil || len(got) != 1 || got[0].Start.String() != start {
			t.Errorf("got %v, %v, want the file's one position %s", startsOf(got), err, start)
		}
		if !strings.Contains(desc, good) {
			t.Errorf("got description %q, want the file named", desc)
		}
	})
}

func TestOpeningsRandomRange(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	t.Run("Openings refuses plies out of range", func(t *testing.T) {
		if _, _, err := Openings("random", v, 2, 101, 1); err == nil || !strings.Contains(err.Error(), "want 0 to 100") {
			t.Errorf("got %v, want an error giving the range", err)
		}
	})
}
