package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/adapt"
	"taflab/balance"
	"taflab/configs"
	"taflab/configs/variants"
	"taflab/internal/nettest"
	"taflab/internal/varianttest"
)

// adaptTinyLoop is train adapt's loop (a copy of configs/adapt.toml, as
// -print-config prints it) at its smallest: one generation of a few games
// at a few playouts, a few steps, a gate and rating games of a pair.
func adaptTinyLoop() string {
	return strings.NewReplacer("generations = 3", "generations = 1", "games = 192", "games = 4", "playouts = 400", "playouts = 8",
		"cheap_playouts = 100", "cheap_playouts = 2", "steps = 400", "steps = 4", "batch_size = 256", "batch_size = 16",
		"checkpoint_every = 100", "checkpoint_every = 2", `file = "archive:copenhagen"`, `file = ""`, "max_games = 160", "max_games = 2",
		"playouts = 200", "playouts = 4", "games = 40", "games = 2").Replace(string(configs.AdaptLoopFile()))
}

// adaptArgs are the arguments of a tiny train adapt of copenhagen without
// edge forts, from a tiny network, with the given balance games.
func adaptArgs(t *testing.T, run, games string) []string {
	t.Helper()
	dir := t.TempDir()
	data, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(`name = "copenhagen"`, `name = "copenhagen-nofort"`, "edge_fort = true", "edge_fort = false").Replace(string(data))
	file := varianttest.WriteFile(t, dir, "copenhagen-nofort.toml", text)
	cfg := varianttest.WriteFile(t, dir, "loop.toml", adaptTinyLoop())
	return []string{"adapt", "-variant", file, "-run", run, "-from", nettest.TinyFile(t, 1), "-config", cfg,
		"-strengths", "1,2", "-games", games, "-width", "0"}
}

// TestAdapt runs train adapt as a user would: the report printed and in
// the folder, then carried on with -run alone, which has nothing left to
// do; a run without a rule set is refused.
func TestAdapt(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	code, out := runTrainCmd(t, adaptArgs(t, run, "3")...)
	if code != 0 || !strings.Contains(out, "# copenhagen-nofort: a network adapted by self-play") || !strings.Contains(out, "| copenhagen-nofort | own-2 | 3 |") {
		t.Fatalf("got exit %d, want 0 and the report:\n%s", code, out)
	}
	for _, f := range []string{adapt.ReportFile, adapt.NetworkFile, filepath.Join(adapt.BalanceDir, balance.MarkdownFile)} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	code, out = runTrainCmd(t, "adapt", "-run", run)
	if code != 0 || strings.Contains(out, "self-play, 4 games (0 done)") {
		t.Errorf("carried on: got exit %d, want 0 and no self-play played again:\n%s", code, out)
	}
	if code, out := runTrainCmd(t, "adapt", "-run", filepath.Join(t.TempDir(), "none")); code != 2 || !strings.Contains(out, "give -variant") {
		t.Errorf("no rule set: got exit %d, want 2 and a message asking for -variant:\n%s", code, out)
	}
}

// TestAdaptKilled kills train adapt (SIGKILL) in its balance study and
// runs it again: it finishes with every game of the study played once.
func TestAdaptKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin := buildTrain(t)
	run := filepath.Join(t.TempDir(), "run")
	args := adaptArgs(t, run, "30")
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(run, adapt.BalanceDir, balance.JournalFile)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(2 * time.Millisecond) {
		if data, _ := os.ReadFile(journal); bytes.Count(data, []byte(`"game":`)) >= 5 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no games in the balance study after 2 minutes\n%s", out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("after SIGKILL: %v\n%s", err, b)
	}
	data, err := os.ReadFile(filepath.Join(run, adapt.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var rep adapt.Report
	if err := json.Unmarshal(data, &rep); err != nil || rep.Balance == nil {
		t.Fatalf("report.json: %v", err)
	}
	for _, r := range rep.Balance.Runs {
		if r.Games != 30 {
			t.Errorf("%s %s: got %d games, want 30", r.Variant, r.Player, r.Games)
		}
	}
	if got, _ := os.ReadFile(journal); bytes.Count(got, []byte(`"game":`)) != 60 {
		t.Errorf("got %d games in the journal, want 60: each played once", bytes.Count(got, []byte(`"game":`)))
	}
}
