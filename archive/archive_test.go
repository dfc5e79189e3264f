package archive_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/archive"
	"taflab/configs/variants"
	"taflab/datasets"
)

// TestArchivesReplayWhole replays every embedded archive under its rule set
// as training reads it: every game is accepted, none is lost, and the
// counts are the archive's.
func TestArchivesReplayWhole(t *testing.T) {
	for _, a := range archive.All() {
		t.Run(a.Name, func(t *testing.T) {
			v := variants.MustLoad(a.Variant)
			games, err := datasets.ReadRecordGames(a.Name, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(games); got != a.Games {
				t.Errorf("games: got %d, want %d", got, a.Games)
			}
			lines := 0
			for _, l := range strings.Split(string(a.Data()), "\n") {
				if strings.TrimSpace(l) != "" {
					lines++
				}
			}
			if lines != a.Games {
				t.Errorf("non-blank lines: got %d, want %d", lines, a.Games)
			}
			positions := 0
			for i, g := range games {
				if len(g.Moves) == 0 || len(g.Positions) != len(g.Moves) {
					t.Errorf("game %d (line %d): %d moves, %d positions; want moves, a position before each", i, g.Line, len(g.Moves), len(g.Positions))
				}
				positions += len(g.Moves)
			}
			t.Logf("%s: %d games, %d positions", a.Name, len(games), positions)
		})
	}
}

// TestCopenhagenIsTheSourceFile: the embedded file is the archive as its
// source publishes it (archive/README.md gives its checksum), so that its
// line numbers, which choose the held-out games, are those the shipped
// network was trained with.
func TestCopenhagenIsTheSourceFile(t *testing.T) {
	a, ok := archive.Lookup(archive.Copenhagen)
	if !ok {
		t.Fatalf("Lookup(%q): not found", archive.Copenhagen)
	}
	sum := sha256.Sum256(a.Data())
	got := hex.EncodeToString(sum[:])
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), got) {
		t.Errorf("SHA-256 %s is not the one README.md gives", got)
	}
	if a.Variant != "copenhagen-classic" || a.License != "CC0-1.0" || a.Source == "" {
		t.Errorf("got rule set %q, licence %q, source %q; want copenhagen-classic, CC0-1.0 and a source", a.Variant, a.License, a.Source)
	}
}

func TestOpenAndStat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.csv")
	if err := os.WriteFile(file, []byte("d1-d3,0,0,Ongoing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		want     string // the first bytes read, "" for an error
		notExist bool   // the error is fs.ErrNotExist
		unknown  bool   // the error is ErrUnknown
	}{
		{archive.Copenhagen, "h1-h3 f8-i8", false, false},
		{file, "d1-d3,0,0", false, false},
		{filepath.Join(dir, "none.csv"), "", true, false},
		{"archive:none", "", true, true},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.name), func(t *testing.T) {
			statErr := archive.Stat(c.name)
			f, err := archive.Open(c.name)
			if c.want == "" {
				if err == nil || statErr == nil {
					t.Fatalf("got Open error %v, Stat error %v; want errors", err, statErr)
				}
				for _, e := range []error{err, statErr} {
					if errors.Is(e, fs.ErrNotExist) != c.notExist || errors.Is(e, archive.ErrUnknown) != c.unknown {
						t.Errorf("got %v: want fs.ErrNotExist %v, ErrUnknown %v", e, c.notExist, c.unknown)
					}
				}
				if c.unknown && !strings.Contains(err.Error(), archive.Copenhagen) {
					t.Errorf("got %q, want the archives there are named", err)
				}
				return
			}
			if err != nil || statErr != nil {
				t.Fatalf("got Open error %v, Stat error %v; want none", err, statErr)
			}
			defer f.Close()
			data, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte(c.want)) {
				t.Errorf("got %.20q, want it to start %q", data, c.want)
			}
		})
	}
}

// TestIsName: names with the prefix are archives, never files.
func TestIsName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{archive.Copenhagen, true},
		{"archive:other", true},
		{"copenhagen-games.csv", false},
		{"../shared/data/copenhagen-games.csv", false},
		{"", false},
	} {
		if got := archive.IsName(c.name); got != c.want {
			t.Errorf("IsName(%q): got %v, want %v", c.name, got, c.want)
		}
	}
}
