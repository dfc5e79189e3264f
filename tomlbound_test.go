package taflab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/internal/tomlbound"
	"taflab/web"
)

// deepTOML returns a file whose deepest value is nested n deep, as a
// rule set or config would start it: an inline table in a key.
func deepTOML(n int) string {
	return "name = " + strings.Repeat("{a = ", n) + "1" + strings.Repeat("}", n) + "\n"
}

// TestTOMLReadersRefuseDepth: every reader of TOML refuses a file nested
// one deeper than tomlbound.MaxDepth, naming the bound, and takes one
// nested MaxDepth deep as far as the decoder (refused then for what it
// holds, not for its depth). The readers: rule-set files (every -variant,
// the web page's variant_toml), run configs (-config of selfplay, train
// and train loop, a run's loop.toml), and, in their own packages' tests, a
// dataset's rule-set metadata (datasets) and a run's variant.toml (loop).
// TestTOMLDecodedWithinBounds checks that there are no others.
func TestTOMLReadersRefuseDepth(t *testing.T) {
	file := filepath.Join(t.TempDir(), "deep.toml")
	readers := []struct {
		name string
		read func(text string) error
	}{
		{"configs.LoadVariant (every -variant FILE)", func(text string) error {
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := configs.LoadVariant(file)
			return err
		}},
		{"variants.Parse", func(text string) error { _, err := variants.Parse("deep.toml", []byte(text)); return err }},
		{"configs.ParseSelfPlay", func(text string) error { _, err := configs.ParseSelfPlay("deep.toml", []byte(text)); return err }},
		{"configs.ParseTrain", func(text string) error { _, err := configs.ParseTrain("deep.toml", []byte(text)); return err }},
		{"configs.ParseLoop", func(text string) error { _, err := configs.ParseLoop("deep.toml", []byte(text)); return err }},
		{"web POST /api/games variant_toml", func(text string) error { return webNewGame(t, text) }},
	}
	const past = "nested 17 deep, past the most a TOML file may nest"
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			err := r.read(deepTOML(tomlbound.MaxDepth + 1))
			if err == nil || !strings.Contains(err.Error(), past) {
				t.Errorf("nested %d deep: got %v, want an error saying %q", tomlbound.MaxDepth+1, err, past)
			}
			err = r.read(deepTOML(tomlbound.MaxDepth))
			if err == nil || strings.Contains(err.Error(), "nested") {
				t.Errorf("nested %d deep: got %v, want it decoded and refused for what it holds", tomlbound.MaxDepth, err)
			}
		})
	}
}

// webNewGame posts a rule set's text to a web server's /api/games and
// returns the answer's error, nil for 200.
func webNewGame(t *testing.T, text string) error {
	t.Helper()
	srv, err := web.New(web.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := `{"variant_toml":` + strconv.Quote(text) + `,"human":"both"}`
	req := httptest.NewRequest(http.MethodPost, "/api/games", strings.NewReader(body))
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code == http.StatusOK {
		return nil
	}
	return &httpAnswer{rec.Code, rec.Body.String()}
}

type httpAnswer struct {
	status int
	body   string
}

func (a *httpAnswer) Error() string { return strconv.Itoa(a.status) + " " + a.body }

// TestTOMLDecodedWithinBounds: no package but internal/tomlbound calls the
// TOML decoder itself (toml.Decode, DecodeFile, DecodeFS, Unmarshal,
// NewDecoder), so that every file taflab reads as TOML is checked against
// its bounds first. Tests may.
func TestTOMLDecodedWithinBounds(t *testing.T) {
	decoders := map[string]bool{"Decode": true, "DecodeFile": true, "DecodeFS": true, "Unmarshal": true, "NewDecoder": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.ToSlash(filepath.Dir(path)) == "internal/tomlbound" {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		name := ""
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) == "github.com/BurntSushi/toml" {
				name = "toml"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && decoders[sel.Sel.Name] {
					t.Errorf("%s: calls %s.%s: decode TOML with tomlbound.Decode, which checks the file's bounds first", fset.Position(sel.Pos()), name, sel.Sel.Name)
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
