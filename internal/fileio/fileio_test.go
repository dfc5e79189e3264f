package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFileLimit(path, 10, "this file"); err != nil || string(data) != "0123456789" {
		t.Errorf("at the limit: got %q, %v, want the file", data, err)
	}
	if _, err := ReadFileLimit(path, 9, "this file"); err == nil || !strings.Contains(err.Error(), path+": more than 9 bytes") {
		t.Errorf("past the limit: got %v, want an error naming the file and the limit", err)
	}
	if _, err := ReadFileLimit(filepath.Join(dir, "none"), 9, "this file"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: got %v, want os.ErrNotExist as os.ReadFile gives", err)
	}
}

// TestWriteFileRemovesStale: a temporary file that a killed writer
// left (issue 23 item 8) goes at the next write of the same file; a fresh
// one and another file's stay.
func TestWriteFileRemovesStale(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * StaleTempAge)
	files := map[string]bool{ // name: want it removed
		".best.json.tmp-123": true,
		".best.json.tmp-456": false, // fresh
		".other.json.tmp-7":  false, // another file's
	}
	for name, stale := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale || name == ".other.json.tmp-7" {
			os.Chtimes(path, old, old)
		}
	}
	if err := WriteFile(filepath.Join(dir, "best.json"), []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	for name, remove := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := err != nil; gone != remove {
			t.Errorf("%s: got removed %v, want %v", name, gone, remove)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "best.json")); err != nil || string(data) != "{}\n" {
		t.Errorf("got %q, %v, want the file written", data, err)
	}
}
