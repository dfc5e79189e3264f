package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// fishtest is the SPRT fishtest runs by default: α = β = 0.05.
func fishtest(elo0, elo1 float64) SPRT {
	return SPRT{Elo0: elo0, Elo1: elo1, Alpha: 0.05, Beta: 0.05}
}

func TestSPRTValidate(t *testing.T) {
	tests := []struct {
		name string
		s    SPRT
		want string // substring of the error; "" for valid
	}{
		{"fishtest STC", fishtest(0, 2), ""},
		{"negative bounds", fishtest(-3, 1), ""},
		{"elo0 = elo1", fishtest(1, 1), "elo0 < elo1"},
		{"reversed", fishtest(5, 0), "elo0 < elo1"},
		{"alpha 0", SPRT{0, 5, 0, 0.05}, "alpha"},
		{"alpha 0.5", SPRT{0, 5, 0.5, 0.05}, "alpha"},
		{"beta negative", SPRT{0, 5, 0.05, -0.1}, "beta"},
		{"beta NaN", SPRT{0, 5, 0.05, math.NaN()}, "beta"},
		{"elo NaN", SPRT{math.NaN(), 5, 0.05, 0.05}, "elo0"},
		{"elo infinite", SPRT{0, math.Inf(1), 0.05, 0.05}, "elo1"},
		{"elo too large", SPRT{0, 5000, 0.05, 0.05}, "elo1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if tt.want == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "stats: ") {
				t.Errorf("Validate() = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestSPRTBounds(t *testing.T) {
	tests := []struct {
		alpha, beta       float64
		wantLower, wantHi float64
	}{
		// fishtest's "(-2.94,2.94)".
		{0.05, 0.05, -2.944438979166440, 2.944438979166440},
		{0.01, 0.1, math.Log(0.1 / 0.99), math.Log(0.9 / 0.01)},
	}
	for _, tt := range tests {
		lo, hi := SPRT{0, 5, tt.alpha, tt.beta}.Bounds()
		if math.Abs(lo-tt.wantLower) > 1e-12 || math.Abs(hi-tt.wantHi) > 1e-12 {
			t.Errorf("Bounds(α=%v, β=%v): got %v, %v, want %v, %v", tt.alpha, tt.beta, lo, hi, tt.wantLower, tt.wantHi)
		}
	}
}

func TestSPRTPanicsWhenInvalid(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("LLR on an invalid SPRT: got no panic, want one")
		}
	}()
	SPRT{Elo0: 5, Elo1: 0, Alpha: 0.05, Beta: 0.05}.LLR([5]int{1, 2, 3, 4, 5})
}

// TestLLRPublished checks the LLR against fishtest runs that quote their
// result with logistic Elo bounds ({…}; fishtest used logistic bounds from
// 2020 until it moved to normalized Elo, <…>, in 2021). The published LLR
// is rounded to two decimals. Source: Stockfish commit "LMR for captures at
// allNodes" (closes official-stockfish/Stockfish#3273), runs
// tests.stockfishchess.org/tests/view/5fe50b9d3932f79192d3973c (STC) and
// .../5fe552e43932f79192d39744 (LTC; it passed at 2.92 because fishtest
// lowers the bound by its overshoot estimate).
func TestLLRPublished(t *testing.T) {
	tests := []struct {
		name       string
		elo0, elo1 float64
		counts     [5]int
		want       float64
	}{
		{"STC {-0.25,1.25}", -0.25, 1.25, [5]int{292, 5905, 28939, 6129, 299}, 2.95},
		{"LTC {0.25,1.25}", 0.25, 1.25, [5]int{5, 418, 6043, 506, 12}, 2.92},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fishtest(tt.elo0, tt.elo1).LLR(tt.counts)
			if math.Abs(got-tt.want) > 0.005 {
				t.Errorf("LLR(%v): got %v, want %v (to 2 decimals)", tt.counts, got, tt.want)
			}
		})
	}
}

// TestLLRFishtestReference checks LLR and LLRApprox to full precision
// against fishtest's own functions, LLRcalc.LLR_logistic and LLR_alt2
// (official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py, evaluated
// with scipy 1.10's brentq). The first case is the example in fishtest's
// stat_util.py self-test; its value 2.1310678117940807 is also quoted by
// independent reimplementations. The rest cover zero cells (regularized),
// lopsided counts and an empty tally.
func TestLLRFishtestReference(t *testing.T) {
	tests := []struct {
		counts     [5]int
		elo0, elo1 float64
		llr, alt2  float64
	}{
		{[5]int{10789, 19328, 33806, 19402, 10543}, -3, 1, 2.1310678117940807, 2.1312448707048293},
		{[5]int{292, 5905, 28939, 6129, 299}, -0.25, 1.25, 2.9503907839145276, 2.950819794417669},
		{[5]int{5, 418, 6043, 506, 12}, 0.25, 1.25, 2.9231251952971857, 2.916163178371041},
		{[5]int{10, 20, 40, 20, 10}, 0, 5, -0.03450685095168987, -0.03451280053328367},
		{[5]int{2, 8, 20, 30, 40}, 0, 20, 5.075977753709384, 9.648003916397377},
		{[5]int{0, 0, 3, 5, 12}, -5, 15, 1.134691718982101, 5.964547527499926},
		{[5]int{30, 20, 10, 4, 1}, 0, 10, -1.7981986490648514, -4.451585881971842},
		{[5]int{120, 40, 10, 0, 0}, 0, 10, -4.963391403752239, -47.3657113286241},
		{[5]int{0, 0, 0, 0, 0}, 0, 5, -1.0354483502281707e-06, -1.0353840159985104e-06},
		{[5]int{0, 0, 1, 0, 0}, 0, 5, -0.011281921403603191, -0.04174734617082887},
		{[5]int{39, 2226, 31451, 2412, 40}, 0.2, 0.9, 2.1625425800483593, 2.162404824476748},
	}
	for _, tt := range tests {
		s := fishtest(tt.elo0, tt.elo1)
		if got := s.LLR(tt.counts); math.Abs(got-tt.llr) > 1e-9*math.Max(1, math.Abs(tt.llr)) {
			t.Errorf("LLR(%v, {%v,%v}): got %.15g, want %.15g", tt.counts, tt.elo0, tt.elo1, got, tt.llr)
		}
		if got := s.LLRApprox(tt.counts); math.Abs(got-tt.alt2) > 1e-9*math.Max(1, math.Abs(tt.alt2)) {
			t.Errorf("LLRApprox(%v, {%v,%v}): got %.15g, want %.15g", tt.counts, tt.elo0, tt.elo1, got, tt.alt2)
		}
	}
}

// TestLLRMatchesNormalApproximation checks the exact LLR against the normal
// approximation where it should hold: narrow bounds and a large, central
// sample. They agree to within 0.5%.
func TestLLRMatchesNormalApproximation(t *testing.T) {
	tests := []struct {
		counts     [5]int
		elo0, elo1 float64
	}{
		{[5]int{10789, 19328, 33806, 19402, 10543}, -3, 1},
		{[5]int{292, 5905, 28939, 6129, 299}, -0.25, 1.25},
		{[5]int{900, 4000, 9000, 4300, 1000}, 0, 5},
		{[5]int{1000, 4300, 9000, 4000, 900}, 0, 5},
	}
	for _, tt := range tests {
		s := fishtest(tt.elo0, tt.elo1)
		got, want := s.LLR(tt.counts), s.LLRApprox(tt.counts)
		if math.Abs(got-want) > 0.005*math.Abs(want) {
			t.Errorf("LLR(%v): got %v, want %v (the normal approximation) within 0.5%%", tt.counts, got, want)
		}
	}
}

// TestLLRSymmetry: reversing the counts (the opponent's view) and reflecting
// the bounds negates the LLR.
func TestLLRSymmetry(t *testing.T) {
	for _, c := range [][5]int{{1, 2, 3, 4, 5}, {30, 20, 10, 4, 1}, {0, 7, 0, 3, 0}} {
		rev := [5]int{c[4], c[3], c[2], c[1], c[0]}
		got := fishtest(-5, 2).LLR(rev)
		want := -fishtest(-2, 5).LLR(c)
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("LLR(reversed %v, {-5,2}): got %v, want %v", c, got, want)
		}
	}
}

// TestLLRNormalizedPublished checks LLRNormalized against Stockfish commits
// quoting fishtest runs with normalized-Elo bounds (<…>), LLR rounded to two
// decimals, and (last case) fishtest's own stat_util.py self-test example,
// evaluated with fishtest's LLRcalc.LLR_normalized to full precision.
// Sources: "Negative extension on cutNodes based on depth"
// (tests 64997934dc7002ce609d01e3, 649a1c5ddc7002ce609d0bff), the SFNNv4
// net commit (625cf944ff677a888877cd90, 625d3c32ff677a888877d7ca), "Do less
// LMR extensions" (60c3f293457376eb8bcaac8d, 60c46ea5457376eb8bcaacc7) and
// "evaluation grain of 16" (668907fb7edfb6f233f999f8,
// 6689105659cb3228a47598bf), all on tests.stockfishchess.org.
func TestLLRNormalizedPublished(t *testing.T) {
	tests := []struct {
		counts       [5]int
		nelo0, nelo1 float64
		published    float64 // rounded to 2 decimals
		reference    float64 // fishtest's LLR_normalized, full precision
	}{
		{[5]int{310, 13250, 33553, 13686, 305}, 0, 2, 2.98, 2.975168809863075},
		{[5]int{54, 13691, 44552, 14197, 52}, 0.5, 2.5, 2.94, 2.9360069263643735},
		{[5]int{105, 2453, 6001, 2695, 110}, 0, 2.5, 2.94, 2.9377196387643267},
		{[5]int{30, 3524, 10455, 3791, 32}, 0.5, 3, 2.94, 2.942064928531532},
		{[5]int{315, 7708, 42703, 7926, 340}, -0.5, 2.5, 2.95, 2.95115892525664},
		{[5]int{2, 271, 4998, 364, 5}, 0.5, 3.5, 2.97, 2.9710434959102447},
		{[5]int{499, 26017, 56882, 26568, 514}, 0, 2, 2.95, 2.945109499867529},
		{[5]int{14, 5233, 13654, 5562, 20}, 0.5, 2.5, 2.94, 2.937940150967951},
		{[5]int{39, 2226, 31451, 2412, 40}, 0.764, 3.439, math.NaN(), 2.162940869584568},
	}
	for _, tt := range tests {
		got := LLRNormalized(tt.nelo0, tt.nelo1, tt.counts)
		if !math.IsNaN(tt.published) && math.Abs(got-tt.published) > 0.005 {
			t.Errorf("LLRNormalized(%v, <%v,%v>): got %v, want %v (published, 2 decimals)", tt.counts, tt.nelo0, tt.nelo1, got, tt.published)
		}
		if math.Abs(got-tt.reference) > 1e-8 {
			t.Errorf("LLRNormalized(%v, <%v,%v>): got %.15g, want %.15g (fishtest)", tt.counts, tt.nelo0, tt.nelo1, got, tt.reference)
		}
	}
}

func TestDecide(t *testing.T) {
	s := fishtest(-0.25, 1.25)
	tests := []struct {
		name   string
		counts [5]int
		want   Decision
	}{
		{"published pass", [5]int{292, 5905, 28939, 6129, 299}, AcceptH1},
		{"reversed fails", [5]int{299, 6129, 28939, 5905, 292}, AcceptH0},
		{"too early", [5]int{3, 59, 289, 61, 3}, Continue},
		{"nothing yet", [5]int{}, Continue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.Decide(tt.counts); got != tt.want {
				t.Errorf("Decide(%v): got %v, want %v", tt.counts, got, tt.want)
			}
		})
	}
	if got, want := Decision(7).String(), "Decision(7)"; got != want {
		t.Errorf("Decision(7).String(): got %v, want %v", got, want)
	}
}

// fishtestGetElo is the estimate EloEstimate and LOS used to return,
// fishtest's stat_util.get_elo on pentanomial counts: the per-game mean
// score x̄ of the counts regularized as in SPRT.LLR, with standard error
// σ = sqrt(Var(pair score)/2 / games), elo95 the half-width of
// Elo(x̄ ± 1.96σ) and LOS Φ((x̄−½)/σ). It is the reference that EloEstimate
// must converge to on many pairs, and the estimator that its coverage test
// shows failing on few.
func fishtestGetElo(counts [5]int) (elo, elo95, los float64) {
	n, p := empirical(counts)
	mean, variance := moments(pairPoints, p) // pair points are pair score / 2
	se := math.Sqrt(variance / n)            // = sqrt(per-game variance / games)
	elo = clampedElo(mean)
	elo95 = (clampedElo(mean+eloZ*se) - clampedElo(mean-eloZ*se)) / 2
	return elo, elo95, distuv.UnitNormal.CDF((mean - 0.5) / se)
}

// TestFishtestGetElo checks the reference fishtestGetElo against fishtest's
// stat_util.get_elo (Elo, its ± half-width, LOS), evaluated with scipy.
// These values pinned EloEstimate and LOS until they moved to the
// regularized likelihood-ratio interval; TestEloEstimateConverges compares
// the two on many pairs.
func TestFishtestGetElo(t *testing.T) {
	tests := []struct {
		counts          [5]int
		elo, elo95, los float64
	}{
		{[5]int{10789, 19328, 33806, 19402, 10543}, -0.7735773359165423, 1.2775798957280218, 0.1176588580327751},
		{[5]int{292, 5905, 28939, 6129, 299}, 0.9947297576444919, 0.9829021976372551, 0.9763478204715047},
		{[5]int{5, 418, 6043, 506, 12}, 2.537160628797111, 1.534417865536036, 0.9994043137392014},
		{[5]int{0, 0, 3, 5, 12}, 318.87456733558486, 134.03649789616068, 1},
		{[5]int{1, 60, 500, 1200, 600}, 188.59937999344191, 7.017942813464671, 1},
		{[5]int{0, 0, 0, 0, 7}, 1199.8261952903777, 220.18524304499022, 1},
	}
	for _, tt := range tests {
		elo, elo95, los := fishtestGetElo(tt.counts)
		if math.Abs(elo-tt.elo) > 1e-9 || math.Abs(elo95-tt.elo95) > 1e-9 || math.Abs(los-tt.los) > 1e-9 {
			t.Errorf("fishtestGetElo(%v): got %v ± %v LOS %v, want %v ± %v LOS %v", tt.counts, elo, elo95, los, tt.elo, tt.elo95, tt.los)
		}
	}
}

// TestEloEstimate pins EloEstimate and LOS on small samples, where the
// regularized likelihood-ratio interval differs from fishtest's get_elo
// (TestFishtestGetElo); the values agree to 1e-11 with an independent
// evaluation in mpmath at 40 digits (profile likelihood by its dual,
// max over λ of Σ p_j log(1 + λ(a_j − s)), roots by bisection).
func TestEloEstimate(t *testing.T) {
	tests := []struct {
		name             string
		counts           [5]int
		elo, lo, hi, los float64
	}{
		// get_elo: 190.6 [176.7, 204.4], LOS 100%.
		{"four 1½–½ pairs", [5]int{0, 0, 0, 4, 0}, 147.190714117838, -58.2234174728666, 279.081277638871, 0.932823639935086},
		// get_elo: 1199.8 [979.6, 1420.0], centred on the clamp.
		{"seven sweeps", [5]int{0, 0, 0, 0, 7}, 470.436503622272, 127.678656574721, 1077.71304748484, 0.998037934262742},
		{"one sweep", [5]int{0, 0, 0, 0, 1}, 190.848501887865, -250.591561788959, 805.247594216421, 0.805210166987423},
		// get_elo: 0 [-1199.8, 1199.8].
		{"no pairs", [5]int{}, 0, -621.220245570415, 621.220245570415, 0.5},
		// get_elo: 0 [-8.5, 8.5].
		{"four 1–1 splits", [5]int{0, 0, 4, 0, 0}, 0, -149.533120271191, 149.533120271191, 0.5},
		// get_elo: 318.9 ± 134.0.
		{"twenty pairs", [5]int{0, 0, 3, 5, 12}, 294.925998564895, 172.979868463127, 425.459876043666, 0.99999343996203},
		{"a hundred pairs", [5]int{2, 8, 20, 30, 40}, 184.035166168353, 137.52033960305, 231.798045785318, 0.999999999999906},
		// At a score of ½ the secular equation's Newton iteration from 0
		// lands beside a pole, which a solver stopping on a tiny step
		// mistakes for the root: LOS came out NaN.
		{"ten pairs, LOS solver near a pole", [5]int{0, 0, 5, 2, 3}, 132.39728761657, 13.251067375806, 263.874602196889, 0.983878650459915},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elo, lo, hi := EloEstimate(tt.counts)
			if math.Abs(elo-tt.elo) > 1e-6 || math.Abs(lo-tt.lo) > 1e-6 || math.Abs(hi-tt.hi) > 1e-6 {
				t.Errorf("EloEstimate(%v): got %v [%v, %v], want %v [%v, %v]", tt.counts, elo, lo, hi, tt.elo, tt.lo, tt.hi)
			}
			if got := LOS(tt.counts); math.Abs(got-tt.los) > 1e-9 {
				t.Errorf("LOS(%v): got %v, want %v", tt.counts, got, tt.los)
			}
		})
	}
}

// TestEloEstimateFewPairs checks the properties the interval must have on
// few pairs, whatever its exact values.
func TestEloEstimateFewPairs(t *testing.T) {
	// Four identical 1½–½ pairs. An outcome that makes up 53% of pairs is
	// still missing from four of them one time in 20 (0.47⁴ ≈ 0.05), so
	// the data fit pairs that are only 47% 1½–½ and otherwise 1–1 splits
	// (mean score 0.62, 83 Elo) or sweeps (0.88, 350 Elo). An interval
	// narrower than 200 Elo claims more than eight games hold; it must also
	// keep the observed score's own Elo, 190.6.
	t.Run("identical pairs stay wide", func(t *testing.T) {
		counts := [5]int{0, 0, 0, 4, 0}
		_, lo, hi := EloEstimate(counts)
		observed := EloFromScore(0.75)
		if hi-lo < 200 || !(lo < observed && observed < hi) {
			t.Errorf("EloEstimate(%v): got [%v, %v], want at least 200 wide and containing %v", counts, lo, hi, observed)
		}
	})
	// All wins or all losses: finite, within the clamp, the estimate
	// inside the interval, and significant (0 excluded) from five pairs on.
	// From a few thousand pairs the whole interval is past the clamp.
	for _, n := range []int{1, 2, 5, 20, 200, 5000} {
		for _, tt := range []struct {
			name   string
			counts [5]int
			sign   float64 // of the Elo
		}{
			{"wins", [5]int{0, 0, 0, 0, n}, 1},
			{"losses", [5]int{n, 0, 0, 0, 0}, -1},
		} {
			t.Run(fmt.Sprintf("%d pairs all %s", n, tt.name), func(t *testing.T) {
				elo, lo, hi := EloEstimate(tt.counts)
				if math.IsNaN(elo+lo+hi) || math.Abs(lo) > 1199.83 || math.Abs(hi) > 1199.83 || !(lo <= elo && elo <= hi) {
					t.Errorf("EloEstimate(%v): got %v [%v, %v], want finite, within ±1199.83, lo ≤ elo ≤ hi", tt.counts, elo, lo, hi)
				}
				if n <= 200 && !(lo < hi) {
					t.Errorf("EloEstimate(%v): got [%v, %v], want lo < hi", tt.counts, lo, hi)
				}
				if near := math.Min(tt.sign*lo, tt.sign*hi); n >= 5 && !(near > 0) {
					t.Errorf("EloEstimate(%v): got [%v, %v], want it to exclude 0", tt.counts, lo, hi)
				}
			})
		}
	}
}

// TestEloEstimateSymmetry: reversing the counts (the opponent's view)
// negates the estimate and the interval and complements the LOS.
func TestEloEstimateSymmetry(t *testing.T) {
	for _, c := range [][5]int{{0, 0, 0, 4, 0}, {0, 0, 0, 0, 7}, {1, 2, 3, 4, 5}, {30, 20, 10, 4, 1}, {0, 7, 0, 3, 0}, {292, 5905, 28939, 6129, 299}} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			rev := [5]int{c[4], c[3], c[2], c[1], c[0]}
			elo, lo, hi := EloEstimate(c)
			relo, rlo, rhi := EloEstimate(rev)
			if math.Abs(relo+elo) > 1e-9 || math.Abs(rlo+hi) > 1e-9 || math.Abs(rhi+lo) > 1e-9 {
				t.Errorf("EloEstimate(%v): got %v [%v, %v], want %v [%v, %v]", rev, relo, rlo, rhi, -elo, -hi, -lo)
			}
			if got, want := LOS(rev), 1-LOS(c); math.Abs(got-want) > 1e-12 {
				t.Errorf("LOS(%v): got %v, want %v", rev, got, want)
			}
		})
	}
}

// TestEloEstimateLOSConsistent: LOS and the interval come from the same
// likelihood, so the LOS is above 97.5% exactly when the interval lies
// above 0 and below 2.5% exactly when it lies below; checked on every
// tally of up to 12 pairs.
func TestEloEstimateLOSConsistent(t *testing.T) {
	var c [5]int
	checked := 0
	for c[0] = 0; c[0] <= 12; c[0]++ {
		for c[1] = 0; c[0]+c[1] <= 12; c[1]++ {
			for c[2] = 0; c[0]+c[1]+c[2] <= 12; c[2]++ {
				for c[3] = 0; c[0]+c[1]+c[2]+c[3] <= 12; c[3]++ {
					for c[4] = 0; c[0]+c[1]+c[2]+c[3]+c[4] <= 12; c[4]++ {
						_, lo, hi := EloEstimate(c)
						los := LOS(c)
						if !(los >= 0 && los <= 1) {
							t.Errorf("LOS(%v): got %v, want a probability", c, los)
						}
						if (los > 0.975) != (lo > 0) || (los < 0.025) != (hi < 0) {
							t.Errorf("EloEstimate(%v) = [%v, %v] with LOS %v: got them disagreeing, want LOS > 97.5%% iff lo > 0", c, lo, hi, los)
						}
						checked++
					}
				}
			}
		}
	}
	if checked != 6188 {
		t.Errorf("tallies checked: got %v, want 6188", checked)
	}
}

// TestEloEstimateCoverage draws matches of 4 to 40 pairs from known
// pentanomial distributions and checks that the 95% interval covers the
// true Elo in at least 90% of them. The bar is below 95% because the
// interval is asymptotic and the counts discrete, but high enough that the
// estimator EloEstimate replaced (fishtestGetElo, checked alongside) fails
// it: on the tafl-like distribution where most pairs split 1–1 it covers
// only ~59% at 4 pairs (the interval collapses whenever all pairs split),
// ~76% at 8 and ~89% at 16, and 83% at 330 Elo after 4 pairs. Both
// coverages are logged. Enumerating every tally gives the new estimator's
// exact coverage on these cases as 93.7% at the lowest (330 Elo, 4 pairs);
// measured here it is at least 93.1%.
func TestEloEstimateCoverage(t *testing.T) {
	reps := 2000
	if raceEnabled {
		reps = 300
	}
	const bar = 0.90
	tests := []struct {
		name string
		p    [5]float64 // probabilities of a pair scoring 0, ½, 1, 1½, 2
	}{
		{"balanced drawish", [5]float64{0.05, 0.20, 0.50, 0.20, 0.05}},       // 0 Elo
		{"tafl mostly 1-1 splits", [5]float64{0.02, 0.03, 0.80, 0.05, 0.10}}, // 31 Elo
		{"tafl 1-1 or a sweep", [5]float64{0, 0.02, 0.40, 0.08, 0.50}},       // 205 Elo
		{"no drawn games", [5]float64{0.20, 0, 0.50, 0, 0.30}},               // 35 Elo
		{"strong drawish", [5]float64{0.01, 0.04, 0.25, 0.40, 0.30}},         // 177 Elo
		{"very strong", [5]float64{0, 0.02, 0.08, 0.30, 0.60}},               // 330 Elo
	}
	oldFails := 0
	for i, tt := range tests {
		mean, _ := moments(pairPoints, tt.p)
		truth := EloFromScore(mean)
		for _, n := range []int{4, 8, 16, 40} {
			t.Run(fmt.Sprintf("%s/%d pairs", tt.name, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(i), uint64(n)))
				covered, oldCovered := 0, 0
				for r := 0; r < reps; r++ {
					var counts [5]int
					for k := 0; k < n; k++ {
						u, j := rng.Float64(), 0
						for ; j < 4 && u >= tt.p[j]; j++ {
							u -= tt.p[j]
						}
						counts[j]++
					}
					if _, lo, hi := EloEstimate(counts); lo <= truth && truth <= hi {
						covered++
					}
					if elo, half, _ := fishtestGetElo(counts); elo-half <= truth && truth <= elo+half {
						oldCovered++
					}
				}
				got, old := float64(covered)/float64(reps), float64(oldCovered)/float64(reps)
				t.Logf("true Elo %.1f, %d pairs: coverage %.3f (get_elo %.3f)", truth, n, got, old)
				if got < bar {
					t.Errorf("coverage of the true Elo %v after %d pairs: got %v, want at least %v", truth, n, got, bar)
				}
				if old < bar {
					oldFails++
				}
			})
		}
	}
	// The bar must be one the old estimator fails, or this test shows nothing.
	if oldFails < 3 {
		t.Errorf("cases where get_elo's coverage is below %v: got %v, want at least 3", bar, oldFails)
	}
}

// TestEloEstimateConverges: with thousands of pairs the prior's one pair
// and the interval's skew no longer matter, and EloEstimate and LOS agree
// with fishtest's get_elo (fishtestGetElo), the closer the more pairs.
// The tolerance is a fraction of get_elo's half-width.
func TestEloEstimateConverges(t *testing.T) {
	tests := []struct {
		counts     [5]int
		tol, losTo float64 // on elo, lo and hi as a fraction of the half-width; on LOS
	}{
		{[5]int{1, 60, 500, 1200, 600}, 0.02, 1e-9},        // 2361 pairs at 189 Elo
		{[5]int{10, 600, 5000, 12000, 6000}, 0.006, 1e-9},  // the same ×10
		{[5]int{5, 418, 6043, 506, 12}, 0.005, 1e-4},       // 6984 pairs, skewed
		{[5]int{292, 5905, 28939, 6129, 299}, 0.002, 1e-4}, // 41564 pairs
		{[5]int{10789, 19328, 33806, 19402, 10543}, 0.002, 1e-4},
		{[5]int{9000, 40000, 90000, 43000, 10000}, 0.001, 1e-4},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.counts), func(t *testing.T) {
			elo, lo, hi := EloEstimate(tt.counts)
			wantElo, half, wantLOS := fishtestGetElo(tt.counts)
			if math.Abs(elo-wantElo) > tt.tol*half || math.Abs(lo-(wantElo-half)) > tt.tol*half || math.Abs(hi-(wantElo+half)) > tt.tol*half {
				t.Errorf("EloEstimate(%v): got %v [%v, %v], want %v [%v, %v] within %v·%v", tt.counts, elo, lo, hi, wantElo, wantElo-half, wantElo+half, tt.tol, half)
			}
			if got := LOS(tt.counts); math.Abs(got-wantLOS) > tt.losTo {
				t.Errorf("LOS(%v): got %v, want %v within %v", tt.counts, got, wantLOS, tt.losTo)
			}
			t.Logf("got %.4f [%.4f, %.4f], get_elo %.4f ± %.4f: deviations %.2g, %.2g, %.2g of the half-width", elo, lo, hi, wantElo, half,
				(elo-wantElo)/half, (lo-wantElo+half)/half, (hi-wantElo-half)/half)
		})
	}
}

// TestEloEstimateDeltaMethod: with many pairs the interval is the delta
// method's Elo(x̄) ± 1.96·σ·dElo/dx̄ (dElo/dx = 400/(ln 10·x(1−x))), x̄ and σ
// the plain mean and standard error. (Before the regularized estimate this
// pinned the point estimate to Elo(x̄) to 1e-12; the prior's one pair in
// 192000 now moves it by 2e-5 Elo.)
func TestEloEstimateDeltaMethod(t *testing.T) {
	counts := [5]int{9000, 40000, 90000, 43000, 10000}
	elo, lo, hi := EloEstimate(counts)
	n, p := empirical(counts)
	mean, variance := moments(pairPoints, p)
	half := 1.959963984540054 * math.Sqrt(variance/n) * 400 / (math.Ln10 * mean * (1 - mean))
	if math.Abs((hi-lo)/2-half) > 1e-3*half || math.Abs(elo-EloFromScore(mean)) > 1e-3*half {
		t.Errorf("EloEstimate(%v): got %v [%v, %v], want %v ± %v", counts, elo, lo, hi, EloFromScore(mean), half)
	}
}

func TestExpectedScore(t *testing.T) {
	tests := []struct{ elo, score float64 }{
		{0, 0.5},
		{400, 10.0 / 11},
		{-400, 1.0 / 11},
		{200 * math.Log10(3), 1 / (1 + 1/math.Sqrt(3))},
	}
	for _, tt := range tests {
		if got := ExpectedScore(tt.elo); math.Abs(got-tt.score) > 1e-15 {
			t.Errorf("ExpectedScore(%v): got %v, want %v", tt.elo, got, tt.score)
		}
		if got := EloFromScore(tt.score); math.Abs(got-tt.elo) > 1e-9 {
			t.Errorf("EloFromScore(%v): got %v, want %v", tt.score, got, tt.elo)
		}
	}
}

func TestPairTally(t *testing.T) {
	var tally PairTally
	pairs := [][2]float64{{1, 1}, {1, 0.5}, {1, 0}, {0.5, 0.5}, {0, 0.5}, {0, 0}, {0.5, 1}}
	for _, p := range pairs {
		if err := tally.Add(p[0], p[1]); err != nil {
			t.Fatalf("Add(%v, %v): got %v, want nil", p[0], p[1], err)
		}
	}
	if got, want := tally.Counts, [5]int{1, 1, 2, 2, 1}; got != want {
		t.Errorf("Counts: got %v, want %v", got, want)
	}
	if got, want := tally.AsAttacker, (WDL{Wins: 3, Draws: 2, Losses: 2}); got != want {
		t.Errorf("AsAttacker: got %v, want %v", got, want)
	}
	if got, want := tally.AsDefender, (WDL{Wins: 2, Draws: 3, Losses: 2}); got != want {
		t.Errorf("AsDefender: got %v, want %v", got, want)
	}
	if got, want := tally.Pairs(), 7; got != want {
		t.Errorf("Pairs: got %v, want %v", got, want)
	}
	if got, want := tally.AsAttacker.Score(), 4.0/7; got != want {
		t.Errorf("AsAttacker.Score: got %v, want %v", got, want)
	}
	for _, bad := range [][2]float64{{0.25, 1}, {1, 2}, {math.NaN(), 0}, {-1, 0}} {
		before := tally
		if err := tally.Add(bad[0], bad[1]); err == nil || !strings.HasPrefix(err.Error(), "stats: ") {
			t.Errorf("Add(%v, %v): got %v, want a stats: error", bad[0], bad[1], err)
		}
		if tally != before {
			t.Errorf("Add(%v, %v) changed the tally: got %+v, want %+v", bad[0], bad[1], tally, before)
		}
	}
}

func TestReport(t *testing.T) {
	s := fishtest(-0.25, 1.25)
	tally := PairTally{
		Counts:     [5]int{292, 5905, 28939, 6129, 299},
		AsAttacker: WDL{Wins: 4000, Draws: 34000, Losses: 3564},
		AsDefender: WDL{Wins: 3606, Draws: 34154, Losses: 3804},
	}
	r := s.Report(tally)
	if r.Pairs != 41564 || r.Games != 83128 || r.Decision != AcceptH1 || math.Abs(r.LLR-2.9503907839145276) > 1e-9 {
		t.Errorf("Report: got pairs %v games %v decision %v LLR %v, want 41564 83128 H1 2.9504", r.Pairs, r.Games, r.Decision, r.LLR)
	}
	if !(r.EloLo < r.Elo && r.Elo < r.EloHi) || r.AsAttacker != tally.AsAttacker || r.AsDefender != tally.AsDefender {
		t.Errorf("Report: got %+v, want an ordered interval and the side split copied", r)
	}
	want := "LLR: 2.95 (-2.94,2.94) H1 Pairs: 41564 Ptnml(0-2): 292, 5905, 28939, 6129, 299 Elo: 1.0 [0.0, 2.0] LOS: 97.6% Attacker W/D/L: 4000/34000/3564 Defender W/D/L: 3606/34154/3804"
	if got := r.String(); got != want {
		t.Errorf("String():\ngot  %v\nwant %v", got, want)
	}
}

func TestNegativeCountPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("EloEstimate with a negative count: got no panic, want one")
		}
	}()
	EloEstimate([5]int{1, -1, 0, 0, 0})
}

func BenchmarkSPRTDecide(b *testing.B) {
	s := fishtest(0, 5)
	c := [5]int{30, 120, 200, 130, 25}
	for i := 0; b.Loop(); i++ {
		c[i%5]++
		s.Decide(c)
	}
}

// TestDecisionForms: a decision's verdict reads back as the decision, and
// each decision has its own verdict and text.
func TestDecisionForms(t *testing.T) {
	cases := []struct {
		d       Decision
		verdict string
		text    string
	}{
		{AcceptH1, "H1", "H1 accepted: A is stronger"},
		{AcceptH0, "H0", "H0 accepted: A is not stronger"},
		{Continue, "none", "no decision"},
	}
	for _, c := range cases {
		t.Run(c.verdict, func(t *testing.T) {
			if got := c.d.Verdict(); got != c.verdict {
				t.Errorf("Verdict: got %q, want %q", got, c.verdict)
			}
			if got, ok := ParseVerdict(c.verdict); got != c.d || !ok {
				t.Errorf("ParseVerdict(%q): got %v, %v, want %v, true", c.verdict, got, ok, c.d)
			}
			if got := c.d.Text(); got != c.text {
				t.Errorf("Text: got %q, want %q", got, c.text)
			}
		})
	}
	if d, ok := ParseVerdict("continue"); ok || d != Continue {
		t.Errorf("ParseVerdict(\"continue\"): got %v, %v, want Continue, false", d, ok)
	}
}
