package ratings

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"taflab/chart"
	"taflab/stats"
)

// Markdown writes the report as ratings.md: a table per group, strongest
// first, of each player's Elo, its 95% interval, games and score, and the
// attackers' advantage.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Ratings: %s, %d games from %d match files\n\n", r.Variant, r.AllGames, len(r.Files))
	for _, c := range slices.Concat(r.Clashes, r.SelfGames) {
		fmt.Fprintf(&b, "**Warning**: %s.\n\n", c)
	}
	if len(r.OtherGroups) == 0 {
		r.Group.markdown(&b, r.PriorSD)
		return b.String()
	}
	n := 1 + len(r.OtherGroups)
	fmt.Fprintf(&b, "No chain of games links the players of these %d groups, so a rating compares only with ratings of its own group: each group is fitted on its own, with its own anchor.\n", n)
	for i, g := range append([]Group{r.Group}, r.OtherGroups...) {
		fmt.Fprintf(&b, "\n## Group %d of %d: %d players, %d games\n\n", i+1, n, len(g.Players), g.Games)
		g.markdown(&b, r.PriorSD)
	}
	return b.String()
}

// markdown writes one group's table.
func (g Group) markdown(b *strings.Builder, priorSD float64) {
	fmt.Fprintf(b, "Bradley-Terry (logistic Elo) fit with an attackers' advantage term; %s fixed at 0 Elo", g.Anchor)
	if priorSD > 0 {
		fmt.Fprintf(b, "; normal prior SD %g Elo on every rating", priorSD)
	}
	b.WriteString(". ± is a 95% interval: 1.96 standard errors")
	if g.SEScale > 1 {
		fmt.Fprintf(b, " times sqrt(dispersion) = %.2f", g.SEScale)
	}
	b.WriteString(".\n\n| rank | player | Elo | ± 95% | games | score |\n| ---: | --- | ---: | ---: | ---: | ---: |\n")
	for i, p := range g.Players {
		ci := fmt.Sprintf("%.1f", p.CI95)
		if p.Anchor {
			ci = "anchor"
		}
		fmt.Fprintf(b, "| %d | %s | %.1f | %s | %d | %.1f%% |\n", i+1, p.Name, p.Elo, ci, p.Games, 100*p.Score)
	}
	fmt.Fprintf(b, "\nAttackers' advantage: %+.1f ± %.1f Elo (between equal players the attackers score %.1f%%).\n",
		g.SideAdvantage, g.SideAdvantage95, 100*stats.ExpectedScore(g.SideAdvantage))
	if g.Dispersion != nil {
		fmt.Fprintf(b, "Dispersion %.2f", *g.Dispersion)
		if *g.Dispersion <= 1 {
			b.WriteString(" (at most 1: the intervals are not scaled, and are conservative where there are draws)")
		}
		b.WriteString(".\n")
	}
}

// SaveChart draws the first group's chart (Plot) into a PNG file, written
// whole (chart.SavePNG).
func (r Report) SaveChart(path string) error {
	p, err := r.Plot()
	if err != nil {
		return err
	}
	return chart.SavePNG(p, path)
}

// Plot draws the first group's ratings with their 95% intervals: the
// players without a generation in their names first, in the order the
// games met them (FirstMet; a report read back from JSON has none, and
// then in the table's order), then the generations in order, joined by a
// line.
func (r Report) Plot() (*plot.Plot, error) {
	byName := map[string]Player{}
	order := r.FirstMet
	for _, p := range r.Players {
		byName[p.Name] = p
		if r.FirstMet == nil {
			order = append(order, p.Name)
		}
	}
	var plain, gens []Player
	for _, name := range order {
		p, ok := byName[name]
		if !ok {
			continue // another group's
		}
		if p.Generation == nil {
			plain = append(plain, p)
		} else {
			gens = append(gens, p)
		}
	}
	sort.SliceStable(gens, func(a, b int) bool { return *gens[a].Generation < *gens[b].Generation })
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Ratings (%s), 95%% intervals; %s = 0", r.Variant, r.Anchor)
	if len(r.OtherGroups) > 0 {
		p.Title.Text += fmt.Sprintf(" (group 1 of %d)", 1+len(r.OtherGroups))
	}
	p.Y.Label.Text = "Elo"
	p.X.Label.Text = "player"
	p.Legend.Left = true
	p.Y.Tick.Marker = chart.Ticks{}
	p.Add(plotter.NewGrid())
	var ticks []plot.Tick
	series := func(list []Player, from int) chart.ErrorPoints {
		var e chart.ErrorPoints
		for i, q := range list {
			x := float64(from + i)
			e.XYs = append(e.XYs, plotter.XY{X: x, Y: q.Elo})
			e.YErrors = append(e.YErrors, struct{ Low, High float64 }{q.CI95, q.CI95})
			ticks = append(ticks, plot.Tick{Value: x, Label: q.Name})
		}
		return e
	}
	if len(plain) > 0 {
		if err := chart.AddErrorSeries(p, "players", series(plain, 0), 1, false); err != nil {
			return nil, err
		}
	}
	if len(gens) > 0 {
		if err := chart.AddErrorSeries(p, "generations", series(gens, len(plain)), 0, true); err != nil {
			return nil, err
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(ticks))-0.5
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range r.Players {
		lo, hi = math.Min(lo, q.Elo-q.CI95), math.Max(hi, q.Elo+q.CI95)
	}
	hi = math.Max(hi, lo+50)
	if len(ticks) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	chart.LegendRoom(p, chart.Canvas(chart.Width, chart.Height), lo, hi) // after the X ticks: they set the axis' height
	return p, nil
}
