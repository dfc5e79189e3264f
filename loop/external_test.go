package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/match"
	"taflab/net"
	"taflab/player"
)

// lockedBuffer is a follower's output, written by its process's copier
// and read by the test (guarded by mu).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestExternalLoopWithFollowers runs the tiny loop with external self-play
// and two followers, real processes of cmd/selfplay; one is SIGKILLed after
// its first shard of a network and started again. Both generations
// complete; each took at least its quota of games, all played by its own
// player (generation 0's network for generation 1, while the followers
// started on the network-free searcher before it was trained; generation
// 1's if it was promoted, which the gate decides on games that depend on
// timing, so the checks cover both outcomes), no shard is taken twice,
// every file in the data folder is whole, and each generation's training
// read only the shards of its own and earlier generations. The followers
// then stop on their own.
func TestExternalLoopWithFollowers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cmd/selfplay")
	}
	bin := buildCommand(t, "selfplay")
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.SelfPlay.External = true
	cfg.SelfPlay.Games = 6
	cfg.Train.Records.File, cfg.Train.Records.Optional = recordsFile(t, 12), false
	cfg.Baseline.Games, cfg.Baseline.Odds = 0, nil
	// A lax gate, so that generation 1 is mostly promoted and the followers
	// switch networks mid-run; the checks hold either way.
	cfg.Gate.Elo0, cfg.Gate.Elo1, cfg.Gate.Alpha, cfg.Gate.Beta = -700, -400, 0.3, 0.3
	run := filepath.Join(t.TempDir(), "run")

	type follower struct {
		cmd *exec.Cmd
		out *lockedBuffer
	}
	start := func(host string) follower {
		t.Helper()
		f := follower{out: &lockedBuffer{}}
		f.cmd = exec.Command(bin, "-follow", run, "-workers", "1", "-games-per-worker", "2", "-shard-games", "2", "-host", host)
		f.cmd.Stdout, f.cmd.Stderr = f.out, f.out
		if err := f.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// The run is set up as the loop starts it, and the followers play
	// (the network-free searcher, as nothing is trained yet) until each has
	// written a shard: so both hosts are in the summary and both switch
	// networks mid-run, whatever the timing.
	if err := setUp(run, cfg, configs.TinyLoopFile(), variants.MustLoad(cfg.Variant)); err != nil {
		t.Fatal(err)
	}
	a, b := start("host-a"), start("host-b")
	defer func() {
		a.cmd.Process.Kill()
		b.cmd.Process.Kill()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// waitFor waits until follower f (host) has a whole shard of which some
	// game satisfies ok.
	waitFor := func(f follower, host string, ok func(datasets.GameRow) bool, what string, log *lockedBuffer) {
		t.Helper()
		for {
			names, _ := filepath.Glob(filepath.Join(run, DataDir, "*-"+host+"-*"+datasets.PositionsSuffix))
			for _, n := range names {
				rows, _, err := datasets.ReadGamesFile(strings.TrimSuffix(n, datasets.PositionsSuffix) + datasets.GamesSuffix)
				if err != nil {
					t.Fatal(err)
				}
				if slices.ContainsFunc(rows, ok) {
					return
				}
			}
			if ctx.Err() != nil {
				t.Fatalf("no shard of %s by %s\n%s\nloop:\n%s", what, host, f.out.String(), log.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	anyGame := func(datasets.GameRow) bool { return true }
	var log lockedBuffer
	waitFor(a, "host-a", anyGame, "any game", &log)
	waitFor(b, "host-b", anyGame, "any game", &log)

	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, run, cfg, configs.TinyLoopFile(), Options{Log: &log, Poll: 20 * time.Millisecond})
	}()

	// SIGKILL follower a mid-run, after its first shard of a network, and
	// start it again.
	firstPid := a.cmd.Process.Pid
	waitFor(a, "host-a", func(r datasets.GameRow) bool { return strings.HasPrefix(r.Evaluator, "net-") }, "a network's games", &log)
	a.cmd.Process.Signal(syscall.SIGKILL)
	a.cmd.Wait()
	a = start("host-a")

	if err := <-done; err != nil {
		t.Fatalf("loop: %v\n%s\nfollower a:\n%s\nfollower b:\n%s", err, log.String(), a.out.String(), b.out.String())
	}
	// The followers stop on their own once the run needs no more
	// self-play (selfplay-done.json), writing their finished games: exit 0.
	for _, f := range []follower{a, b} {
		exited := make(chan error, 1)
		go func() { exited <- f.cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil || !strings.Contains(f.out.String(), "needs no more self-play") {
				t.Errorf("follower after the loop: got %v, want exit 0 as the run is done\n%s", err, f.out.String())
			}
		case <-time.After(time.Minute):
			f.cmd.Process.Kill()
			<-exited
			t.Errorf("follower: still playing a minute after the loop was done\n%s", f.out.String())
		}
	}

	// Each generation's player, found independently of the loop.
	hashOf := func(path string) string {
		n, _, err := net.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return "net-" + n.Hash()
	}
	want := map[int]string{1: hashOf(pretrained(run)) + "-as-copenhagen-classic"}
	want[2] = want[1]
	if m, err := match.ReadFile(filepath.Join(GenDir(run, 1), "gate")); err != nil {
		t.Fatal(err)
	} else if m.Decision == "H1" {
		want[2] = hashOf(filepath.Join(GenDir(run, 1), "train", "network.safetensors"))
	}
	t.Logf("players: %v", want)

	dataDir := filepath.Join(run, DataDir)
	takenBy := map[string]int{}
	for g := 1; g <= 2; g++ {
		st, err := readSelfplayStats(GenDir(run, g))
		if err != nil {
			t.Fatal(err)
		}
		if !st.External || st.Evaluator != want[g] {
			t.Errorf("generation %d: got external %v by %s, want external by %s", g, st.External, st.Evaluator, want[g])
		}
		games := 0
		for _, sh := range st.Shards {
			if h, ok := takenBy[sh.Name]; ok {
				t.Errorf("shard %s: got taken by generations %d and %d, want one", sh.Name, h, g)
			}
			takenBy[sh.Name] = g
			rows, _, err := datasets.ReadGamesFile(filepath.Join(dataDir, sh.Name+datasets.GamesSuffix))
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != sh.Games {
				t.Errorf("shard %s: got %d games in the file, want the %d recorded", sh.Name, len(rows), sh.Games)
			}
			for _, r := range rows {
				if r.Evaluator != want[g] {
					t.Errorf("generation %d: shard %s holds a game of %s, want only %s", g, sh.Name, r.Evaluator, want[g])
				}
			}
			games += len(rows)
		}
		if games < cfg.SelfPlay.Games || games != st.Games {
			t.Errorf("generation %d: got %d games in its shards (%d recorded), want at least %d", g, games, st.Games, cfg.SelfPlay.Games)
		}
		// Training read exactly the shards of this and earlier generations.
		_, meta, err := net.ReadSafetensors(filepath.Join(GenDir(run, g), "train", "checkpoint.safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		if err := json.Unmarshal([]byte(meta["taflab.data_files"]), &files); err != nil {
			t.Fatal(err)
		}
		read := map[string]bool{}
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), datasets.PositionsSuffix)
			read[name] = true
			if h := takenBy[name]; h == 0 || h > g {
				t.Errorf("generation %d trained on %s, taken by generation %d; want only generation 1 to %d's shards", g, name, h, g)
			}
		}
		for _, sh := range st.Shards {
			if !read[sh.Name] {
				t.Errorf("generation %d did not train on its shard %s", g, sh.Name)
			}
		}
	}
	// Every file in the data folder is whole, and no game is in two shards.
	if _, err := datasets.OpenWindow(dataDir, 0, 1); err != nil {
		t.Errorf("the data folder: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dataDir, "*"+datasets.GamesSuffix))
	ids, hosts, stale := map[string]bool{}, map[string]int{}, 0
	for _, f := range files {
		rows, _, err := datasets.ReadGamesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), datasets.GamesSuffix)
		_, worker, _, _ := datasets.ParseShardName(name)
		hosts[strings.SplitN(worker, "-", 3)[1]]++
		for _, r := range rows {
			if ids[r.GameID] {
				t.Errorf("game %s: got it in two shards, want one", r.GameID)
			}
			ids[r.GameID] = true
			if r.Evaluator != want[1] && r.Evaluator != want[2] {
				stale++
			}
		}
	}
	if hosts["a"] == 0 || hosts["b"] == 0 {
		t.Errorf("got shards by host %v, want both followers'", hosts)
	}
	if len(takenBy) == 0 || firstPid == a.cmd.Process.Pid {
		t.Errorf("got %d shards taken, follower a restarted as pid %d (first %d)", len(takenBy), a.cmd.Process.Pid, firstPid)
	}
	// The network-free searcher's games, played before generation 0's
	// network was there, are in the folder and count for no generation.
	if stale == 0 {
		t.Errorf("got no game of another player than the generations', want the followers' first games")
	}
	t.Logf("%d shards, %d taken, %d games of no generation's player", len(files), len(takenBy), stale)
	// The summary's throughput per worker host.
	data, err := os.ReadFile(filepath.Join(run, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum RunSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Generations) != 2 || len(sum.Hosts) != 2 {
		t.Fatalf("summary.json: got %d generations and hosts %+v, want 2 generations and hosts host-a and host-b", len(sum.Generations), sum.Hosts)
	}
	for i, h := range sum.Hosts {
		if want := []string{"host-a", "host-b"}[i]; h.Host != want || h.Games < 2 || h.Positions <= h.Games || h.GamesPerHour <= 0 || h.PositionsPerHour <= h.GamesPerHour {
			t.Errorf("summary.json: got host %+v, want %s with games, positions and their rates", h, want)
		}
	}
}

// TestExternalStageResumes stops the loop's external self-play stage while
// it waits, and again between naming its shards and marking the stage
// done (as a SIGKILL there would), and resumes it: generations 1 and 2
// (the same player: generation 1 not promoted) take disjoint shards, the
// oldest first, with at least their quota each; a resumed choice is the
// same; no shard of the player older than the newest taken is left out;
// a games file without its positions file (a writer killed between the
// renames) and a temporary file are never taken; training reads exactly
// the taken shards.
func TestExternalStageResumes(t *testing.T) {
	run, cfg := tinyRun(t)
	cfg.SelfPlay.Games = 3
	self := playerSpec{} // the network-free searcher: nothing is trained
	_, label, err := self.evaluators(new(player.Loader))
	if err != nil {
		t.Fatal(err)
	}
	// play has a follower write n more games (shards of one game).
	play := func(n int, seed uint64) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var started atomic.Int32
		opt := FollowOptions{Workers: 1, GamesPerWorker: 1, ShardGames: 1, Seed: seed, Host: "h"}
		opt.started = func(string) {
			if started.Add(1) > int32(n) {
				cancel() // game n+1 is dropped; the n before it are written
			}
		}
		if sum, err := Follow(ctx, run, opt); err != nil || sum.Games != n {
			t.Fatalf("follower: got %d games, %v; want %d", sum.Games, err, n)
		}
	}
	stage := func(g int, stopAfter time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), stopAfter)
		defer cancel()
		if err := os.MkdirAll(GenDir(run, g), 0o755); err != nil {
			t.Fatal(err)
		}
		r := newLoopRun(run, cfg, variants.MustLoad(cfg.Variant))
		r.poll = time.Millisecond
		gen := &generation{run: r, n: g, dir: GenDir(run, g), self: self, players: new(player.Loader)}
		if err := gen.externalSelfPlay(ctx); err != nil {
			return err
		}
		return mark(gen.dir, StageSelfPlay)
	}
	dataDir := filepath.Join(run, DataDir)

	play(2, 11)
	// A games file alone, named older than any shard, and a temporary file.
	first, _ := filepath.Glob(filepath.Join(dataDir, "*"+datasets.GamesSuffix))
	data, err := os.ReadFile(first[0])
	if err != nil {
		t.Fatal(err)
	}
	orphan := datasets.ShardName(time.Unix(1, 0), "killed-1", 0)
	for _, name := range []string{orphan + datasets.GamesSuffix, "." + orphan + datasets.PositionsSuffix + ".tmp-1"} {
		if err := os.WriteFile(filepath.Join(dataDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Two games of three: the stage waits, is stopped, names no shard.
	if err := stage(1, 50*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stopped while waiting: got %v, want the context's error", err)
	}
	if st, err := readSelfplayStats(GenDir(run, 1)); err != nil || len(st.Shards) != 0 || done(GenDir(run, 1), "selfplay") {
		t.Fatalf("stopped while waiting: got %+v, %v, done %v; want no shard named and the stage not done", st, err, done(GenDir(run, 1), "selfplay"))
	}
	play(5, 12)
	if err := stage(1, time.Minute); err != nil {
		t.Fatal(err)
	}
	st1, err := readSelfplayStats(GenDir(run, 1))
	if err != nil {
		t.Fatal(err)
	}
	// Stopped after naming its shards, before the mark: chosen again, the same.
	if err := os.Remove(filepath.Join(GenDir(run, 1), "selfplay.done")); err != nil {
		t.Fatal(err)
	}
	if err := stage(1, time.Minute); err != nil {
		t.Fatal(err)
	}
	again, err := readSelfplayStats(GenDir(run, 1))
	if err != nil {
		t.Fatal(err)
	}
	names := func(st selfplayStats) []string {
		var out []string
		for _, sh := range st.Shards {
			out = append(out, sh.Name)
		}
		return out
	}
	if !slices.Equal(names(again), names(st1)) {
		t.Errorf("generation 1 resumed after naming its shards: got %v, want %v again", names(again), names(st1))
	}
	if err := stage(2, time.Minute); err != nil {
		t.Fatal(err)
	}
	st2, err := readSelfplayStats(GenDir(run, 2))
	if err != nil {
		t.Fatal(err)
	}

	var all []string // the player's whole shards, oldest first
	files, _ := filepath.Glob(filepath.Join(dataDir, "*"+datasets.PositionsSuffix))
	for _, f := range files {
		all = append(all, strings.TrimSuffix(filepath.Base(f), datasets.PositionsSuffix))
	}
	slices.Sort(all)
	taken := append(names(st1), names(st2)...)
	if len(all) != 7 || len(taken) != 6 || !slices.Equal(taken, all[:6]) {
		t.Errorf("got shards %v taken of %v, want the oldest 6 of the 7 whole ones, generation 1's first", taken, all)
	}
	for g, st := range map[int]selfplayStats{1: st1, 2: st2} {
		if st.Games != cfg.SelfPlay.Games || st.Evaluator != label || !st.External {
			t.Errorf("generation %d: got %d games by %s (external %v), want %d by %s", g, st.Games, st.Evaluator, st.External, cfg.SelfPlay.Games, label)
		}
	}
	train, err := trainFiles(run, 2)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, f := range train {
		read = append(read, strings.TrimSuffix(filepath.Base(f), datasets.PositionsSuffix))
	}
	want := slices.Clone(taken)
	slices.Reverse(want)
	if !slices.Equal(read, want) {
		t.Errorf("generation 2 trains on %v, want %v (its shards, then generation 1's, newest first)", read, want)
	}
}
