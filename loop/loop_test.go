package loop

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/match"
	"taflab/mcts"
	"taflab/net"
	"taflab/openings"
	"taflab/player"
	"taflab/rules"
	"taflab/stats"
)

// someFinishedPairs plays n pairs of two tiny builtin searchers.
func someFinishedPairs(t *testing.T, n int) []match.Pair {
	t.Helper()
	v := variants.MustLoad("copenhagen")
	a, _ := player.Parse("builtin:playouts=8")
	b, _ := player.Parse("builtin:playouts=4")
	cfg := match.Config{Variant: v, A: a, B: b, Search: mcts.DefaultConfig(), Openings: openings.Book(v, n, 6, 9), MaxPairs: n, Workers: 1}
	res, err := match.RunSPRT(context.Background(), cfg, stats.SPRT{Elo0: 0, Elo1: 1, Alpha: 1e-9, Beta: 1e-9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Pairs
}

func writeJournal(t *testing.T, path string, pairs []match.Pair, tail string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		if err := match.AppendPair(f, p); err != nil {
			t.Fatal(err)
		}
	}
	f.WriteString(tail)
	f.Close()
}

func TestReadPairs(t *testing.T) {
	pairs := someFinishedPairs(t, 2)
	dir := t.TempDir()
	tests := []struct {
		name    string
		tail    string
		want    int    // pairs read
		wantErr string // "" for none
	}{
		{"whole", "", 2, ""},
		{"torn last line", `{"Index":7,"Games":[{"Pai`, 2, ""},
		{"bad line", "{\"Index\":7,\"Games\":oops}\n", 0, "line 3"},
		{"unfinished game", "{\"Index\":7}\n", 0, "line 3: pair 7 holds an unfinished"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+PairsJournalSuffix)
			writeJournal(t, path, pairs, tt.tail)
			got, err := match.ReadPairs(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("got error %v, want one naming %s and %q", err, path, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Fatalf("got %d pairs, want %d", len(got), tt.want)
			}
			// A torn tail is cut, so that appended pairs start a line.
			again, err := match.ReadPairs(path)
			if err != nil || len(again) != tt.want {
				t.Fatalf("read again: got %d pairs, %v; want %d and no error", len(again), err, tt.want)
			}
		})
	}
	if got, err := match.ReadPairs(filepath.Join(dir, "none"+PairsJournalSuffix)); got != nil || err != nil {
		t.Errorf("missing journal: got %v, %v; want no pairs and no error", got, err)
	}
}

// TestPlayMatchKeepsJournaledPairs resumes a match whose journal holds two
// finished pairs: the match files hold those two games as they were and the
// pairs it still had to play, and the journal is gone.
func TestPlayMatchKeepsJournaledPairs(t *testing.T) {
	cfg := configs.DefaultLoop()
	cfg.SelfPlay.Workers = 1
	v := variants.MustLoad("copenhagen")
	a, _ := player.Parse("builtin:playouts=8")
	b, _ := player.Parse("builtin:playouts=4")
	test := stats.SPRT{Elo0: 0, Elo1: 1, Alpha: 1e-9, Beta: 1e-9}
	// Pairs 0 and 3 of the match, from its openings, but played by other
	// budgets: games the match would not play again as they are. The
	// journal is checked as it is read (each game replayed from its pair's
	// opening), so its pairs are the match's.
	ops, _, err := openings.Openings(cfg.Gate.Openings, v, 5, cfg.Gate.OpeningPlies, 1)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := player.Parse("builtin:playouts=16")
	res, err := match.RunSPRT(context.Background(), match.Config{Variant: v, A: other, B: b, Search: mcts.DefaultConfig(), Openings: ops, MaxPairs: 5, Workers: 1}, test, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kept []match.Pair // any of the match's indices may be the finished ones
	for _, p := range res.Pairs {
		if p.Index == 0 || p.Index == 3 {
			kept = append(kept, p)
		}
	}
	dir := filepath.Join(t.TempDir(), "gate")
	writeJournal(t, dir+PairsJournalSuffix, kept, "")
	played, err := newLoopRun(t.TempDir(), cfg, v).playMatch(context.Background(), dir, v, cfg.Gate.Openings, a, b, 5, test, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := match.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(played, f) {
		t.Errorf("got the match %+v returned, want the file's %+v", played, f)
	}
	if got, want := len(f.Games), 10; got != want {
		t.Fatalf("got %d games, want %d", got, want)
	}
	byPair := map[int][]string{}
	for _, g := range f.Games {
		byPair[g.Pair] = append(byPair[g.Pair], g.Moves)
	}
	if len(byPair) != 5 {
		t.Errorf("got pairs %v, want 0 to 4", len(byPair))
	}
	keptFile := match.NewFile(v, a, b, test, match.Result{Pairs: kept})
	for _, g := range keptFile.Games {
		found := false
		for _, m := range byPair[g.Pair] {
			found = found || m == g.Moves
		}
		if !found {
			t.Errorf("pair %d: got its games played again, want the journal's kept", g.Pair)
		}
	}
	if _, err := os.Stat(dir + PairsJournalSuffix); !os.IsNotExist(err) {
		t.Errorf("got journal still there (%v), want it removed", err)
	}
}

func TestBestName(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ run, net, want string }{
		{"runs/lc", filepath.Join(wd, "runs/lc/gen-001/train/network.safetensors"), "gen-001"},
		{filepath.Join(wd, "runs/lc"), filepath.Join(wd, "runs/lc/gen-012/train/network.safetensors"), "gen-012"},
		{"runs/lc", "/elsewhere/mine.safetensors", "mine.safetensors"},
	}
	for _, tt := range tests {
		if got := bestName(tt.run, tt.net); got != tt.want {
			t.Errorf("bestName(%q, %q): got %q, want %q", tt.run, tt.net, got, tt.want)
		}
	}
}

// recordsFile writes n games of copenhagen-classic as game records: the
// same random 10 plies each (seeded), Black and White by turns.
func recordsFile(t *testing.T, n int) string {
	t.Helper()
	v := variants.MustLoad("copenhagen-classic")
	g := rules.NewGame(v)
	var moves []rules.Move
	var b strings.Builder
	for i := range n {
		g.Reset()
		rng := rand.New(rand.NewPCG(2, 2))
		var parts []string
		for g.Ply() < 10 && !g.Outcome().Over() {
			moves = g.GenerateMoves(moves[:0])
			g.Make(moves[rng.IntN(len(moves))])
			m, captured := g.LastMove()
			parts = append(parts, string(rules.AppendMove(nil, m, captured)))
		}
		fmt.Fprintf(&b, "%s,0,0,%s\n", strings.Join(parts, " "), []string{"Black", "White"}[i%2])
	}
	path := filepath.Join(t.TempDir(), "records.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoopPretrainsOnRecords runs a tiny loop with game records of another
// rule set: generation 0 trains on them alone, and generation 1's
// self-play is played by that network shown the records' rule-set planes,
// into the run's own rule set; the candidate starts from its weights.
func TestLoopPretrainsOnRecords(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Generations = 1
	cfg.Train.Records.File = recordsFile(t, 12)
	cfg.Train.Records.Optional = false
	cfg.Baseline.Odds = nil
	run := filepath.Join(t.TempDir(), "run")
	var log strings.Builder
	if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	pre := pretrained(run)
	if pre == "" {
		t.Fatalf("no generation-0 network; log:\n%s", log.String())
	}
	n, _, err := net.Load(pre)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(GenDir(run, 1), "selfplay.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := "net-" + n.Hash() + " (with the planes of copenhagen-classic)"
	if !strings.Contains(string(data), want) {
		t.Errorf("generation 1's self-play: got %s, want it played by %s", data, want)
	}
	games, err := filepath.Glob(filepath.Join(run, DataDir, "*"+datasets.GamesSuffix))
	if err != nil || len(games) == 0 {
		t.Fatalf("no self-play games: %v", err)
	}
	rows, meta, err := datasets.ReadGamesFile(games[0])
	if err != nil {
		t.Fatal(err)
	}
	if meta.Definition.Name != "copenhagen" || !strings.HasPrefix(rows[0].Evaluator, "net-"+n.Hash()+"-as-copenhagen-classic") {
		t.Errorf("got games of %s by %s, want copenhagen by the generation-0 network with classic planes", meta.Definition.Name, rows[0].Evaluator)
	}
	// A second run of the same folder trains generation 0 no more.
	log.Reset()
	cfg.Generations = 1
	if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{Log: &log}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "generation 0") {
		t.Errorf("a resumed run trained generation 0 again:\n%s", log.String())
	}
}

// TestOptionalRecordsDecidedOnce: optional records absent when a run
// begins stay out of it when they turn up later; a run that began with
// them trains on them.
func TestOptionalRecordsDecidedOnce(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	present := recordsFile(t, 4)
	later := filepath.Join(t.TempDir(), "later.csv")
	cfg.Train.Records.Optional = true
	cases := []struct {
		name, file string
		pretrain   int
		want       string // the records of generation 2's training
	}{
		{"absent, with a generation 0", later, 6, ""},
		{"absent, without one", later, 0, ""},
		{"present, without a generation 0", present, 0, present},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := cfg
			cfg.Train.Records.File, cfg.Train.PretrainSteps = c.file, c.pretrain
			run := filepath.Join(t.TempDir(), "run")
			var log strings.Builder
			r := newLoopRun(run, cfg, variants.MustLoad(cfg.Variant))
			r.log = &log
			if err := r.pretrain(context.Background()); err != nil {
				t.Fatal(err)
			}
			if absent := c.want == ""; absent != strings.Contains(log.String(), "self-play alone") {
				t.Errorf("log: got %q, want the absence said when it is one", log.String())
			}
			// The file turns up after the run began.
			data, err := os.ReadFile(present)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(later, data, 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(later)
			if got := trainConfig(run, GenDir(run, 2), cfg, 2).Records.File; got != c.want {
				t.Errorf("generation 2's records: got %q, want %q", got, c.want)
			}
		})
	}
}

// TestLoopSameRunAnyWorkers runs one generation of the tiny loop on one
// worker and on three: the self-play, the trained network, the gate's games
// and the rating's games come out the same.
func TestLoopSameRunAnyWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tiny loop twice")
	}
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Generations = 1
	cfg.Baseline.Odds = nil
	var runs []string
	for _, workers := range []int{1, 3} {
		cfg.SelfPlay.Workers = workers
		cfg.SelfPlay.GamesPerWorker = 2
		run := filepath.Join(t.TempDir(), fmt.Sprint("run-", workers))
		var log strings.Builder
		if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{Log: &log}); err != nil {
			t.Fatalf("%d workers: %v\n%s", workers, err, log.String())
		}
		runs = append(runs, run)
	}
	gen := GenDir(runs[0], 1)
	// The checkpoint is not among them: it names its data files, whose
	// names hold the time they were written.
	files := []string{filepath.Join("gate", "games.csv"), filepath.Join("baseline", "games.csv"),
		filepath.Join("train", "network.safetensors")}
	for _, rel := range files {
		one, err := os.ReadFile(filepath.Join(gen, rel))
		if err != nil {
			t.Fatal(err)
		}
		three, err := os.ReadFile(filepath.Join(GenDir(runs[1], 1), rel))
		if err != nil {
			t.Fatal(err)
		}
		if string(one) != string(three) {
			t.Errorf("%s: got %d bytes on three workers that differ from the %d on one, want the same", rel, len(three), len(one))
		}
	}
	// The self-play games, in the order of their seeds.
	games := func(run string) []string {
		rows := runGames(t, run)
		if len(rows) == 0 {
			t.Fatalf("%s: no self-play games", run)
		}
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%d %v %s", r.Seed, r.Winner, strings.Join(r.Moves, " ")))
		}
		slices.Sort(out)
		return out
	}
	if one, three := games(runs[0]), games(runs[1]); !slices.Equal(one, three) {
		t.Errorf("got self-play games on three workers that differ from those on one:\n%v\nwant\n%v", three, one)
	}
}

// TestFromLast: with train.from_last, generation 2's candidate starts from
// generation 1's, promoted or not; without it, from the best network.
func TestFromLast(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Baseline.Games, cfg.Baseline.Odds = 0, nil
	for _, fromLast := range []bool{false, true} {
		t.Run(fmt.Sprint("from_last=", fromLast), func(t *testing.T) {
			cfg.Train.FromLast = fromLast
			run := filepath.Join(t.TempDir(), "run")
			var log strings.Builder
			if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{Log: &log}); err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			last := filepath.Join(GenDir(run, 1), "train", "network.safetensors")
			// Without it, generation 2 starts from the best network: while
			// the network-free searcher is the best, from generation 0's
			// network (trained on the embedded human archive), unless
			// generation 1 was promoted.
			prefix := fmt.Sprintf("generation 2: training, %d steps from ", cfg.Train.Steps)
			want := prefix + "new weights"
			if pre := pretrained(run); pre != "" {
				want = prefix + pre
			}
			if best, err := best(run); err != nil {
				t.Fatal(err)
			} else if best == last || fromLast {
				want = prefix + last
			}
			if !strings.Contains(log.String(), want) {
				t.Errorf("got log\n%s\nwant a line with %q", log.String(), want)
			}
		})
	}
}

// TestGenName: GenName's names read back, and names of other forms are
// refused.
func TestGenName(t *testing.T) {
	for _, g := range []int{0, 1, 42, 999, 1000, 12345} {
		if got, ok := ParseGenName(GenName(g)); !ok || got != g {
			t.Errorf("ParseGenName(%q): got %d, %v, want %d", GenName(g), got, ok, g)
		}
	}
	for _, name := range []string{"", "gen-", "gen-01", "gen-0x1", "gen-+01", "gen-001a", "Gen-001", "host-1-gen-001"} {
		if g, ok := ParseGenName(name); ok {
			t.Errorf("ParseGenName(%q): got %d, ok; want a name of another form", name, g)
		}
	}
}

// TestPromote: a match that accepted H1 promotes its network (the pointer
// holds the absolute path, the match and its result); any other decision
// writes nothing.
func TestPromote(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, BestFile)
	for _, d := range []stats.Decision{stats.AcceptH0, stats.Continue} {
		f := match.File{Report: stats.Report{Decision: d, Elo: 10}}
		if promoted, err := Promote(path, "net.safetensors", "gate", f); promoted || err != nil {
			t.Errorf("%v: got promoted %v, %v; want no promotion", d, promoted, err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%v: got %v, want no pointer written", d, err)
		}
	}
	f := match.File{Report: stats.Report{Decision: stats.AcceptH1, Elo: 42, LLR: 3}}
	if promoted, err := Promote(path, "net.safetensors", "gate", f); !promoted || err != nil {
		t.Fatalf("H1: got promoted %v, %v; want a promotion", promoted, err)
	}
	p, err := ReadBestPointer(path)
	abs, _ := filepath.Abs("net.safetensors")
	if err != nil || p.Network != abs || p.Match != "gate" || p.Elo != 42 || p.LLR != 3 {
		t.Errorf("got %+v, %v; want %s promoted by gate at Elo 42, LLR 3", p, err, abs)
	}
	// A pointer of an older version, with a key no longer written, reads.
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"network": "/runs/a/gen-001/train/network.safetensors", "hash": "", "elo": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadBestPointer(old); err != nil || p.Elo != 5 {
		t.Errorf("an older pointer: got %+v, %v; want it read", p, err)
	}
}

// buildCommand builds taflab/cmd/NAME into the test's temporary folder and
// returns the program's path.
func buildCommand(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("go", "build", "-o", bin, "taflab/cmd/"+name).CombinedOutput(); err != nil {
		t.Fatalf("go build taflab/cmd/%s: %v\n%s", name, err, out)
	}
	return bin
}

// TestLoopFromInit runs a tiny loop from a given network that knows
// copenhagen-classic's planes, rated against where it started: generation
// 0 is that network with copenhagen's planes adopted and is the best from
// the start, so it plays the first self-play and the first gate; the
// ratings are anchored at it; and the run records its CPU time by stage,
// which the summary adds up.
func TestLoopFromInit(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	start, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 11)
	if err != nil {
		t.Fatal(err)
	}
	start.SetPlanesOf(variants.MustLoad("copenhagen-classic"))
	initFile := filepath.Join(t.TempDir(), "start.safetensors")
	if err := start.Save(initFile, nil); err != nil {
		t.Fatal(err)
	}
	cfg.Generations = 2
	cfg.Train.Init, cfg.Train.PretrainSteps = initFile, 0
	cfg.Baseline.Opponent, cfg.Baseline.Odds = configs.BaselineStart, nil
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	var log strings.Builder
	var sum RunSummary
	if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{Log: &log, OnGeneration: func(s RunSummary) { sum = s }}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	gen0 := pretrained(run)
	n, _, err := net.Load(gen0)
	if err != nil {
		t.Fatalf("generation 0: %v\n%s", err, log.String())
	}
	if n.PlanesOf() != nil {
		t.Errorf("generation 0 knows the planes of %s alone, want them adopted (none named)", n.PlanesOf().Name())
	}
	adopted := start.Clone()
	if err := adopted.AdoptPlanes(variants.MustLoad("copenhagen-classic"), variants.MustLoad("copenhagen")); err != nil {
		t.Fatal(err)
	}
	if n.Hash() != adopted.Hash() {
		t.Errorf("generation 0 is net-%s, want the given network with copenhagen's planes adopted, net-%s", n.Hash(), adopted.Hash())
	}
	data, err := os.ReadFile(filepath.Join(GenDir(run, 1), "selfplay.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `"net-` + n.Hash() + `"`; !strings.Contains(string(data), want) {
		t.Errorf("generation 1's self-play: got %s, want it played by %s with the run's planes", data, want)
	}
	gate, err := match.ReadFile(filepath.Join(GenDir(run, 1), "gate"))
	if err != nil {
		t.Fatal(err)
	}
	if gate.B.Name != GenName(0) {
		t.Errorf("generation 1's gate: got %s as the best, want %s", gate.B.Name, GenName(0))
	}
	for g := 1; g <= 2; g++ {
		base, err := match.ReadFile(filepath.Join(GenDir(run, g), "baseline"))
		if err != nil {
			t.Fatal(err)
		}
		if base.B.Name != GenName(0) || base.B.Playouts != cfg.Baseline.Playouts {
			t.Errorf("generation %d's rating games: got %s at %d playouts, want %s at %d", g, base.B.Name, base.B.Playouts, GenName(0), cfg.Baseline.Playouts)
		}
	}
	if sum.Ratings == nil || sum.Ratings.Anchor != GenName(0) {
		t.Fatalf("got ratings %+v, want them anchored at %s", sum.Ratings, GenName(0))
	}
	if len(sum.Generations) != 2 {
		t.Fatalf("got %d generations summarized, want 2", len(sum.Generations))
	}
	cpu0, err := readCPU(GenDir(run, 0))
	if err != nil {
		t.Fatal(err)
	}
	prev := cpu0["train"]
	for _, s := range sum.Generations {
		for _, stage := range []Stage{StageSelfPlay, StageTrain, StageGate, StageBaseline} {
			if !(s.CPUSeconds[stage] > 0) {
				t.Errorf("generation %d: got %v CPU seconds in %s, want some", s.Generation, s.CPUSeconds[stage], stage)
			}
		}
		cost := s.CPUSeconds["selfplay"] + s.CPUSeconds["train"] + s.CPUSeconds["gate"]
		if got, want := s.CPUHours*3600, prev+cost; math.Abs(got-want) > 1e-6 {
			t.Errorf("generation %d: got %v CPU seconds so far, want %v (the ones before and its self-play, training and gate)", s.Generation, got, want)
		}
		prev = s.CPUHours * 3600
	}
	md, err := os.ReadFile(filepath.Join(run, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "Ratings are Elo against generation 0's network (gen-000)") || !strings.Contains(string(md), "CPU hours") {
		t.Errorf("summary.md: got\n%s\nwant the anchor and the CPU hours named", md)
	}
}

// TestLoopInitMissing: a train.init that is not a network file stops the
// run before any self-play, naming the key.
func TestLoopInitMissing(t *testing.T) {
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Train.Init = filepath.Join(t.TempDir(), "none.safetensors")
	run := filepath.Join(t.TempDir(), "run")
	err = Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{})
	if err == nil || !strings.Contains(err.Error(), "train.init") || !strings.Contains(err.Error(), "none.safetensors") {
		t.Errorf("got %v, want an error naming train.init and the file", err)
	}
	if _, err := os.Stat(GenDir(run, 1)); err == nil {
		t.Errorf("got %s made, want the run stopped before generation 1", GenDir(run, 1))
	}
}
