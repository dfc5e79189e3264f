package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// ladder is a regular playout ladder: 2x, 4x and 8x the baseline's
// playouts score 100, 200 and 280 Elo against it. In log2(multiplier) its
// curves run through (0, 0) and
//
//	Elo: (1, 100), (2, 200), (3, 280)
//	Lo:  (1, 60), (2, 150), (3, 220)
//	Hi:  (1, 140), (2, 250), (3, 340)
var ladder = []LadderPoint{
	{Multiplier: 2, Elo: 100, Lo: 60, Hi: 140},
	{Multiplier: 4, Elo: 200, Lo: 150, Hi: 250},
	{Multiplier: 8, Elo: 280, Lo: 220, Hi: 340},
}

func TestPlayoutOdds(t *testing.T) {
	// A noisy ladder where 4x scored below 2x. Pooling the two rungs gives
	// the curves (0, 0), (1, 90), (2, 90), (3, 200) for the Elo,
	// (0, 0), (1, 50), (2, 50), (3, 150) for Lo and
	// (0, 0), (1, 130), (2, 130), (3, 250) for Hi.
	dip := []LadderPoint{
		{Multiplier: 2, Elo: 100, Lo: 60, Hi: 140},
		{Multiplier: 4, Elo: 80, Lo: 40, Hi: 120},
		{Multiplier: 8, Elo: 200, Lo: 150, Hi: 250},
	}
	// A ladder whose 2x rung measured below the 1x baseline: pooled with
	// the 1x point, which stays at 0, it gives (0, 0), (1, 0), (2, 100) for
	// the Elo, (0, 0), (1, 0), (2, 60) for Lo; Hi is (0, 0), (1, 20),
	// (2, 140) as measured.
	belowOne := []LadderPoint{
		{Multiplier: 2, Elo: -20, Lo: -60, Hi: 20},
		{Multiplier: 4, Elo: 100, Lo: 60, Hi: 140},
	}
	// A rung under 1x extends the ladder downwards: (−1, −80), (0, 0),
	// (1, 100) for the Elo, (−1, −120), (0, 0), (1, 60) for Lo,
	// (−1, −40), (0, 0), (1, 140) for Hi.
	half := []LadderPoint{
		{Multiplier: 0.5, Elo: -80, Lo: -120, Hi: -40},
		{Multiplier: 2, Elo: 100, Lo: 60, Hi: 140},
	}
	reversed := slices.Clone(ladder)
	slices.Reverse(reversed)
	tests := []struct {
		name        string
		ladder      []LadderPoint
		elo, lo, hi float64
		want        Odds
		wantString  string
	}{
		{"exact rungs", ladder, 200, 140, 220,
			Odds{Multiplier: 4, Lo: 2, Hi: 8}, "4x [2x, 8x]"},
		// 150 is halfway from 100 to 200 (log2 1.5); 70 is halfway up the
		// Hi curve's first segment (0.5); 185 halfway from 150 to 220 on Lo
		// (2.5).
		{"between rungs", ladder, 150, 70, 185,
			Odds{Multiplier: math.Exp2(1.5), Lo: math.Exp2(0.5), Hi: math.Exp2(2.5)}, "2.8x [1.4x, 5.7x]"},
		{"unsorted ladder", reversed, 150, 70, 185,
			Odds{Multiplier: math.Exp2(1.5), Lo: math.Exp2(0.5), Hi: math.Exp2(2.5)}, "2.8x [1.4x, 5.7x]"},
		// 300 is past the last rung's 280 and 380 past its Lo of 220; 250
		// is the 4x rung's Hi.
		{"beyond the ladder", ladder, 300, 250, 380,
			Odds{Multiplier: 8, Lo: 4, Hi: 8, Side: AboveLadder, HiSide: AboveLadder}, "> 8x [4x, > 8x]"},
		// A weaker candidate: -30 and -90 are below 1x's 0; 30 is halfway
		// up Lo's first segment.
		{"weaker than the baseline", ladder, -30, -90, 30,
			Odds{Multiplier: 1, Lo: 1, Hi: math.Exp2(0.5), Side: BelowLadder, LoSide: BelowLadder}, "< 1x [< 1x, 1.4x]"},
		// Level: exactly 1x; 40 is 2/3 of the way to Lo's 60 at 2x.
		{"level with the baseline", ladder, 0, -40, 40,
			Odds{Multiplier: 1, Lo: 1, Hi: math.Exp2(2.0 / 3), LoSide: BelowLadder}, "1x [< 1x, 1.6x]"},
		// 90 is the pooled 2x–4x flat: the estimate takes its middle (1.5).
		// 50 is 50/130 up Hi's first segment; 130 is 80/100 of the way up
		// Lo's last one (2.8).
		{"non-monotone ladder, on the flat", dip, 90, 50, 130,
			Odds{Multiplier: math.Exp2(1.5), Lo: math.Exp2(50.0 / 130), Hi: math.Exp2(2.8)}, "2.8x [1.3x, 7x]"},
		// 150 is 60/110 up the Elo curve's last segment; 130 is Hi's flat,
		// whose near end (1, so 2x) bounds the interval; 150 is Lo's last
		// rung exactly.
		{"non-monotone ladder, interval end on the flat", dip, 150, 130, 150,
			Odds{Multiplier: math.Exp2(2 + 60.0/110), Lo: 2, Hi: 8}, "5.8x [2x, 8x]"},
		// 50 is halfway up the Elo curve's (1, 0)–(2, 100); 10 halfway up
		// Hi's first segment; 70 is past Lo's top, 60.
		{"rung below 1x pooled with it", belowOne, 50, 10, 70,
			Odds{Multiplier: math.Exp2(1.5), Lo: math.Exp2(0.5), Hi: 4, HiSide: AboveLadder}, "2.8x [1.4x, > 4x]"},
		// 0 is the Elo curve's 1x–2x flat (middle 0.5); Lo's flat at 0
		// ends at 2x.
		{"level on a flat", belowOne, 0, -50, 0,
			Odds{Multiplier: math.Exp2(0.5), Lo: 1, Hi: 2, LoSide: BelowLadder}, "1.4x [< 1x, 2x]"},
		// -40 is halfway down to 0.5x's -80; -100 is below Hi's lowest
		// (-40 at 0.5x); 0 is Lo's 1x.
		{"rung under 1x", half, -40, -100, 0,
			Odds{Multiplier: math.Exp2(-0.5), Lo: 0.5, Hi: 1, LoSide: BelowLadder}, "0.71x [< 0.5x, 1x]"},
		// One rung at 8x, 300 [250, 350]: 150 is halfway (1.5), 100 is
		// 100/350 of Hi's 3 doublings, 200 is 200/250 of Lo's.
		{"single rung", []LadderPoint{{Multiplier: 8, Elo: 300, Lo: 250, Hi: 350}}, 150, 100, 200,
			Odds{Multiplier: math.Exp2(1.5), Lo: math.Exp2(3 * 100.0 / 350), Hi: math.Exp2(3 * 200.0 / 250)}, "2.8x [1.8x, 5.3x]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.ladder)
			got, err := PlayoutOdds(tt.ladder, tt.elo, tt.lo, tt.hi)
			if err != nil {
				t.Fatalf("PlayoutOdds(%v, %v [%v, %v]): got error %v, want nil", tt.ladder, tt.elo, tt.lo, tt.hi, err)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*b }
			if !near(got.Multiplier, tt.want.Multiplier) || !near(got.Lo, tt.want.Lo) || !near(got.Hi, tt.want.Hi) {
				t.Errorf("PlayoutOdds(%v [%v, %v]): got %v [%v, %v], want %v [%v, %v]", tt.elo, tt.lo, tt.hi, got.Multiplier, got.Lo, got.Hi, tt.want.Multiplier, tt.want.Lo, tt.want.Hi)
			}
			if sides, want := [3]Side{got.Side, got.LoSide, got.HiSide}, [3]Side{tt.want.Side, tt.want.LoSide, tt.want.HiSide}; sides != want {
				t.Errorf("PlayoutOdds(%v [%v, %v]) sides: got %v, want %v", tt.elo, tt.lo, tt.hi, sides, want)
			}
			if s := got.String(); s != tt.wantString {
				t.Errorf("String(): got %q, want %q", s, tt.wantString)
			}
			if !slices.Equal(tt.ladder, before) {
				t.Errorf("PlayoutOdds changed its ladder: got %v, want %v", tt.ladder, before)
			}
		})
	}
}

func TestOddsString(t *testing.T) {
	tests := []struct {
		o    Odds
		want string
	}{
		{Odds{Multiplier: 2.6, Lo: 1.7, Hi: 4.1}, "2.6x [1.7x, 4.1x]"},
		{Odds{Multiplier: 64, Lo: 23.4, Hi: 64, Side: AboveLadder, HiSide: AboveLadder}, "> 64x [23x, > 64x]"},
		{Odds{Multiplier: 1, Lo: 1, Hi: 1.04, Side: BelowLadder, LoSide: BelowLadder}, "< 1x [< 1x, 1x]"},
		{Odds{Multiplier: 9.96, Lo: 0.25, Hi: 12.6}, "10x [0.25x, 13x]"},
	}
	for _, tt := range tests {
		if got := tt.o.String(); got != tt.want {
			t.Errorf("%+v.String(): got %q, want %q", tt.o, got, tt.want)
		}
	}
}

func TestPlayoutOddsErrors(t *testing.T) {
	nan := math.NaN()
	inf := math.Inf(1)
	tests := []struct {
		name        string
		ladder      []LadderPoint
		elo, lo, hi float64
		want        string // a substring of the error
	}{
		{"no ladder", nil, 0, -1, 1, "no rungs"},
		{"empty ladder", []LadderPoint{}, 0, -1, 1, "no rungs"},
		{"zero multiplier", []LadderPoint{{Multiplier: 0}}, 0, -1, 1, "not positive"},
		{"negative multiplier", []LadderPoint{{Multiplier: -2, Elo: 100, Lo: 50, Hi: 150}}, 0, -1, 1, "not positive"},
		{"NaN multiplier", []LadderPoint{{Multiplier: nan}}, 0, -1, 1, "not positive"},
		{"infinite multiplier", []LadderPoint{{Multiplier: inf}}, 0, -1, 1, "not positive"},
		{"1x rung", []LadderPoint{{Multiplier: 1}}, 0, -1, 1, "implied 1x"},
		{"duplicate multipliers", []LadderPoint{{Multiplier: 2, Elo: 100, Lo: 50, Hi: 150}, {Multiplier: 4, Elo: 200, Lo: 150, Hi: 250}, {Multiplier: 2, Elo: 90, Lo: 40, Hi: 140}}, 0, -1, 1, "two rungs at multiplier 2"},
		{"NaN rung Elo", []LadderPoint{{Multiplier: 2, Elo: nan, Lo: 50, Hi: 150}}, 0, -1, 1, "rung 0"},
		{"rung interval not around its Elo", []LadderPoint{{Multiplier: 2, Elo: 100, Lo: 120, Hi: 150}}, 0, -1, 1, "rung 0"},
		{"infinite rung end", []LadderPoint{{Multiplier: 2, Elo: 100, Lo: 50, Hi: 150}, {Multiplier: 4, Elo: 200, Lo: 150, Hi: inf}}, 0, -1, 1, "rung 1"},
		{"NaN candidate", ladder, nan, -1, 1, "candidate"},
		{"candidate interval reversed", ladder, 0, 1, -1, "candidate"},
		{"candidate Elo outside its interval", ladder, 5, -1, 1, "candidate"},
		{"infinite candidate end", ladder, 0, math.Inf(-1), 1, "candidate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlayoutOdds(tt.ladder, tt.elo, tt.lo, tt.hi)
			if err == nil || !strings.HasPrefix(err.Error(), "stats: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("PlayoutOdds: got %v, %v, want a stats: error mentioning %q", got, err, tt.want)
			}
		})
	}
}

// TestPlayoutOddsOrdered checks on random noisy ladders that the interval
// holds the estimate, every value lies within the ladder's multipliers,
// and a stronger candidate never gets smaller odds.
func TestPlayoutOddsOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 500; trial++ {
		var rungs []LadderPoint
		for k := 1; k <= 1+rng.IntN(5); k++ {
			m := math.Exp2(float64(k))
			elo := 90*float64(k) + 80*rng.NormFloat64() // noisy: often non-monotone
			half := 10 + 60*rng.Float64()
			rungs = append(rungs, LadderPoint{Multiplier: m, Elo: elo, Lo: elo - half, Hi: elo + half})
		}
		top := rungs[len(rungs)-1].Multiplier
		prev := 0.0
		for e := -200.0; e <= 700; e += 25 {
			half := 5 + 100*rng.Float64()
			o, err := PlayoutOdds(rungs, e, e-half, e+half)
			if err != nil {
				t.Fatalf("PlayoutOdds(%v, %v): got error %v, want nil", rungs, e, err)
			}
			if !(o.Lo <= o.Multiplier && o.Multiplier <= o.Hi) {
				t.Errorf("PlayoutOdds(%v, %v ± %v): got %v, want Lo ≤ Multiplier ≤ Hi", rungs, e, half, o)
			}
			for _, m := range []float64{o.Multiplier, o.Lo, o.Hi} {
				if !(m >= 1 && m <= top) {
					t.Errorf("PlayoutOdds(%v, %v ± %v): got %v, want every multiplier in [1, %v]", rungs, e, half, o, top)
				}
			}
			if o.Multiplier < prev {
				t.Errorf("PlayoutOdds(%v, %v): got %v, want at least %v (the odds at %v)", rungs, e, o.Multiplier, prev, e-25)
			}
			prev = o.Multiplier
		}
	}
}
