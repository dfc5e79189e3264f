package training

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"taflab/chart"
)

// plotLosses draws the loss curves of a metrics file as a PNG.
func plotLosses(metricsPath, pngPath string) error {
	steps, err := ReadMetrics(metricsPath)
	if err != nil {
		return err
	}
	var total, policy, value plotter.XYs
	for _, s := range steps {
		x := float64(s.Step)
		total = append(total, plotter.XY{X: x, Y: s.Losses.Total()})
		policy = append(policy, plotter.XY{X: x, Y: s.Losses.Policy})
		value = append(value, plotter.XY{X: x, Y: s.Losses.Value})
	}
	p := plot.New()
	p.Title.Text = "training loss"
	p.X.Label.Text = "step"
	p.Y.Label.Text = "loss"
	p.X.Tick.Marker = chart.Ticks{Integer: true}
	p.Y.Tick.Marker = chart.Ticks{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range []struct {
		name string
		xys  plotter.XYs
	}{{"total", total}, {"policy", policy}, {"value", value}} {
		l, err := plotter.NewLine(s.xys)
		if err != nil {
			return fmt.Errorf("training: plot: %w", err)
		}
		l.Color = chart.Color(i)
		l.Dashes = plotutil.Dashes(i)
		p.Add(l)
		p.Legend.Add(s.name, l)
		for _, xy := range s.xys {
			lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
		}
	}
	if len(total) > 0 {
		// The legend above the curves, never over them.
		chart.LegendRoom(p, chart.Canvas(chart.Width, chart.Height), lo, hi)
	}
	return chart.SavePNG(p, pngPath)
}
