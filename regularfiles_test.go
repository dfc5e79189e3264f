package taflab

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/fileio"
	"taflab/loop"
	"taflab/match"
	"taflab/net"
	"taflab/openings"
	"taflab/ratings"
	"taflab/training"
)

// TestReadersRefuseFIFO: every reader of a path a user gives refuses a
// named pipe (FIFO) at once, naming it, rather than waiting for something
// to write into it (issue 36: a FIFO in train -data hung training, and
// SIGTERM did not stop it). The web page's reads are checked in web's
// TestIssue36Reproductions, the commands' in theirs; TestFilesOpenedByFileio
// checks that no package opens a file another way.
func TestReadersRefuseFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
		return path
	}
	cop := variants.MustLoad("copenhagen")
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	run := filepath.Join(dir, "run")
	os.MkdirAll(run, 0o755)
	ratingsDir := filepath.Join(dir, "ratings", "m")
	os.MkdirAll(ratingsDir, 0o755)
	readers := []struct {
		name string
		path string
		read func(path string) error
	}{
		{"configs.LoadVariant", fifo("v.toml"), func(p string) error { _, err := configs.LoadVariant(p); return err }},
		{"openings.LoadSuite", fifo("suite.txt"), func(p string) error { _, err := openings.LoadSuite(p, cop); return err }},
		{"match.ReadFile", fifo("match.json"), func(p string) error { _, err := match.ReadFile(p); return err }},
		{"net.Load", fifo("n.safetensors"), func(p string) error { _, _, err := net.Load(p); return err }},
		{"datasets.ReadPositionsFile", fifo("a.positions.arrow"), func(p string) error { _, _, err := datasets.ReadPositionsFile(p); return err }},
		{"datasets.ReadGamesFile", fifo("a.games.arrow"), func(p string) error { _, _, err := datasets.ReadGamesFile(p); return err }},
		{"datasets.ReadRecordGames", fifo("records.csv"), func(p string) error { _, err := datasets.ReadRecordGames(p, cop); return err }},
		{"datasets.OpenWindow (a shard in -data)", filepath.Join(data, datasets.ShardName(time.Now(), "h", 1)+datasets.PositionsSuffix), func(p string) error {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := datasets.OpenWindow(data, 1000, 1)
			return err
		}},
		{"training.ReadMetrics", fifo("metrics.csv"), func(p string) error { _, err := training.ReadMetrics(p); return err }},
		{"loop.ReadBestPointer", fifo("best.json"), func(p string) error { _, err := loop.ReadBestPointer(p); return err }},
		{"loop.ReadMode", filepath.Join(run, loop.ModeFile), func(p string) error {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := loop.ReadMode(run)
			return err
		}},
		{"ratings.Read", filepath.Join(ratingsDir, match.FileName), func(p string) error {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ratings.Read(context.Background(), ratings.Config{Paths: []string{filepath.Dir(ratingsDir)}, MaxFiles: 10, MaxBytes: 1 << 20})
			return err
		}},
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- r.read(r.path) }()
			select {
			case err := <-done:
				if !errors.Is(err, fileio.ErrNotRegular) && (err == nil || !strings.Contains(err.Error(), "a named pipe (FIFO), not a regular file")) {
					t.Errorf("got %v, want an error saying %s is a named pipe, not a regular file", err, r.path)
				}
				if err != nil && !strings.Contains(err.Error(), filepath.Base(r.path)) {
					t.Errorf("got %v, want it to name %s", err, r.path)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("still waiting on the named pipe after 10 s")
			}
		})
	}
}

// TestFilesOpenedByFileio: no package but internal/fileio opens a file
// itself (os.Open, os.OpenFile, os.ReadFile), so that every reader of a
// user's path takes regular files only (fileio.Open). Tests, the benchmark
// programs and internal/proctest (which read /proc) may.
func TestFilesOpenedByFileio(t *testing.T) {
	openers := map[string]bool{"Open": true, "OpenFile": true, "ReadFile": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || d.Name() == "bench") {
			return filepath.SkipDir
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || dir == "internal/fileio" || dir == "internal/proctest" {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && openers[sel.Sel.Name] {
					t.Errorf("%s: os.%s: open files with fileio.Open (regular files only)", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
