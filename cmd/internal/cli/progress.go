package cli

import (
	"fmt"
	"io"
	"time"

	"taflab/balance"
	"taflab/internal/progress"
)

// BalanceProgress returns a balance.Config.Progress that shows each run of
// a balance study on a progress bar of its own, with its current rates and
// intervals.
func BalanceProgress(stdout io.Writer) func(balance.Progress) {
	var bar *progress.Bar
	return func(p balance.Progress) {
		switch {
		case p.Done:
			bar.Finish()
		case p.Games == 0:
			bar = progress.New(stdout, p.MaxGames, "games", 10*time.Second)
			bar.Update(0, p.Variant+" "+p.Player+": starting")
		default:
			r := p.Rates
			text := fmt.Sprintf("%s %s: defenders %.2f [%.2f, %.2f], attackers %.2f [%.2f, %.2f], draws %.2f [%.2f, %.2f]",
				p.Variant, p.Player, r.Defender.P, r.Defender.Lo, r.Defender.Hi,
				r.Attacker.P, r.Attacker.Lo, r.Attacker.Hi, r.Draw.P, r.Draw.Lo, r.Draw.Hi)
			if p.Engine {
				text += fmt.Sprintf(", forfeits %d", p.Forfeits)
			}
			bar.Update(p.Games, text)
		}
	}
}
