package match

import (
	"testing"

	"taflab/rules"
)

func TestTally(t *testing.T) {
	var a, b Tally
	a.AddEnding(rules.AttackersWin, "king-captured", 40)
	a.AddEnding(rules.DefendersWin, "edge-fort", 61)
	a.AddEnding(rules.NoWinner, "unfinished", 12)
	b.Add(rules.DefendersWin, 30)
	b.Add(rules.Draw, 200)
	a.Merge(b)
	tests := []struct {
		name      string
		got, want any
	}{
		{"games", a.Games, 4},
		{"outcomes", a.Outcomes().Games(), 4},
		{"defender wins", a.DefenderWins, 2},
		{"mean of the defenders' wins", a.Mean(rules.DefendersWin), 45.5},
		{"mean of the draws", a.Mean(rules.Draw), 200.0},
		{"mean with no games", Tally{}.Mean(rules.AttackersWin), 0.0},
		{"unfinished only among endings", a.Endings["unfinished"], 1},
		{"lengths", a.LengthSummary(), Lengths{Mean: 331.0 / 4, Median: 50.5, Min: 30, Max: 200}},
		{"no lengths", Tally{}.LengthSummary(), Lengths{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}
