package analysis

import (
	"bytes"
	"fmt"
	"strings"
)

// Report is a games file's review: the settings, each game's review and
// the summary. `eval review` writes it as review.json and, by Markdown, as
// review.md.
type Report struct {
	File      string     `json:"file"`
	Evaluator string     `json:"evaluator"`
	Settings  Config     `json:"settings"`
	TreeReuse bool       `json:"tree_reuse"`
	Games     []Reviewed `json:"games"`
	Summary   Summary    `json:"summary"`
}

// NewReport sums up reviewed games of a file into a report.
func NewReport(file, evaluator string, cfg *Config, games []Reviewed) *Report {
	return &Report{File: file, Evaluator: evaluator, Settings: *cfg, TreeReuse: cfg.Search.TreeReuse, Games: games, Summary: Summarize(games)}
}

// Markdown writes the report for people: the settings, each side's and
// each player's figures, where the games turned, and each game's graph
// (chart(i) names game i's PNG, "" for none) and its labelled moves.
func (r *Report) Markdown(chart func(index int) string) []byte {
	var b bytes.Buffer
	cfg := r.Settings
	reuse := "with tree reuse"
	if !r.TreeReuse {
		reuse = "without tree reuse"
	}
	fmt.Fprintf(&b, "# Review of %s\n\n", r.File)
	fmt.Fprintf(&b, "%d games reviewed (%d could not be) by %s at %d playouts a position, %s (seed %d). "+
		"A move's loss is the win chance (points from 0 to 100, the expected score: win + draw/2) its mover had before it less what he had after; "+
		"%g, %g and %g points make an inaccuracy, a mistake and a blunder (lichess's thresholds), and accuracy is lichess's formula.\n\n",
		r.Summary.Games, r.Summary.Failed, r.Evaluator, cfg.Playouts, reuse, cfg.Seed, cfg.Thresholds.Inaccuracy, cfg.Thresholds.Mistake, cfg.Thresholds.Blunder)
	b.WriteString("## Sides\n\n| side | moves | inaccuracies | mistakes | blunders | mean loss | accuracy |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	sideRow(&b, "attackers", r.Summary.Attackers)
	sideRow(&b, "defenders", r.Summary.Defenders)
	if len(r.Summary.Players) > 0 {
		b.WriteString("\n## Players\n\n| player | games | moves | inaccuracies | mistakes | blunders | mean loss | accuracy | as attackers | as defenders |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, p := range r.Summary.Players {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %.2f | %s | %s | %s |\n", cell(p.Name), p.Games, p.All.Moves, p.All.Inaccuracies, p.All.Mistakes, p.All.Blunders,
				p.All.MeanLoss, percent(p.All.Accuracy), percent(p.Attackers.Accuracy), percent(p.Defenders.Accuracy))
		}
	}
	if len(r.Summary.Turns) > 0 {
		b.WriteString("\n## Where the games turned\n\nThe turn is the move after which the winner's win chance stayed above 50 to the end; the decisive move, the loser's costliest.\n\n")
		b.WriteString("| game | winner | turned at | decisive move |\n| --- | --- | --- | --- |\n")
		for _, t := range r.Summary.Turns {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.Label, t.Winner, momentText(t.Turn, "the winner led throughout"), momentText(t.Decisive, "none"))
		}
	}
	b.WriteString("\n## Games\n")
	for _, g := range r.Games {
		fmt.Fprintf(&b, "\n### %s", g.Label)
		if g.Attackers != "" || g.Defenders != "" {
			fmt.Fprintf(&b, ": %s (attackers) against %s (defenders)", cell(g.Attackers), cell(g.Defenders))
		}
		b.WriteString("\n\n")
		if g.Review == nil {
			fmt.Fprintf(&b, "Not reviewed: %s\n", g.Error)
			continue
		}
		rev := g.Review
		end := "the record stops before the end"
		if rev.Reason != "" {
			end = rev.Winner + " won (" + rev.Reason + ")"
			if rev.Winner == "draw" {
				end = "a draw (" + rev.Reason + ")"
			}
		}
		fmt.Fprintf(&b, "%d plies, %s. Accuracy: attackers %s, defenders %s.\n\n", len(rev.Plies), end, percent(rev.Attackers.Accuracy), percent(rev.Defenders.Accuracy))
		if chart != nil {
			if name := chart(g.Index); name != "" {
				fmt.Fprintf(&b, "![the attackers' win chance, ply by ply](%s)\n\n", name)
			}
		}
		var labelled []Ply
		for _, p := range rev.Plies {
			if p.Label != Good {
				labelled = append(labelled, p)
			}
		}
		if len(labelled) == 0 {
			b.WriteString("No move lost enough to be labelled.\n")
			continue
		}
		b.WriteString("| ply | mover | move | win chance | loss | label | best | line |\n| ---: | --- | --- | --- | ---: | --- | --- | --- |\n")
		for _, p := range labelled {
			fmt.Fprintf(&b, "| %d | %s | %s | %.1f → %.1f | %.1f | %s | %s | %s |\n", p.Ply, p.Mover, p.Move, p.WinBefore, p.WinAfter, p.Loss, p.Label, p.Best, strings.Join(p.PV, " "))
		}
	}
	return b.Bytes()
}

func sideRow(b *bytes.Buffer, name string, s Side) {
	fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %.2f | %s |\n", name, s.Moves, s.Inaccuracies, s.Mistakes, s.Blunders, s.MeanLoss, percent(s.Accuracy))
}

func percent(a *float64) string {
	if a == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *a)
}

func momentText(m *Moment, none string) string {
	if m == nil || m.Ply == 0 {
		return none
	}
	s := fmt.Sprintf("ply %d, %s %s (lost %.1f", m.Ply, m.Mover, m.Move, m.Loss)
	if m.Label != Good {
		s += ", " + string(m.Label)
	}
	return s + ")"
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// Comment is a ply's comment for a game record (an OpenTafl record's):
// its label, what it lost and the better move with its line; "" for a
// move without a label. It holds no '|', '[' or ']'.
func (p *Ply) Comment() string {
	if p.Label == Good {
		return ""
	}
	return fmt.Sprintf("%s: lost %.1f points of win chance (%.1f%% to %.1f%%); best %s (line: %s)",
		p.Label, p.Loss, p.WinBefore, p.WinAfter, p.Best, strings.Join(p.PV, " "))
}
