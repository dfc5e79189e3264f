// Package chart holds what the commands' PNG charts (gonum/plot) share so
// that a person reads them at a glance: colours that the common colour-vision
// deficiencies tell apart, with a shape per series; ticks at round values
// (whole numbers where the axis counts generations or steps); and room for
// the legend above the data, so that it never covers a line. Its main use is
//
//	p.Y.Tick.Marker = chart.Ticks{}
//	l.Color = chart.Color(i)
//	chart.LegendRoom(p, chart.Canvas(chart.Width, chart.Height), lo, hi)
//	err := chart.SavePNG(p, "ratings.png") // whole or not at all
package chart

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"taflab/internal/fileio"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Ticks marks an axis at 1, 2 or 5 times a power of ten, with about N
// labelled ticks (0 means 5) and no unlabelled ones. With Integer the step
// is a whole number (at least 1), for axes that count generations or steps.
type Ticks struct {
	N       int
	Integer bool
}

// Ticks implements plot.Ticker.
func (t Ticks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil
	}
	n := t.N
	if n <= 0 {
		n = 5
	}
	step := Step(max-min, n)
	if t.Integer {
		step = math.Max(1, math.Round(step))
	}
	var out []plot.Tick
	for k := math.Ceil(min / step); k*step <= max+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // no "-0"
		}
		out = append(out, plot.Tick{Value: v})
		if len(out) > 100 {
			break // a step far too small for the range: never loop on
		}
	}
	// Rounding: 0.1+0.2 prints 0.30000000000000004; round to the step's digits.
	digits := max0(-int(math.Floor(math.Log10(step))))
	for i := range out {
		out[i].Label = strconv.FormatFloat(out[i].Value, 'f', digits, 64)
	}
	return out
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}

// Step is the tick step for a range: 1, 2 or 5 times a power of ten, the
// one that divides it into the number of steps nearest n.
func Step(span float64, n int) float64 {
	if !(span > 0) || n < 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(span/float64(n))))
	best := p
	for _, m := range []float64{2, 5, 10} {
		if math.Abs(span/(m*p)-float64(n)) < math.Abs(span/best-float64(n)) {
			best = m * p
		}
	}
	return best
}

// LegendRoom sets the Y range of p to hold the data's lo..hi with, above
// it, room for the legend at the top of the plot when p is drawn on c, so
// that the legend never covers a line or a point. Call it after the legend's
// entries are added and before p is drawn; it sets p.Legend.Top. The Y axis
// must be linear.
func LegendRoom(p *plot.Plot, c draw.Canvas, lo, hi float64) {
	p.Legend.Top = true
	span := math.Max(hi-lo, math.Max(math.Abs(hi)*0.1, 1e-3))
	p.Y.Min, p.Y.Max = lo-0.05*span, hi+0.05*span
	legend := p.Legend.Rectangle(c)
	height := legend.Max.Y - legend.Min.Y
	if height <= 0 {
		return // no entries
	}
	// As plot.Plot.Draw lays it out: the legend hangs from the top of the
	// area under the title, the data from the top of the data canvas.
	top := c.Max.Y
	if p.Title.Text != "" {
		top -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	bottom := top - height + p.Legend.YOffs - vg.Points(6)
	da := p.DataCanvas(c)
	room := bottom - da.Min.Y // where the data may go
	if room < (da.Max.Y-da.Min.Y)/4 {
		room = (da.Max.Y - da.Min.Y) / 4 // a legend too tall for the chart: keep the data readable
	}
	p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)*float64(da.Max.Y-da.Min.Y)/float64(room)
}

// Canvas is a canvas of the size a chart is saved at, for LegendRoom.
func Canvas(w, h vg.Length) draw.Canvas {
	return draw.New(vgimg.New(w, h))
}

// Width and Height are the size of a one-plot PNG chart.
const Width, Height = 8 * vg.Inch, 5 * vg.Inch

// SavePNG draws p as a Width x Height PNG and writes it to path, whole or
// not at all. Errors name path.
func SavePNG(p *plot.Plot, path string) error {
	img := vgimg.New(Width, Height)
	p.Draw(draw.New(img))
	return SaveCanvas(img, path)
}

// SaveCanvas writes a drawn canvas (several plots tiled, say) as a PNG to
// path, whole or not at all. Errors name path.
func SaveCanvas(img *vgimg.Canvas, path string) error {
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return fmt.Errorf("chart: %s: %w", path, err)
	}
	if err := fileio.WriteFile(path, buf.Bytes()); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}
