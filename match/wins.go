package match

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// SideWins is how one player won with one side over a match's games: how
// many it played and won, the median length of its wins, and how they
// came (by the rules' reason: king-captured, encirclement, no-moves, ...;
// or the opponent's forfeit).
type SideWins struct {
	Player string `json:"player"`
	Side   string `json:"side"` // "attackers" or "defenders"
	Games  int    `json:"games"`
	Wins   int    `json:"wins"`
	// MedianPlies is the median length of the wins, in plies (the mean
	// of the two middle ones for an even count); 0 without a win.
	MedianPlies float64        `json:"median_plies"`
	By          map[string]int `json:"by,omitempty"`
}

// WinsBySide returns, for each player of f (A first) and each side
// (attackers first), how it won its games there.
func WinsBySide(f File) []SideWins {
	var out []SideWins
	for _, player := range []string{f.A.Name, f.B.Name} {
		for _, side := range []string{"attackers", "defenders"} {
			w := SideWins{Player: player, Side: side, By: map[string]int{}}
			var plies []int
			for _, g := range f.Games {
				if (side == "attackers" && g.Attacker != player) || (side == "defenders" && g.Defender != player) {
					continue
				}
				w.Games++
				if g.Winner != side {
					continue
				}
				w.Wins++
				plies = append(plies, g.Plies)
				how := g.Reason
				if g.Forfeit != "" {
					how = "forfeit (" + g.Forfeit + ")"
				}
				w.By[how]++
			}
			w.MedianPlies = median(plies)
			out = append(out, w)
		}
	}
	return out
}

// median returns the median of xs, 0 for none.
func median(xs []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

// winsTable is match.md's table of WinsBySide.
func winsTable(f File) string {
	var b strings.Builder
	b.WriteString("\nHow each player won with each side (median plies of its wins; how they came):\n\n")
	b.WriteString("| player | side | wins | median plies to a win | how |\n| --- | --- | --- | --- | --- |\n")
	for _, w := range WinsBySide(f) {
		hows := make([]string, 0, len(w.By))
		for _, how := range slices.Sorted(maps.Keys(w.By)) {
			hows = append(hows, fmt.Sprintf("%s %d", how, w.By[how]))
		}
		med := "-"
		if w.Wins > 0 {
			med = fmt.Sprintf("%g", w.MedianPlies)
		}
		fmt.Fprintf(&b, "| %s | %s | %d of %d | %s | %s |\n", w.Player, w.Side, w.Wins, w.Games, med, strings.Join(hows, ", "))
	}
	return b.String()
}
