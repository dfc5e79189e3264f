package balance

import (
	"fmt"
	"slices"
	"strings"

	"taflab/match"
	"taflab/mcts"
	"taflab/rules"
)

// RuleEndings are the endings the rules give, in the spec's order.
var RuleEndings = func() []string {
	var out []string
	for r := rules.KingEscaped; r <= rules.NoProgress; r++ {
		out = append(out, r.String())
	}
	return out
}()

// forfeitEndings are the endings of games an engine forfeited.
var forfeitEndings = []string{"forfeit-" + match.ForfeitIllegal, "forfeit-" + match.ForfeitTime, "forfeit-" + match.ForfeitCrash}

// recordEndings are the other endings of recorded games.
var recordEndings = []string{EndTimedOut, EndResigned, EndAgreedDraw, EndPastRulesEnd, EndUnfinished, EndIllegal}

// Markdown returns the report as balance.md has it.
func (rep Report) Markdown() string {
	var b strings.Builder
	pct := fmt.Sprintf("%g%%", 100*rep.Confidence)
	fmt.Fprintf(&b, "# Rule-set balance\n\n")
	if rep.Command != "" {
		fmt.Fprintf(&b, "Made by `%s`.\n\n", rep.Command)
	}
	if rep.Interrupted {
		fmt.Fprintf(&b, "**Interrupted**: the figures are of the games played before the stop.\n\n")
	}
	if len(rep.Runs) > 0 || len(rep.Players) > 0 {
		stopText := "every game played (-width 0)"
		if rep.Width > 0 {
			stopText = fmt.Sprintf("a run stops when every interval is at most %g wide, after at least %d games", rep.Width, rep.MinGames)
		}
		fmt.Fprintf(&b, "Self-play: each player against itself, up to %d games per rule set; %s. "+
			"Full searches with root noise %g and a move-choice temperature from %g to %g (half-life %g plies); seed %d. "+
			"Rates with %s Wilson intervals.\n\n",
			rep.MaxGames, stopText, rep.Search.NoiseFraction, rep.Search.TemperatureStart, rep.Search.TemperatureEnd,
			rep.Search.TemperatureHalfLife, rep.Seed, pct)
		for _, r := range rep.Runs {
			if r.RootSearch == mcts.RootGumbel {
				b.WriteString("Players with Gumbel root search (names ending in -gumbel) have no root noise and no temperature: " +
					"Gumbel-top-k sampling and sequential halving choose their moves.\n\n")
				break
			}
		}
		for _, r := range rep.Runs {
			if r.Engine != "" {
				fmt.Fprintf(&b, "%s is an engine program (%s) playing itself, one instance per side, refereed by the rules; "+
					"it searches as it always does: no root noise or temperature from taflab.\n\n", r.Player, r.Engine)
				break
			}
		}
		said := map[string]bool{} // a rule set's runs at several strengths share its openings
		for _, r := range rep.Runs {
			if r.Openings != "start" && !said[r.Variant+"\x00"+r.Openings] {
				said[r.Variant+"\x00"+r.Openings] = true
				fmt.Fprintf(&b, "The games of %s started from %s, not from its start: their rates are not the rule set's balance.\n\n", r.Variant, r.Openings)
			}
		}
		b.WriteString("| rule set | player | games | stopped | attackers | defenders | draws | plies: mean | median | min | max | CPU hours |\n")
		b.WriteString("| --- | --- | ---: | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
		for _, r := range rep.Runs {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %.1f | %g | %d | %d | %.2f |\n", r.Variant, r.Player, r.Games, r.Stopped,
				r.Attackers, r.Defenders, r.Draws, r.Lengths.Mean, r.Lengths.Median, r.Lengths.Min, r.Lengths.Max, r.CPUSeconds/3600)
		}
		own := false
		for _, r := range rep.Runs {
			own = own || r.Network != "" && strings.HasPrefix(r.Player, "own-")
		}
		if own {
			b.WriteString("\nEach rule set's own network (players own-N):\n\n| rule set | network | evaluator |\n| --- | --- | --- |\n")
			seen := map[string]bool{}
			for _, r := range rep.Runs {
				if strings.HasPrefix(r.Player, "own-") && !seen[r.Variant] {
					seen[r.Variant] = true
					fmt.Fprintf(&b, "| %s | %s | %s |\n", r.Variant, r.Network, r.Evaluator)
				}
			}
		}
		b.WriteString("\n## How the games ended\n\n| rule set | player | " + strings.Join(RuleEndings, " | ") + " |\n")
		b.WriteString("| --- | --- |" + strings.Repeat(" ---: |", len(RuleEndings)) + "\n")
		for _, r := range rep.Runs {
			fmt.Fprintf(&b, "| %s | %s |", r.Variant, r.Player)
			for _, e := range RuleEndings {
				fmt.Fprintf(&b, " %d |", r.Endings[e])
			}
			b.WriteString("\n")
		}
		forfeits := false
		for _, r := range rep.Runs {
			forfeits = forfeits || r.Forfeits > 0
		}
		if forfeits {
			b.WriteString("\n## Engine forfeits\n\nGames an engine lost outside the rules; they count as wins of the other side.\n\n")
			b.WriteString("| rule set | player | " + strings.Join(forfeitEndings, " | ") + " | first |\n")
			b.WriteString("| --- | --- |" + strings.Repeat(" ---: |", len(forfeitEndings)) + " --- |\n")
			for _, r := range rep.Runs {
				if r.Forfeits == 0 {
					continue
				}
				fmt.Fprintf(&b, "| %s | %s |", r.Variant, r.Player)
				for _, e := range forfeitEndings {
					fmt.Fprintf(&b, " %d |", r.Endings[e])
				}
				fmt.Fprintf(&b, " %s |\n", strings.ReplaceAll(r.FirstForfeit, "|", "/"))
			}
		}
		if len(rep.Comparisons) > 0 {
			b.WriteString("\n## Defender rates compared\n\nThe pooled two-proportion z-test for every pair of rule sets at a strength; " +
				"p (Holm) is adjusted over the pairs of that strength.\n\n")
			b.WriteString("| player | A | B | defenders A − B | z | p | p (Holm) |\n| --- | --- | --- | ---: | ---: | ---: | ---: |\n")
			for _, c := range rep.Comparisons {
				fmt.Fprintf(&b, "| %s | %s | %s | %+.3f | %.2f | %s | %s |\n", c.Player, c.A, c.B, c.Diff, c.Z, pValue(c.P), pValue(c.PHolm))
			}
		}
	}
	if len(rep.Records) > 0 {
		b.WriteString("\n## Game records\n\nThe winner is the record's result; Ongoing games are left out of the rates and lengths. " +
			"Endings are the rules' where they end the game on the last recorded move.\n\n")
		b.WriteString("| file | rule set | games | ongoing | attackers | defenders | draws | plies: mean | median | min | max |\n")
		b.WriteString("| --- | --- | ---: | ---: | --- | --- | --- | ---: | ---: | ---: | ---: |\n")
		for _, r := range rep.Records {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %.1f | %g | %d | %d |\n", r.File, r.Variant, r.Games, r.Ongoing,
				r.Attackers, r.Defenders, r.Draws, r.Lengths.Mean, r.Lengths.Median, r.Lengths.Min, r.Lengths.Max)
		}
		var cols []string
		for _, e := range append(slices.Clone(RuleEndings), recordEndings...) {
			for _, r := range rep.Records {
				if r.Endings[e] > 0 {
					cols = append(cols, e)
					break
				}
			}
		}
		b.WriteString("\n| file | " + strings.Join(cols, " | ") + " |\n| --- |" + strings.Repeat(" ---: |", len(cols)) + "\n")
		for _, r := range rep.Records {
			fmt.Fprintf(&b, "| %s |", r.File)
			for _, e := range cols {
				fmt.Fprintf(&b, " %d |", r.Endings[e])
			}
			b.WriteString("\n")
		}
		for _, r := range rep.Records {
			if r.Disagree > 0 {
				fmt.Fprintf(&b, "\n%s: in %d games the rules end the game on the last move with another winner than the record states.\n", r.File, r.Disagree)
			}
			if r.Illegal > 0 {
				fmt.Fprintf(&b, "\n%s: %d games have a move the rules refuse (first: %s); run eval replay on the file.\n", r.File, r.Illegal, r.FirstError)
			}
		}
		if len(rep.Baselines) > 0 {
			b.WriteString("\n### Records against self-play\n\n| file | player | defenders: records − self-play | z | p |\n| --- | --- | ---: | ---: | ---: |\n")
			for _, c := range rep.Baselines {
				fmt.Fprintf(&b, "| %s | %s | %+.3f | %.2f | %s |\n", c.File, c.Player, c.Diff, c.Z, pValue(c.P))
			}
		}
	}
	return b.String()
}

// pValue formats a p-value.
func pValue(p float64) string {
	if p < 0.001 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.3f", p)
}
