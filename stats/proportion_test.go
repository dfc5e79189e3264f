package stats

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestWilsonNewcombe checks the 95% Wilson interval against the worked
// examples of Newcombe, "Two-sided confidence intervals for the single
// proportion: comparison of seven methods", Statistics in Medicine 17
// (1998) 857–872, Table II, method 3 (score interval without continuity
// correction), published to four decimals.
func TestWilsonNewcombe(t *testing.T) {
	tests := []struct {
		x, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%d", tt.x, tt.n), func(t *testing.T) {
			lo, hi := Wilson(tt.x, tt.n, 0.95)
			if math.Abs(lo-tt.lo) > 0.5e-4 || math.Abs(hi-tt.hi) > 0.5e-4 {
				t.Errorf("Wilson(%d, %d, 0.95): got %.4f, %.4f, want %v, %v", tt.x, tt.n, lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

// TestWilsonScipy checks Wilson to full precision against
// scipy.stats.binomtest(k, n).proportion_ci(method="wilson") (scipy 1.10.1)
// at 95% and 99%.
func TestWilsonScipy(t *testing.T) {
	tests := []struct {
		x, n       int
		lo95, hi95 float64
		lo99, hi99 float64
	}{
		{81, 263, 0.2552885198782742, 0.36620957698280004, 0.24013690268760768, 0.3852825023182298},
		{15, 148, 0.06238639953073629, 0.16048724172330803, 0.05364486961396485, 0.18326735011315254},
		{0, 20, 0, 0.16112515805281935, 0, 0.2491054010987534},
		{1, 29, 0.006113214292762667, 0.17175521879320282, 0.0040614941968838275, 0.23825425313641302},
		{23, 60, 0.27088272374082023, 0.5098240417590008, 0.24109156237573082, 0.5488083142035712},
		{5, 10, 0.236593090512564, 0.7634069094874361, 0.1842255182472355, 0.8157744817527646},
		{10, 10, 0.7224672001371109, 1, 0.6011459066950919, 1},
		{1, 1, 0.20654931437723745, 1, 0.13097754328018596, 1},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			conf, lo, hi float64
		}{{0.95, tt.lo95, tt.hi95}, {0.99, tt.lo99, tt.hi99}} {
			lo, hi := Wilson(tt.x, tt.n, c.conf)
			if math.Abs(lo-c.lo) > 1e-12 || math.Abs(hi-c.hi) > 1e-12 {
				t.Errorf("Wilson(%d, %d, %v): got %v, %v, want %v, %v", tt.x, tt.n, c.conf, lo, hi, c.lo, c.hi)
			}
		}
	}
}

// TestWilsonZ checks WilsonZ with the textbook z = 1.96 against the test
// cases of the Code Golf Stack Exchange challenge "Compute the Wilson score
// interval" (codegolf.stackexchange.com/questions/105389), given there as
// successes, failures => bounds.
func TestWilsonZ(t *testing.T) {
	tests := []struct {
		s, f   int
		lo, hi float64
	}{
		{0, 1, 0.0, 0.7934567085261071},
		{1, 0, 0.20654329147389294, 1.0},
		{1, 1, 0.09452865480086611, 0.905471345199134},
		{1, 10, 0.016231752262825982, 0.3773646254862038},
		{10, 90, 0.05522854161313612, 0.1743673043676654},
		{25, 75, 0.17545094003724265, 0.3430464637007583},
		{50, 50, 0.40382982859014716, 0.5961701714098528},
		{0, 100, 0.0, 0.03699480747600191},
		{100, 0, 0.9630051925239981, 1.0},
	}
	for _, tt := range tests {
		lo, hi := WilsonZ(tt.s, tt.s+tt.f, 1.96)
		if math.Abs(lo-tt.lo) > 1e-12 || math.Abs(hi-tt.hi) > 1e-12 {
			t.Errorf("WilsonZ(%d, %d, 1.96): got %v, %v, want %v, %v", tt.s, tt.s+tt.f, lo, hi, tt.lo, tt.hi)
		}
	}
}

// TestWilsonCoverage computes the exact coverage of the 95% interval
// (Σ_k Binom(k; n, p)·[p ∈ interval(k)]) for a few n, p: the score
// interval's coverage stays close to nominal.
func TestWilsonCoverage(t *testing.T) {
	for _, n := range []int{30, 100, 400} {
		for _, p := range []float64{0.1, 0.3, 0.5} {
			b := distuv.Binomial{N: float64(n), P: p}
			cover := 0.0
			for k := 0; k <= n; k++ {
				if lo, hi := Wilson(k, n, 0.95); lo <= p && p <= hi {
					cover += b.Prob(float64(k))
				}
			}
			if cover < 0.92 || cover > 0.98 {
				t.Errorf("coverage of Wilson(·, %d, 0.95) at p=%v: got %v, want within [0.92, 0.98]", n, p, cover)
			}
		}
	}
}

func TestWilsonEdges(t *testing.T) {
	if lo, hi := Wilson(0, 0, 0.95); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0): got %v, %v, want 0, 1", lo, hi)
	}
	// Symmetry: the interval for failures mirrors the one for successes.
	lo, hi := Wilson(7, 19, 0.9)
	lo2, hi2 := Wilson(12, 19, 0.9)
	if math.Abs(lo-(1-hi2)) > 1e-15 || math.Abs(hi-(1-lo2)) > 1e-15 {
		t.Errorf("Wilson(12, 19): got %v, %v, want %v, %v", lo2, hi2, 1-hi, 1-lo)
	}
	panics := []struct {
		name string
		f    func()
	}{
		{"successes > n", func() { Wilson(3, 2, 0.95) }},
		{"negative n", func() { Wilson(0, -1, 0.95) }},
		{"confidence 1", func() { Wilson(1, 2, 1) }},
		{"confidence 0", func() { Wilson(1, 2, 0) }},
		{"z 0", func() { WilsonZ(1, 2, 0) }},
		{"two-proportion x > n", func() { TwoProportion(5, 4, 1, 2) }},
		{"two-proportion negative", func() { TwoProportion(1, 4, -1, 2) }},
	}
	for _, tt := range panics {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.HasPrefix(fmt.Sprint(r), "stats: ") {
					t.Errorf("got panic %v, want a stats: panic", r)
				}
			}()
			tt.f()
		})
	}
}

// TestTwoProportion checks the pooled z-test against scipy's
// chi2_contingency(correction=False) on the 2×2 table (z = ±√X², same
// p-value) and against textbook worked examples (homeworksource.com:
// 140/200 vs 255/340 gives z = −1.266015; 168/300 vs 96/200 gives
// z = 1.755, two-sided p = 0.0792).
func TestTwoProportion(t *testing.T) {
	tests := []struct {
		x1, n1, x2, n2 int
		z, p           float64
	}{
		{140, 200, 255, 340, -1.266014826113381, 0.20550777427448969},
		{168, 300, 96, 200, 1.755466917550216, 0.07917947458599882},
		{28, 254, 36, 301, -0.344134865479892, 0.730744863558894},
		{30, 131, 83, 236, -2.4393164551771607, 0.014715075781400886},
		{9, 10, 1, 10, 3.577708763999664, 0.000346619351134667},
		{50, 100, 50, 100, 0, 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%d vs %d/%d", tt.x1, tt.n1, tt.x2, tt.n2), func(t *testing.T) {
			z, p := TwoProportion(tt.x1, tt.n1, tt.x2, tt.n2)
			if math.Abs(z-tt.z) > 1e-12 || math.Abs(p-tt.p) > 1e-12 {
				t.Errorf("TwoProportion: got z=%v p=%v, want z=%v p=%v", z, p, tt.z, tt.p)
			}
			z2, p2 := TwoProportion(tt.x2, tt.n2, tt.x1, tt.n1)
			if z2 != -z || p2 != p {
				t.Errorf("TwoProportion swapped: got z=%v p=%v, want z=%v p=%v", z2, p2, -z, p)
			}
		})
	}
}

func TestTwoProportionDegenerate(t *testing.T) {
	tests := []struct {
		name           string
		x1, n1, x2, n2 int
	}{
		{"first empty", 0, 0, 3, 10},
		{"second empty", 3, 10, 0, 0},
		{"both empty", 0, 0, 0, 0},
		{"all failures", 0, 10, 0, 25},
		{"all successes", 10, 10, 25, 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if z, p := TwoProportion(tt.x1, tt.n1, tt.x2, tt.n2); z != 0 || p != 1 {
				t.Errorf("TwoProportion(%d, %d, %d, %d): got z=%v p=%v, want z=0 p=1", tt.x1, tt.n1, tt.x2, tt.n2, z, p)
			}
		})
	}
	// Extreme but not degenerate: the p-value is tiny, not rounded to 0
	// by computing 1 - Φ.
	if z, p := TwoProportion(100, 200, 0, 200); !(z > 11 && p > 0 && p < 1e-20) {
		t.Errorf("TwoProportion(100/200 vs 0/200): got z=%v p=%v, want z > 11 and p tiny but positive", z, p)
	}
}

func TestHolm(t *testing.T) {
	tests := []struct {
		p, want []float64
	}{
		{nil, []float64{}},
		{[]float64{0.2}, []float64{0.2}},
		// sorted 0.005·4, 0.01·3, 0.03·2, max(0.04·1, 0.06)
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{[]float64{0.5, 0.6}, []float64{1, 1}},
	}
	for _, tt := range tests {
		got := Holm(tt.p)
		if len(got) != len(tt.want) {
			t.Fatalf("Holm(%v): got %v, want %v", tt.p, got, tt.want)
		}
		for i := range got {
			if math.Abs(got[i]-tt.want[i]) > 1e-15 {
				t.Errorf("Holm(%v): got %v, want %v", tt.p, got, tt.want)
				break
			}
		}
	}
}

func TestOutcomeRates(t *testing.T) {
	o := Outcomes{AttackerWins: 81, DefenderWins: 167, Draws: 15}
	r := o.Rates(0.95)
	if r.Attacker.N != 263 || r.Attacker.P != 81.0/263 || math.Abs(r.Attacker.Lo-0.2552885198782742) > 1e-12 {
		t.Errorf("Attacker rate: got %v, want 81/263 with Wilson [0.2553, 0.3662]", r.Attacker)
	}
	if r.Defender.P != 167.0/263 || r.Draw.P != 15.0/263 {
		t.Errorf("Defender, draw rates: got %v, %v, want 167/263, 15/263", r.Defender, r.Draw)
	}
	if got, want := r.MaxWidth(), math.Max(r.Attacker.Width(), math.Max(r.Defender.Width(), r.Draw.Width())); got != want {
		t.Errorf("MaxWidth: got %v, want %v", got, want)
	}
	if got, want := r.Attacker.String(), "0.308 [0.255, 0.366] (81/263)"; got != want {
		t.Errorf("String: got %v, want %v", got, want)
	}
	if err := (Outcomes{Draws: -1}).Validate(); err == nil || !strings.HasPrefix(err.Error(), "stats: ") {
		t.Errorf("Validate of a negative count: got %v, want a stats: error", err)
	}
}

func TestPrecisionStop(t *testing.T) {
	bad := []struct {
		name string
		s    PrecisionStop
	}{
		{"zero width", PrecisionStop{Width: 0, Confidence: 0.95}},
		{"width above 1", PrecisionStop{Width: 1.5, Confidence: 0.95}},
		{"confidence 1", PrecisionStop{Width: 0.1, Confidence: 1}},
		{"negative minimum", PrecisionStop{Width: 0.1, Confidence: 0.95, MinGames: -1}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.s.Validate(); err == nil || !strings.HasPrefix(err.Error(), "stats: ") {
				t.Errorf("Validate(): got %v, want a stats: error", err)
			}
		})
	}
	stop := PrecisionStop{Width: 0.1, Confidence: 0.95, MinGames: 50}
	// Widest interval is at p = 1/2: width ≈ 2·1.96·sqrt(1/(4n)) ≤ 0.1 needs n ≈ 381.
	tests := []struct {
		name string
		sets []Outcomes
		want bool
	}{
		{"none", nil, false},
		{"narrow", []Outcomes{{200, 200, 0}, {10, 380, 10}}, true},
		{"one wide", []Outcomes{{200, 200, 0}, {100, 100, 0}}, false},
		{"empty set", []Outcomes{{200, 200, 0}, {}}, false},
		{"below minimum", []Outcomes{{0, 40, 0}}, false},
		{"extreme and enough", []Outcomes{{0, 60, 0}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stop.Done(tt.sets); got != tt.want {
				t.Errorf("Done(%v): got %v, want %v", tt.sets, got, tt.want)
			}
		})
	}
}

func TestCompareDefenderRates(t *testing.T) {
	sets := []Outcomes{
		{AttackerWins: 10, DefenderWins: 168, Draws: 122}, // 168/300
		{AttackerWins: 100, DefenderWins: 96, Draws: 4},   // 96/200
		{AttackerWins: 50, DefenderWins: 168, Draws: 82},  // 168/300
	}
	got := CompareDefenderRates(sets)
	if len(got) != 3 {
		t.Fatalf("CompareDefenderRates: got %d comparisons, want 3", len(got))
	}
	want := []struct {
		a, b int
		z, p float64
	}{
		{0, 1, 1.755466917550216, 0.07917947458599882},
		{0, 2, 0, 1},
		{1, 2, -1.755466917550216, 0.07917947458599882},
	}
	for i, w := range want {
		c := got[i]
		if c.A != w.a || c.B != w.b || math.Abs(c.Z-w.z) > 1e-12 || math.Abs(c.P-w.p) > 1e-12 {
			t.Errorf("comparison %d: got %+v, want A=%d B=%d z=%v p=%v", i, c, w.a, w.b, w.z, w.p)
		}
	}
	if math.Abs(got[0].Diff-(0.56-0.48)) > 1e-12 {
		t.Errorf("Diff: got %v, want 0.08", got[0].Diff)
	}
	// Holm: 0.0792·3 = 0.2375, then max(0.0792·2, 0.2375), then 1.
	if math.Abs(got[0].PHolm-3*0.07917947458599882) > 1e-12 || got[0].PHolm != got[2].PHolm || got[1].PHolm != 1 {
		t.Errorf("PHolm: got %v, %v, %v, want %v, 1, %v", got[0].PHolm, got[1].PHolm, got[2].PHolm, 3*0.0792, 3*0.0792)
	}
}
