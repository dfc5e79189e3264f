package training

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"taflab/cmd/internal/cli"
)

// plotLosses draws the loss curves of a metrics file as a PNG.
func plotLosses(metricsPath, pngPath string) error {
	data, err := os.ReadFile(metricsPath)
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
	if err := plotutil.AddLines(p, "total", total, "policy", policy, "value", value); err != nil {
		return fmt.Errorf("training: plot: %w", err)
	}
	p.Legend.Top = true
	w, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("training: plot: %w", err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return fmt.Errorf("training: plot: %w", err)
	}
	return cli.WriteFileAtomic(pngPath, buf.Bytes())
}
