package balance

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/internal/nettest"
	"taflab/player"
)

// runFigures is what two runs of the same games share.
func runFigures(r RunReport) [4]any {
	return [4]any{r.Games, r.Defenders, r.Attackers, r.Lengths}
}

// TestJournalResume: a study stopped after some games and carried on from
// its journal counts the games it had and plays only the rest, and comes
// to the figures of a study that ran through; run again once done, it
// plays nothing.
func TestJournalResume(t *testing.T) {
	whole := tiny("fetlar", "copenhagen")
	whole.MaxGames = 6
	want, err := Run(context.Background(), whole)
	if err != nil {
		t.Fatal(err)
	}

	cfg := whole
	cfg.Journal = filepath.Join(t.TempDir(), JournalFile)
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Progress = func(p Progress) {
		if p.Variant == "fetlar" && p.Games == 3 {
			cancel() // stopped in the first run
		}
	}
	stopped, err := Run(ctx, cfg)
	if err != context.Canceled || !stopped.Interrupted {
		t.Fatalf("got %v (interrupted %v), want the study stopped", err, stopped.Interrupted)
	}
	kept := countLines(t, cfg.Journal, `"game":`)
	if kept < 3 {
		t.Fatalf("got %d games in the journal, want at least the 3 counted", kept)
	}

	var played []int // games counted after the journal's, by run
	cfg.Progress = func(p Progress) {
		if p.Games == 0 {
			played = append(played, 0)
		}
	}
	got, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var cpu, wall float64
	for i := range want.Runs {
		if runFigures(got.Runs[i]) != runFigures(want.Runs[i]) {
			t.Errorf("run %d: got %v, want %v as the study that ran through", i, runFigures(got.Runs[i]), runFigures(want.Runs[i]))
		}
		cpu, wall = cpu+got.Runs[i].CPUSeconds, wall+got.Runs[i].Seconds
	}
	if cpu <= 0 || wall <= 0 {
		t.Errorf("got %v CPU seconds and %v seconds, want both counted", cpu, wall)
	}
	if n := countLines(t, cfg.Journal, `"game":`); n != 12 {
		t.Errorf("got %d games in the journal, want 12: the kept ones not played again", n)
	}

	before := countLines(t, cfg.Journal, `"game":`)
	again, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := countLines(t, cfg.Journal, `"game":`); n != before {
		t.Errorf("got %d games in the journal, want %d: a finished study plays none", n, before)
	}
	for i := range want.Runs {
		if runFigures(again.Runs[i]) != runFigures(want.Runs[i]) {
			t.Errorf("run %d again: got %v, want %v", i, runFigures(again.Runs[i]), runFigures(want.Runs[i]))
		}
	}
}

// TestJournalRefusals: a journal whose runs were played otherwise, or
// whose lines were changed, is refused naming what and where; a torn last
// line is dropped.
func TestJournalRefusals(t *testing.T) {
	dir := t.TempDir()
	cfg := tiny("fetlar")
	cfg.Journal = filepath.Join(dir, JournalFile)
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(cfg.Journal)
	if err != nil {
		t.Fatal(err)
	}
	reset := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(cfg.Journal, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		edit func(c *Config) []byte
		want string // in the error; "" none
	}{
		{"other seed", func(c *Config) []byte { c.Seed++; return good }, "line 1: run fetlar builtin-4 was played with other seed"},
		{"more games", func(c *Config) []byte { c.MaxGames = 6; return good }, ""},
		{"changed line", func(c *Config) []byte {
			return bytes.Replace(good, []byte(`"winner":"defenders"`), []byte(`"winner":"attackers"`), 1)
		}, "the line was changed or damaged"},
		{"torn tail", func(c *Config) []byte { return append(bytes.Clone(good), `{"game":{"varia`...) }, ""},
		{"an illegal move, its checksum made to fit", func(c *Config) []byte {
			return refit(t, good, 1, `"moves":"`, `"moves":"a1-a2 `)
		}, "line 2: game "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			reset(tt.edit(&c))
			_, err := Run(context.Background(), c)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("got %v, want none", err)
				}
				if data, _ := os.ReadFile(cfg.Journal); !bytes.HasSuffix(data, []byte("\n")) {
					t.Errorf("got a journal ending %q, want whole lines", data[max(0, len(data)-20):])
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), cfg.Journal) || strings.Contains(err.Error(), "rules: ") {
				t.Errorf("got %v, want an error naming %s and %q, and package balance alone", err, cfg.Journal, tt.want)
			}
		})
	}
}

// refit returns journal with old replaced by new once in its line of index
// i (from 0), the line's checksum made to fit.
func refit(t *testing.T, journal []byte, i int, old, new string) []byte {
	t.Helper()
	lines := bytes.SplitAfter(journal, []byte("\n"))
	tab := bytes.LastIndexByte(lines[i], '\t')
	if tab < 0 || !bytes.Contains(lines[i][:tab], []byte(old)) {
		t.Fatalf("line %d %q: no checksum, or no %q", i+1, lines[i], old)
	}
	text := bytes.Replace(lines[i][:tab], []byte(old), []byte(new), 1)
	lines[i] = fmt.Appendf(text, "\t%08x\n", crc32.Checksum(text, journalCRC))
	return bytes.Join(lines, nil)
}

// TestOwnNetworks: a net=own player plays each rule set with its own
// network, under one name; a rule set without one is refused.
func TestOwnNetworks(t *testing.T) {
	files := map[string]string{"fetlar": nettest.TinyFile(t, 1), "copenhagen": nettest.TinyFile(t, 2)}
	cfg := tiny("fetlar", "copenhagen")
	cfg.MaxGames = 2
	cfg.Players = []player.Spec{player.NetworkSpec(OwnNetwork, 2)}
	cfg.Strengths = []int{1, 2}
	cfg.Networks = files
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rep.Players, " "), "own-1 own-2"; got != want {
		t.Errorf("got players %q, want %q", got, want)
	}
	if got := len(rep.Comparisons); got != 2 {
		t.Errorf("got %d comparisons, want the rule sets compared at each strength", got)
	}
	for _, r := range rep.Runs {
		if r.Network != files[r.Variant] || !strings.HasPrefix(r.Evaluator, "net-") {
			t.Errorf("%s %s: got network %q (%s), want %q", r.Variant, r.Player, r.Network, r.Evaluator, files[r.Variant])
		}
	}
	if md := rep.Markdown(); !strings.Contains(md, "| fetlar | "+files["fetlar"]+" | net-") {
		t.Errorf("got\n%s\nwant the table of each rule set's network", md)
	}

	delete(cfg.Networks, "copenhagen")
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "rule set copenhagen has no network of its own") {
		t.Errorf("got %v, want copenhagen's missing network named", err)
	}
}

// countLines counts the lines of a file that hold text.
func countLines(t *testing.T, path, text string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte(text))
}
