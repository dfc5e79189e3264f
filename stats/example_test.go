package stats_test

import (
	"fmt"

	"taflab/stats"
)

// An SPRT decides after each game pair; here the final counts of a
// published fishtest run (Stockfish PR #3273, STC) are checked at once.
func ExampleSPRT() {
	test := stats.SPRT{Elo0: -0.25, Elo1: 1.25, Alpha: 0.05, Beta: 0.05}
	if err := test.Validate(); err != nil {
		panic(err)
	}
	counts := [5]int{292, 5905, 28939, 6129, 299} // Ptnml(0-2)
	lower, upper := test.Bounds()
	fmt.Printf("LLR: %.2f (%.2f,%.2f) %v\n", test.LLR(counts), lower, upper, test.Decide(counts))
	elo, lo, hi := stats.EloEstimate(counts)
	fmt.Printf("Elo: %.2f [%.2f, %.2f]\n", elo, lo, hi)
	// Output:
	// LLR: 2.95 (-2.94,2.94) H1
	// Elo: 0.99 [0.01, 1.98]
}

// A tally records each pair from the candidate's side and splits the
// results by the side it played.
func ExamplePairTally() {
	var tally stats.PairTally
	_ = tally.Add(1, 0.5) // won as attacker, drew as defender
	_ = tally.Add(0, 0.5)
	fmt.Println(tally.Counts, tally.AsAttacker, tally.AsDefender)
	// Output:
	// [0 1 0 1 0] {1 0 1} {0 2 0}
}

func ExampleWilson() {
	lo, hi := stats.Wilson(81, 263, 0.95)
	fmt.Printf("%.4f %.4f\n", lo, hi)
	// Output:
	// 0.2553 0.3662
}

func ExampleTwoProportion() {
	z, p := stats.TwoProportion(168, 300, 96, 200)
	fmt.Printf("z=%.3f p=%.4f\n", z, p)
	// Output:
	// z=1.755 p=0.0792
}

// Two networks that each score 60% as attacker against the other are equal;
// the attackers' advantage is the Elo of a 60% score.
func ExampleFitRatings() {
	var games []stats.Result
	for i := 0; i < 100; i++ {
		s := 0.0
		if i < 60 {
			s = 1
		}
		games = append(games, stats.Result{Attacker: "net-1", Defender: "net-2", Score: s})
		games = append(games, stats.Result{Attacker: "net-2", Defender: "net-1", Score: s})
	}
	r, err := stats.FitRatings(games, "net-1")
	if err != nil {
		panic(err)
	}
	for _, p := range r.Players {
		fmt.Printf("%s %.1f ± %.1f\n", p.Name, p.Elo, p.SE)
	}
	fmt.Printf("side advantage %.1f ± %.1f\n", r.SideAdvantage, r.SideAdvantageSE)
	// Output:
	// net-1 0.0 ± 0.0
	// net-2 0.0 ± 25.1
	// side advantage 70.4 ± 25.1
}

func ExamplePrecisionStop() {
	stop := stats.PrecisionStop{Width: 0.1, Confidence: 0.95}
	sets := []stats.Outcomes{
		{AttackerWins: 150, DefenderWins: 230, Draws: 20},
		{AttackerWins: 40, DefenderWins: 50, Draws: 10},
	}
	fmt.Println(stop.Done(sets))
	for _, c := range stats.CompareDefenderRates(sets) {
		fmt.Printf("%d vs %d: diff %.3f p=%.3f\n", c.A, c.B, c.Diff, c.P)
	}
	// Output:
	// false
	// 0 vs 1: diff 0.075 p=0.177
}
