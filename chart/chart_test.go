package chart

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func TestTicks(t *testing.T) {
	tests := []struct {
		name     string
		t        Ticks
		min, max float64
		want     string
	}{
		{"shares", Ticks{}, 0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{"Elo", Ticks{}, 130, 815, "200 400 600 800"},
		{"below zero", Ticks{}, -120, 95, "-100 -50 0 50"},
		{"small", Ticks{}, 0.41, 0.47, "0.41 0.42 0.43 0.44 0.45 0.46 0.47"},
		{"three generations", Ticks{Integer: true}, 0.5, 3.5, "1 2 3"},
		{"many generations", Ticks{Integer: true}, 0.5, 40.5, "10 20 30 40"},
		{"steps", Ticks{Integer: true, N: 4}, 1, 1000, "200 400 600 800 1000"},
		{"empty range", Ticks{}, 1, 1, ""},
		{"infinite", Ticks{}, 0, math.Inf(1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, k := range tt.t.Ticks(tt.min, tt.max) {
				if k.Label == "" {
					t.Errorf("tick at %v has no label, want every tick labelled", k.Value)
				}
				got = append(got, k.Label)
			}
			if s := fmt.Sprint(got); s != "["+tt.want+"]" {
				t.Errorf("Ticks(%v, %v): got %v, want [%s]", tt.min, tt.max, s, tt.want)
			}
		})
	}
}

// TestLegendRoom: whatever the entries, title and chart size, the highest
// point of the data is drawn below the legend's bottom edge, and the data
// still get at least half the height when the legend is small.
func TestLegendRoom(t *testing.T) {
	for _, entries := range []int{1, 3, 6} {
		for _, size := range [][2]vg.Length{{8 * vg.Inch, 5 * vg.Inch}, {6 * vg.Inch, 4 * vg.Inch}} {
			for _, title := range []string{"", "a title"} {
				t.Run(fmt.Sprintf("%d entries %v %q", entries, size, title), func(t *testing.T) {
					p := plot.New()
					p.Title.Text = title
					for i := range entries {
						l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 3}, {X: 1, Y: 10 + float64(i)}})
						if err != nil {
							t.Fatal(err)
						}
						l.Color = Color(i)
						p.Add(l)
						p.Legend.Add(fmt.Sprintf("series %d", i), l)
					}
					hi := 10 + float64(entries-1)
					c := Canvas(size[0], size[1])
					LegendRoom(p, c, 3, hi)
					da := p.DataCanvas(c)
					_, y := p.Transforms(&da)
					legendTop := c.Max.Y
					if title != "" {
						legendTop -= p.Title.TextStyle.Rectangle(title).Size().Y + p.Title.Padding
					}
					r := p.Legend.Rectangle(c)
					legendBottom := legendTop - (r.Max.Y - r.Min.Y)
					if y(hi) >= legendBottom {
						t.Errorf("the data's top at %v, the legend's bottom at %v: want the data below", y(hi), legendBottom)
					}
					if entries <= 3 && y(hi)-y(3) < (da.Max.Y-da.Min.Y)/2 {
						t.Errorf("the data take %v of %v, want at least half", y(hi)-y(3), da.Max.Y-da.Min.Y)
					}
				})
			}
		}
	}
}
