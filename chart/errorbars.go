package chart

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
)

// ErrorPoints are points with vertical error bars, as
// plotter.NewYErrorBars takes them: a rate with its interval, an Elo with
// its.
type ErrorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Add appends the point (x, y) with its interval [lo, hi] around y.
func (e *ErrorPoints) Add(x, y, lo, hi float64) {
	e.XYs = append(e.XYs, plotter.XY{X: x, Y: y})
	e.YErrors = append(e.YErrors, struct{ Low, High float64 }{y - lo, hi - y})
}

// AddErrorSeries adds points with error bars to p in the i-th colour and
// shape, joined by a line if line is set, with a legend entry called name.
// Errors name the series.
func AddErrorSeries(p *plot.Plot, name string, data ErrorPoints, i int, line bool) error {
	bars, err := plotter.NewYErrorBars(data)
	if err != nil {
		return fmt.Errorf("chart %s: %w", name, err)
	}
	bars.Color = Color(i)
	pts, err := plotter.NewScatter(data.XYs)
	if err != nil {
		return fmt.Errorf("chart %s: %w", name, err)
	}
	pts.Color = Color(i)
	pts.Shape = plotutil.Shape(i)
	p.Add(bars, pts)
	if line && len(data.XYs) > 1 {
		l, err := plotter.NewLine(data.XYs)
		if err != nil {
			return fmt.Errorf("chart %s: %w", name, err)
		}
		l.Color = Color(i)
		p.Add(l)
		p.Legend.Add(name, l, pts)
		return nil
	}
	p.Legend.Add(name, pts)
	return nil
}
