package chart

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// AddLine adds a series to p: its points joined by a line, in the i-th
// colour and shape (Color, plotutil.Shape), with a legend entry called
// name. Errors name the series.
func AddLine(p *plot.Plot, name string, xys plotter.XYs, i int) error {
	l, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return fmt.Errorf("chart %s: %w", name, err)
	}
	l.Color, pts.Color = Color(i), Color(i)
	pts.Shape = plotutil.Shape(i)
	p.Add(l, pts)
	p.Legend.Add(name, l, pts)
	return nil
}

// WholeTicks marks an axis of whole numbers from first to last (the
// generations of a run, say) at each of them, or, once they span more than
// a dozen steps, at every k-th (about a dozen ticks): a label for each
// tick, none between.
func WholeTicks(first, last int) plot.Ticker {
	step := max(1, (last-first+11)/12)
	var ticks []plot.Tick
	for n := first; n <= last; n += step {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
	}
	return plot.ConstantTicks(ticks)
}

// Panel is one plot of a grid (SaveGrid), with the lowest and highest
// values of its data (NaN for none), above which its legend gets room.
type Panel struct {
	Plot   *plot.Plot
	Lo, Hi float64
}

// SaveGrid draws panels in rows of cols on a width x height PNG, each with
// room for its legend above its data (LegendRoom), and writes it to path,
// whole or not at all. Errors name path.
func SaveGrid(path string, panels []Panel, cols int, width, height vg.Length) error {
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i, p := range panels {
		grid[i/cols] = append(grid[i/cols], p.Plot)
	}
	img := vgimg.New(width, height)
	dc := draw.New(img)
	pad := vg.Millimeter * 2
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 2 * pad, PadY: 2 * pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	canvases := plot.Align(grid, tiles, dc)
	for i, p := range panels {
		c := canvases[i/cols][i%cols]
		if !math.IsNaN(p.Lo) {
			// Room above the data for the legend, so that it never
			// covers a line.
			LegendRoom(p.Plot, c, p.Lo, p.Hi)
		}
		p.Plot.Draw(c)
	}
	return SaveCanvas(img, path)
}
