package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildForTest builds a package into dir and returns the program's path.
func buildForTest(t *testing.T, dir, name, pkg string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// runningPrograms counts the processes whose command line starts with the
// program bin (a path under the test's own temporary folder, so no other
// process has it).
func runningPrograms(t *testing.T, bin string) int {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(paths) == 0 {
		t.Skipf("no /proc to look for processes in: %v", err)
	}
	n := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err == nil && strings.HasPrefix(string(data), bin+"\x00") {
			n++
		}
	}
	return n
}

// TestBalanceEngine: eval balance with taflab's engine (cmd/engine) as the
// player, through UCI and through OTEP: it plays itself, one instance per
// side, every game ends by the rules, the report names the engine, and no
// instance is left running.
func TestBalanceEngine(t *testing.T) {
	dir := t.TempDir()
	bin := buildForTest(t, dir, "engine", "../engine")
	for _, c := range []struct{ name, player string }{
		{"uci", "uci:cmd=" + bin + " -protocol uci -net builtin,nodes=8"},
		{"otep", `otep:cmd="` + bin + ` -protocol otep -net builtin -playouts 8",movetime=50,name=otep-self`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			// 3 games: two pairs, the second pair's second game not counted.
			code, msg, rep := runBalanceTest(t, context.Background(), out, "-variants", "copenhagen", "-player", c.player,
				"-games", "3", "-width", "0", "-openings", "suite")
			if code != 0 || rep == nil {
				t.Fatalf("exit %d: %s", code, msg)
			}
			if len(rep.Runs) != 1 {
				t.Fatalf("got %d runs, want 1", len(rep.Runs))
			}
			r := rep.Runs[0]
			if r.Games != 3 || r.Stopped != "max-games" || !strings.Contains(r.Engine, bin) || r.Forfeits != 0 {
				t.Fatalf("got %d games, stopped %q, engine %q, %d forfeits (%s); want 3 games of %s, max-games, no forfeit",
					r.Games, r.Stopped, r.Engine, r.Forfeits, r.FirstForfeit, bin)
			}
			checkRates(t, c.name, 3, r.Attackers, r.Defenders, r.Draws)
			sum := 0
			for _, e := range ruleEndings {
				sum += r.Endings[e]
			}
			if sum != 3 {
				t.Errorf("endings by the rules: got %v, want all 3 games", r.Endings)
			}
			checkOutputs(t, out, "is an engine program", r.Player)
			waitNone(t, bin)
		})
	}
}

// TestBalanceEngineForfeits: an engine that answers every request for a
// move with an illegal one loses each game it is to move first in; the
// games are recorded as forfeits of the attackers, the program is started
// again for each game, and none is left running.
func TestBalanceEngineForfeits(t *testing.T) {
	dir := t.TempDir()
	bin := buildForTest(t, dir, "misbehave", "../../engine/testdata/misbehave")
	out := t.TempDir()
	code, msg, rep := runBalanceTest(t, context.Background(), out, "-variants", "copenhagen",
		"-player", "otep:cmd="+bin+" -mode illegal -protocol otep,movetime=20,name=illegal", "-games", "4", "-width", "0")
	if code != 0 || rep == nil || len(rep.Runs) != 1 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	r := rep.Runs[0]
	if r.Games != 4 || r.Forfeits != 4 || r.Endings["forfeit-illegal-move"] != 4 || r.Defenders.Wins != 4 {
		t.Fatalf("got %d games, %d forfeits, endings %v, %d defender wins; want 4 games the attackers forfeit by an illegal move",
			r.Games, r.Forfeits, r.Endings, r.Defenders.Wins)
	}
	if !strings.Contains(r.FirstForfeit, "the attackers: illegal-move") || r.Lengths.Max != 0 {
		t.Errorf("first forfeit %q, longest game %d plies; want the attackers' illegal first move", r.FirstForfeit, r.Lengths.Max)
	}
	checkOutputs(t, out, "Engine forfeits", "forfeit-illegal-move")
	waitNone(t, bin)
}

// waitNone fails the test if an instance of bin is still running shortly
// after the run returned (Close kills and waits for each program; the
// grace is for /proc to catch up, not for the programs).
func waitNone(t *testing.T, bin string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runningPrograms(t, bin) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d instances of %s still running after the run: want every engine program ended", runningPrograms(t, bin), bin)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
