package loop

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs"
	"taflab/internal/fileio"
	"taflab/match"
)

// fakeMatch writes a match folder of n games between a and b (at the
// playouts given), a scoring won of them; a is the attacker in every
// other game, so the sides are balanced.
func fakeMatch(t *testing.T, dir, a, b string, playouts, n, won int) {
	t.Helper()
	f := match.File{Variant: "copenhagen",
		A: match.PlayerInfo{Name: a, Playouts: playouts}, B: match.PlayerInfo{Name: b, Playouts: playouts}}
	for i := range n {
		g := match.FileGame{Pair: i / 2, Attacker: a, Defender: b}
		if i%2 == 1 {
			g.Attacker, g.Defender = b, a
		}
		aWins := i < won
		if aWins == (g.Attacker == a) {
			g.Winner = "attackers"
		} else {
			g.Winner = "defenders"
		}
		f.Games = append(f.Games, g)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fileio.WriteJSON(filepath.Join(dir, match.FileName), f); err != nil {
		t.Fatal(err)
	}
}

// summarize is Summarize of a run's first generations, which must succeed.
func summarize(t *testing.T, run string, generations int) ([]GenSummary, *RunRatings) {
	t.Helper()
	cfg := configs.DefaultLoop()
	cfg.Generations = generations
	gens, r, err := Summarize(run, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return gens, r
}

// TestRunRatingsPlaceGenerations checks the fit over a run's gate and
// baseline games: two generations that score alike against the searcher
// are told apart by the gate between them, a gate at other playouts is
// left out, and a generation that won every game gets a rating under the
// prior instead of none.
func TestRunRatingsPlaceGenerations(t *testing.T) {
	t.Run("gates order what the baseline cannot", func(t *testing.T) {
		run := t.TempDir()
		fakeMatch(t, filepath.Join(GenDir(run, 1), "gate"), "gen-001", "builtin-100", 100, 20, 15)
		fakeMatch(t, filepath.Join(GenDir(run, 1), "baseline"), "gen-001", "builtin-100", 100, 20, 16)
		fakeMatch(t, filepath.Join(GenDir(run, 2), "gate"), "gen-002", "gen-001", 100, 40, 30)
		fakeMatch(t, filepath.Join(GenDir(run, 2), "baseline"), "gen-002", "builtin-100", 100, 20, 16)
		fakeMatch(t, filepath.Join(GenDir(run, 3), "gate"), "gen-003", "gen-002", 200, 40, 2)
		fakeMatch(t, filepath.Join(GenDir(run, 3), "baseline"), "gen-003", "builtin-100", 100, 20, 16)
		gens, r := summarize(t, run, 3)
		if r == nil {
			t.Fatal("got no ratings, want a fit")
		}
		if r.Anchor != "builtin-100" || r.PriorSD != 0 || r.Games != 120 {
			t.Errorf("got anchor %q, prior %v, %d games; want builtin-100, 0, 120", r.Anchor, r.PriorSD, r.Games)
		}
		if len(gens) != 3 {
			t.Fatalf("got %d generations, want 3", len(gens))
		}
		if gens[0].BaselineElo != gens[1].BaselineElo {
			t.Errorf("baseline Elo: got %v and %v, want equal (same score)", gens[0].BaselineElo, gens[1].BaselineElo)
		}
		// gen-002 took 75% of its gate against gen-001: about 190 Elo above it.
		if d := gens[1].Rating - gens[0].Rating; d < 100 {
			t.Errorf("gen-002 - gen-001: got %.0f Elo, want over 100 (75%% of 40 gate games)", d)
		}
		for i, want := range []int{80, 60, 20} { // gen-001 plays both gates
			if gens[i].RatingGames != want {
				t.Errorf("gen %d: got %d games in the fit, want %d", i+1, gens[i].RatingGames, want)
			}
			if !(gens[i].RatingCI95 > 0) {
				t.Errorf("gen %d: got interval %v, want > 0", i+1, gens[i].RatingCI95)
			}
		}
		line := r.ByGeneration()
		if !strings.Contains(line, "builtin-100 = 0") || strings.Index(line, "gen-001") > strings.Index(line, "gen-002") {
			t.Errorf("got %q, want the generations in order against builtin-100 = 0", line)
		}
	})
	t.Run("a clean sweep falls back on the prior", func(t *testing.T) {
		run := t.TempDir()
		fakeMatch(t, filepath.Join(GenDir(run, 1), "baseline"), "gen-001", "builtin-100", 100, 20, 20)
		gens, r := summarize(t, run, 1)
		if r == nil || r.PriorSD != ratingsPriorSD {
			t.Fatalf("got %+v, want a fit with prior SD %v", r, ratingsPriorSD)
		}
		if e := gens[0].Rating; !(e > 0) || math.IsInf(e, 0) {
			t.Errorf("got rating %v, want finite and above 0", e)
		}
		if !strings.Contains(r.Describe(), "prior") {
			t.Errorf("got %q, want the prior named", r.Describe())
		}
	})
	t.Run("no baseline, no ratings", func(t *testing.T) {
		run := t.TempDir()
		fakeMatch(t, filepath.Join(GenDir(run, 1), "gate"), "gen-001", "builtin-100", 100, 20, 15)
		gens, r := summarize(t, run, 1)
		if r != nil || gens[0].RatingGames != 0 {
			t.Errorf("got ratings %+v and %d rated games, want none", r, gens[0].RatingGames)
		}
	})
}

// TestWriteSummaryShowsRatings checks that the summary files and the log
// carry the fit.
func TestWriteSummaryShowsRatings(t *testing.T) {
	run := t.TempDir()
	fakeMatch(t, filepath.Join(GenDir(run, 1), "gate"), "gen-001", "builtin-100", 100, 20, 15)
	fakeMatch(t, filepath.Join(GenDir(run, 1), "baseline"), "gen-001", "builtin-100", 100, 20, 16)
	cfg := configs.DefaultLoop()
	cfg.Generations = 1
	var log bytes.Buffer
	if _, err := writeSummary(run, cfg, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "gen-001 ") {
		t.Errorf("log: got %q, want gen-001's rating", log.String())
	}
	md, err := os.ReadFile(filepath.Join(run, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| rating | vs baseline |") || !strings.Contains(string(md), "Bradley-Terry fit over 40 gate and baseline games") {
		t.Errorf("summary.md: got\n%s\nwant the rating column and the fit described", md)
	}
	sum := readSummaryJSON(t, run)
	if sum.Ratings == nil || len(sum.Ratings.Players) != 2 || sum.Generations[0].RatingGames != 40 {
		t.Errorf("summary.json: got ratings %+v, generation %+v; want two players, gen-001 with 40 games", sum.Ratings, sum.Generations[0])
	}
}

// readSummaryJSON reads a run's summary.json, which must be there.
func readSummaryJSON(t *testing.T, run string) RunSummary {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(run, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum RunSummary
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}
