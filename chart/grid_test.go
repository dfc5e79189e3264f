package chart

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func TestWholeTicks(t *testing.T) {
	tests := []struct {
		name        string
		first, last int
		want        string
	}{
		{"one", 1, 1, "1"},
		{"three", 1, 3, "1 2 3"},
		{"a dozen", 1, 12, "1 2 3 4 5 6 7 8 9 10 11 12"},
		{"thirteen", 1, 13, "1 2 3 4 5 6 7 8 9 10 11 12 13"},
		{"fourteen: every second", 1, 14, "1 3 5 7 9 11 13"},
		{"forty", 1, 40, "1 5 9 13 17 21 25 29 33 37"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, k := range WholeTicks(tt.first, tt.last).Ticks(0, 0) {
				got = append(got, k.Label)
			}
			if s := fmt.Sprint(got); s != "["+tt.want+"]" {
				t.Errorf("WholeTicks(%d, %d): got %v, want [%s]", tt.first, tt.last, s, tt.want)
			}
		})
	}
}

// TestSaveGrid draws two panels, one without data, as a PNG: a whole PNG
// file, the panel with data given room for its legend above it.
func TestSaveGrid(t *testing.T) {
	with := plot.New()
	if err := AddLine(with, "series", plotter.XYs{{X: 1, Y: 2}, {X: 2, Y: 3}}, 0); err != nil {
		t.Fatal(err)
	}
	empty := plot.New()
	path := filepath.Join(t.TempDir(), "grid.png")
	if err := SaveGrid(path, []Panel{{with, 2, 3}, {empty, math.NaN(), math.NaN()}}, 2, 8*vg.Inch, 4*vg.Inch); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("got %d bytes, %v; want a PNG file", len(data), err)
	}
	if with.Y.Max <= 3 {
		t.Errorf("got Y up to %v, want room above the data's 3 for the legend", with.Y.Max)
	}
	if err := AddLine(with, "bad", plotter.XYs{{X: math.NaN(), Y: 1}}, 1); err == nil {
		t.Errorf("AddLine of a NaN point: got no error, want one naming the series")
	}
}
