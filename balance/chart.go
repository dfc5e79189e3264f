package balance

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"taflab/chart"
	"taflab/internal/errctx"
)

// Chart draws the defender win rate with its interval against strength,
// one line per rule set, and the record files as horizontal lines (or,
// with no self-play, as points), into a PNG file at path (chart.SavePNG).
// The strength is playouts on a log scale when the runs are of one player
// at several budgets (rep.ByPlayouts), else one category per player.
func Chart(rep Report, path string) error {
	numeric := rep.ByPlayouts
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Defender win rate (%g%% Wilson intervals)", 100*rep.Confidence)
	p.Y.Label.Text = "defender win rate"
	p.Add(plotter.NewGrid())

	type point struct {
		x        float64
		p, lo, h float64
	}
	series := map[string][]point{} // by rule set
	var order []string             // rule sets in order
	var ticks []plot.Tick
	xmin, xmax := -0.5, 0.5
	switch {
	case len(rep.Runs) == 0:
		// Records only: one category per file.
		p.X.Label.Text = "game records"
		for i, r := range rep.Records {
			key := fmt.Sprintf("%s (%s) %s", filepath.Base(r.File), r.Variant, r.Defenders)
			order = append(order, key)
			series[key] = append(series[key], point{float64(i), r.Defenders.Rate, r.Defenders.Lo, r.Defenders.Hi})
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: filepath.Base(r.File)})
		}
		xmax = float64(len(rep.Records)) - 0.5
	case numeric:
		p.X.Label.Text = "playouts per move"
		p.X.Scale = plot.LogScale{}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range rep.Runs {
			lo, hi = math.Min(lo, float64(r.Playouts)), math.Max(hi, float64(r.Playouts))
		}
		xmin, xmax = lo/1.5, hi*1.5
		for _, name := range rep.Players {
			for _, r := range rep.Runs {
				if r.Player == name {
					ticks = append(ticks, plot.Tick{Value: float64(r.Playouts), Label: strconv.Itoa(r.Playouts)})
					break
				}
			}
		}
	default:
		p.X.Label.Text = "player"
		for i, name := range rep.Players {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: name})
		}
		xmax = float64(len(rep.Players)) - 0.5
	}
	if len(rep.Runs) > 0 {
		for _, v := range rep.Variants {
			order = append(order, v)
		}
		k := float64(len(order))
		for _, r := range rep.Runs {
			i := float64(slices.Index(order, r.Variant))
			shift := (i - (k-1)/2) // keeps the error bars of the rule sets apart
			var x float64
			if numeric {
				x = float64(r.Playouts) * math.Pow(10, 0.015*shift)
			} else {
				x = float64(slices.Index(rep.Players, r.Player)) + 0.06*shift
			}
			series[r.Variant] = append(series[r.Variant], point{x, r.Defenders.Rate, r.Defenders.Lo, r.Defenders.Hi})
		}
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	// Rates run from 0 to 1, a tick each tenth, every other one labelled.
	var yticks []plot.Tick
	for i := 0; i <= 10; i++ {
		y := float64(i) / 10
		label := ""
		if i%2 == 0 {
			label = strconv.FormatFloat(y, 'f', 1, 64)
		}
		yticks = append(yticks, plot.Tick{Value: y, Label: label})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(yticks)
	for i, name := range order {
		pts := series[name]
		if len(pts) == 0 {
			continue
		}
		var data chart.ErrorPoints
		for _, q := range pts {
			data.Add(q.x, q.p, q.lo, q.h)
		}
		if err := chart.AddErrorSeries(p, name, data, i, len(rep.Runs) > 0); err != nil {
			return err
		}
	}
	if len(rep.Runs) > 0 {
		for j, r := range rep.Records {
			c := chart.Color(len(order) + j)
			for k, y := range []float64{r.Defenders.Rate, r.Defenders.Lo, r.Defenders.Hi} {
				l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: y}, {X: xmax, Y: y}})
				if err != nil {
					return errctx.Errorf("balance", "chart %s: %w", path, err)
				}
				l.Color = c
				if k == 0 {
					l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
					p.Legend.Add(fmt.Sprintf("%s (%s) %s", filepath.Base(r.File), r.Variant, r.Defenders), l)
				} else {
					l.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
					l.Color = fade(c)
				}
				p.Add(l)
			}
		}
	}
	// Rates run from 0 to 1; the room above 1 is the legend's.
	chart.LegendRoom(p, chart.Canvas(chart.Width, chart.Height), 0, 1)
	return chart.SavePNG(p, path)
}

// fade returns the colour half transparent.
func fade(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 128}
}
