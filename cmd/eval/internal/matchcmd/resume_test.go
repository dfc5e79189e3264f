package matchcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"taflab/internal/fileio"
	"taflab/match"
	"taflab/rules"
)

// TestResume: a match stopped by a signal keeps its finished pairs in
// OUT/pairs.jsonl, refuses to start again over them without -resume, and
// refuses -resume with other flags; resumed with the same flags it plays
// only the pairs it had not finished and ends with the games of a match
// played in one go, the journal gone.
func TestResume(t *testing.T) {
	args := []string{"-a", "builtin:playouts=24", "-b", "builtin:playouts=12", "-max-games", "40",
		"-elo0", "0", "-elo1", "1", "-alpha", "1e-9", "-beta", "1e-9", "-workers", "1"}
	run := func(ctx context.Context, out string, extra ...string) (int, string) {
		var buf bytes.Buffer
		code := Run(ctx, append(append(append([]string{}, args...), "-out", out), extra...), &buf, &buf)
		return code, buf.String()
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if code, msg := run(context.Background(), whole); code != 0 {
		t.Fatalf("whole match: got exit %d, want 0\n%s", code, msg)
	}
	want, err := match.ReadFile(filepath.Join(whole, "match.json"))
	if err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "cut")
	journal := filepath.Join(out, JournalFile)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // stop the match once two pairs are kept
		for ctx.Err() == nil {
			if data, err := os.ReadFile(journal); err == nil && bytes.Count(data, []byte("\n")) >= 2 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	code, msg := run(ctx, out)
	cancel()
	if code != 130 {
		t.Fatalf("stopped match: got exit %d, want 130\n%s", code, msg)
	}
	kept, err := match.ReadPairs(journal)
	if err != nil || len(kept) < 2 || len(kept) >= 20 {
		t.Fatalf("got %d pairs kept (%v), want 2 to 19 of 20", len(kept), err)
	}

	for _, c := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"without -resume", nil, "-resume to carry it on"},
		{"other flags", []string{"-resume", "-seed", "2"}, "give the same flags"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, msg := run(context.Background(), out, c.extra...); code != 2 || !strings.Contains(msg, c.want) {
				t.Errorf("got exit %d and %q, want 2 and a message with %q", code, msg, c.want)
			}
		})
	}
	if code, msg := run(context.Background(), filepath.Join(t.TempDir(), "none"), "-resume"); code != 2 || !strings.Contains(msg, "no interrupted match") {
		t.Errorf("-resume of an empty folder: got exit %d and %q, want 2 and no interrupted match", code, msg)
	}

	code, msg = run(context.Background(), out, "-resume")
	if code != 0 || !strings.Contains(msg, "resuming") {
		t.Fatalf("resumed match: got exit %d, want 0 and a note that it resumes\n%s", code, msg)
	}
	got, err := match.ReadFile(filepath.Join(out, "match.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Games, want.Games) || got.Report != want.Report {
		t.Errorf("got %d games and %+v, want the whole match's %d games and %+v", len(got.Games), got.Report, len(want.Games), want.Report)
	}
	for _, f := range []string{journal, journal + ".flags"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s: got %v, want it removed once the match is done", f, err)
		}
	}
}

// TestIssue36Match: issue 36's finding 7 and the match folder's lock, as
// they were run: eval match -resume after the first move of a game in
// pairs.jsonl was set to another square (the move was taken, exit 0, and
// games.csv then held an illegal game) is refused, exit 2, naming the line;
// a second eval match on a folder another process plays in is refused,
// exit 1, naming that process.
func TestIssue36Match(t *testing.T) {
	args := []string{"-a", "builtin:playouts=24", "-b", "builtin:playouts=12", "-max-games", "40",
		"-elo0", "0", "-elo1", "1", "-alpha", "1e-9", "-beta", "1e-9", "-workers", "1"}
	run := func(ctx context.Context, out string, extra ...string) (int, string) {
		var buf bytes.Buffer
		code := Run(ctx, append(append(append([]string{}, args...), "-out", out), extra...), &buf, &buf)
		return code, buf.String()
	}
	out := filepath.Join(t.TempDir(), "cut")
	journal := filepath.Join(out, JournalFile)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // stop the match once two pairs are kept
		for ctx.Err() == nil {
			if data, err := os.ReadFile(journal); err == nil && bytes.Count(data, []byte("\n")) >= 2 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	if code, msg := run(ctx, out); code != 130 {
		t.Fatalf("stopped match: got exit %d, want 130\n%s", code, msg)
	}
	cancel()

	held, err := fileio.LockDir(out, "another eval match")
	if err != nil {
		t.Fatal(err)
	}
	code, msg := run(context.Background(), out, "-resume")
	held.Unlock()
	if want := "in use by another process: another eval match, process "; code != 1 || !strings.Contains(msg, want) {
		t.Errorf("a second process on the folder: got exit %d and %q, want 1 and %q", code, msg, want)
	}

	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	line1, rest, _ := strings.Cut(string(data), "\n")
	text, _, _ := strings.Cut(line1, "\t")
	var p match.Pair
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		t.Fatal(err)
	}
	m := &p.Games[0].Moves[0]
	*m = rules.NewMove(m.From(), m.From()+1) // the first move, to another square
	b, _ := json.Marshal(p)
	doctored := fmt.Sprintf("%s\t%08x\n%s", b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)), rest)
	if err := os.WriteFile(journal, []byte(doctored), 0o644); err != nil {
		t.Fatal(err)
	}
	code, msg = run(context.Background(), out, "-resume")
	if want := fmt.Sprintf("%s: line 1: pair %d: the game of A attacking: ", journal, p.Index); code != 2 || !strings.Contains(msg, want) {
		t.Errorf("a doctored journal: got exit %d and %q, want 2 and %q", code, msg, want)
	}
	if _, err := os.Stat(filepath.Join(out, "games.csv")); err == nil {
		if f, err := match.ReadFile(out); err == nil && len(f.Games) > 0 && f.Stopped != "interrupted" {
			t.Errorf("a doctored journal: the match was played on (%d games)", len(f.Games))
		}
	}
}
