package chart

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestAddErrorSeries: the points keep their intervals, a series with
// finite points draws, and one with a NaN is an error naming the series.
func TestAddErrorSeries(t *testing.T) {
	tests := []struct {
		name    string
		points  [][4]float64 // x, y, lo, hi
		line    bool
		wantErr string
	}{
		{"one point", [][4]float64{{0, 0.5, 0.4, 0.7}}, true, ""},
		{"joined", [][4]float64{{0, 0.5, 0.4, 0.7}, {1, 0.6, 0.5, 0.65}}, true, ""},
		{"not joined", [][4]float64{{0, 0.5, 0.4, 0.7}, {1, 0.6, 0.5, 0.65}}, false, ""},
		{"NaN", [][4]float64{{0, math.NaN(), 0.4, 0.7}}, true, "chart rates"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e ErrorPoints
			for _, q := range tt.points {
				e.Add(q[0], q[1], q[2], q[3])
			}
			for i, q := range tt.points {
				got := [2]float64{e.XYs[i].Y - e.YErrors[i].Low, e.XYs[i].Y + e.YErrors[i].High}
				if want := [2]float64{q[2], q[3]}; tt.wantErr == "" && got != want {
					t.Errorf("point %d: got interval %v, want %v", i, got, want)
				}
			}
			p := plot.New()
			err := AddErrorSeries(p, "rates", e, 0, tt.line)
			if got := err != nil && strings.Contains(err.Error(), tt.wantErr); got != (tt.wantErr != "") {
				t.Fatalf("got error %v, want one naming %q", err, tt.wantErr)
			}
			if err == nil {
				p.Draw(Canvas(Width, Height)) // panics on a broken series
			}
		})
	}
}
