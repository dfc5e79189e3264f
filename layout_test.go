package taflab

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maxCommandLines is the most non-test lines a package under cmd/ may
// hold: a command parses flags, loads files, handles signals, shows
// progress and sets its exit code; the work is a library's.
const maxCommandLines = 400

// TestCommandsStaySmall fails on a command's package under cmd/ with more
// than maxCommandLines lines of non-test Go. cmd/internal/cli, what the
// commands share (flag sets, their binding and ranges), is not a command:
// it is a library that only commands may import, because only commands
// parse flags.
func TestCommandsStaySmall(t *testing.T) {
	lines := map[string]int{} // package folder: its non-test lines
	err := filepath.WalkDir("cmd", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || path == filepath.Join("cmd", "internal", "cli")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines[filepath.ToSlash(filepath.Dir(path))] += bytes.Count(data, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatal("no package found under cmd/: run from the module root")
	}
	for pkg, n := range lines {
		if n > maxCommandLines {
			t.Errorf("%s: got %d lines of non-test Go, want at most %d: move the work into a library package", pkg, n, maxCommandLines)
		}
	}
}

// layoutRow matches a row of the README's layout table: its first cell a
// folder in backquotes.
var layoutRow = regexp.MustCompile("^\\| `([a-z0-9_/.-]+?)/?` \\|")

// backquoted matches a name in backquotes.
var backquoted = regexp.MustCompile("`([a-z0-9_/.-]+?)/?`")

// TestReadmeLayoutOrder reads the README's layout table and fails unless
// it lists every library package of the module, each below every package
// of ours it imports: the table reads in dependency order.
func TestReadmeLayoutOrder(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]int{}         // folder: its row in the table
	stated := map[string][]string{} // folder: the imports its row names
	for _, line := range strings.Split(string(data), "\n") {
		if m := layoutRow.FindStringSubmatch(line); m != nil {
			if _, dup := row[m[1]]; !dup {
				row[m[1]] = len(row)
				if cells := strings.Split(line, "|"); len(cells) > 3 {
					for _, name := range backquoted.FindAllStringSubmatch(cells[3], -1) {
						stated[m[1]] = append(stated[m[1]], name[1])
					}
				}
			}
		}
	}
	imports := libraryImports(t)
	// listed returns the row of pkg, or of the folder above it that the
	// table lists (net/kernels is net's), and whether there is one.
	listed := func(pkg string) (string, int, bool) {
		for p := pkg; ; p = p[:strings.LastIndex(p, "/")] {
			if r, ok := row[p]; ok {
				return p, r, true
			}
			if !strings.Contains(p, "/") {
				return "", 0, false
			}
		}
	}
	var pkgs []string
	for pkg := range imports {
		pkgs = append(pkgs, pkg)
	}
	slices.Sort(pkgs)
	for _, pkg := range pkgs {
		if strings.HasSuffix(pkg, "test") || strings.Contains(pkg, "/testdata/") {
			continue // support for tests only
		}
		at, r, ok := listed(pkg)
		if !ok {
			t.Errorf("README layout table: package %s is not listed", pkg)
			continue
		}
		var deps []string // the listed packages pkg imports
		for _, dep := range imports[pkg] {
			depAt, depRow, ok := listed(dep)
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
			want := slices.Sorted(slices.Values(stated[at]))
			if !slices.Equal(deps, want) {
				t.Errorf("README layout table: %s's row names the imports %v, got %v from its files", at, want, deps)
			}
		}
	}
}

// libraryImports returns, for each library package of the module (not
// cmd/, bench/ or the module root), the packages of ours its non-test
// files import.
func libraryImports(t *testing.T) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" ||
			path == "cmd" || path == "bench") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		for _, imp := range f.Imports {
			if dep, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module+"/"); ok && !slices.Contains(imports[pkg], dep) {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}
