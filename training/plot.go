package training

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"taflab/chart"
	"taflab/internal/fileio"
)

// plotLosses draws the loss curves of a metrics file as a PNG.
func plotLosses(metricsPath, pngPath string) error {
	data, err := fileio.ReadFileLimit(metricsPath, fileio.MaxRunFileBytes, "this file")
	if err != nil {
		return fmt.Errorf("training: plot: %w", err)
	}
	var total, policy, value plotter.XYs
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ",")
		if i == 0 || len(f) < 5 {
			continue
		}
		step, err1 := strconv.ParseFloat(f[0], 64)
		l, err2 := strconv.ParseFloat(f[2], 64)
		p, err3 := strconv.ParseFloat(f[3], 64)
		v, err4 := strconv.ParseFloat(f[4], 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return fmt.Errorf("training: plot: %s: line %d: %q is not a metrics line", metricsPath, i+1, line)
		}
		total = append(total, plotter.XY{X: step, Y: l})
		policy = append(policy, plotter.XY{X: step, Y: p})
		value = append(value, plotter.XY{X: step, Y: v})
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
	const width, height = 8 * vg.Inch, 5 * vg.Inch
	if len(total) > 0 {
		// The legend above the curves, never over them.
		chart.LegendRoom(p, chart.Canvas(width, height), lo, hi)
	}
	w, err := p.WriterTo(width, height, "png")
	if err != nil {
		return fmt.Errorf("training: plot: %w", err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return fmt.Errorf("training: plot: %w", err)
	}
	return fileio.WriteFile(pngPath, buf.Bytes())
}
