package loop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/fileio"
	"taflab/internal/nettest"
	"taflab/net"
)

// tinyRun sets up a run folder of the tiny config with external self-play,
// as the loop does when it starts.
func tinyRun(t *testing.T) (string, configs.Loop) {
	t.Helper()
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.SelfPlay.External = true
	run := filepath.Join(t.TempDir(), "run")
	if err := setUp(run, cfg, configs.TinyLoopFile(), variants.MustLoad(cfg.Variant)); err != nil {
		t.Fatal(err)
	}
	return run, cfg
}

func netLabel(t *testing.T, path string) string {
	t.Helper()
	n, _, err := net.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return "net-" + n.Hash()
}

func promote(t *testing.T, run, network string) {
	t.Helper()
	if err := fileio.WriteJSON(filepath.Join(run, BestFile), BestPointer{Network: network, Promoted: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
}

// runGames reads the data folder's games in shard order (oldest first).
func runGames(t *testing.T, run string) []datasets.GameRow {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(run, DataDir, "*"+datasets.GamesSuffix))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	var out []datasets.GameRow
	for _, f := range files {
		rows, _, err := datasets.ReadGamesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
	return out
}

// shardGames reads the data folder's games in shard order (oldest first):
// each game's evaluator.
func shardGames(t *testing.T, run string) []string {
	t.Helper()
	var out []string
	for _, r := range runGames(t, run) {
		out = append(out, r.Evaluator)
	}
	return out
}

// TestFollowSwitchesWithinOneGame promotes a network while a follower plays
// the third game it handed out: that game and the others in progress finish
// with the old network and are written, and every game started after the
// promotion is played by the new one; the old network's shards all come
// before the new one's.
func TestFollowSwitchesWithinOneGame(t *testing.T) {
	for _, slots := range []int{1, 2} {
		t.Run(map[int]string{1: "one game at a time", 2: "two at once"}[slots], func(t *testing.T) {
			run, _ := tinyRun(t)
			netA, netB := nettest.TinyFile(t, 1), nettest.TinyFile(t, 2)
			labelA, labelB := netLabel(t, netA), netLabel(t, netB)
			promote(t, run, netA)
			const promoteAt = 3
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var (
				mu      sync.Mutex
				started []string
			)
			opt := FollowOptions{Workers: 1, GamesPerWorker: slots, ShardGames: 1, Seed: 5, Host: "test"}
			opt.started = func(label string) {
				mu.Lock()
				defer mu.Unlock()
				started = append(started, label)
				if len(started) == promoteAt {
					promote(t, run, netB) // while this game is being set up: it plays with netA
				}
				if strings.Count(strings.Join(started, " "), labelB) > slots || len(started) > promoteAt+10 {
					cancel() // a game of netB is done (or a follower that never switches); those in progress are dropped
				}
			}
			done := make(chan error, 1)
			var sum FollowSummary
			go func() {
				var err error
				sum, err = Follow(ctx, run, opt)
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Minute):
				cancel()
				<-done
				t.Fatal("the follower did not start two games of the new network in 5 minutes")
			}
			mu.Lock()
			defer mu.Unlock()
			for i, l := range started {
				want := labelA
				if i >= promoteAt {
					want = labelB
				}
				if l != want {
					t.Errorf("game %d handed out: got %s, want %s (promoted while game %d was set up)", i+1, l, want, promoteAt)
				}
			}
			if got, want := sum.Networks, []string{labelA, labelB}; !slices.Equal(got, want) {
				t.Errorf("networks played: got %v, want %v", got, want)
			}
			games := shardGames(t, run)
			nA := 0
			for i, e := range games {
				if e == labelA {
					nA++
					if i > 0 && games[i-1] != labelA {
						t.Errorf("shard order: got a game of %s after one of %s, want the old network's all first", e, games[i-1])
					}
				} else if e != labelB {
					t.Errorf("got a game of %s, want %s or %s", e, labelA, labelB)
				}
			}
			if nB := len(games) - nA; nB < 1 {
				t.Errorf("got %d games of the new network written, want at least 1", nB)
			}
			if nA != promoteAt {
				t.Errorf("got %d games of the old network written, want the %d started before the switch (none dropped)", nA, promoteAt)
			}
			records, _ := filepath.Glob(filepath.Join(run, WorkersDir, "test-"+strconv.Itoa(os.Getpid())+"-*.json"))
			if len(records) != 1 {
				t.Fatalf("got worker records %v, want one", records)
			}
			data, err := os.ReadFile(records[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"`+labelA+`": 3`) {
				t.Errorf("worker record: got %s, want 3 games of %s", data, labelA)
			}
		})
	}
}

// TestFollowStopsWhenRunIsDone: once the loop says the run needs no more
// self-play (DoneFile), a follower writes its finished games, drops the
// one in progress and returns with Complete; one started afterwards
// returns at once. A run carried on to more generations removes the file
// as it starts, and keeps it when its last generation's games are in.
func TestFollowStopsWhenRunIsDone(t *testing.T) {
	run, cfg := tinyRun(t)
	opt := FollowOptions{Workers: 1, GamesPerWorker: 1, ShardGames: 1, Seed: 7, Host: "test", Poll: 10 * time.Millisecond}
	opt.started = func(label string) {
		if _, err := os.Stat(filepath.Join(run, DoneFile)); err != nil && len(shardGames(t, run)) >= 2 {
			if err := selfplayDone(run, cfg.Generations); err != nil {
				t.Error(err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sum, err := Follow(ctx, run, opt)
	if err != nil || !sum.Complete || ctx.Err() != nil {
		t.Fatalf("got %+v, %v (context %v), want a follower that stops on its own", sum, err, ctx.Err())
	}
	if games := len(shardGames(t, run)); games < 2 || games != sum.Games {
		t.Errorf("got %d games written and %d counted, want the same, at least 2", games, sum.Games)
	}
	if again, err := Follow(ctx, run, opt); err != nil || !again.Complete || again.Games != 0 {
		t.Errorf("a follower started after: got %+v, %v, want it complete with no game", again, err)
	}

	// Run removes the file when the last generation's games are not in
	// yet (a stopped context: it sets up, then stops), and keeps it once
	// they are.
	stopped, stop := context.WithCancel(context.Background())
	stop()
	for _, c := range []struct {
		name   string
		last   bool
		exists bool
	}{{"more generations", false, false}, {"the last generation's games in", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			if err := selfplayDone(run, cfg.Generations); err != nil {
				t.Fatal(err)
			}
			if c.last {
				if err := os.MkdirAll(GenDir(run, cfg.Generations), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := mark(GenDir(run, cfg.Generations), "selfplay"); err != nil {
					t.Fatal(err)
				}
			}
			if err := Run(stopped, run, cfg, configs.TinyLoopFile(), Options{}); err != context.Canceled {
				t.Errorf("Run: got %v, want it stopped by its context", err)
			}
			if _, err := os.Stat(filepath.Join(run, DoneFile)); (err == nil) != c.exists {
				t.Errorf("%s after Run: got %v, want it there %v", DoneFile, err, c.exists)
			}
		})
	}
}

// TestFollowReadsTheRunsSuite: a suite file that selfplay.mix.suite names
// is copied into the run folder as the loop starts, and a follower reads
// the copy: here the file is gone from where loop.toml says (a follower on
// another machine, in another folder) and every game still starts from
// its one position. A run whose copy differs from the file is refused.
func TestFollowReadsTheRunsSuite(t *testing.T) {
	data, _ := configs.OpeningSuite("copenhagen")
	var line string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			line = strings.TrimSpace(strings.SplitN(l, "#", 2)[0])
			break
		}
	}
	suite := filepath.Join(t.TempDir(), "mine.txt")
	if err := os.WriteFile(suite, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(configs.TinyLoopFile()), "suite_share = 0.5\nsuite = \"\"", "suite_share = 1.0\nsuite = \""+suite+"\"", 1)
	text = strings.Replace(text, "external = false", "external = true", 1)
	cfg, err := configs.ParseLoop("mine.toml", []byte(text))
	if err != nil || cfg.SelfPlay.Mix.Suite != suite || !cfg.SelfPlay.External {
		t.Fatalf("got %v, %+v; want the suite and external self-play", err, cfg.SelfPlay)
	}
	run := filepath.Join(t.TempDir(), "run")
	stopped, stop := context.WithCancel(context.Background())
	stop()
	if err := Run(stopped, run, cfg, []byte(text), Options{}); err != context.Canceled {
		t.Fatalf("setting up: got %v, want it stopped", err)
	}
	if err := os.Remove(suite); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := FollowOptions{Workers: 1, GamesPerWorker: 2, ShardGames: 1, Seed: 3, Host: "test"}
	var n atomic.Int32
	opt.started = func(string) {
		if n.Add(1) > 2 {
			cancel()
		}
	}
	if _, err := Follow(ctx, run, opt); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(run, DataDir, "*"+datasets.GamesSuffix))
	games := 0
	for _, f := range files {
		rows, _, err := datasets.ReadGamesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			games++
			if !strings.HasPrefix(line, r.Start) || r.Start == "" {
				t.Errorf("game %s: got start %q, want the suite's %q", r.GameID, r.Start, line)
			}
		}
	}
	if games == 0 {
		t.Error("got no game written, want some")
	}

	// The file back, changed: the run keeps its own suite.
	if err := os.WriteFile(suite, []byte(line+"\n"+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(stopped, run, cfg, []byte(text), Options{}); err == nil || !strings.Contains(err.Error(), "differs from this run's copy") {
		t.Errorf("another suite: got %v, want a refusal", err)
	}
}
