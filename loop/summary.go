package loop

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"taflab/chart"
	"taflab/configs"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/rules"
	"taflab/selfplay"
	"taflab/stats"
	"taflab/training"
)

// GenSummary is one generation's line of the run summary.
type GenSummary struct {
	Generation    int     `json:"generation"`
	Games         int     `json:"selfplay_games"`
	GamesPerHour  float64 `json:"selfplay_games_per_hour"`
	AttackerShare float64 `json:"attacker_wins"`
	DefenderShare float64 `json:"defender_wins"`
	DrawShare     float64 `json:"draws"`
	Evaluator     string  `json:"selfplay_evaluator"`
	// Start counts the self-play games from the rule set's start with equal
	// playouts: the balance of the generation's own play.
	Start match.Tally `json:"selfplay_from_start"`
	// ByKind splits all the self-play games by how they were set up.
	ByKind        map[string]match.Tally `json:"selfplay_by_kind,omitempty"`
	Loss          float64                `json:"loss"`
	PolicyLoss    float64                `json:"policy_loss"`
	ValueLoss     float64                `json:"value_loss"`
	Gate          string                 `json:"gate"` // "promoted", "rejected", "undecided" or "" (not yet)
	GateElo       float64                `json:"gate_elo"`
	GateLLR       float64                `json:"gate_llr"`
	BaselineElo   float64                `json:"baseline_elo"`
	BaselineLo    float64                `json:"baseline_elo_lo"`
	BaselineHi    float64                `json:"baseline_elo_hi"`
	BaselineGames int                    `json:"baseline_games"`
	// BaselineOdds is the rating as playout odds: how many times its
	// playouts the baseline needs to score level (stats.Odds.String), ""
	// without a ladder.
	BaselineOdds string `json:"baseline_odds,omitempty"`
	// Rating is the generation's Elo in the fit over every gate and
	// baseline game of the run (RunRatings), with its 95% interval's half
	// width; RatingGames counts its games in the fit, 0 when it has no
	// rating there.
	Rating      float64 `json:"rating"`
	RatingCI95  float64 `json:"rating_ci95"`
	RatingGames int     `json:"rating_games"`
	// Outside holds the generation's matches against the outside players
	// (baseline.outside), by name; none without them.
	Outside []OutsideResult `json:"outside,omitempty"`
	// CPUSeconds is the loop process's processor time in each of the
	// generation's stages (CPUFile), and CPUHours the run's cost up to and
	// with this generation: the processor hours of generation 0's
	// training and of every generation's self-play, training and gate so
	// far (0 where the time was not recorded).
	CPUSeconds map[Stage]float64 `json:"cpu_seconds,omitempty"`
	CPUHours   float64           `json:"cpu_hours"`
}

// OutsideResult is a generation's match against an outside player.
type OutsideResult struct {
	Player  string `json:"player"`
	Variant string `json:"variant"` // the rule set's name
	// OtherRules: the games were of another rule set than the run's
	// (baseline.outside's variant, kept in the match folder as
	// variant.toml).
	OtherRules bool    `json:"other_rules,omitempty"`
	Games      int     `json:"games"`
	Score      float64 `json:"score"` // the generation's points a game: a win 1, a draw 1/2
	Elo        float64 `json:"elo"`   // the generation's, against the player
	EloLo      float64 `json:"elo_lo"`
	EloHi      float64 `json:"elo_hi"`
	// AsAttacker and AsDefender are the generation's results with each side.
	AsAttacker stats.WDL `json:"as_attacker"`
	AsDefender stats.WDL `json:"as_defender"`
	// Attacking is how the generation won as attackers: the median plies
	// to a win and how the wins came (match.WinsBySide).
	Attacking match.SideWins `json:"attacking"`
}

// outsideResult reads a match of an outside player.
func outsideResult(m outsideMatch) OutsideResult {
	r := m.file.Report
	out := OutsideResult{Player: m.file.B.Name, Variant: m.file.Variant, OtherRules: m.otherRules, Games: r.Games,
		Elo: r.Elo, EloLo: r.EloLo, EloHi: r.EloHi, AsAttacker: r.AsAttacker, AsDefender: r.AsDefender}
	both := stats.WDL{Wins: r.AsAttacker.Wins + r.AsDefender.Wins, Draws: r.AsAttacker.Draws + r.AsDefender.Draws,
		Losses: r.AsAttacker.Losses + r.AsDefender.Losses}
	if both.Games() > 0 {
		out.Score = both.Score()
	}
	for _, w := range match.WinsBySide(*m.file) {
		if w.Player == m.file.A.Name && w.Side == "attackers" {
			out.Attacking = w
		}
	}
	return out
}

// RunSummary is summary.json: a line per generation, and the self-play of
// each worker host.
type RunSummary struct {
	Generations []GenSummary     `json:"generations"`
	Hosts       []HostThroughput `json:"hosts"`
	// Ratings is the fit over the run's gate and baseline games; null
	// before the first baseline.
	Ratings *RunRatings `json:"ratings"`
}

// Summarize reads the run folder's generations, and fits the ratings over
// their gate and baseline games (nil before the first baseline).
func Summarize(run string, cfg configs.Loop) ([]GenSummary, *RunRatings, error) {
	var out []GenSummary
	ladder, err := readLadder(run)
	if err != nil {
		return nil, nil, err
	}
	// Each generation's gate and baseline, read once: for its line and for
	// the fit over them all.
	var matches []genMatches
	for g := 1; g <= cfg.Generations; g++ {
		dir := GenDir(run, g)
		matches = append(matches, genMatches{gate: readMatch(dir, "gate"), baseline: readMatch(dir, "baseline"), outside: readOutsideMatches(dir)})
	}
	ratings, err := fitRunRatings(matches)
	if err != nil {
		return nil, nil, err
	}
	rated := map[string]RatedPlayer{}
	if ratings != nil {
		for _, p := range ratings.Players {
			rated[p.Name] = p
		}
	}
	cpu0, err := readCPU(GenDir(run, 0))
	if err != nil {
		return nil, nil, err
	}
	cost := cpu0[StageTrain] // CPU seconds so far
	for g := 1; g <= cfg.Generations; g++ {
		dir := GenDir(run, g)
		if _, err := os.Stat(dir); err != nil {
			break
		}
		s := GenSummary{Generation: g}
		st, err := readSelfplayStats(dir)
		if err != nil {
			return nil, nil, err
		}
		s.Games, s.Evaluator, s.ByKind, s.Start = st.Games, st.Evaluator, st.ByKind, st.ByKind[selfplay.KindStart]
		if st.Games > 0 {
			n := float64(st.Games)
			s.AttackerShare, s.DefenderShare, s.DrawShare = float64(st.AttackerWins)/n, float64(st.DefenderWins)/n, float64(st.Draws)/n
		}
		if st.Seconds > 0 {
			s.GamesPerHour = float64(st.Games) / st.Seconds * 3600
		}
		if steps, err := training.ReadMetrics(filepath.Join(dir, "train", training.MetricsFile)); err == nil && len(steps) > 0 {
			last := steps[len(steps)-1].Losses
			s.Loss, s.PolicyLoss, s.ValueLoss = last.Total(), last.Policy, last.Value
		}
		if f := matches[g-1].gate; f != nil {
			s.Gate = gateOutcome(f.Decided())
			s.GateElo, s.GateLLR = f.Report.Elo, f.Report.LLR
		}
		if f := matches[g-1].baseline; f != nil {
			s.BaselineElo, s.BaselineLo, s.BaselineHi, s.BaselineGames = f.Report.Elo, f.Report.EloLo, f.Report.EloHi, f.Report.Games
			if len(ladder) > 0 {
				if odds, err := stats.PlayoutOdds(ladder, f.Report.Elo, f.Report.EloLo, f.Report.EloHi); err == nil {
					s.BaselineOdds = odds.String()
				}
			}
		}
		if p, ok := rated[GenName(g)]; ok {
			s.Rating, s.RatingCI95, s.RatingGames = p.Elo, p.CI95, p.Games
		}
		for _, f := range matches[g-1].outside {
			s.Outside = append(s.Outside, outsideResult(f))
		}
		if s.CPUSeconds, err = readCPU(dir); err != nil {
			return nil, nil, err
		}
		for _, stage := range costStages {
			cost += s.CPUSeconds[stage]
		}
		s.CPUHours = cost / 3600
		out = append(out, s)
	}
	return out, ratings, nil
}

// readMatch reads a generation's match, or returns nil if it has none or
// it cannot be read (the summary leaves such a match out).
func readMatch(dir, stage string) *match.File {
	f, err := match.ReadFile(filepath.Join(dir, stage))
	if err != nil {
		return nil
	}
	return &f
}

// genMatches is a generation's gate and baseline matches, nil where not
// played, and its outside players' matches.
type genMatches struct {
	gate, baseline *match.File
	outside        []outsideMatch
}

// writeSummary writes summary.md, summary.json and summary.png, and logs
// the generations' ratings.
func writeSummary(run string, cfg configs.Loop, log io.Writer) (RunSummary, error) {
	gens, ratings, err := Summarize(run, cfg)
	if err != nil {
		return RunSummary{}, err
	}
	hosts, err := Throughput(run, cfg)
	if err != nil {
		return RunSummary{}, err
	}
	sum := RunSummary{Generations: gens, Hosts: hosts, Ratings: ratings}
	if err := fileio.WriteJSON(filepath.Join(run, "summary.json"), sum); err != nil {
		return RunSummary{}, errctx.Errorf("loop", "%w", err)
	}
	if ratings != nil {
		fmt.Fprintf(log, "loop: %s\n", ratings.ByGeneration())
	}
	var md strings.Builder
	anchor := "the network-free searcher"
	if cfg.Baseline.Opponent == configs.BaselineStart {
		anchor = "generation 0's network (" + GenName(0) + ")"
	}
	fmt.Fprintf(&md, "# Training run %s\n\nRule set %s, seed %d. Ratings are Elo against %s at %d playouts (95%% interval): "+
		"\"rating\" fits every gate and baseline game of the run at once, so that the gates place the generations against each other; "+
		"\"vs baseline\" is each generation's own games against that opponent alone.\n"+
		"Attackers, defenders and draws are shares of all self-play games; \"from the start\" counts the games from the rule set's start with equal playouts alone (the others start from the opening suite or give one side odds). "+
		"CPU hours are the run's cost so far: the loop process's processor time in generation 0's training and in each generation's self-play, training and gate.\n\n",
		filepath.Base(run), cfg.Variant, cfg.Seed, anchor, cfg.Baseline.Playouts)
	md.WriteString("| gen | CPU hours | self-play games | games/hour | attackers | defenders | draws | attackers from the start | loss (policy, value) | gate | rating | vs baseline |\n")
	md.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, s := range gens {
		gate := s.Gate
		if gate != "" {
			gate = fmt.Sprintf("%s (Elo %.0f, LLR %.2f)", s.Gate, s.GateElo, s.GateLLR)
		}
		rating := ""
		if s.BaselineGames > 0 {
			rating = fmt.Sprintf("%.0f [%.0f, %.0f] (%d games)", s.BaselineElo, s.BaselineLo, s.BaselineHi, s.BaselineGames)
			if s.BaselineOdds != "" {
				rating += "; playout odds " + s.BaselineOdds
			}
		}
		fromStart := ""
		if t := s.Start; t.Games > 0 {
			fromStart = fmt.Sprintf("%d of %d (%.0f%%)", t.AttackerWins, t.Games, 100*float64(t.AttackerWins)/float64(t.Games))
		}
		joint := ""
		if s.RatingGames > 0 {
			joint = fmt.Sprintf("%.0f ± %.0f", s.Rating, s.RatingCI95)
		}
		fmt.Fprintf(&md, "| %d | %.2f | %d | %.0f | %.0f%% | %.0f%% | %.0f%% | %s | %.3f (%.3f, %.3f) | %s | %s | %s |\n",
			s.Generation, s.CPUHours, s.Games, s.GamesPerHour, 100*s.AttackerShare, 100*s.DefenderShare, 100*s.DrawShare,
			fromStart, s.Loss, s.PolicyLoss, s.ValueLoss, gate, joint, rating)
	}
	if ratings != nil {
		fmt.Fprintf(&md, "\n%s\n", ratings.Describe())
	}
	outsideTable(&md, gens)
	md.WriteString("\nSelf-play by kind of game: wins of each side with their mean length in plies.\n\n")
	md.WriteString("| gen | kind | games | attackers (plies) | defenders (plies) | draws (plies) |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, s := range gens {
		kinds := make([]string, 0, len(s.ByKind))
		for k := range s.ByKind {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			t := s.ByKind[k]
			fmt.Fprintf(&md, "| %d | %s | %d | %d (%.0f) | %d (%.0f) | %d (%.0f) |\n", s.Generation, k, t.Games,
				t.AttackerWins, t.Mean(rules.AttackersWin), t.DefenderWins, t.Mean(rules.DefendersWin), t.Draws, t.Mean(rules.Draw))
		}
	}
	md.WriteString("\nSelf-play by worker host: what each wrote (a follower's games whether or not a generation took them), per hour of the time it was playing.\n\n")
	md.WriteString("| host | processes | games | positions | hours | games/hour | positions/hour |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, h := range hosts {
		fmt.Fprintf(&md, "| %s | %d | %d | %d | %.3f | %.0f | %.0f |\n", h.Host, h.Processes, h.Games, h.Positions, h.Hours, h.GamesPerHour, h.PositionsPerHour)
	}
	md.WriteString("\n![summary](summary.png)\n")
	if err := fileio.WriteFile(filepath.Join(run, "summary.md"), []byte(md.String())); err != nil {
		return RunSummary{}, errctx.Errorf("loop", "%w", err)
	}
	return sum, plotSummary(filepath.Join(run, "summary.png"), gens, anchor)
}

// plotSummary draws six panels: rating against the baseline (anchor names
// it), losses, self-play games per hour, the self-play outcomes and the
// score against each outside player, by generation, and the rating against
// the run's CPU hours.
func plotSummary(path string, gens []GenSummary, anchor string) error {
	rating, lo, hi, joint := plotter.XYs{}, plotter.XYs{}, plotter.XYs{}, plotter.XYs{}
	byCPU, baselineByCPU := plotter.XYs{}, plotter.XYs{}
	outside := map[string]plotter.XYs{}
	var outsideNames []string
	loss, policy, value := plotter.XYs{}, plotter.XYs{}, plotter.XYs{}
	speed, att, def, draws := plotter.XYs{}, plotter.XYs{}, plotter.XYs{}, plotter.XYs{}
	for _, s := range gens {
		x := float64(s.Generation)
		if s.BaselineGames > 0 {
			rating = append(rating, plotter.XY{X: x, Y: s.BaselineElo})
			lo = append(lo, plotter.XY{X: x, Y: s.BaselineLo})
			hi = append(hi, plotter.XY{X: x, Y: s.BaselineHi})
		}
		if s.RatingGames > 0 {
			joint = append(joint, plotter.XY{X: x, Y: s.Rating})
			if s.CPUHours > 0 {
				byCPU = append(byCPU, plotter.XY{X: s.CPUHours, Y: s.Rating})
			}
		}
		if s.BaselineGames > 0 && s.CPUHours > 0 {
			baselineByCPU = append(baselineByCPU, plotter.XY{X: s.CPUHours, Y: s.BaselineElo})
		}
		for _, o := range s.Outside {
			if _, ok := outside[o.Player]; !ok {
				outsideNames = append(outsideNames, o.Player)
			}
			outside[o.Player] = append(outside[o.Player], plotter.XY{X: x, Y: o.Score})
		}
		if s.Loss > 0 {
			loss = append(loss, plotter.XY{X: x, Y: s.Loss})
			policy = append(policy, plotter.XY{X: x, Y: s.PolicyLoss})
			value = append(value, plotter.XY{X: x, Y: s.ValueLoss})
		}
		speed = append(speed, plotter.XY{X: x, Y: s.GamesPerHour})
		att = append(att, plotter.XY{X: x, Y: s.AttackerShare})
		def = append(def, plotter.XY{X: x, Y: s.DefenderShare})
		draws = append(draws, plotter.XY{X: x, Y: s.DrawShare})
	}
	panels := make([]chart.Panel, 6)
	var err error
	if panels[0], err = genPanel(gens, "rating against "+anchor, "Elo", "vs baseline", rating, "95% low", lo, "95% high", hi, "all games", joint); err != nil {
		return err
	}
	if panels[4], err = genPanel(gens, "rating against the run's CPU hours", "Elo", "all games", byCPU, "vs baseline", baselineByCPU); err != nil {
		return err
	}
	byHours := panels[4].Plot
	byHours.X.Label.Text, byHours.X.Tick.Marker = "CPU hours (self-play, training, gates)", chart.Ticks{}
	byHours.X.Min, byHours.X.Max = 0, 1
	if n := len(gens); n > 0 && gens[n-1].CPUHours > 0 {
		byHours.X.Max = gens[n-1].CPUHours * 1.05
	}
	var scores []any
	for _, name := range outsideNames {
		scores = append(scores, name, outside[name])
	}
	if panels[5], err = genPanel(gens, "score against outside players", "points a game", scores...); err != nil {
		return err
	}
	if panels[1], err = genPanel(gens, "training loss at the end of each generation", "loss", "total", loss, "policy", policy, "value", value); err != nil {
		return err
	}
	if panels[2], err = genPanel(gens, "self-play speed", "games per hour", "games/hour", speed); err != nil {
		return err
	}
	if panels[3], err = genPanel(gens, "self-play outcomes", "share of games", "attackers", att, "defenders", def, "draws", draws); err != nil {
		return err
	}
	return chart.SaveGrid(path, panels, 2, 12*vg.Inch, 12*vg.Inch)
}

// genPanel is a panel of the summary's chart by generation: its series
// given as name, plotter.XYs pairs (the i-th in the i-th colour; an empty
// one left out), with the range of their data (NaN with none).
func genPanel(gens []GenSummary, title, ylabel string, series ...any) (chart.Panel, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, "generation", ylabel
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Tick.Marker = plot.ConstantTicks(nil)
	if len(gens) > 0 {
		// Generations are whole numbers, with half a generation of margin.
		first, last := gens[0].Generation, gens[len(gens)-1].Generation
		p.X.Tick.Marker = chart.WholeTicks(first, last)
	}
	p.Y.Tick.Marker = chart.Ticks{}
	lo, hi, entries := math.Inf(1), math.Inf(-1), 0
	for i := 0; i+1 < len(series); i += 2 {
		xys := series[i+1].(plotter.XYs)
		if len(xys) == 0 {
			continue
		}
		if err := chart.AddLine(p, series[i].(string), xys, i/2); err != nil {
			return chart.Panel{}, err
		}
		for _, xy := range xys {
			lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
		}
		entries++
	}
	if len(gens) > 0 {
		p.X.Min, p.X.Max = float64(gens[0].Generation)-0.5, float64(gens[len(gens)-1].Generation)+0.5
	}
	if entries == 0 {
		return chart.Panel{Plot: p, Lo: math.NaN(), Hi: math.NaN()}, nil
	}
	p.Y.Min, p.Y.Max = lo, hi
	return chart.Panel{Plot: p, Lo: lo, Hi: hi}, nil
}

// outsideTable writes the generations' matches against the outside
// players, if any.
func outsideTable(md *strings.Builder, gens []GenSummary) {
	header := false
	for _, s := range gens {
		for _, o := range s.Outside {
			if !header {
				md.WriteString("\nAgainst the outside players, at the baseline's playouts: the generation's score, its Elo against the player (95% interval), its wins/draws/losses with each side, and the median plies of its wins as attackers.\n\n")
				md.WriteString("| gen | outside player | rule set | games | score | Elo | as attackers W/D/L | as defenders W/D/L | attackers' median plies to a win |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
				header = true
			}
			variant := o.Variant
			if o.OtherRules {
				variant += " (baseline.outside's variant)"
			}
			median := "-"
			if o.Attacking.Wins > 0 {
				median = fmt.Sprintf("%g", o.Attacking.MedianPlies)
			}
			fmt.Fprintf(md, "| %d | %s | %s | %d | %.0f%% | %.0f [%.0f, %.0f] | %d/%d/%d | %d/%d/%d | %s |\n", s.Generation, o.Player, variant, o.Games, 100*o.Score,
				o.Elo, o.EloLo, o.EloHi, o.AsAttacker.Wins, o.AsAttacker.Draws, o.AsAttacker.Losses, o.AsDefender.Wins, o.AsDefender.Draws, o.AsDefender.Losses, median)
		}
	}
}

// gateOutcome says what a gate's decision did to its candidate:
// "promoted", "rejected" or "undecided".
func gateOutcome(d stats.Decision) string {
	switch d {
	case stats.AcceptH1:
		return "promoted"
	case stats.AcceptH0:
		return "rejected"
	}
	return "undecided"
}
