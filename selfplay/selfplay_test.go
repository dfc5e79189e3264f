package selfplay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/nettest"
	"taflab/mcts"
	"taflab/net"
	"taflab/openings"
	"taflab/rules"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSelfPlay measures whole self-play with the built-in evaluator on
// every core (one worker per core, 8 games each), the default search
// settings (800 playouts full, 100 cheap) and the dataset writing: games per
// minute and the CPU use of the process.
func BenchmarkSelfPlay(b *testing.B) {
	cfg := configs.DefaultSelfPlay()
	cfg.Search = mcts.DefaultConfig()
	cfg.Workers = 0
	cfg.Games = 4 * runtime.GOMAXPROCS(0) * cfg.GamesPerWorker
	v := variants.MustLoad("copenhagen")
	games := 0
	cpu0 := cpuTime()
	for i := range b.N { // not b.Loop, whose timing runs before -cpu's first value is set (golang/go#49980)
		cfg.Out = b.TempDir()
		cfg.Seed = uint64(i)
		sum, err := Run(context.Background(), cfg, v, Options{})
		if err != nil {
			b.Fatal(err)
		}
		games += sum.Games
	}
	cpu := (cpuTime() - cpu0).Seconds()
	b.ReportMetric(float64(games)/b.Elapsed().Minutes(), "games/min")
	b.ReportMetric(100*cpu/b.Elapsed().Seconds()/float64(runtime.GOMAXPROCS(0)), "%cpu")
}

// testSuite writes a suite of three positions a few random moves from the
// start and returns its file and entries.
func testSuite(t *testing.T, v *rules.Variant) (string, []openings.SuiteEntry) {
	t.Helper()
	var entries []openings.SuiteEntry
	for _, o := range openings.Book(v, 3, 3, 7) {
		g := rules.NewGame(v)
		for _, m := range o.Moves {
			g.Make(m)
		}
		entries = append(entries, openings.SuiteEntry{Position: g.Position(), Comment: "random"})
	}
	path := filepath.Join(t.TempDir(), "suite.txt")
	if err := os.WriteFile(path, openings.FormatSuite([]string{"test suite"}, entries), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, entries
}

func TestMixGame(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	_, suite := testSuite(t, v)
	cases := []struct {
		name                       string
		mix                        configs.GameMix
		wantSuite, wantOdds        int // of 200 games
		wantAttackers, wantDefends bool
	}{
		{"plain", configs.DefaultGameMix(), 0, 0, false, false},
		{"all from the suite", configs.GameMix{SuiteShare: 1, Odds: 4, Favoured: "attackers"}, 200, 0, false, false},
		{"odds to the attackers", configs.GameMix{OddsShare: 1, Odds: 3, Favoured: "attackers"}, 0, 200, true, false},
		{"odds to the defenders", configs.GameMix{OddsShare: 1, Odds: 3, Favoured: "defenders"}, 0, 200, false, true},
		{"odds to either", configs.GameMix{OddsShare: 1, Odds: 3, Favoured: "either"}, 0, 200, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			suiteGames, oddsGames := 0, 0
			favoured := map[rules.Side]bool{}
			for i := range 200 {
				g := MixGame(i, GameSeed(5, i), c.mix, suite)
				if again := MixGame(i, GameSeed(5, i), c.mix, suite); again != g {
					t.Fatalf("game %d: got %+v, then %+v: want the same set-up for the same seed", i, g, again)
				}
				if g.Index != i || g.Seed != GameSeed(5, i) {
					t.Fatalf("game %d: got index %d seed %d", i, g.Index, g.Seed)
				}
				if !g.StartsAtStart() {
					suiteGames++
				}
				if g.Odds > 1 {
					oddsGames++
					if g.Odds != c.mix.Odds {
						t.Errorf("game %d: got odds %d, want %d", i, g.Odds, c.mix.Odds)
					}
					favoured[g.Favoured] = true
				}
			}
			if suiteGames != c.wantSuite || oddsGames != c.wantOdds {
				t.Errorf("got %d games from the suite and %d with odds, want %d and %d", suiteGames, oddsGames, c.wantSuite, c.wantOdds)
			}
			if favoured[rules.Attackers] != c.wantAttackers || favoured[rules.Defenders] != c.wantDefends {
				t.Errorf("got favoured sides %v, want attackers %v, defenders %v", favoured, c.wantAttackers, c.wantDefends)
			}
		})
	}
	t.Run("half and half", func(t *testing.T) {
		mix := configs.GameMix{SuiteShare: 0.5, OddsShare: 0.25, Odds: 4, Favoured: "either"}
		suiteGames, oddsGames := 0, 0
		for i := range 1000 {
			g := MixGame(i, GameSeed(9, i), mix, suite)
			if !g.StartsAtStart() {
				suiteGames++
			}
			if g.Odds > 1 {
				oddsGames++
			}
		}
		if suiteGames < 450 || suiteGames > 550 || oddsGames < 200 || oddsGames > 300 {
			t.Errorf("got %d of 1000 from the suite and %d with odds, want about 500 and 250", suiteGames, oddsGames)
		}
	})
}

// TestRunMixWritesLabels plays games from an opening suite and with odds,
// and reads them back: each game's start and the two sides' playouts are in
// the games file, the positions start at the start, and the weaker side's
// searches are never training targets.
func TestRunMixWritesLabels(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	suiteFile, suite := testSuite(t, v)
	cfg := configs.DefaultSelfPlay()
	cfg.Games, cfg.Workers, cfg.GamesPerWorker, cfg.Seed = 16, 2, 4, 3
	cfg.Out = t.TempDir()
	cfg.Search.Playouts, cfg.Search.CheapPlayouts, cfg.Search.FullSearchProb = 16, 8, 0.5
	cfg.Mix = configs.GameMix{SuiteShare: 0.5, Suite: suiteFile, OddsShare: 0.5, Odds: 4, Favoured: "either"}
	sum, err := Run(context.Background(), cfg, v, Options{WorkerName: "mix"})
	if err != nil {
		t.Fatal(err)
	}
	kinds := 0
	for _, tally := range sum.ByKind {
		kinds += tally.Games
	}
	if kinds != sum.Games || sum.Games != cfg.Games {
		t.Errorf("got %d games, %d of them by kind, want %d", sum.Games, kinds, cfg.Games)
	}
	inSuite := map[string]bool{}
	for _, e := range suite {
		inSuite[e.Position.String()] = true
	}
	games, positions := readAll(t, cfg.Out)
	byID := map[string]datasets.GameRow{}
	seen := map[string]bool{}
	for _, g := range games {
		byID[g.GameID] = g
		spec := MixGame(0, g.Seed, cfg.Mix, suite)
		seen[Kind(spec)] = true
		wantStart := ""
		if !spec.StartsAtStart() {
			wantStart = spec.Start.String()
			if !inSuite[g.Start] {
				t.Errorf("game %s: start %q is not a suite position", g.GameID, g.Start)
			}
		}
		if g.Start != wantStart {
			t.Errorf("game %s: got start %q, want %q", g.GameID, g.Start, wantStart)
		}
		want := [2]int32{16, 16}
		if spec.Odds > 1 {
			want[spec.Favoured.Opponent()] = 4
		}
		if got := [2]int32{g.AttackerPlayouts, g.DefenderPlayouts}; got != want {
			t.Errorf("game %s (%s): got playouts %v for attackers and defenders, want %v", g.GameID, Kind(spec), got, want)
		}
	}
	if len(seen) < 3 {
		t.Errorf("got kinds %v, want at least three of start, suite and the odds kinds", seen)
	}
	// The tallies read back from the files are the run's own.
	all, byKind := TallyGames(games)
	if all.Games != sum.Games || all.AttackerWins != sum.AttackerWins || all.DefenderWins != sum.DefenderWins || all.Draws != sum.Draws {
		t.Errorf("tally of the files: got %+v, want the run's %d games (%d, %d, %d)", all, sum.Games, sum.AttackerWins, sum.DefenderWins, sum.Draws)
	}
	if !reflect.DeepEqual(byKind, sum.ByKind) {
		t.Errorf("tally by kind of the files: got %v, want the run's %v", byKind, sum.ByKind)
	}
	for _, p := range positions {
		g := byID[p.GameID]
		if p.Ply == 0 && g.Start != "" && p.Position.String() != g.Start {
			t.Errorf("game %s: first position %v, want its start %s", p.GameID, p.Position, g.Start)
		}
		weak := g.AttackerPlayouts != g.DefenderPlayouts &&
			(p.Position.ToMove == rules.Attackers) == (g.AttackerPlayouts < g.DefenderPlayouts)
		if weak && p.FullSearch {
			t.Errorf("game %s ply %d: the weaker side's search is a full one", p.GameID, p.Ply)
		}
	}
}

// readAll reads every shard of a dataset folder.
func readAll(t *testing.T, dir string) ([]datasets.GameRow, []datasets.PositionRow) {
	t.Helper()
	var games []datasets.GameRow
	var positions []datasets.PositionRow
	files, err := filepath.Glob(filepath.Join(dir, "*"+datasets.GamesSuffix))
	if err != nil || len(files) == 0 {
		t.Fatalf("no games files in %s: %v", dir, err)
	}
	for _, f := range files {
		g, _, err := datasets.ReadGamesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, g...)
		p, _, err := datasets.ReadPositionsFile(strings.TrimSuffix(f, datasets.GamesSuffix) + datasets.PositionsSuffix)
		if err != nil {
			t.Fatal(err)
		}
		positions = append(positions, p...)
	}
	return games, positions
}

// TestRunSameGamesAnyWorkers: with a network's evaluators (random
// symmetries on, as the commands make them), the same seed gives the same
// games on one worker and on three, whichever worker plays which game.
func TestRunSameGamesAnyWorkers(t *testing.T) {
	n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 5)
	if err != nil {
		t.Fatal(err)
	}
	v := variants.MustLoad("copenhagen")
	play := func(workers int) map[uint64]string {
		cfg := configs.DefaultSelfPlay()
		cfg.Games, cfg.Workers, cfg.GamesPerWorker, cfg.Seed = 6, workers, 2, 11
		cfg.Out = t.TempDir()
		cfg.Search.Playouts, cfg.Search.CheapPlayouts, cfg.Search.FullSearchProb = 24, 8, 0.5
		opt := Options{WorkerName: "same", NewEvaluator: func() (mcts.Evaluator, error) {
			in := n.NewInference(1, "tiny")
			in.RandomSymmetry = true
			return in, nil
		}}
		if _, err := Run(context.Background(), cfg, v, opt); err != nil {
			t.Fatal(err)
		}
		games, _ := readAll(t, cfg.Out)
		bySeed := map[uint64]string{}
		for _, g := range games {
			bySeed[g.Seed] = strings.Join(g.Moves, " ")
		}
		return bySeed
	}
	want := play(1)
	if len(want) != 6 {
		t.Fatalf("got %d games on one worker, want 6", len(want))
	}
	for _, workers := range []int{3, 3} {
		got := play(workers)
		for seed, moves := range want {
			if got[seed] != moves {
				t.Errorf("%d workers, game of seed %d: got %q, want %q (one worker)", workers, seed, got[seed], moves)
			}
		}
	}
}

// TestRunEvaluatesWithCfgNet: with no evaluators of the caller's, a run
// evaluates with cfg.Net's network (issue 24: it used to play with the
// built-in evaluator whatever cfg.Net said), and with no rule set given
// it plays cfg.Variant's.
func TestRunEvaluatesWithCfgNet(t *testing.T) {
	file := nettest.TinyFile(t, 3)
	n, _, err := net.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configs.DefaultSelfPlay()
	cfg.Variant, cfg.Net = "fetlar", file
	cfg.Games, cfg.Workers, cfg.GamesPerWorker, cfg.Seed = 2, 1, 2, 5
	cfg.Out = t.TempDir()
	cfg.Search.Playouts, cfg.Search.CheapPlayouts, cfg.Search.FullSearchProb = 8, 4, 0.5
	sum, err := Run(context.Background(), cfg, nil, Options{WorkerName: "net"})
	if err != nil {
		t.Fatal(err)
	}
	games, _ := readAll(t, cfg.Out)
	if sum.Games != 2 || len(games) != 2 {
		t.Fatalf("got %d games, %d in the files, want 2", sum.Games, len(games))
	}
	for _, g := range games {
		if want := "net-" + n.Hash(); g.Evaluator != want || g.RuleSet != "fetlar" {
			t.Errorf("game %s: got evaluator %q of rule set %s, want %q of fetlar", g.GameID, g.Evaluator, g.RuleSet, want)
		}
	}
}

// TestEvaluators: the run's own evaluators and their description; a
// network or planes that cannot be used is a *SettingError naming its key.
func TestEvaluators(t *testing.T) {
	file := nettest.TinyFile(t, 3)
	n, _, err := net.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, net, planes string
		wantID, wantDesc  string // the evaluators' ID and the description
		wantKey           string // of the error, "" for none
	}{
		{"built-in", "", "", mcts.NewHeuristic().ID(), "the built-in evaluator", ""},
		{"network", file, "", "net-" + n.Hash(), file, ""},
		{"planes", file, "copenhagen-classic", "net-" + n.Hash() + "-as-copenhagen-classic", file + " (with the planes of copenhagen-classic)", ""},
		{"missing network", filepath.Join(t.TempDir(), "none.safetensors"), "", "", "", "net"},
		{"unknown planes", file, "chess", "", "", "net_planes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := configs.DefaultSelfPlay()
			cfg.Net, cfg.NetPlanes = c.net, c.planes
			newEval, desc, err := Evaluators(cfg)
			if c.wantKey != "" {
				var se *SettingError
				if !errors.As(err, &se) || se.Key != c.wantKey {
					t.Fatalf("got %v, want a *SettingError of %s", err, c.wantKey)
				}
				if c.name == "missing network" && (!errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "net: ")) {
					t.Errorf("got %q, want net's error, which is os.ErrNotExist", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e, err := newEval()
			if err != nil || e.ID() != c.wantID || desc != c.wantDesc {
				t.Errorf("got evaluator %v (%v), description %q; want %q and %q", e.ID(), err, desc, c.wantID, c.wantDesc)
			}
		})
	}
}
