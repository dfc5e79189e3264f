package match

import (
	"taflab/rules"
	"taflab/stats"
)

// Tally counts finished games as they come: who won, in how many plies,
// and how they ended. It is the one count of outcomes that self-play, the
// loop, balance runs and suites keep; the zero Tally counts nothing. Its
// JSON is the self-play summaries' (the loop's selfplay.json).
type Tally struct {
	Games         int `json:"games"`
	AttackerWins  int `json:"attacker_wins"`
	DefenderWins  int `json:"defender_wins"`
	Draws         int `json:"draws"`
	AttackerPlies int `json:"attacker_win_plies"` // the plies of the attackers' wins, summed
	DefenderPlies int `json:"defender_win_plies"`
	DrawPlies     int `json:"draw_plies"`
	// Endings counts the games by how they ended (a rules.Reason's text, a
	// forfeit, a record's word), when AddEnding counted them.
	Endings map[string]int `json:"endings,omitempty"`
	// ByPlies[n] counts the games of n plies, for medians: a histogram, so
	// that a tally does not depend on the order games came in. Not in the
	// JSON.
	ByPlies []int `json:"-"`
}

// Add counts a finished game: its winner (rules.Draw for a draw) and its
// length.
func (t *Tally) Add(w rules.Winner, plies int) {
	t.Games++
	switch w {
	case rules.AttackersWin:
		t.AttackerWins++
		t.AttackerPlies += plies
	case rules.DefendersWin:
		t.DefenderWins++
		t.DefenderPlies += plies
	default:
		t.Draws++
		t.DrawPlies += plies
	}
	if plies >= len(t.ByPlies) {
		t.ByPlies = append(t.ByPlies, make([]int, plies+1-len(t.ByPlies))...)
	}
	t.ByPlies[plies]++
}

// AddEnding counts a game with how it ended. A game without a winner
// (rules.NoWinner: a record that stops before the game's end) counts only
// among the endings.
func (t *Tally) AddEnding(w rules.Winner, ending string, plies int) {
	if t.Endings == nil {
		t.Endings = map[string]int{}
	}
	t.Endings[ending]++
	if w == rules.AttackersWin || w == rules.DefendersWin || w == rules.Draw {
		t.Add(w, plies)
	}
}

// Merge adds the games of o.
func (t *Tally) Merge(o Tally) {
	t.Games += o.Games
	t.AttackerWins += o.AttackerWins
	t.DefenderWins += o.DefenderWins
	t.Draws += o.Draws
	t.AttackerPlies += o.AttackerPlies
	t.DefenderPlies += o.DefenderPlies
	t.DrawPlies += o.DrawPlies
	for k, n := range o.Endings {
		if t.Endings == nil {
			t.Endings = map[string]int{}
		}
		t.Endings[k] += n
	}
	if len(o.ByPlies) > len(t.ByPlies) {
		t.ByPlies = append(t.ByPlies, make([]int, len(o.ByPlies)-len(t.ByPlies))...)
	}
	for n, k := range o.ByPlies {
		t.ByPlies[n] += k
	}
}

// Outcomes returns the counts of wins and draws, for their rates.
func (t Tally) Outcomes() stats.Outcomes {
	return stats.Outcomes{AttackerWins: t.AttackerWins, DefenderWins: t.DefenderWins, Draws: t.Draws}
}

// Mean returns the mean plies of the games a winner won (rules.Draw: the
// draws), 0 for none.
func (t Tally) Mean(w rules.Winner) float64 {
	n, plies := t.Draws, t.DrawPlies
	switch w {
	case rules.AttackersWin:
		n, plies = t.AttackerWins, t.AttackerPlies
	case rules.DefendersWin:
		n, plies = t.DefenderWins, t.DefenderPlies
	}
	if n == 0 {
		return 0
	}
	return float64(plies) / float64(n)
}

// Lengths summarizes game lengths in plies.
type Lengths struct {
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Min    int     `json:"min"`
	Max    int     `json:"max"`
}

// LengthSummary returns the mean, median, shortest and longest of the
// games' lengths (the zero Lengths for none).
func (t Tally) LengthSummary() Lengths {
	n, sum := 0, 0
	l := Lengths{Min: -1}
	for plies, k := range t.ByPlies {
		if k == 0 {
			continue
		}
		if l.Min < 0 {
			l.Min = plies
		}
		l.Max = plies
		n += k
		sum += k * plies
	}
	if n == 0 {
		return Lengths{}
	}
	l.Mean = float64(sum) / float64(n)
	l.Median = float64(t.nth(n / 2)) // the upper middle; the mean of both for an even count
	if n%2 == 0 {
		l.Median = float64(t.nth(n/2-1)+t.nth(n/2)) / 2
	}
	return l
}

// nth returns the length of the i-th shortest game, from 0.
func (t Tally) nth(i int) int {
	for plies, k := range t.ByPlies {
		if i < k {
			return plies
		}
		i -= k
	}
	return -1
}
