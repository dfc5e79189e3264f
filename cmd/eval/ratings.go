package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"taflab/chart"
	"taflab/cmd/internal/cli"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/stats"
)

const ratingsHelp = `usage: eval ratings [-variant NAME] [-anchor PLAYER] [-prior-sd ELO] [-out DIR] PATH ...

Ratings across many players (networks, budgets): a Bradley-Terry (logistic
Elo) fit with an attackers' advantage term over every game of the matches
given, so that a player's rating does not depend on the sides it happened to
play. PATHs are match folders or match.json files ("eval match" writes
them), or folders searched recursively for match.json. Players are matched
by name across files; a name the files give to different players (two
runs' gen-001, which are different networks, or one network at two budgets)
is rated as one player, with a warning naming the files.

Ratings are per rule set: the games of one rule set are fitted at a time.
When the files hold games of several rule sets the command refuses them
unless -variant names the one to fit (the others are then left out).

The anchor (-anchor; default the first "builtin-*" player, else the first
player met) is fixed at 0 Elo. When a player won or lost every game the
maximum-likelihood ratings do not exist; -prior-sd 400, say, fits them
anyway with a normal prior of that standard deviation on every rating.

Players that no chain of games links (a run folder's final-25 and final-800
matches, say, each a network against the searcher at its own budget) have no
rating relative to each other, with a prior or without. The players are then
split into such groups and each group is fitted on its own with its own
anchor: first the group of -anchor, else the group with the most games, then
the others in the order they were first met. Each group's anchor is -anchor
if it is in the group, else the group's first "builtin-*" player, else its
first player met.

Printed, and with -out written as ratings.md: a Markdown table (one per
group), strongest
first, of each player's Elo, its 95% interval half-width (1.96 standard
errors, multiplied by sqrt(dispersion) when the fit's dispersion is above 1:
the scores vary more than the model allows; below 1 the intervals are kept,
which is conservative), games (against other players) and score; then the
attackers' advantage with its interval. With -out also ratings.json (the
same figures: the first group at the top level, the others in
"other_groups") and ratings.png (the first group): rating with its 95%
interval by generation
(players named like gen-3 or gen003 in generation order, after the players
without a generation in the order they were first met).

Limits: at most 10,000 match files of at most 1 GiB together, each at most
64 MiB.

Exit status: 0 done, 1 the fit failed (it says why), 2 bad input (no PATH, an
unreadable or malformed match file, named; a mix of rule sets; an unknown
anchor; past the limits).

Flags:
`

// ratedPlayerJSON is one player of ratings.json.
type ratedPlayerJSON struct {
	Name       string  `json:"name"`
	Generation *int    `json:"generation"` // parsed from the name, or null
	Elo        float64 `json:"elo"`
	SE         float64 `json:"se"`   // the fit's standard error (0 for the anchor)
	CI95       float64 `json:"ci95"` // 1.96·SE·the dispersion scale
	Games      int     `json:"games"`
	Points     float64 `json:"points"`
	Score      float64 `json:"score"` // points per game
	Anchor     bool    `json:"anchor"`
}

// ratingsJSON is ratings.json: the first group of players (the only one
// when games link them all) at the top level, the others in OtherGroups.
type ratingsJSON struct {
	Variant  string   `json:"variant"`
	Files    []string `json:"files"`
	PriorSD  float64  `json:"prior_sd"`
	AllGames int      `json:"all_games"` // of every group
	// Clashes names the players that the files give one name to different
	// players (networks or budgets), each rated as one player all the same.
	Clashes     []string    `json:"clashes,omitempty"`
	OtherGroups []groupJSON `json:"other_groups"`
	groupJSON
}

// groupJSON is the fit of one group of players that games link: its ratings
// are relative to its anchor and not comparable with another group's.
type groupJSON struct {
	Games           int               `json:"games"`
	Anchor          string            `json:"anchor"`
	SideAdvantage   float64           `json:"side_advantage"` // attackers' Elo bonus
	SideAdvantageSE float64           `json:"side_advantage_se"`
	SideAdvantage95 float64           `json:"side_advantage_ci95"`
	Dispersion      *float64          `json:"dispersion"` // null with no more games than parameters
	SEScale         float64           `json:"se_scale"`   // sqrt(dispersion) if above 1, else 1
	LogLikelihood   float64           `json:"log_likelihood"`
	Players         []ratedPlayerJSON `json:"players"` // strongest first
}

// runRatings is the ratings subcommand.
func runRatings(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fset := cli.NewFlagSet("eval ratings", ratingsHelp, stderr)
	variant := fset.String("variant", "", "fit only the matches of this rule set (`name` as the match files write it)")
	anchor := fset.String("anchor", "", "the `player` fixed at 0 Elo (default the first builtin-*, else the first player)")
	priorSD := fset.Float64("prior-sd", 0, "a normal prior of this `SD` (Elo) on every rating; 0 = none (maximum likelihood)")
	out := fset.String("out", "", "write ratings.md, ratings.json and ratings.png into this `folder`")
	cli.DocumentRanges(fset, cli.FlagRanges[fset.Name()])
	if err := fset.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if err := cli.CheckRanges(fset, cli.FlagRanges[fset.Name()]); err != nil {
		fmt.Fprintf(stderr, "eval ratings: %v\n", err)
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "eval ratings: "+format+"\n", a...)
		return 2
	}
	if fset.NArg() == 0 {
		return bad("no PATH: give match folders or match.json files")
	}
	if !(*priorSD >= 0) || math.IsInf(*priorSD, 0) {
		return bad("-prior-sd %v: want a finite Elo of 0 or more", *priorSD)
	}
	files, err := findMatchFiles(fset.Args())
	if err != nil {
		return bad("%v", err)
	}
	byVariant := map[string][]string{}
	var variantOrder []string
	var matches []match.File
	for _, path := range files {
		f, err := match.ReadFile(path)
		if err != nil {
			return bad("%v", err)
		}
		if byVariant[f.Variant] == nil {
			variantOrder = append(variantOrder, f.Variant)
		}
		byVariant[f.Variant] = append(byVariant[f.Variant], path)
		matches = append(matches, f)
	}
	if *variant == "" && len(variantOrder) > 1 {
		var parts []string
		for _, v := range variantOrder {
			parts = append(parts, fmt.Sprintf("%s (%s)", v, strings.Join(byVariant[v], ", ")))
		}
		return bad("the match files hold games of several rule sets: %s; ratings are per rule set: choose one with -variant",
			strings.Join(parts, "; "))
	}
	if *variant == "" {
		*variant = variantOrder[0]
	}
	if byVariant[*variant] == nil {
		return bad("-variant %q: no match file of that rule set (they hold %s)", *variant, strings.Join(variantOrder, ", "))
	}

	var games []stats.Game
	var players []string // in order of first appearance
	seen := map[string]bool{}
	for _, f := range matches {
		if f.Variant != *variant {
			continue
		}
		for _, g := range f.Games {
			games = append(games, stats.Game{Attacker: g.Attacker, Defender: g.Defender, Score: g.AttackerScore()})
			for _, name := range []string{g.Attacker, g.Defender} {
				if !seen[name] {
					seen[name] = true
					players = append(players, name)
				}
			}
		}
	}
	if len(games) == 0 {
		return bad("no games in %s", strings.Join(byVariant[*variant], ", "))
	}
	if *anchor != "" && !seen[*anchor] {
		return bad("-anchor %q: no such player (players: %s)", *anchor, strings.Join(players, ", "))
	}

	rep := ratingsJSON{Variant: *variant, Files: byVariant[*variant], PriorSD: *priorSD, AllGames: len(games), OtherGroups: []groupJSON{},
		Clashes: nameClashes(matches, files, *variant)}
	for _, c := range rep.Clashes {
		fmt.Fprintf(stderr, "eval ratings: warning: %s\n", c)
	}
	for i, g := range ratingGroups(games, *anchor) {
		r, err := stats.FitRatingsWith(g.games, g.anchor, stats.FitOptions{PriorSD: *priorSD})
		if err != nil {
			hint := ""
			if *priorSD == 0 {
				hint = " (try -prior-sd 400)"
			}
			where := ""
			if g.of > 1 {
				where = fmt.Sprintf("group %d of %d (%s): ", i+1, g.of, strings.Join(g.players, ", "))
			}
			fmt.Fprintf(stderr, "eval ratings: %s%v%s\n", where, err, hint)
			return 1
		}
		if i == 0 {
			rep.groupJSON = newGroupJSON(r)
		} else {
			rep.OtherGroups = append(rep.OtherGroups, newGroupJSON(r))
		}
	}
	md := ratingsMarkdown(rep)
	fmt.Fprint(stdout, md)
	if *out == "" {
		return 0
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "eval ratings: -out: %v\n", err)
		return 1
	}
	if err := errors.Join(
		fileio.WriteFile(filepath.Join(*out, "ratings.md"), []byte(md)),
		fileio.WriteJSON(filepath.Join(*out, "ratings.json"), rep),
		ratingsChart(rep, players, filepath.Join(*out, "ratings.png")),
	); err != nil {
		fmt.Fprintf(stderr, "eval ratings: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "\neval ratings: written to %s\n", *out)
	return 0
}

// The most match files ratings reads, and the most bytes of them (vars
// for the tests).
var (
	maxMatchFiles       = 10_000
	maxMatchBytes int64 = 1 << 30
)

// findMatchFiles turns the PATH arguments into match.json files: a file is
// taken as it is, a folder is searched recursively. Errors name the path;
// more than maxMatchFiles files or maxMatchBytes bytes is an error.
func findMatchFiles(paths []string) ([]string, error) {
	var files []string
	var total int64
	var limitErr error
	seen := map[string]bool{}
	add := func(path string) {
		key := filepath.Clean(path)
		if abs, err := filepath.Abs(path); err == nil {
			key = abs
		}
		if seen[key] || limitErr != nil {
			return
		}
		seen[key] = true
		files = append(files, path)
		if info, err := os.Stat(path); err == nil {
			total += info.Size()
		}
		switch {
		case len(files) > maxMatchFiles:
			limitErr = fmt.Errorf("%s: more than %d match files: rate fewer at a time", path, maxMatchFiles)
		case total > maxMatchBytes:
			limitErr = fmt.Errorf("%s: more than %d bytes of match files: rate fewer at a time", path, maxMatchBytes)
		}
	}
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if add(path); limitErr != nil {
				return nil, limitErr
			}
			continue
		}
		found := 0
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == match.FileName {
				add(p)
				found++
			}
			return limitErr
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no %s in it or below", path, match.FileName)
		}
	}
	return files, nil
}

// generationRE finds a generation number in a player's name: gen-3, gen003,
// gen_12, generation-4.
var generationRE = regexp.MustCompile(`(?i)gen(?:eration)?[-_]?(\d+)`)

// generation returns the generation number in a player's name.
func generation(name string) (int, bool) {
	m := generationRE.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// nameClashes finds the player names that the match files of a rule set
// give to different players: players are matched by name, so two runs'
// gen-001 (different networks) or one network at two budgets under one name
// would be rated as one player. A network is told by its file's contents
// (the same file written as a relative and an absolute path is one
// network), or by its path when it cannot be read. Each clash is described
// with the files where each player appears.
func nameClashes(matches []match.File, files []string, variant string) []string {
	sums := map[string]string{} // absolute path → contents' hash, or the path
	identity := func(p match.PlayerInfo) string {
		id := fmt.Sprintf("%d playouts", p.Playouts)
		switch {
		case p.Engine != "":
			id += ", engine " + p.Engine
		case p.Network != "":
			abs, err := filepath.Abs(p.Network)
			if err != nil {
				abs = p.Network
			}
			if _, ok := sums[abs]; !ok {
				sums[abs] = "network " + p.Network
				if b, err := fileio.ReadFileLimit(abs, fileio.MaxRunFileBytes, "this file"); err == nil {
					sums[abs] = fmt.Sprintf("network %x", sha256.Sum256(b))
				}
			}
			id += ", " + sums[abs]
		}
		return id
	}
	type seen struct {
		id, player, file string
	}
	byName := map[string][]seen{}
	var order []string
	for i, f := range matches {
		if f.Variant != variant {
			continue
		}
		for _, p := range []match.PlayerInfo{f.A, f.B} {
			if p.Name == "" {
				continue
			}
			if byName[p.Name] == nil {
				order = append(order, p.Name)
			}
			byName[p.Name] = append(byName[p.Name], seen{identity(p), describePlayer(p), files[i]})
		}
	}
	var out []string
	for _, name := range order {
		var parts []string
		ids := map[string]int{}
		for _, s := range byName[name] {
			if _, ok := ids[s.id]; !ok {
				ids[s.id] = len(parts)
				parts = append(parts, s.player+" in "+s.file)
			} else {
				parts[ids[s.id]] += ", " + s.file
			}
		}
		if len(parts) > 1 {
			out = append(out, fmt.Sprintf("%q names %d different players, rated as one: %s", name, len(parts), strings.Join(parts, "; ")))
		}
	}
	return out
}

// describePlayer says what a match file's player is.
func describePlayer(p match.PlayerInfo) string {
	switch {
	case p.Engine != "":
		return fmt.Sprintf("engine %s at %d playouts", p.Engine, p.Playouts)
	case p.Network != "":
		return fmt.Sprintf("network %s at %d playouts", p.Network, p.Playouts)
	}
	return fmt.Sprintf("the built-in searcher at %d playouts", p.Playouts)
}

// ratingGroup is the games of one group of players that games link.
type ratingGroup struct {
	games   []stats.Game
	players []string // in order of first appearance
	anchor  string
	of      int // the number of groups
}

// ratingGroups splits the games by stats.Groups, in the order the ratings
// command documents (the group of anchor, else the one with the most games,
// then the rest as first met), each with its anchor: anchor if in the group,
// else its first builtin-* player, else its first player.
func ratingGroups(games []stats.Game, anchor string) []ratingGroup {
	groups := stats.Groups(games)
	of := map[string]int{}
	out := make([]ratingGroup, len(groups))
	for i, players := range groups {
		out[i] = ratingGroup{players: players, anchor: players[0], of: len(groups)}
		for _, name := range players {
			of[name] = i
		}
		for _, name := range players {
			if strings.HasPrefix(name, "builtin-") {
				out[i].anchor = name
				break
			}
		}
	}
	for _, g := range games {
		i := of[g.Attacker]
		out[i].games = append(out[i].games, g)
	}
	first := 0
	for i := range out {
		if anchor != "" && of[anchor] == i {
			out[i].anchor = anchor
			first = i
			break
		}
		if anchor == "" && len(out[i].games) > len(out[first].games) {
			first = i
		}
	}
	return append([]ratingGroup{out[first]}, append(out[:first:first], out[first+1:]...)...)
}

// newGroupJSON turns a fit into the report of its group.
func newGroupJSON(r stats.Ratings) groupJSON {
	scale := r.SEScale()
	var disp *float64
	if !math.IsNaN(r.Dispersion) {
		d := r.Dispersion
		disp = &d
	}
	rep := groupJSON{Games: r.Games, Anchor: r.Anchor,
		SideAdvantage: r.SideAdvantage, SideAdvantageSE: r.SideAdvantageSE, SideAdvantage95: 1.96 * r.SideAdvantageSE * scale,
		Dispersion: disp, SEScale: scale, LogLikelihood: r.LogLikelihood}
	for _, p := range r.Players {
		q := ratedPlayerJSON{Name: p.Name, Elo: p.Elo, SE: p.SE, CI95: 1.96 * p.SE * scale, Games: p.Games, Points: p.Points,
			Anchor: p.Name == r.Anchor}
		if g, ok := generation(p.Name); ok {
			q.Generation = &g
		}
		if p.Games > 0 {
			q.Score = p.Points / float64(p.Games)
		}
		rep.Players = append(rep.Players, q)
	}
	return rep
}

// ratingsMarkdown writes the ratings tables, one per group.
func ratingsMarkdown(rep ratingsJSON) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Ratings: %s, %d games from %d match files\n\n", rep.Variant, rep.AllGames, len(rep.Files))
	for _, c := range rep.Clashes {
		fmt.Fprintf(&b, "**Warning**: %s.\n\n", c)
	}
	if len(rep.OtherGroups) == 0 {
		groupMarkdown(&b, rep.groupJSON, rep.PriorSD)
		return b.String()
	}
	n := 1 + len(rep.OtherGroups)
	fmt.Fprintf(&b, "No chain of games links the players of these %d groups, so a rating compares only with ratings of its own group: each group is fitted on its own, with its own anchor.\n", n)
	for i, g := range append([]groupJSON{rep.groupJSON}, rep.OtherGroups...) {
		fmt.Fprintf(&b, "\n## Group %d of %d: %d players, %d games\n\n", i+1, n, len(g.Players), g.Games)
		groupMarkdown(&b, g, rep.PriorSD)
	}
	return b.String()
}

// groupMarkdown writes one group's table.
func groupMarkdown(b *strings.Builder, rep groupJSON, priorSD float64) {
	fmt.Fprintf(b, "Bradley-Terry (logistic Elo) fit with an attackers' advantage term; %s fixed at 0 Elo", rep.Anchor)
	if priorSD > 0 {
		fmt.Fprintf(b, "; normal prior SD %g Elo on every rating", priorSD)
	}
	b.WriteString(". ± is a 95% interval: 1.96 standard errors")
	if rep.SEScale > 1 {
		fmt.Fprintf(b, " times sqrt(dispersion) = %.2f", rep.SEScale)
	}
	b.WriteString(".\n\n| rank | player | Elo | ± 95% | games | score |\n| ---: | --- | ---: | ---: | ---: | ---: |\n")
	for i, p := range rep.Players {
		ci := fmt.Sprintf("%.1f", p.CI95)
		if p.Anchor {
			ci = "anchor"
		}
		fmt.Fprintf(b, "| %d | %s | %.1f | %s | %d | %.1f%% |\n", i+1, p.Name, p.Elo, ci, p.Games, 100*p.Score)
	}
	fmt.Fprintf(b, "\nAttackers' advantage: %+.1f ± %.1f Elo (between equal players the attackers score %.1f%%).\n",
		rep.SideAdvantage, rep.SideAdvantage95, 100*stats.ExpectedScore(rep.SideAdvantage))
	if rep.Dispersion != nil {
		fmt.Fprintf(b, "Dispersion %.2f", *rep.Dispersion)
		if *rep.Dispersion <= 1 {
			b.WriteString(" (at most 1: the intervals are not scaled, and are conservative where there are draws)")
		}
		b.WriteString(".\n")
	}
}

// ratingsChart draws the ratings with their 95% intervals by generation:
// players without a generation first, in the order they were first met,
// then the generations in order, joined by a line.
func ratingsChart(rep ratingsJSON, firstMet []string, path string) error {
	byName := map[string]ratedPlayerJSON{}
	for _, p := range rep.Players {
		byName[p.Name] = p
	}
	var plain, gens []ratedPlayerJSON
	for _, name := range firstMet {
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
	p.Title.Text = fmt.Sprintf("Ratings (%s), 95%% intervals; %s = 0", rep.Variant, rep.Anchor)
	if len(rep.OtherGroups) > 0 {
		p.Title.Text += fmt.Sprintf(" (group 1 of %d)", 1+len(rep.OtherGroups))
	}
	p.Y.Label.Text = "Elo"
	p.X.Label.Text = "player"
	p.Legend.Left = true
	p.Y.Tick.Marker = chart.Ticks{}
	p.Add(plotter.NewGrid())
	var ticks []plot.Tick
	series := func(list []ratedPlayerJSON, from int) errorPoints {
		var e errorPoints
		for i, q := range list {
			x := float64(from + i)
			e.XYs = append(e.XYs, plotter.XY{X: x, Y: q.Elo})
			e.YErrors = append(e.YErrors, struct{ Low, High float64 }{q.CI95, q.CI95})
			ticks = append(ticks, plot.Tick{Value: x, Label: q.Name})
		}
		return e
	}
	if len(plain) > 0 {
		if err := addErrorSeries(p, "players", series(plain, 0), 1, false); err != nil {
			return err
		}
	}
	if len(gens) > 0 {
		if err := addErrorSeries(p, "generations", series(gens, len(plain)), 0, true); err != nil {
			return err
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(ticks))-0.5
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range rep.Players {
		lo, hi = math.Min(lo, q.Elo-q.CI95), math.Max(hi, q.Elo+q.CI95)
	}
	hi = math.Max(hi, lo+50)
	if len(ticks) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	chart.LegendRoom(p, chart.Canvas(chartWidth, chartHeight), lo, hi) // after the X ticks: they set the axis' height
	return savePNG(p, path)
}

// errorPoints are points with vertical error bars, as
// plotter.NewYErrorBars takes them.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// addErrorSeries adds points with error bars in the i-th colour and shape,
// joined by a line if line is set, with a legend entry.
func addErrorSeries(p *plot.Plot, name string, data errorPoints, i int, line bool) error {
	bars, err := plotter.NewYErrorBars(data)
	if err != nil {
		return fmt.Errorf("chart %s: %w", name, err)
	}
	bars.Color = chart.Color(i)
	pts, err := plotter.NewScatter(data.XYs)
	if err != nil {
		return fmt.Errorf("chart %s: %w", name, err)
	}
	pts.Color = chart.Color(i)
	pts.Shape = plotutil.Shape(i)
	p.Add(bars, pts)
	if line && len(data.XYs) > 1 {
		l, err := plotter.NewLine(data.XYs)
		if err != nil {
			return fmt.Errorf("chart %s: %w", name, err)
		}
		l.Color = chart.Color(i)
		p.Add(l)
		p.Legend.Add(name, l, pts)
		return nil
	}
	p.Legend.Add(name, pts)
	return nil
}

// The size of the PNG charts.
const chartWidth, chartHeight = 8 * vg.Inch, 5 * vg.Inch

// savePNG draws the plot as a chartWidth x chartHeight PNG and writes it
// whole.
func savePNG(p *plot.Plot, path string) error {
	w, err := p.WriterTo(chartWidth, chartHeight, "png")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return fileio.WriteFile(path, buf.Bytes())
}
