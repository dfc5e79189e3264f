package taflab

import (
	"go/ast"
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

const module = "taflab"

// The order of the packages is the design's, and the README's Layout
// table is its one source: a row per folder, in dependency order, naming
// the packages of ours that folder's package imports. rules imports
// nothing of ours; mcts imports rules and declares the Evaluator it needs
// instead of importing net; net and datasets build on rules; configs
// turns files into the other packages' values; only cmd/ puts it all
// together, parses flags and touches files. The tests below read the
// table (layoutTable) and check the packages' imports against it; the
// rules the table cannot say are checked apart (TestDesignRules).

// layoutRow matches a row of the README's layout table: its first cell a
// folder in backquotes.
var layoutRow = regexp.MustCompile("^\\| `([a-z0-9_/.-]+?)/?` \\|")

// backquoted matches a name in backquotes.
var backquoted = regexp.MustCompile("`([a-z0-9_/.-]+?)/?`")

// layout is the README's Layout table: each folder's row, from 0, and the
// packages of ours its row says it imports.
type layout struct {
	row     map[string]int
	imports map[string][]string
}

// layoutTable reads the table of the README's "## Layout" section.
func layoutTable(t *testing.T) layout {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatalf("run from the module root: %v", err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md: no \"## Layout\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	l := layout{row: map[string]int{}, imports: map[string][]string{}}
	for _, line := range strings.Split(section, "\n") {
		m := layoutRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, dup := l.row[m[1]]; dup {
			t.Errorf("README layout table: %s has two rows", m[1])
			continue
		}
		l.row[m[1]] = len(l.row)
		if cells := strings.Split(line, "|"); len(cells) > 3 {
			for _, name := range backquoted.FindAllStringSubmatch(cells[3], -1) {
				l.imports[m[1]] = append(l.imports[m[1]], name[1])
			}
		}
	}
	if len(l.row) == 0 {
		t.Fatal("README.md: the Layout section has no table rows")
	}
	return l
}

// place returns the folder whose row holds pkg (the most specific one:
// net/kernels is net's), its row, and whether the table has one.
func (l layout) place(pkg string) (string, int, bool) {
	for p := pkg; ; p = p[:strings.LastIndex(p, "/")] {
		if r, ok := l.row[p]; ok {
			return p, r, true
		}
		if !strings.Contains(p, "/") {
			return "", 0, false
		}
	}
}

// allows reports whether the package in folder at (the table's place of
// pkg) may import dep: a package its row names, or one of its own folder,
// or an internal package of a folder that holds it.
func (l layout) allows(pkg, at, dep string) bool {
	if dep == at || strings.HasPrefix(dep, at+"/") {
		return true
	}
	if i := strings.Index(dep, "/internal/"); i >= 0 && strings.HasPrefix(pkg, dep[:i]+"/") {
		return true
	}
	return slices.ContainsFunc(l.imports[at], func(a string) bool { return dep == a || strings.HasPrefix(dep, a+"/") })
}

// testSupport reports whether pkg supports tests only (internal/nettest
// and the like, and test programs under testdata): not in the table.
func testSupport(pkg string) bool {
	return strings.HasSuffix(pkg, "test") || strings.Contains(pkg, "/testdata/") || strings.HasPrefix(pkg, "testdata/")
}

// TestLayering fails on an import of ours that a package's row in the
// README's layout table does not name, and on a library package the table
// does not place. A package inside a row's folder (net/kernels,
// configs/internal/strict) may also import what rows above its folder's
// list.
func TestLayering(t *testing.T) {
	l := layoutTable(t)
	for pkg, deps := range libraryImports(t) {
		if testSupport(pkg) {
			continue
		}
		at, r, ok := l.place(pkg)
		if !ok {
			t.Errorf("package %s has no row in the README's layout table: add one, in dependency order, naming its imports", pkg)
			continue
		}
		for _, dep := range deps {
			if l.allows(pkg, at, dep) {
				continue
			}
			if _, depRow, ok := l.place(dep); pkg != at && ok && depRow < r {
				continue
			}
			t.Errorf("%s imports %s: its row (%s) in the README's layout table names only %v", pkg, dep, at, l.imports[at])
		}
	}
}

// TestDesignRules checks what the table cannot say: rules imports nothing
// of ours, mcts never imports net (it declares the Evaluator net
// implements), and only cmd/ (and the bench/ programs) parse flags.
func TestDesignRules(t *testing.T) {
	imports := libraryImports(t)
	if deps := imports["rules"]; len(deps) > 0 {
		t.Errorf("rules imports %v: want nothing of ours", deps)
	}
	for _, dep := range imports["mcts"] {
		if dep == "net" || strings.HasPrefix(dep, "net/") {
			t.Errorf("mcts imports %s: it declares the Evaluator it needs instead", dep)
		}
	}
	libraryFiles(t, parser.ImportsOnly, func(path, _ string, f *ast.File) {
		for _, imp := range f.Imports {
			if imp.Path.Value == `"flag"` {
				t.Errorf("%s imports flag: only the commands (cmd/) parse flags", path)
			}
		}
	})
}

// libraryFiles parses every non-test Go file of the module's library
// packages (not cmd/, bench/, testdata or the module root) with mode and
// calls f with its path, its package's folder and the file.
func libraryFiles(t *testing.T, mode parser.Mode, f func(path, pkg string, file *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" ||
			path == "cmd" || path == "bench") {
			return filepath.SkipDir
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || pkg == "." {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, mode)
		if err != nil {
			return err
		}
		f(path, pkg, file)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// libraryImports returns, for each library package of the module (not
// cmd/, bench/ or the module root), the packages of ours its non-test
// files import.
func libraryImports(t *testing.T) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	libraryFiles(t, parser.ImportsOnly, func(_, pkg string, f *ast.File) {
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		for _, imp := range f.Imports {
			if dep, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module+"/"); ok && !slices.Contains(imports[pkg], dep) {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
	})
	return imports
}

// messageEdits are the calls that would cut or match an error's text.
var messageEdits = map[string]bool{
	"TrimPrefix": true, "TrimSuffix": true, "TrimLeft": true, "CutPrefix": true, "CutSuffix": true, "Cut": true,
	"Replace": true, "ReplaceAll": true, "HasPrefix": true, "HasSuffix": true, "Contains": true, "Index": true,
}

// textOnlyErrors are the places that read another's error as text, each
// because that error carries nothing else: encoding/json's unknown field
// (a header's), os.Root's escape from its folder, the TOML decoder's
// errors (text with "toml: " before it).
var textOnlyErrors = map[string]bool{
	"net/safetensors.go:jsonProblem":                true,
	"web/server.go:rootError":                       true,
	"configs/internal/strict/strict.go:tomlMessage": true,
}

// TestNoMessageEditing: no code of the module (commands too) cuts or
// matches the text of an error (strings.TrimPrefix(err.Error(), "rules: ")
// and the like): an error carries its package and context as values
// (errctx.Error, errctx.KeyError, a type's Message method), which
// errctx.Message and errors.Is and As read.
func TestNoMessageEditing(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || textOnlyErrors[filepath.ToSlash(path)+":"+fd.Name.Name] {
				continue
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok && isStringsCall(call) && slices.ContainsFunc(call.Args, isErrorText) {
					t.Errorf("%s: %s edits an error's text (%s): give the error its package and context as values (errctx)", path, fd.Name.Name, call.Fun.(*ast.SelectorExpr).Sel.Name)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isStringsCall reports whether call is strings.F for an F of messageEdits.
func isStringsCall(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "strings" && messageEdits[sel.Sel.Name]
}

// isErrorText reports whether e is X.Error().
func isErrorText(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) > 0 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Error"
}
