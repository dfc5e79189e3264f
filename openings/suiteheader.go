package openings

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"taflab/mcts"
	"taflab/rules"
)

// SuiteBuild is how an opening suite was built, for the header of its file
// (Header, then FormatSuite).
type SuiteBuild struct {
	// Program and Args are the command that built it ("eval suite" and its
	// arguments), written back as a shell reads them.
	Program string
	Args    []string
	// Candidates and Gathered are where the candidates came from
	// (GatherCandidates' config and result).
	Candidates CandidateConfig
	Gathered   Candidates
	// Config and Stats are the build's (BuildSuite's), Config with
	// its Games and defender rates set.
	Config SuiteConfig
	Stats  SuiteStats
}

// Header says how the suite was built, a line each: what built it, the
// command, the reference player, the filter, the candidates by source, the
// measures and the defender-win histogram, and a table by kind of source.
// Lines from the fifth on speak of the candidates and their measures.
func (b SuiteBuild) Header() []string {
	o, c, st := b.Config, b.Candidates, b.Stats
	// The search BuildSuite gives the reference: its own (root=gumbel) or
	// the default self-play one.
	search := o.Reference.SelfPlaySearch(o.Search)
	root := fmt.Sprintf("root noise %g, temperature %g to %g (half-life %g plies)",
		search.NoiseFraction, search.TemperatureStart, search.TemperatureEnd, search.TemperatureHalfLife)
	if search.RootSearch == mcts.RootGumbel {
		root = fmt.Sprintf("Gumbel root search (%d sampled moves, c_visit %g, c_scale %g), no temperature",
			search.GumbelActions, search.GumbelCVisit, search.GumbelCScale)
	}
	loK, hiK := -1, -1
	for k := 0; k <= o.Games; k++ {
		if r := float64(k) / float64(o.Games); r >= o.MinDefenderRate && r <= o.MaxDefenderRate {
			if loK < 0 {
				loK = k
			}
			hiK = k
		}
	}
	limit := "every one that passed"
	if o.Size > 0 {
		limit = fmt.Sprintf("the first %d that passed", o.Size)
	}
	player := o.Reference.Name
	if o.Reference.Network != "" {
		player += " (" + o.Reference.Network + ")"
	}
	h := []string{
		fmt.Sprintf("%s: opening suite built by %s", o.Variant.Name(), b.Program),
		"command: " + b.Program + " " + shellJoin(b.Args),
		fmt.Sprintf("reference: %s against itself, %d games a position; every move a full search of %d playouts, %s; seed %d",
			player, o.Games, search.Playouts, root, o.Seed),
		fmt.Sprintf("filter: defender rate within [%g, %g] (%d to %d wins of %d); candidates in an order shuffled by the seed, %s, in that order",
			o.MinDefenderRate, o.MaxDefenderRate, loK, hiK, o.Games, limit),
	}
	var parts []string
	if c.Records != "" {
		won := ""
		if c.Winner != rules.NoWinner {
			won = ", those the " + map[rules.Winner]string{rules.AttackersWin: "attackers", rules.DefendersWin: "defenders"}[c.Winner] + " won"
		}
		g := b.Gathered
		parts = append(parts, fmt.Sprintf("%d human prefixes (%s, %d games%s under %s; plies %d-%d every %d, replayed under %s, %d prefixes illegal and %d over there skipped)",
			g.count("human"), c.Records, g.HumanGames, won, c.recordsVariant().Name(), c.PlyLo, c.PlyHi, c.Every, c.Variant.Name(), g.Illegal, g.Finished))
	}
	if c.Suite != "" {
		parts = append(parts, fmt.Sprintf("%d positions of the suite %s", b.Gathered.count("from "), c.Suite))
	}
	if c.Random > 0 {
		parts = append(parts, fmt.Sprintf("%d random openings of %d plies", c.Random, c.RandomPlies))
	}
	h = append(h, fmt.Sprintf("candidates: %s; %d duplicates and %d unplayable dropped", strings.Join(parts, ", "), st.Duplicates, st.Unplayable))
	h = append(h, fmt.Sprintf("measured: %d candidates (%d games), %d kept; mean defender rate %s measured, %s kept",
		st.Tried, st.Games, st.Kept, fmtRate(st.MeanBefore), fmtRate(st.MeanAfter)))
	h = append(h, "defender wins (of "+strconv.Itoa(o.Games)+"): measured "+histText(st.Before)+"; kept "+histText(st.After))
	return append(h, b.bySource()...)
}

// bySource is the header's table by kind of source, in the order the kinds
// first appear.
func (b SuiteBuild) bySource() []string {
	var kinds []string
	offered, tried, kept, wins := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for _, k := range b.Gathered.Kind {
		if offered[k] == 0 {
			kinds = append(kinds, k)
		}
		offered[k]++
	}
	for _, r := range b.Stats.Results {
		k := b.Gathered.Kind[r.Candidate]
		tried[k]++
		wins[k] += r.DefenderWins
		if r.Kept {
			kept[k]++
		}
	}
	h := []string{"by source: offered, measured, kept (kept/measured), mean defender rate measured"}
	for _, k := range kinds {
		share, mean := "-", "-"
		if tried[k] > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(kept[k])/float64(tried[k]))
			mean = fmtRate(float64(wins[k]) / float64(tried[k]*b.Config.Games))
		}
		h = append(h, fmt.Sprintf("  %-16s %6d %6d %6d (%s) %s", k, offered[k], tried[k], kept[k], share, mean))
	}
	return h
}

// histText writes a histogram of wins as "0:3 1:5 ...".
func histText(h []int) string {
	parts := make([]string, len(h))
	for k, n := range h {
		parts[k] = fmt.Sprintf("%d:%d", k, n)
	}
	return strings.Join(parts, " ")
}

// fmtRate writes a rate, "-" for none.
func fmtRate(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.3f", r)
}

// shellJoin writes arguments as a shell would read them back.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
