package taflab

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxCommandLines is the most non-test lines a package under cmd/ may
// hold: a command parses flags, loads files, handles signals, shows
// progress and sets its exit code; the work is a library's.
const maxCommandLines = 400

// maxCommandFuncLines is the most lines a function under cmd/ may have,
// from its func line to its closing brace: a command that splits itself
// into packages still reads a function at a time.
const maxCommandFuncLines = 80

// commandFiles calls f with every non-test Go file under cmd/ but
// testdata.
func commandFiles(t *testing.T, f func(path string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir("cmd", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f(path, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCommandsStaySmall fails on a command's package under cmd/ with more
// than maxCommandLines lines of non-test Go. cmd/internal/cli, what the
// commands share (flag sets, their binding and ranges), is not a command:
// it is a library that only commands may import, because only commands
// parse flags.
func TestCommandsStaySmall(t *testing.T) {
	lines := map[string]int{} // package folder: its non-test lines
	commandFiles(t, func(path string, data []byte) {
		if pkg := filepath.ToSlash(filepath.Dir(path)); pkg != "cmd/internal/cli" {
			lines[pkg] += bytes.Count(data, []byte("\n"))
		}
	})
	if len(lines) == 0 {
		t.Fatal("no package found under cmd/: run from the module root")
	}
	for pkg, n := range lines {
		if n > maxCommandLines {
			t.Errorf("%s: got %d lines of non-test Go, want at most %d: move the work into a library package", pkg, n, maxCommandLines)
		}
	}
}

// TestCommandFunctionsFit fails on a function (or method) under cmd/,
// cmd/internal/cli's among them, longer than maxCommandFuncLines.
func TestCommandFunctionsFit(t *testing.T) {
	funcs := 0
	commandFiles(t, func(path string, data []byte) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, data, 0)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs++
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n > maxCommandFuncLines {
				t.Errorf("%s: %s: got %d lines, want at most %d: cut it into functions that each do one thing", path, fd.Name.Name, n, maxCommandFuncLines)
			}
		}
	})
	if funcs == 0 {
		t.Fatal("no function found under cmd/: run from the module root")
	}
}

// TestReadmeLayoutOrder reads the README's layout table and fails unless
// it lists every library package of the module, each below every package
// of ours it imports, and names in each row exactly the imports of the
// row's package: the table reads in dependency order and says what is
// true.
func TestReadmeLayoutOrder(t *testing.T) {
	l := layoutTable(t)
	imports := libraryImports(t)
	pkgs := slices.Sorted(func(yield func(string) bool) {
		for pkg := range imports {
			if !yield(pkg) {
				return
			}
		}
	})
	for _, pkg := range pkgs {
		if testSupport(pkg) {
			continue
		}
		at, r, ok := l.place(pkg)
		if !ok {
			t.Errorf("README layout table: package %s is not listed", pkg)
			continue
		}
		var deps []string // the listed packages pkg imports
		for _, dep := range imports[pkg] {
			depAt, depRow, ok := l.place(dep)
			if !ok || depAt == at || (dep != depAt && strings.HasPrefix(pkg, depAt+"/")) {
				continue // within the package's own folder, or an internal one of a folder that holds it
			}
			deps = append(deps, depAt)
			if depRow > r {
				t.Errorf("README layout table: %s (row %d) imports %s, listed below it (row %d): want dependencies above", pkg, r+1, dep, depRow+1)
			}
		}
		if pkg == at {
			slices.Sort(deps)
			deps = slices.Compact(deps)
			want := slices.Sorted(slices.Values(l.imports[at]))
			if !slices.Equal(deps, want) {
				t.Errorf("README layout table: %s's row names the imports %v, got %v from its files", at, want, deps)
			}
		}
	}
}
