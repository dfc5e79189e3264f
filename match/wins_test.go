package match

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWinsBySide: each player's wins with each side are counted with their
// median length and how they came, forfeits apart, on hand-made games.
func TestWinsBySide(t *testing.T) {
	f := File{A: PlayerInfo{Name: "a"}, B: PlayerInfo{Name: "b"}, Games: []FileGame{
		{Pair: 0, Attacker: "a", Defender: "b", Winner: "attackers", Reason: "king-captured", Plies: 40},
		{Pair: 0, Attacker: "b", Defender: "a", Winner: "defenders", Reason: "king-escaped", Plies: 12},
		{Pair: 1, Attacker: "a", Defender: "b", Winner: "attackers", Reason: "no-moves", Plies: 300},
		{Pair: 1, Attacker: "b", Defender: "a", Winner: "attackers", Reason: "encirclement", Plies: 90},
		{Pair: 2, Attacker: "a", Defender: "b", Winner: "attackers", Reason: "crash", Forfeit: "crash", Plies: 1},
		{Pair: 2, Attacker: "b", Defender: "a", Winner: "draw", Reason: "no-progress", Plies: 500},
	}}
	want := []SideWins{
		{Player: "a", Side: "attackers", Games: 3, Wins: 3, MedianPlies: 40, By: map[string]int{"king-captured": 1, "no-moves": 1, "forfeit (crash)": 1}},
		{Player: "a", Side: "defenders", Games: 3, Wins: 1, MedianPlies: 12, By: map[string]int{"king-escaped": 1}},
		{Player: "b", Side: "attackers", Games: 3, Wins: 1, MedianPlies: 90, By: map[string]int{"encirclement": 1}},
		{Player: "b", Side: "defenders", Games: 3, Wins: 0, MedianPlies: 0, By: map[string]int{}},
	}
	got := WinsBySide(f)
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Player != w.Player || g.Side != w.Side || g.Games != w.Games || g.Wins != w.Wins || g.MedianPlies != w.MedianPlies || !maps.Equal(g.By, w.By) {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
	t.Run("median of an even count", func(t *testing.T) {
		if got, want := median([]int{300, 40, 90, 12}), 65.0; got != want {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("match.md", func(t *testing.T) {
		dir := t.TempDir()
		if err := WriteFiles(dir, f); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(dir, "match.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{
			"| a | attackers | 3 of 3 | 40 | forfeit (crash) 1, king-captured 1, no-moves 1 |",
			"| b | defenders | 0 of 3 | - |  |",
		} {
			if !strings.Contains(string(md), line) {
				t.Errorf("match.md: got\n%s\nwant a line %q", md, line)
			}
		}
	})
}
