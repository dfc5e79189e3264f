package stats

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// pairModel simulates game pairs for a candidate with a known true Elo
// advantage. Each game is independent; the candidate's expected score is
// ExpectedScore(Elo)+SideBias as attacker and ExpectedScore(Elo)−SideBias as
// defender (so its mean per-game score is exactly ExpectedScore(Elo), and
// the pair outcomes are pentanomial with a side effect, as in tafl where
// one side is favoured), and a game is drawn with probability Draw.
type pairModel struct {
	Elo, SideBias, Draw float64
}

// game draws the candidate's score for a game with expected score s.
func (m pairModel) game(rng *rand.Rand, s float64) float64 {
	win := s - m.Draw/2
	u := rng.Float64()
	switch {
	case u < win:
		return 1
	case u < win+m.Draw:
		return 0.5
	}
	return 0
}

// simResult is the outcome of one simulated SPRT.
type simResult struct {
	decision Decision
	pairs    int
}

// runSPRT plays pairs from the model until the test decides or maxPairs
// pairs have been played, deciding after every pair.
func runSPRT(test SPRT, m pairModel, maxPairs int, rng *rand.Rand) simResult {
	s := ExpectedScore(m.Elo)
	var tally PairTally
	for tally.Pairs() < maxPairs {
		if err := tally.Add(m.game(rng, s+m.SideBias), m.game(rng, s-m.SideBias)); err != nil {
			panic(err)
		}
		if d := test.Decide(tally.Counts); d != Continue {
			return simResult{d, tally.Pairs()}
		}
	}
	return simResult{Continue, tally.Pairs()}
}

// simulate runs `runs` independent SPRTs, run i seeded with (seed, i), in
// parallel; the results do not depend on the scheduling.
func simulate(test SPRT, m pairModel, runs, maxPairs int, seed uint64) []simResult {
	out := make([]simResult, runs)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = runSPRT(test, m, maxPairs, rand.New(rand.NewPCG(seed, uint64(i))))
			}
		}()
	}
	for i := 0; i < runs; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// TestSPRTSimulatedErrorRates runs the SPRT many times on simulated matches
// whose true Elo is one of the hypotheses and checks the realized error
// rates: with the true Elo at Elo0 the fraction of runs accepting H1 (false
// passes) must be near Alpha, with it at Elo1 the fraction accepting H0 near
// Beta. "Near" is: not above the nominal rate by more than three binomial
// standard errors of the estimate, and not below a third of it (the SPRT's
// overshoot of the bounds makes the realized rate come out somewhat below
// the nominal one). Every run must decide before the cap.
func TestSPRTSimulatedErrorRates(t *testing.T) {
	runs := 2000
	if raceEnabled {
		runs = 1000
	}
	const maxPairs = 50000
	test := SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}
	tests := []struct {
		name  string
		model pairModel
		want  Decision // the wrong decision whose rate is measured
		rate  float64  // its nominal rate
		seed  uint64
	}{
		{"elo0 no side bias", pairModel{Elo: 0, SideBias: 0, Draw: 0.3}, AcceptH1, test.Alpha, 1},
		{"elo1 no side bias", pairModel{Elo: 30, SideBias: 0, Draw: 0.3}, AcceptH0, test.Beta, 2},
		{"elo0 side bias", pairModel{Elo: 0, SideBias: 0.25, Draw: 0.2}, AcceptH1, test.Alpha, 3},
		{"elo1 side bias", pairModel{Elo: 30, SideBias: 0.25, Draw: 0.2}, AcceptH0, test.Beta, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := simulate(test, tt.model, runs, maxPairs, tt.seed)
			wrong, capped, total := 0, 0, 0
			for _, r := range res {
				if r.decision == tt.want {
					wrong++
				}
				if r.decision == Continue {
					capped++
				}
				total += r.pairs
			}
			rate := float64(wrong) / float64(runs)
			sd := math.Sqrt(tt.rate * (1 - tt.rate) / float64(runs))
			mean := float64(total) / float64(runs)
			t.Logf("%s: wrong decision %d/%d = %.4f (nominal %.2f), mean length %.0f pairs, %d capped", tt.name, wrong, runs, rate, tt.rate, mean, capped)
			if rate > tt.rate+3*sd || rate < tt.rate/3 {
				t.Errorf("wrong-decision rate: got %v, want near %v (within [%v, %v])", rate, tt.rate, tt.rate/3, tt.rate+3*sd)
			}
			if capped != 0 {
				t.Errorf("runs hitting the %d-pair cap: got %v, want 0", maxPairs, capped)
			}
			if !(mean > 0 && mean < maxPairs/10) {
				t.Errorf("mean test length: got %v pairs, want finite and well under the cap", mean)
			}
		})
	}
}

// TestSPRTSimulatedPower checks the test's monotone behaviour away from the
// hypotheses: a candidate well below Elo0 almost never passes, one well
// above Elo1 almost always does, and one midway passes about half the time.
func TestSPRTSimulatedPower(t *testing.T) {
	runs := 400
	if raceEnabled {
		runs = 200
	}
	test := SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}
	tests := []struct {
		name   string
		elo    float64
		lo, hi float64 // accepted range of the pass (H1) rate
		seed   uint64
	}{
		{"far below", -30, 0, 0.01, 11},
		{"midway", 15, 0.35, 0.65, 12},
		{"far above", 60, 0.99, 1, 13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := simulate(test, pairModel{Elo: tt.elo, SideBias: 0.1, Draw: 0.3}, runs, 50000, tt.seed)
			pass := 0
			for _, r := range res {
				if r.decision == AcceptH1 {
					pass++
				}
			}
			rate := float64(pass) / float64(runs)
			t.Logf("true Elo %v: pass rate %.3f", tt.elo, rate)
			if rate < tt.lo || rate > tt.hi {
				t.Errorf("pass rate at true Elo %v: got %v, want in [%v, %v]", tt.elo, rate, tt.lo, tt.hi)
			}
		})
	}
}
