// Package stats holds the statistics taflab uses to judge networks and rule
// sets: binomial proportions with Wilson score intervals and the pooled
// two-proportion z-test (per-rule-set attacker, defender and draw rates), the
// pentanomial sequential probability ratio test over game pairs that chess
// engine testing (Stockfish's fishtest) uses to decide between two networks,
// and a Bradley-Terry (Elo) fit with a side-advantage term over many
// recorded matches.
//
// It imports nothing of this module; distributions and linear algebra come
// from gonum.
//
// # Conventions
//
// Errors are prefixed "stats: ". Functions panic only on documented
// programmer errors (a negative count, a successes count above its total, a
// confidence outside (0, 1), an SPRT whose Validate fails); configuration
// values have a Validate method to call first.
//
// Elo is logistic Elo throughout: a player Δ Elo stronger scores
// 1/(1+10^(-Δ/400)) per game on average (ExpectedScore).
//
// # Sequential testing
//
// A candidate network plays the same opening twice with sides swapped; the
// pair's score for the candidate (0, ½, 1, 1½ or 2) is tallied into five
// counts (a pentanomial). After every pair:
//
//	test := stats.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}
//	if err := test.Validate(); err != nil {
//		return err
//	}
//	var tally stats.PairTally
//	for tally.Pairs() < maxPairs {
//		asAttacker, asDefender := playPair() // candidate's score in each game
//		if err := tally.Add(asAttacker, asDefender); err != nil {
//			return err
//		}
//		if test.Decide(tally.Counts) != stats.Continue {
//			break
//		}
//	}
//	rep := test.Report(tally)
//	fmt.Printf("LLR %.2f (%.2f,%.2f) %v, Elo %.1f [%.1f, %.1f]\n",
//		rep.LLR, rep.Lower, rep.Upper, rep.Decision, rep.Elo, rep.EloLo, rep.EloHi)
//
// # Ratings
//
//	games := []stats.Result{{Attacker: "net-3", Defender: "net-1", Score: 1}, ...}
//	r, err := stats.FitRatings(games, "net-1") // net-1 is fixed at 0 Elo
//	for _, p := range r.Players {
//		fmt.Printf("%s %.0f ± %.0f\n", p.Name, p.Elo, 1.96*p.SE)
//	}
//	fmt.Printf("attackers' advantage %.0f ± %.0f Elo\n", r.SideAdvantage, 1.96*r.SideAdvantageSE)
//
// # Rule-set balance
//
//	stop := stats.PrecisionStop{Width: 0.05, Confidence: 0.95}
//	for !stop.Done(outcomes) { ... play more games of each rule set ... }
//	for _, c := range stats.CompareDefenderRates(outcomes) {
//		fmt.Println(c.A, c.B, c.Diff, c.P, c.PHolm)
//	}
package stats
