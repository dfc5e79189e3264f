package fileio

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestReadLimitLong: an input far past the limit is refused without
// reading far past the limit.
func TestReadLimitLong(t *testing.T) {
	r := bytes.NewReader(make([]byte, 16<<20))
	_, err := ReadLimit("zero", r, 1<<20, "an Arrow file")
	if read := r.Size() - int64(r.Len()); err == nil || read > 2<<20 {
		t.Errorf("16 MiB: got %v after %d bytes, want an error within 2 MiB", err, read)
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * StaleTempAge)
	files := []struct {
		name   string
		stale  bool // older than the age
		remove bool // want it removed
	}{
		{".a.positions.arrow.tmp-123456", true, true},
		{".b.games.arrow.tmp-9", true, true},
		{".match.json.tmp-42", true, true},
		{".a.positions.arrow.tmp-777", false, false}, // fresh: a writer may be about to rename it
		{"a.positions.arrow", true, false},           // data
		{".a.positions.arrow.tmp-", true, false},     // not our pattern
		{".a.positions.arrow.tmp-12x", true, false},
		{"a.tmp-123", true, false}, // not hidden
		{".tmp-123", true, false},
		{".notes.txt", true, false},
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.stale {
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".d.tmp-1"), 0o755); err != nil { // a folder: never
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, ".d.tmp-1"), old, old)

	removed, err := RemoveStaleTemps(dir, "", StaleTempAge)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		_, statErr := os.Stat(filepath.Join(dir, f.name))
		if gone := statErr != nil; gone != f.remove {
			t.Errorf("%s: got removed %v, want %v", f.name, gone, f.remove)
		}
		if f.remove {
			want = append(want, filepath.Join(dir, f.name))
		}
	}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("got removed %v, want %v", removed, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ".d.tmp-1")); err != nil {
		t.Errorf("got the folder .d.tmp-1 removed, want it kept")
	}

	// One target's only.
	for _, name := range []string{".x.json.tmp-1", ".y.json.tmp-2"} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, nil, 0o644)
		os.Chtimes(path, old, old)
	}
	if removed, _ := RemoveStaleTemps(dir, "x.json", StaleTempAge); !slices.Equal(removed, []string{filepath.Join(dir, ".x.json.tmp-1")}) {
		t.Errorf("base x.json: got removed %v, want only .x.json.tmp-1", removed)
	}
	if _, err := RemoveStaleTemps(filepath.Join(dir, "none"), "", StaleTempAge); err == nil {
		t.Errorf("a missing folder: got no error, want one")
	}
}
