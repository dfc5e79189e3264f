package analysis

import (
	"math"
	"testing"
)

// TestWorkedExample follows the documented formulas through a game of four
// moves by hand (the figures below were worked out from the formulas in
// score.go's comments, not by this code): the first mover's win chance
// goes 50, 45, 70, 30, 35.
//
//	move  mover   before  after  loss  label       accuracy  weight (sd of 2 values)
//	1     first   50      45     5     inaccuracy  80.815    sd(50,45) = 2.5
//	2     second  55      30     25    blunder     32.568    sd(45,70) = 12.5 -> 12
//	3     first   70      30     40    blunder     15.909    sd(70,30) = 20 -> 12
//	4     second  70      65     5     inaccuracy  80.815    sd(30,35) = 2.5
//
// First mover: weighted mean (80.815·2.5 + 15.909·12)/14.5 = 27.100,
// harmonic mean 2/(1/80.815 + 1/15.909) = 26.585, accuracy 26.842.
// Second mover: (32.568·12 + 80.815·2.5)/14.5 = 40.886, harmonic 46.426,
// accuracy 43.656.
func TestWorkedExample(t *testing.T) {
	x := []float64{50, 45, 70, 30, 35}
	moves := []struct {
		before, after float64
		label         Label
		accuracy      float64
	}{
		{50, 45, Inaccuracy, 80.815},
		{55, 30, Blunder, 32.568},
		{70, 30, Blunder, 15.909},
		{70, 65, Inaccuracy, 80.815},
	}
	th := DefaultThresholds()
	for i, m := range moves {
		if got := th.Label(m.before - m.after); got != m.label {
			t.Errorf("move %d: label got %q, want %q", i+1, got, m.label)
		}
		if got := MoveAccuracy(m.before, m.after); math.Abs(got-m.accuracy) > 1e-3 {
			t.Errorf("move %d: accuracy got %.4f, want %.3f", i+1, got, m.accuracy)
		}
	}
	first, second, okFirst, okSecond := GameAccuracy(x)
	if !okFirst || !okSecond || math.Abs(first-26.842) > 1e-3 || math.Abs(second-43.656) > 1e-3 {
		t.Errorf("got %.4f (%v), %.4f (%v); want 26.842, 43.656", first, okFirst, second, okSecond)
	}
}

func TestLabels(t *testing.T) {
	th := DefaultThresholds()
	cases := []struct {
		loss float64
		want Label
	}{
		{0, Good}, {4.99, Good}, {5, Inaccuracy}, {9.99, Inaccuracy}, {10, Mistake}, {14.99, Mistake}, {15, Blunder}, {100, Blunder},
	}
	for _, c := range cases {
		if got := th.Label(c.loss); got != c.want {
			t.Errorf("loss %v: got %q, want %q", c.loss, got, c.want)
		}
	}
	settable := Thresholds{Inaccuracy: 10, Mistake: 20, Blunder: 30}
	if got := settable.Label(15); got != Inaccuracy {
		t.Errorf("thresholds 10/20/30, loss 15: got %q, want inaccuracy", got)
	}
	for _, bad := range []Thresholds{{0, 10, 15}, {10, 5, 15}, {5, 10, 101}, {5, 20, 15}} {
		if bad.Validate() == nil {
			t.Errorf("%+v: got no error, want one", bad)
		}
	}
	if err := th.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

func TestMoveAccuracy(t *testing.T) {
	cases := []struct{ before, after, want float64 }{
		{50, 50, 100}, {40, 60, 100}, {60, 40, 41.017}, {100, 0, 0},
	}
	for _, c := range cases {
		if got := MoveAccuracy(c.before, c.after); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("%v -> %v: got %.4f, want %.3f", c.before, c.after, got, c.want)
		}
	}
}

func TestGameAccuracyShort(t *testing.T) {
	if _, _, a, b := GameAccuracy([]float64{50}); a || b {
		t.Errorf("no move: got ok %v, %v; want neither", a, b)
	}
	first, _, a, b := GameAccuracy([]float64{50, 50})
	if !a || b || first != 100 {
		t.Errorf("one move that lost nothing: got %v (%v, %v), want 100 for the first mover alone", first, a, b)
	}
}

func TestSearchWDL(t *testing.T) {
	cases := []struct {
		name   string
		q, d   float64
		proven bool
		want   WDL
	}{
		{"even, no draws", 0, 0, false, WDL{0.5, 0, 0.5}},
		{"even, draws", 0, 0.4, false, WDL{0.3, 0.4, 0.3}},
		{"draw share capped", 0.8, 0.5, false, WDL{0.8, 0.2, 0}},
		{"proven win", 1, 0.3, true, WDL{Win: 1}},
		{"proven loss", -1, 0.3, true, WDL{Loss: 1}},
		{"proven draw", 0, 0.1, true, WDL{Draw: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := searchWDL(c.q, c.d, c.proven)
			if math.Abs(got.Win-c.want.Win) > 1e-9 || math.Abs(got.Draw-c.want.Draw) > 1e-9 || math.Abs(got.Loss-c.want.Loss) > 1e-9 {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			if math.Abs(got.Win-got.Loss-c.q) > 1e-9 && !c.proven {
				t.Errorf("got win - loss %v, want the search's value %v", got.Win-got.Loss, c.q)
			}
		})
	}
}
