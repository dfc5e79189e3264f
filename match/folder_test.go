package match_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
	"taflab/rules"
	"taflab/stats"
)

// folderMatch is a match of 6 pairs that never decides, on one worker.
func folderMatch() match.RunConfig {
	v := variants.MustLoad("fetlar")
	return match.RunConfig{Test: match.FixedPairs, Openings: "a book",
		Match: match.Config{Variant: v, A: builtin("a", 12), B: builtin("b", 6), Search: mcts.DefaultConfig(),
			Openings: openings.Book(v, 6, 4, 5), MaxPairs: 6, Workers: 1}}
}

// TestFolderOpen: a new match refuses a folder with a journal (StartNew),
// a resume refuses one without (ResumeOnly) or with another identity, and
// ResumeAny takes either.
func TestFolderOpen(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, match.JournalFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, match.JournalFile+match.IdentitySuffix), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	cases := []struct {
		name     string
		dir      string
		resume   match.Resume
		identity string
		want     error  // errors.Is, or nil
		wantAs   string // "identity" for an *IdentityError
		resumed  bool
	}{
		{"new in an empty folder", empty, match.StartNew, "x", nil, "", false},
		{"new over a journal", dir, match.StartNew, "kept", match.ErrUnfinishedMatch, "", false},
		{"resume without a journal", empty, match.ResumeOnly, "x", match.ErrNoJournal, "", false},
		{"resume, same identity", dir, match.ResumeOnly, "kept", nil, "", true},
		{"resume, other identity", dir, match.ResumeOnly, "other", nil, "identity", true},
		{"any, none there", empty, match.ResumeAny, "", nil, "", false},
		{"any, a journal there", dir, match.ResumeAny, "", nil, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := match.Folder{Dir: c.dir, Identity: c.identity}
			defer f.Close() // no match is played: the folder is free for the next case
			rc := folderMatch()
			err := f.Open(&rc.Match, c.resume)
			var ie *match.IdentityError
			switch {
			case c.wantAs == "identity":
				if !errors.As(err, &ie) || ie.Kept != "kept" || ie.Given != c.identity {
					t.Errorf("got %v, want an *IdentityError of %q and %q", err, "kept", c.identity)
				}
			case !errors.Is(err, c.want) || (c.want == nil && err != nil):
				t.Errorf("got %v, want %v", err, c.want)
			}
			if err == nil && f.Resumed() != c.resumed {
				t.Errorf("Resumed: got %v, want %v", f.Resumed(), c.resumed)
			}
		})
	}
}

// TestFolderPlay: a match stopped part-way keeps its journal and identity
// (and, WriteStopped, its files of the pairs so far); resumed from the
// folder it plays the rest and ends with the games of the match played in
// one go, its run files gone.
func TestFolderPlay(t *testing.T) {
	whole := match.Folder{Dir: filepath.Join(t.TempDir(), "whole")}
	rc := folderMatch()
	if err := whole.Open(&rc.Match, match.ResumeAny); err != nil {
		t.Fatal(err)
	}
	want, _, err := whole.Play(context.Background(), rc)
	if err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(t.TempDir(), "cut")
	cut := match.Folder{Dir: dir, Identity: "the flags", WriteStopped: true}
	rc = folderMatch()
	if err := cut.Open(&rc.Match, match.StartNew); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rc.OnPair = func(p match.Pair, r stats.Report) {
		if r.Pairs >= 2 {
			cancel()
		}
	}
	stopped, _, err := cut.Play(ctx, rc)
	cancel()
	if !errors.Is(err, context.Canceled) || stopped.Stopped != "interrupted" {
		t.Fatalf("got %v, stopped %q; want context.Canceled and the files of an interrupted match", err, stopped.Stopped)
	}
	for _, name := range []string{match.JournalFile, match.JournalFile + match.IdentitySuffix, match.FileName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s after a stop: %v, want it kept", name, err)
		}
	}

	again := match.Folder{Dir: dir, Identity: "the flags", WriteStopped: true}
	rc = folderMatch()
	if err := again.Open(&rc.Match, match.ResumeOnly); err != nil {
		t.Fatal(err)
	}
	if len(rc.Match.Played) < 2 {
		t.Fatalf("got %d pairs read back, want the 2 or more played before the stop", len(rc.Match.Played))
	}
	got, _, err := again.Play(context.Background(), rc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Games, want.Games) || got.Report != want.Report {
		t.Errorf("got %d games and %+v, want the whole match's %d games and %+v", len(got.Games), got.Report, len(want.Games), want.Report)
	}
	for _, name := range []string{match.JournalFile, match.JournalFile + match.IdentitySuffix} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s once the match is done: got %v, want it removed", name, err)
		}
	}
	if f, err := match.ReadFile(dir); err != nil || len(f.Games) != len(want.Games) {
		t.Errorf("match.json: got %d games, %v; want %d", len(f.Games), err, len(want.Games))
	}
}

// TestFolderJournalBeside: a journal outside the folder (the loop's
// gen-NNN/gate.pairs.jsonl) is kept there, and a stopped match without
// WriteStopped writes no files.
func TestFolderJournalBeside(t *testing.T) {
	root := t.TempDir()
	dir, journal := filepath.Join(root, "gate"), filepath.Join(root, "gate.pairs.jsonl")
	f := match.Folder{Dir: dir, Journal: journal}
	rc := folderMatch()
	if err := f.Open(&rc.Match, match.ResumeAny); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rc.OnPair = func(match.Pair, stats.Report) { cancel() }
	if _, _, err := f.Play(ctx, rc); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	cancel()
	if pairs, err := match.ReadPairs(journal); err != nil || len(pairs) == 0 {
		t.Errorf("journal: got %d pairs, %v; want the pairs played", len(pairs), err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s: got %v, want no folder for a stopped match", dir, err)
	}
}

// playedJournal plays two pairs of folderMatch into a folder, stops the
// match, and returns the folder and its journal's lines.
func playedJournal(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	f := match.Folder{Dir: dir}
	rc := folderMatch()
	if err := f.Open(&rc.Match, match.StartNew); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pairs := 0
	rc.OnPair = func(match.Pair, stats.Report) {
		if pairs++; pairs == 2 {
			cancel()
		}
	}
	if _, _, err := f.Play(ctx, rc); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, match.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("got %d journal lines, want 2 pairs", len(lines))
	}
	return dir, lines
}

// TestJournalChecked: a journal is checked as it is read back, each line
// by its checksum and each game replayed under the rules from its
// opening, and a line that fails is refused naming the line (issue 36: a
// move changed in pairs.jsonl was taken, and games.csv then held an
// illegal game). A line without a checksum (written before there were
// any) is replayed only; the journal as written resumes.
func TestJournalChecked(t *testing.T) {
	_, lines := playedJournal(t)
	// doctor changes the first move of line 2's first game to another
	// legal-looking square, and writes the line back with or without a
	// checksum that fits it.
	doctor := func(line string, move func(p *match.Pair), sum bool) string {
		text, _, _ := strings.Cut(line, "\t")
		var p match.Pair
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatal(err)
		}
		move(&p)
		b, _ := json.Marshal(p)
		if sum {
			return fmt.Sprintf("%s\t%08x", b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
		}
		return string(b)
	}
	otherMove := func(ply int) func(p *match.Pair) {
		return func(p *match.Pair) {
			m := &p.Games[0].Moves[ply]
			*m = rules.NewMove(m.From(), m.From()) // a move to its own square: never legal
		}
	}
	otherWinner := func(p *match.Pair) {
		w := &p.Games[1].Outcome.Winner
		if *w == rules.AttackersWin {
			*w = rules.DefendersWin
		} else {
			*w = rules.AttackersWin
		}
	}
	unsummed := func(line string) string { text, _, _ := strings.Cut(line, "\t"); return text }
	cases := []struct {
		name  string
		line2 string
		want  string // "" for a journal taken
	}{
		{"as written", lines[1], ""},
		{"without checksums, as an older build wrote", unsummed(lines[1]), ""},
		{"the first move changed, its checksum made to fit", doctor(lines[1], otherMove(0), true), "the game of A attacking: its moves do not begin with its opening's 4"},
		{"a move after the opening changed, its checksum made to fit", doctor(lines[1], otherMove(4), true), "the game of A attacking: ply 5: "},
		{"a move changed, no checksum", doctor(lines[1], otherMove(4), false), "the game of A attacking: ply 5: "},
		{"a move changed, the checksum left", strings.Replace(lines[1], `"Moves":[`, `"Moves":[1,`, 1), "pairs.jsonl: line 2: the checksum is "},
		{"a result changed, its checksum made to fit", doctor(lines[1], otherWinner, true), "the game of B attacking: "},
		{"a checksum that is not one", unsummed(lines[1]) + "\tzz", `pairs.jsonl: line 2: "zz" is not a checksum`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, lines := playedJournal(t)
			lines[1] = c.line2
			if err := os.WriteFile(filepath.Join(dir, match.JournalFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f := match.Folder{Dir: dir}
			defer f.Close()
			rc := folderMatch()
			err := f.Open(&rc.Match, match.ResumeOnly)
			if c.want == "" {
				if err != nil || len(rc.Match.Played) != len(lines) {
					t.Errorf("got %v and %d pairs, want the journal's %d", err, len(rc.Match.Played), len(lines))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "pairs.jsonl: line 2: ") || strings.Contains(err.Error(), "rules: ") {
				t.Errorf("got %v, want an error naming line 2 and saying %q, under package match's name alone", err, c.want)
			}
		})
	}
}

// TestFolderLocked: one process at a time plays a match in a folder:
// while another holds it, Open is refused with fileio.ErrLocked naming it,
// and writes nothing; once it is free, the match opens.
func TestFolderLocked(t *testing.T) {
	dir := t.TempDir()
	l, err := fileio.LockDir(dir, "the other match")
	if err != nil {
		t.Fatal(err)
	}
	f := match.Folder{Dir: dir}
	rc := folderMatch()
	err = f.Open(&rc.Match, match.StartNew)
	if !errors.Is(err, fileio.ErrLocked) || !strings.Contains(err.Error(), "the other match, process") {
		t.Errorf("got %v, want fileio.ErrLocked naming the other match", err)
	}
	l.Unlock()
	if err := f.Open(&rc.Match, match.StartNew); err != nil {
		t.Errorf("once free: got %v, want the folder opened", err)
	}
	f.Close()
}
