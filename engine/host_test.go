package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/rules"
)

var (
	buildOnce sync.Once
	buildDir  string // removed by TestMain
	buildPath string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// misbehave builds testdata/misbehave once per test binary.
func misbehave(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "taflab-engine-test-"); buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "misbehave")
		if out, err := exec.Command("go", "build", "-o", buildPath, "./testdata/misbehave").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./testdata/misbehave: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// externalPlayer is an engine program as player A.
func externalPlayer(bin, proto, mode string, limit time.Duration) match.Player {
	x := External{Protocol: proto, Command: []string{bin, "-mode", mode, "-protocol", proto}, MoveTime: 20 * time.Millisecond}
	return match.Player{Name: proto + "-" + mode, NewProgram: x.Start, MoveLimit: limit}
}

func builtin(playouts int) match.Player {
	return match.Player{Name: "builtin", Playouts: playouts,
		NewEvaluator: func() (mcts.Evaluator, error) { return mcts.NewHeuristic(), nil }}
}

// TestExternalForfeits: an engine that hangs, one that plays an illegal
// move and one that exits mid-game each lose every game with the right
// reason (a crash's with the program's last words), the engine is
// restarted for the next game, and the match completes with every game.
func TestExternalForfeits(t *testing.T) {
	bin := misbehave(t)
	v := variants.MustLoad("copenhagen")
	for _, proto := range []string{OTEP, UCI} {
		for _, c := range []struct {
			mode, reason string
			plies        int    // the plies of A's game as attackers when it forfeits
			said         string // in the forfeit's detail: the program's last line
		}{
			{"hang", match.ForfeitTime, 0, ""},
			{"illegal", match.ForfeitIllegal, 0, ""},
			{"exit", match.ForfeitCrash, 4, `"fatal: asked for a third move"`}, // A's third move would be ply 5
		} {
			t.Run(proto+"/"+c.mode, func(t *testing.T) {
				cfg := match.Config{Variant: v, A: externalPlayer(bin, proto, c.mode, 400*time.Millisecond), B: builtin(16),
					Search: mcts.DefaultConfig(), MaxPairs: 2}
				var pairs []match.Pair
				if err := match.Play(context.Background(), cfg, func(p match.Pair) bool { pairs = append(pairs, p); return true }); err != nil {
					t.Fatal(err)
				}
				if len(pairs) != 2 {
					t.Fatalf("got %d pairs, want 2", len(pairs))
				}
				for _, p := range pairs {
					for half, g := range p.Games {
						if g.Forfeit != c.reason {
							t.Errorf("pair %d game %d: forfeit %q (%s), want %q", p.Index, half, g.Forfeit, g.ForfeitDetail, c.reason)
						}
						if g.ScoreA() != 0 {
							t.Errorf("pair %d game %d: A scored %v, want 0", p.Index, half, g.ScoreA())
						}
						if half == 0 && len(g.Moves) != c.plies {
							t.Errorf("pair %d game %d: %d plies, want %d", p.Index, half, len(g.Moves), c.plies)
						}
						if g.ForfeitDetail == "" || !strings.Contains(g.ForfeitDetail, c.said) {
							t.Errorf("pair %d game %d: detail %q, want one with %q", p.Index, half, g.ForfeitDetail, c.said)
						}
					}
				}
			})
		}
	}
}

// TestExternalSelfMatch: taflab's engine against itself, through each
// protocol as an external player, and against the built-in searcher: every
// move legal (the referee forfeits none), and each result the rules' own
// on replaying the moves.
func TestExternalSelfMatch(t *testing.T) {
	bin := misbehave(t)
	v := variants.MustLoad("copenhagen")
	uci := externalPlayer(bin, UCI, "good", 10*time.Second)
	otep := externalPlayer(bin, OTEP, "good", 10*time.Second)
	cfg := match.Config{Variant: v, A: otep, B: uci, Search: mcts.DefaultConfig(), MaxPairs: 1,
		Openings: openings.Book(v, 1, 4, 7)}
	var pairs []match.Pair
	if err := match.Play(context.Background(), cfg, func(p match.Pair) bool { pairs = append(pairs, p); return true }); err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1 {
		t.Fatalf("got %d pairs, want 1", len(pairs))
	}
	for half, g := range pairs[0].Games {
		if g.Forfeit != "" {
			t.Fatalf("game %d: forfeit %s: %s", half, g.Forfeit, g.ForfeitDetail)
		}
		replay := rules.NewGame(v)
		for i, m := range g.Moves {
			if err := replay.Play(m); err != nil {
				t.Fatalf("game %d, ply %d: %v", half, i+1, err)
			}
		}
		if replay.Outcome() != g.Outcome || !g.Outcome.Over() {
			t.Errorf("game %d: got %v, the rules say %v", half, g.Outcome, replay.Outcome())
		}
	}
}

// runningPrograms counts the processes whose command line holds bin (a
// path in the test's own temporary folder, which no other process has).
func runningPrograms(t *testing.T, bin string) int {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(paths) == 0 {
		t.Skipf("no /proc to look for processes in: %v", err)
	}
	n := 0
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), bin) {
			n++
		}
	}
	return n
}

// TestExternalStuckPrograms: programs that would hang a careless host
// each lose their game and leave nothing running: one that neither reads
// its input nor exits (killed at Close), one that writes a line past 1 MB
// (ended at once: it no longer speaks the protocol), and the first run by
// a shell that stays as its parent and whose child holds the output (the
// whole process group is killed).
func TestExternalStuckPrograms(t *testing.T) {
	bin := misbehave(t)
	v := variants.MustLoad("copenhagen")
	for _, c := range []struct {
		name   string
		cmd    []string
		reason string
	}{
		{"deaf", []string{bin, "-mode", "deaf", "-protocol", OTEP}, match.ForfeitTime},
		{"line past 1 MB", []string{bin, "-mode", "longline", "-protocol", OTEP}, match.ForfeitCrash},
		{"deaf under a shell", []string{"sh", "-c", bin + " -mode deaf -protocol otep; true"}, match.ForfeitTime},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.cmd[0] == "sh" {
				if _, err := exec.LookPath("sh"); err != nil {
					t.Skip("no sh")
				}
			}
			x := External{Protocol: OTEP, Command: c.cmd, MoveTime: 20 * time.Millisecond}
			cfg := match.Config{Variant: v, A: match.Player{Name: c.name, NewProgram: x.Start, MoveLimit: 300 * time.Millisecond},
				B: builtin(8), Search: mcts.DefaultConfig(), MaxPairs: 1}
			done := make(chan error, 1)
			var pairs []match.Pair
			go func() {
				done <- match.Play(context.Background(), cfg, func(p match.Pair) bool { pairs = append(pairs, p); return true })
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the match did not end: want each stuck program's game forfeited and the program ended")
			}
			if len(pairs) != 1 {
				t.Fatalf("got %d pairs, want 1", len(pairs))
			}
			for half, g := range pairs[0].Games {
				if g.Forfeit != c.reason || g.ScoreA() != 0 {
					t.Errorf("game %d: forfeit %q (%s), A scored %v; want %q and 0", half, g.Forfeit, g.ForfeitDetail, g.ScoreA(), c.reason)
				}
			}
			if n := runningPrograms(t, bin); n != 0 {
				t.Errorf("%d programs still running after the match: want none", n)
			}
		})
	}
}
