package openings

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

func TestBook(t *testing.T) {
	v := variants.MustLoad("fetlar")
	a, b := Book(v, 10, 6, 3), Book(v, 10, 6, 3)
	if len(a) != 10 {
		t.Fatalf("got %d openings, want 10", len(a))
	}
	distinct := map[string]bool{}
	for i := range a {
		g := rules.NewGame(v)
		key := ""
		if !a[i].StartsAtStart() {
			t.Errorf("opening %d starts at %v, want the rule set's start", i, a[i].Start)
		}
		for j, m := range a[i].Moves {
			if m != b[i].Moves[j] {
				t.Fatalf("opening %d differs between two books of one seed", i)
			}
			if err := g.Play(m); err != nil {
				t.Fatalf("opening %d, ply %d: %v", i, j+1, err)
			}
			key += m.String()
		}
		if g.Outcome().Over() {
			t.Errorf("opening %d ends the game", i)
		}
		distinct[key] = true
	}
	if len(distinct) < 9 {
		t.Errorf("got %d distinct openings of 10, want them to differ", len(distinct))
	}
}

// TestNewBook: a book's plies out of range, and openings random games
// cannot reach, are errors, not a panic or an endless loop; good arguments
// give Book's openings.
func TestNewBook(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	def := v.Definition()
	def.Name, def.NoProgressMoves = "copenhagen-np1", 1 // every move without a capture draws
	oneMove, err := rules.Compile(def)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		v        *rules.Variant
		n, plies int
		want     string // "" for no error
	}{
		{"good", v, 3, 6, ""},
		{"none", v, 0, 6, ""},
		{"the most plies", v, 1, MaxBookPlies, ""},
		{"0 plies: the start", v, 2, 0, ""},
		{"5000 plies (eval suite -random-plies 5000)", v, 1, 5000, "5000 plies: want from 0 to 100"},
		{"negative plies", v, 1, -1, "-1 plies: want from 0 to 100"},
		{"negative openings", v, -1, 4, "-1 openings"},
		{"games that end at the first quiet move", oneMove, 1, 5, "no opening of 5 random plies found in 1000 tries"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			book, err := NewBook(context.Background(), c.v, c.n, c.plies, 7)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "openings: book: ") {
					t.Errorf("got %v, want an error holding %q", err, c.want)
				}
				if _, err := NewRandomStarts(context.Background(), c.v, c.n, c.plies, 7); err == nil {
					t.Errorf("NewRandomStarts: got no error, want NewBook's")
				}
				return
			}
			if err != nil || len(book) != c.n {
				t.Fatalf("got %d openings, %v; want %d, no error", len(book), err, c.n)
			}
			for i, o := range Book(c.v, c.n, c.plies, 7) {
				if len(o.Moves) != c.plies || !slices.Equal(o.Moves, book[i].Moves) {
					t.Errorf("opening %d: got %v, want Book's %v", i, book[i].Moves, o.Moves)
				}
			}
		})
	}
	t.Run("stopped", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := NewBook(ctx, v, 100000, MaxBookPlies, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("NewBook: got %v, want context.Canceled", err)
		}
		if _, err := NewRandomStarts(ctx, v, 100000, MaxBookPlies, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("NewRandomStarts: got %v, want context.Canceled", err)
		}
	})
}
