package match

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/rules"
)

// TestPlayerPlayoutRange: a player's playouts outside [1, mcts.MaxPlayouts]
// are refused by Config.Validate (and so by Play and RunSPRT), naming the
// player, the value and the range; the counts of issue 23 among them.
func TestPlayerPlayoutRange(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cases := []struct {
		name     string
		playouts int
		ok       bool
	}{
		{"one", 1, true},
		{"the most", mcts.MaxPlayouts, true},
		{"zero", 0, false},
		{"above the most", mcts.MaxPlayouts + 1, false},
		{"2^31 (wrapped to a negative count)", 1 << 31, false},
		{"3e9 (builtin:playouts=3000000000)", 3_000_000_000, false},
		{"2^32+1 (wrapped to 1)", 1<<32 + 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Variant: v, A: builtin("a", c.playouts), B: builtin("b", 1), Search: mcts.DefaultConfig(), MaxPairs: 1}
			err := cfg.Validate()
			switch {
			case c.ok && err != nil:
				t.Errorf("got %v, want no error", err)
			case !c.ok && (err == nil || !strings.Contains(err.Error(), "player a: playouts = ") || !strings.Contains(err.Error(), "want from 1 to 16777216")):
				t.Errorf("got %v, want an error naming player a, its playouts and the range", err)
			}
			if !c.ok {
				if err := Play(context.Background(), cfg, nil); err == nil {
					t.Errorf("Play: got no error, want Validate's")
				}
			}
		})
	}
	suite := SuiteConfig{Variant: v, Reference: builtin("ref", 1<<32+1)}
	if err := suite.Validate(); err == nil || !strings.Contains(err.Error(), "want from 1 to 16777216") {
		t.Errorf("suite reference with 2^32+1 playouts: got %v, want the range", err)
	}
	ladder := LadderConfig{Match: Config{Variant: v, Search: mcts.DefaultConfig()}, Base: builtin("base", 1<<23), Multipliers: []int{4}, Pairs: 1}
	if _, err := Ladder(context.Background(), ladder, nil); err == nil || !strings.Contains(err.Error(), "multiplier 4 times 8388608 playouts") {
		t.Errorf("a ladder rung past mcts.MaxPlayouts: got %v, want an error naming the multiplier", err)
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
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "match: book: ") {
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
