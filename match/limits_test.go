package match_test

import (
	"context"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
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
			cfg := match.Config{Variant: v, A: builtin("a", c.playouts), B: builtin("b", 1), Search: mcts.DefaultConfig(), MaxPairs: 1}
			err := cfg.Validate()
			switch {
			case c.ok && err != nil:
				t.Errorf("got %v, want no error", err)
			case !c.ok && (err == nil || !strings.Contains(err.Error(), "player a: playouts = ") || !strings.Contains(err.Error(), "want from 1 to 16777216")):
				t.Errorf("got %v, want an error naming player a, its playouts and the range", err)
			}
			if !c.ok {
				if err := match.Play(context.Background(), cfg, nil); err == nil {
					t.Errorf("Play: got no error, want Validate's")
				}
			}
		})
	}
	ladder := match.LadderConfig{Match: match.Config{Variant: v, Search: mcts.DefaultConfig()}, Base: builtin("base", 1<<23), Multipliers: []int{4}, Pairs: 1}
	if _, err := match.Ladder(context.Background(), ladder, nil); err == nil || !strings.Contains(err.Error(), "multiplier 4 times 8388608 playouts") {
		t.Errorf("a ladder rung past mcts.MaxPlayouts: got %v, want an error naming the multiplier", err)
	}
}
