package analysis

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"taflab/chart"
	"taflab/internal/errctx"
)

// WriteChart draws a review's graph as a PNG at path (chart.SavePNG):
// the attackers' win chance before the first move and after each, from 0
// to 100, a line at 50, and each labelled move marked where its ply ends,
// a shape and colour per label (as the web page marks them: an
// inaccuracy a sky-blue triangle, a mistake an orange square, a blunder
// reddish purple).
func WriteChart(path, title string, rev *Review) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "ply"
	p.Y.Label.Text = "attackers' win chance (points)"
	p.X.Tick.Marker = chart.Ticks{Integer: true}
	p.Y.Tick.Marker = chart.Ticks{}
	var line plotter.XYs
	for i, x := range rev.WinChances() {
		line = append(line, plotter.XY{X: float64(i), Y: x})
	}
	even, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 50}, {X: float64(max(len(line)-1, 1)), Y: 50}})
	if err != nil {
		return errctx.Errorf("analysis", "chart: %w", err)
	}
	even.Color = chart.Hex("#999999")
	even.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(even)
	if len(line) > 0 {
		l, err := plotter.NewLine(line)
		if err != nil {
			return errctx.Errorf("analysis", "chart: %w", err)
		}
		l.Color = chart.Color(0)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add("attackers' win chance", l)
	}
	marks := []struct {
		label Label
		shape draw.GlyphDrawer
		color int
	}{
		{Inaccuracy, draw.TriangleGlyph{}, 5},
		{Mistake, draw.SquareGlyph{}, 4},
		{Blunder, draw.CrossGlyph{}, 3},
	}
	for _, m := range marks {
		var pts plotter.XYs
		for _, ply := range rev.Plies {
			if ply.Label == m.label {
				pts = append(pts, plotter.XY{X: float64(ply.Ply), Y: ply.AttackersAfter.WinChance()})
			}
		}
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return errctx.Errorf("analysis", "chart: %w", err)
		}
		s.GlyphStyle.Shape = m.shape
		s.GlyphStyle.Color = chart.Color(m.color)
		s.GlyphStyle.Radius = vg.Points(5)
		p.Add(s)
		p.Legend.Add(string(m.label)+" ("+sideCounts(rev, m.label)+")", s)
	}
	p.X.Min = 0
	chart.LegendRoom(p, chart.Canvas(chart.Width, chart.Height), 0, 100)
	return chart.SavePNG(p, path)
}

// sideCounts says how many moves of a label each side made.
func sideCounts(rev *Review, l Label) string {
	count := func(s Side) int {
		switch l {
		case Inaccuracy:
			return s.Inaccuracies
		case Mistake:
			return s.Mistakes
		}
		return s.Blunders
	}
	return fmt.Sprintf("attackers %d, defenders %d", count(rev.Attackers), count(rev.Defenders))
}
