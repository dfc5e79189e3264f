package adapt

import (
	"fmt"
	"path/filepath"
	"strings"

	"taflab/balance"
	"taflab/internal/fileio"
	"taflab/loop"
	"taflab/net"
)

// Report is what an adaptation came to; its JSON is ReportJSON.
type Report struct {
	Dir  string `json:"-"` // the run's folder
	Plan Plan   `json:"plan"`
	// Generations are the training loop's, as its summary has them.
	Generations []loop.GenSummary `json:"generations"`
	// Network is the adapted network (NetworkFile), NetworkHash its hash,
	// and Best the generation it is ("gen-000": no candidate beat the
	// network the run started from).
	Network     string `json:"network"`
	NetworkHash string `json:"network_hash"`
	Best        string `json:"best"`
	// Balance is the study's report; nil without one.
	Balance *balance.Report `json:"balance,omitempty"`
	// The processor hours the run took: the loop's every stage (its
	// rating games too), the balance study's, and both.
	LoopCPUHours    float64 `json:"loop_cpu_hours"`
	BalanceCPUHours float64 `json:"balance_cpu_hours"`
	CPUHours        float64 `json:"cpu_hours"`
}

// fill reads the adapted network and adds up the processor time.
func (r *Report) fill(dir string) {
	r.Network = filepath.Join(dir, NetworkFile)
	if n, _, err := net.Load(r.Network); err == nil {
		r.NetworkHash = n.Hash()
	}
	if p, err := loop.ReadBestPointer(filepath.Join(dir, LoopDir, loop.BestFile)); err == nil {
		for _, part := range strings.Split(filepath.ToSlash(p.Network), "/") {
			if _, ok := loop.ParseGenName(part); ok {
				r.Best = part
			}
		}
	}
	r.LoopCPUHours = 0
	for _, g := range r.Generations {
		for _, s := range g.CPUSeconds {
			r.LoopCPUHours += s / 3600
		}
	}
	r.BalanceCPUHours = 0
	if r.Balance != nil {
		for _, run := range r.Balance.Runs {
			r.BalanceCPUHours += run.CPUSeconds / 3600
		}
	}
	r.CPUHours = r.LoopCPUHours + r.BalanceCPUHours
}

// write writes the report into dir: ReportJSON and ReportFile.
func (r *Report) write(dir string) error {
	r.fill(dir)
	if err := fileio.WriteJSON(filepath.Join(dir, ReportJSON), r); err != nil {
		return fmt.Errorf("adapt: %w", err)
	}
	if err := fileio.WriteFile(filepath.Join(dir, ReportFile), []byte(r.Markdown())); err != nil {
		return fmt.Errorf("adapt: %w", err)
	}
	return nil
}

// Markdown returns the report as ReportFile has it.
func (r Report) Markdown() string {
	var b strings.Builder
	p := r.Plan
	fmt.Fprintf(&b, "# %s: a network adapted by self-play, and its balance\n\n", p.Variant)
	fmt.Fprintf(&b, "Rule set %s (%s)", p.Variant, p.VariantArg)
	if p.Nearest != "" {
		diff := "no key"
		if len(p.Differences) > 0 {
			diff = strings.Join(p.Differences, ", ")
		}
		fmt.Fprintf(&b, "; the nearest shipped rule set is %s, which it differs from in %s", p.Nearest, diff)
	}
	fmt.Fprintf(&b, ". Started from %s (net-%s), shown %s's input planes.\n\n", p.From, p.FromHash, p.Variant)
	r.writeGenerations(&b)
	if r.Balance != nil {
		r.writeBalance(&b)
	}
	fmt.Fprintf(&b, "\nProcessor time: %.2f CPU hours (adaptation %.2f, balance %.2f). Carry the run on, or to more generations, with "+
		"`go run ./cmd/train adapt -run %s` (`-generations N`).\n", r.CPUHours, r.LoopCPUHours, r.BalanceCPUHours, r.Dir)
	return b.String()
}

// writeGenerations writes the table of the loop's generations.
func (r Report) writeGenerations(b *strings.Builder) {
	promoted := 0
	for _, g := range r.Generations {
		if g.Gate == "promoted" {
			promoted++
		}
	}
	fmt.Fprintf(b, "## Adaptation: %d generations, %d promoted\n\n", len(r.Generations), promoted)
	b.WriteString("| generation | self-play games | from the start: attackers / defenders / draws | gate (Elo, LLR) | against the start network (Elo, 95%) | CPU hours |\n")
	b.WriteString("| --- | ---: | --- | --- | --- | ---: |\n")
	for _, g := range r.Generations {
		cpu := 0.0
		for _, s := range g.CPUSeconds {
			cpu += s / 3600
		}
		start := fmt.Sprintf("%d / %d / %d", g.Start.AttackerWins, g.Start.DefenderWins, g.Start.Draws)
		vsStart := "-"
		if g.BaselineGames > 0 {
			vsStart = fmt.Sprintf("%+.0f [%+.0f, %+.0f], %d games", g.BaselineElo, g.BaselineLo, g.BaselineHi, g.BaselineGames)
		}
		fmt.Fprintf(b, "| %d | %d | %s | %s (%+.0f, %.2f) | %s | %.2f |\n", g.Generation, g.Games, start, orNone(g.Gate), g.GateElo, g.GateLLR, vsStart, cpu)
	}
	best := r.Best
	if best == "gen-000" {
		best = "gen-000: no candidate beat the start network"
	}
	fmt.Fprintf(b, "\nThe adapted network: %s (net-%s, %s).\n", r.Network, r.NetworkHash, best)
}

// writeBalance writes the balance study's runs and tests.
func (r Report) writeBalance(b *strings.Builder) {
	rep := r.Balance
	fmt.Fprintf(b, "\n## Balance at strength\n\nEach rule set played by its own network against itself (own-N: N playouts a move), from its start, "+
		"with the self-play noise and temperature; %g%% Wilson intervals. The whole study: %s.\n\n", 100*rep.Confidence, filepath.Join(r.Dir, BalanceDir, balance.MarkdownFile))
	if rep.Interrupted {
		b.WriteString("**Interrupted**: the figures are of the games played before the stop.\n\n")
	}
	b.WriteString("| rule set | player | games | attackers | defenders | draws | plies: mean | median |\n| --- | --- | ---: | --- | --- | --- | ---: | ---: |\n")
	for _, run := range rep.Runs {
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %.1f | %g |\n", run.Variant, run.Player, run.Games, run.Attackers, run.Defenders, run.Draws,
			run.Lengths.Mean, run.Lengths.Median)
	}
	if len(rep.Comparisons) > 0 {
		b.WriteString("\n| player | A | B | defenders A − B | p |\n| --- | --- | --- | ---: | ---: |\n")
		for _, c := range rep.Comparisons {
			fmt.Fprintf(b, "| %s | %s | %s | %+.3f | %.3g |\n", c.Player, c.A, c.B, c.Diff, c.P)
		}
	}
}
