package match_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"taflab/configs/variants"
	"taflab/match"
	"taflab/mcts"
	"taflab/openings"
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
