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

// TestOpenRegularOnly: Open, OpenAppend and ReadFileLimit take regular
// files (through a symbolic link too) and refuse, at once and naming what
// it is, a named pipe (which would block until something writes into it),
// a device and a folder.
func TestOpenRegularOnly(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.csv")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	cases := []struct {
		path string
		want string // "" for a file read
	}{
		{file, ""},
		{link, ""},
		{fifo, "a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "a device, not a regular file"},
		{dir, "a folder, not a regular file"},
	}
	for _, c := range cases {
		for _, op := range []struct {
			name string
			do   func(string) error
		}{
			{"Open", func(p string) error { f, err := Open(p); f.Close(); return err }},
			{"OpenAppend", func(p string) error { f, err := OpenAppend(p); f.Close(); return err }},
			{"ReadFileLimit", func(p string) error { _, err := ReadFileLimit(p, 10, "a file"); return err }},
		} {
			t.Run(op.name+" "+filepath.Base(c.path), func(t *testing.T) {
				done := make(chan error, 1)
				go func() { done <- op.do(c.path) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s(%s) still waits after 10 s", op.name, c.path)
				}
				if c.want == "" {
					if err != nil {
						t.Errorf("got %v, want the file opened", err)
					}
					return
				}
				if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.path+": "+c.want) {
					t.Errorf("got %v, want ErrNotRegular saying %q", err, c.path+": "+c.want)
				}
			})
		}
	}
}
