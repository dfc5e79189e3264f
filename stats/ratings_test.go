package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// tournament simulates every ordered pair of players meeting `games` times
// (the first attacking), under the fitted model itself: the attacker's
// expected score is ExpectedScore(r[a] + side − r[d]), and a game is drawn
// with probability draw (the rest split so the expectation holds).
func tournament(rng *rand.Rand, names []string, r map[string]float64, side, draw float64, games int) []Result {
	var out []Result
	for _, a := range names {
		for _, d := range names {
			if a == d {
				continue
			}
			p := ExpectedScore(r[a] + side - r[d])
			for k := 0; k < games; k++ {
				u := rng.Float64()
				s := 0.0
				switch {
				case u < p-draw/2:
					s = 1
				case u < p+draw/2:
					s = 0.5
				}
				out = append(out, Result{Attacker: a, Defender: d, Score: s})
			}
		}
	}
	return out
}

// repeat returns results n times over with the same outcomes.
func repeat(games []Result, n int) []Result {
	var out []Result
	for i := 0; i < n; i++ {
		out = append(out, games...)
	}
	return out
}

// split makes `wins` attacker wins, `draws` draws and `losses` attacker
// losses of attacker against defender.
func split(attacker, defender string, wins, draws, losses int) []Result {
	var out []Result
	for i := 0; i < wins; i++ {
		out = append(out, Result{attacker, defender, 1})
	}
	for i := 0; i < draws; i++ {
		out = append(out, Result{attacker, defender, 0.5})
	}
	for i := 0; i < losses; i++ {
		out = append(out, Result{attacker, defender, 0})
	}
	return out
}

func concat(parts ...[]Result) []Result {
	var out []Result
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func mustFit(t *testing.T, games []Result, anchor string) Ratings {
	t.Helper()
	r, err := FitRatings(games, anchor)
	if err != nil {
		t.Fatalf("FitRatings: got error %v, want nil", err)
	}
	return r
}

func elo(t *testing.T, r Ratings, name string) PlayerRating {
	t.Helper()
	p, ok := r.Player(name)
	if !ok {
		t.Fatalf("Player(%q): not rated", name)
	}
	return p
}

// TestFitRatingsClosedForm: two players who each score 60% as attacker
// against the other are equal, and the side advantage is the Elo of a 60%
// score, 400·log10(1.5). The information matrix is diagonal with
// 200·0.6·0.4 = 48 on both entries, so both standard errors are
// (400/ln 10)/√48. A draw counts as half a win: 50 wins, 20 draws and 30
// losses give the same fit as 60 wins and 40 losses.
func TestFitRatingsClosedForm(t *testing.T) {
	wantSide := 400 * math.Log10(1.5)
	wantSE := 400 / math.Ln10 / math.Sqrt(48)
	tests := []struct {
		name  string
		games []Result
	}{
		{"decisive", concat(split("A", "B", 60, 0, 40), split("B", "A", 60, 0, 40))},
		{"with draws", concat(split("A", "B", 50, 20, 30), split("B", "A", 40, 40, 20))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustFit(t, tt.games, "A")
			b := elo(t, r, "B")
			if math.Abs(b.Elo) > 1e-9 || math.Abs(b.SE-wantSE) > 1e-9 {
				t.Errorf("B: got %v ± %v, want 0 ± %v", b.Elo, b.SE, wantSE)
			}
			if math.Abs(r.SideAdvantage-wantSide) > 1e-9 || math.Abs(r.SideAdvantageSE-wantSE) > 1e-9 {
				t.Errorf("side advantage: got %v ± %v, want %v ± %v", r.SideAdvantage, r.SideAdvantageSE, wantSide, wantSE)
			}
			if a := elo(t, r, "A"); a.Elo != 0 || a.SE != 0 || a.Games != 200 || a.Points != 100 {
				t.Errorf("anchor A: got %+v, want Elo 0, SE 0, 200 games, 100 points", a)
			}
			if got, err := r.Expected("A", "B"); err != nil || math.Abs(got-0.6) > 1e-12 {
				t.Errorf("Expected(A, B): got %v, %v, want 0.6", got, err)
			}
		})
	}
}

// TestFitRatingsSymmetric: a rock-paper-scissors cycle in which each player
// beats the next 70% of the time on either side leaves all three equal.
func TestFitRatingsSymmetric(t *testing.T) {
	var games []Result
	for _, pair := range [][2]string{{"rock", "scissors"}, {"scissors", "paper"}, {"paper", "rock"}} {
		games = append(games, split(pair[0], pair[1], 70, 0, 30)...)
		games = append(games, split(pair[1], pair[0], 30, 0, 70)...)
	}
	r := mustFit(t, games, "rock")
	for _, p := range r.Players {
		if math.Abs(p.Elo) > 1e-9 {
			t.Errorf("%s: got %v, want 0", p.Name, p.Elo)
		}
	}
	if math.Abs(r.SideAdvantage) > 1e-9 {
		t.Errorf("side advantage: got %v, want 0", r.SideAdvantage)
	}
	// The two non-anchor players are rated with the same precision.
	if s, p := elo(t, r, "scissors"), elo(t, r, "paper"); math.Abs(s.SE-p.SE) > 1e-9 {
		t.Errorf("SEs: got %v and %v, want equal", s.SE, p.SE)
	}
}

// TestFitRatingsRecoversSimulated fits a simulated round robin with known
// ratings and side advantage and checks each estimate lies within 2.5
// standard errors of the truth (and the biggest miss is reported).
func TestFitRatingsRecoversSimulated(t *testing.T) {
	truth := map[string]float64{"a": 0, "b": 120, "c": -80, "d": 200, "e": 40, "f": -150}
	names := []string{"a", "b", "c", "d", "e", "f"}
	const side = 60
	games := tournament(rand.New(rand.NewPCG(7, 7)), names, truth, side, 0.2, 150)
	r := mustFit(t, games, "a")
	worst := 0.0
	for _, name := range names[1:] {
		p := elo(t, r, name)
		z := (p.Elo - truth[name]) / p.SE
		worst = math.Max(worst, math.Abs(z))
		if math.Abs(z) > 2.5 {
			t.Errorf("%s: got %.1f ± %.1f, want %v within 2.5 SE", name, p.Elo, p.SE, truth[name])
		}
	}
	z := (r.SideAdvantage - side) / r.SideAdvantageSE
	worst = math.Max(worst, math.Abs(z))
	if math.Abs(z) > 2.5 {
		t.Errorf("side advantage: got %.1f ± %.1f, want %v within 2.5 SE", r.SideAdvantage, r.SideAdvantageSE, side)
	}
	t.Logf("%d games, %d iterations, largest |error|/SE %.2f, side %.1f ± %.1f", r.Games, r.Iterations, worst, r.SideAdvantage, r.SideAdvantageSE)
	if r.Players[0].Name != "d" || r.Players[len(r.Players)-1].Name != "f" {
		t.Errorf("order: got %v first and %v last, want d and f", r.Players[0].Name, r.Players[len(r.Players)-1].Name)
	}
}

// TestFitRatingsCoverage checks the standard errors are calibrated: over
// many simulated tournaments, the truth lies within 1.96 SE of the estimate
// about 95% of the time when there are no draws. With draws the model's SEs
// (a draw as half a win and half a loss) are conservative, and scaling them
// by sqrt(Dispersion) restores the nominal coverage.
func TestFitRatingsCoverage(t *testing.T) {
	truth := map[string]float64{"a": 0, "b": 100, "c": -60, "d": 30}
	names := []string{"a", "b", "c", "d"}
	const side = -40
	reps := 300
	if raceEnabled {
		reps = 100
	}
	tests := []struct {
		name           string
		draw           float64
		scaled         bool // SEs scaled by sqrt(Dispersion)
		lo, hi         float64
		seed           uint64
		dispLo, dispHi float64
	}{
		{"no draws", 0, false, 0.925, 0.975, 98, 0.9, 1.1},
		{"draws, model SE", 0.4, false, 0.975, 1, 99, 0.5, 0.7},
		{"draws, scaled SE", 0.4, true, 0.925, 0.975, 99, 0.5, 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inside, total := 0, 0
			disp := 0.0
			for rep := 0; rep < reps; rep++ {
				games := tournament(rand.New(rand.NewPCG(tt.seed, uint64(rep))), names, truth, side, tt.draw, 40)
				r := mustFit(t, games, "a")
				scale := 1.0
				if tt.scaled {
					scale = math.Sqrt(r.Dispersion)
				}
				disp += r.Dispersion / float64(reps)
				for _, name := range names[1:] {
					p := elo(t, r, name)
					if math.Abs(p.Elo-truth[name]) <= 1.96*scale*p.SE {
						inside++
					}
					total++
				}
				if math.Abs(r.SideAdvantage-side) <= 1.96*scale*r.SideAdvantageSE {
					inside++
				}
				total++
			}
			cover := float64(inside) / float64(total)
			t.Logf("%s: coverage of ±1.96 SE %d/%d = %.3f, mean dispersion %.3f", tt.name, inside, total, cover, disp)
			if cover < tt.lo || cover > tt.hi {
				t.Errorf("coverage: got %v, want within [%v, %v]", cover, tt.lo, tt.hi)
			}
			if disp < tt.dispLo || disp > tt.dispHi {
				t.Errorf("mean dispersion: got %v, want within [%v, %v]", disp, tt.dispLo, tt.dispHi)
			}
		})
	}
}

// TestFitRatingsSEScaling: four times the games halve the standard errors,
// exactly when the same results are repeated and approximately for new
// simulated games.
func TestFitRatingsSEScaling(t *testing.T) {
	truth := map[string]float64{"a": 0, "b": 150, "c": -100}
	names := []string{"a", "b", "c"}
	base := tournament(rand.New(rand.NewPCG(3, 1)), names, truth, 30, 0.2, 100)
	r1 := mustFit(t, base, "a")
	r4 := mustFit(t, repeat(base, 4), "a")
	for _, name := range names[1:] {
		p1, p4 := elo(t, r1, name), elo(t, r4, name)
		if math.Abs(p1.Elo-p4.Elo) > 1e-8 || math.Abs(p1.SE/p4.SE-2) > 1e-9 {
			t.Errorf("%s repeated ×4: got %v ± %v from %v ± %v, want the same Elo and half the SE", name, p4.Elo, p4.SE, p1.Elo, p1.SE)
		}
	}
	if got := r1.SideAdvantageSE / r4.SideAdvantageSE; math.Abs(got-2) > 1e-9 {
		t.Errorf("side advantage SE ratio: got %v, want 2", got)
	}
	fresh := mustFit(t, tournament(rand.New(rand.NewPCG(3, 2)), names, truth, 30, 0.2, 400), "a")
	for _, name := range names[1:] {
		if got := elo(t, r1, name).SE / elo(t, fresh, name).SE; math.Abs(got-2) > 0.2 {
			t.Errorf("%s SE ratio for 4× new games: got %v, want about 2", name, got)
		}
	}
}

// TestFitRatingsAnchor: moving the anchor shifts every rating by the same
// amount and leaves differences, their errors and the side advantage alone.
func TestFitRatingsAnchor(t *testing.T) {
	truth := map[string]float64{"a": 0, "b": 150, "c": -100, "d": 50}
	names := []string{"a", "b", "c", "d"}
	games := tournament(rand.New(rand.NewPCG(5, 5)), names, truth, 30, 0.2, 60)
	ra, rb := mustFit(t, games, "a"), mustFit(t, games, "b")
	shift := elo(t, ra, "b").Elo
	for _, name := range names {
		if got, want := elo(t, rb, name).Elo, elo(t, ra, name).Elo-shift; math.Abs(got-want) > 1e-7 {
			t.Errorf("%s anchored on b: got %v, want %v", name, got, want)
		}
	}
	seA, _ := ra.DiffSE("c", "d")
	seB, _ := rb.DiffSE("c", "d")
	if math.Abs(seA-seB) > 1e-7 {
		t.Errorf("DiffSE(c, d): got %v anchored on b, want %v as anchored on a", seB, seA)
	}
	if got, _ := ra.DiffSE("b", "a"); math.Abs(got-elo(t, ra, "b").SE) > 1e-12 {
		t.Errorf("DiffSE(b, anchor): got %v, want b's SE %v", got, elo(t, ra, "b").SE)
	}
	if math.Abs(ra.SideAdvantage-rb.SideAdvantage) > 1e-7 || math.Abs(ra.SideAdvantageSE-rb.SideAdvantageSE) > 1e-7 {
		t.Errorf("side advantage: got %v ± %v anchored on b, want %v ± %v", rb.SideAdvantage, rb.SideAdvantageSE, ra.SideAdvantage, ra.SideAdvantageSE)
	}
	if _, err := ra.DiffSE("a", "zz"); err == nil {
		t.Errorf("DiffSE with an unknown player: got nil error, want one")
	}
	if _, err := ra.Expected("zz", "a"); err == nil {
		t.Errorf("Expected with an unknown player: got nil error, want one")
	}
}

// TestFitRatingsSelfGames: games a player plays against itself inform only
// the side advantage.
func TestFitRatingsSelfGames(t *testing.T) {
	games := concat(split("A", "B", 30, 0, 20), split("B", "A", 20, 0, 30), split("A", "A", 75, 0, 25))
	r := mustFit(t, games, "A")
	if a := elo(t, r, "A"); a.Games != 100 {
		t.Errorf("A's games: got %v, want 100 (self games not counted)", a.Games)
	}
	if !(r.SideAdvantage > 0) {
		t.Errorf("side advantage: got %v, want positive (attackers won 75%% of the self games)", r.SideAdvantage)
	}
}

func TestFitRatingsErrors(t *testing.T) {
	mixed := concat(split("A", "B", 3, 1, 2), split("B", "A", 2, 1, 3))
	tests := []struct {
		name   string
		games  []Result
		anchor string
		want   string
	}{
		{"no games", nil, "A", "no games"},
		{"empty anchor", mixed, "", "empty anchor"},
		{"anchor absent", mixed, "Z", `anchor "Z" played no game`},
		{"bad score", concat(mixed, []Result{{"A", "B", 1.5}}), "A", "outside [0, 1]"},
		{"NaN score", concat(mixed, []Result{{"A", "B", math.NaN()}}), "A", "outside [0, 1]"},
		{"disconnected", concat(mixed, split("C", "D", 2, 0, 1), split("D", "C", 2, 0, 1)), "A", `"C", "D"`},
		{"won everything", concat(mixed, split("C", "A", 3, 0, 0), split("A", "C", 0, 0, 2)), "A", `player "C" won all its 5 games`},
		{"lost everything", concat(mixed, split("C", "A", 0, 0, 3)), "A", `player "C" lost all its 3 games`},
		{"attackers always win", concat(split("A", "B", 3, 0, 0), split("B", "A", 3, 0, 0)), "A", "attackers won every game"},
		{"defenders always win", concat(split("A", "B", 0, 0, 3), split("B", "A", 0, 0, 3)), "A", "defenders won every game"},
		{"sides confounded", split("A", "B", 3, 2, 4), "A", "do not identify"},
		{"separated group", concat(mixed, split("C", "D", 2, 1, 2), split("D", "C", 2, 1, 2),
			split("A", "C", 3, 0, 0), split("C", "A", 0, 0, 3), split("B", "D", 3, 0, 0), split("D", "B", 0, 0, 3)), "A", "PriorSD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FitRatings(tt.games, tt.anchor)
			if err == nil || !strings.HasPrefix(err.Error(), "stats: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("FitRatings: got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestFitRatingsPrior: with a prior the unbounded cases get finite
// estimates, ordered as the results say.
func TestFitRatingsPrior(t *testing.T) {
	mixed := concat(split("A", "B", 3, 1, 2), split("B", "A", 2, 1, 3))
	tests := []struct {
		name  string
		games []Result
		check func(r Ratings) error
	}{
		{"won everything", concat(mixed, split("C", "A", 3, 0, 0), split("A", "C", 0, 0, 2)), func(r Ratings) error {
			c, _ := r.Player("C")
			if !(c.Elo > 100 && c.Elo < 2000 && c.SE > 0) {
				return fmt.Errorf("C: got %v ± %v, want well above the others but finite", c.Elo, c.SE)
			}
			return nil
		}},
		{"sides confounded", split("A", "B", 3, 2, 4), func(r Ratings) error {
			b, _ := r.Player("B")
			if !(b.SE > 0) || math.IsNaN(r.SideAdvantage) {
				return fmt.Errorf("got B %v ± %v, side %v, want finite", b.Elo, b.SE, r.SideAdvantage)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := FitRatingsWith(tt.games, "A", FitOptions{PriorSD: 400})
			if err != nil {
				t.Fatalf("FitRatingsWith: got error %v, want nil", err)
			}
			if err := tt.check(r); err != nil {
				t.Error(err)
			}
		})
	}
	// A wide prior barely moves a well-determined fit.
	games := concat(split("A", "B", 60, 0, 40), split("B", "A", 55, 0, 45))
	plain := mustFit(t, games, "A")
	wide, err := FitRatingsWith(games, "A", FitOptions{PriorSD: 1e5})
	if err != nil || math.Abs(elo(t, plain, "B").Elo-elo(t, wide, "B").Elo) > 1e-3 {
		t.Errorf("wide prior: got B %v (%v), want %v", elo(t, wide, "B").Elo, err, elo(t, plain, "B").Elo)
	}
}

func TestFitOptionsValidate(t *testing.T) {
	tests := []struct {
		o  FitOptions
		ok bool
	}{
		{FitOptions{}, true},
		{FitOptions{PriorSD: 200, MaxIter: 10}, true},
		{FitOptions{PriorSD: -1}, false},
		{FitOptions{PriorSD: math.NaN()}, false},
		{FitOptions{PriorSD: math.Inf(1)}, false},
		{FitOptions{MaxIter: -1}, false},
	}
	for _, tt := range tests {
		err := tt.o.Validate()
		if (err == nil) != tt.ok || (err != nil && !strings.HasPrefix(err.Error(), "stats: ")) {
			t.Errorf("Validate(%+v): got %v, want ok=%v", tt.o, err, tt.ok)
		}
		if _, err := FitRatingsWith(split("A", "B", 1, 0, 1), "A", tt.o); !tt.ok && err == nil {
			t.Errorf("FitRatingsWith(%+v): got nil error, want the Validate error", tt.o)
		}
	}
}

// TestGroups: players split into the groups that no chain of games links,
// in the order they first appear; a prior does not make FitRatingsWith rate
// players of different groups against each other, and each group fits on
// its own.
func TestGroups(t *testing.T) {
	ab := concat(split("A", "B", 3, 1, 2), split("B", "A", 2, 1, 3))
	cd := concat(split("C", "D", 2, 0, 1), split("D", "C", 2, 0, 1))
	tests := []struct {
		name  string
		games []Result
		want  string
	}{
		{"none", nil, ""},
		{"one pair", ab, "A B"},
		{"two pairs", concat(ab, cd), "A B | C D"},
		{"a chain joins them", concat(ab, cd, split("D", "B", 1, 0, 0)), "A B C D"},
		{"interleaved", concat(split("A", "B", 1, 0, 0), split("C", "D", 1, 0, 0), split("E", "A", 1, 0, 0)), "A B E | C D"},
		{"a player alone", concat(ab, split("Z", "Z", 2, 0, 1)), "A B | Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var parts []string
			for _, g := range Groups(tt.games) {
				parts = append(parts, strings.Join(g, " "))
			}
			if got := strings.Join(parts, " | "); got != tt.want {
				t.Errorf("Groups: got %q, want %q", got, tt.want)
			}
		})
	}
	both := concat(ab, cd)
	if _, err := FitRatingsWith(both, "A", FitOptions{PriorSD: 400}); err == nil || !strings.Contains(err.Error(), `"C", "D"`) {
		t.Errorf("FitRatingsWith two groups, a prior: got error %v, want one naming C and D", err)
	}
	for _, g := range [][]Result{ab, cd} {
		if _, err := FitRatings(g, g[0].Attacker); err != nil {
			t.Errorf("FitRatings of one group: got error %v, want nil", err)
		}
	}
}

// TestSEScale: only overdispersion widens the intervals; draws (dispersion
// below 1) and a fit with no spare games (NaN) keep the SEs.
func TestSEScale(t *testing.T) {
	for _, c := range []struct {
		name       string
		dispersion float64
		want       float64
	}{
		{"overdispersed", 2.25, 1.5},
		{"exactly binomial", 1, 1},
		{"draws make it conservative", 0.5, 1},
		{"no spare games", math.NaN(), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := (Ratings{Dispersion: c.dispersion}).SEScale(); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
