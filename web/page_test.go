package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"taflab/balance"
	"taflab/chart"
	"taflab/loop"
	"taflab/ratings"
	"taflab/web"
)

// TestStaticFiles: the page's files are served as they are in static/,
// each with its type (a module loads only as JavaScript), and the palette
// files the server makes from chart.Palette beside them.
func TestStaticFiles(t *testing.T) {
	ts := testServer(t, web.DefaultConfig())
	entries, err := os.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8"}
	for _, e := range entries {
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile("static/" + name)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := ts.Client().Get(ts.URL + "/static/" + name)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, resp)
			if resp.StatusCode != http.StatusOK || got != string(want) {
				t.Errorf("got %d, %d bytes, want 200 and the file's %d bytes", resp.StatusCode, len(got), len(want))
			}
			ext := name[strings.LastIndex(name, "."):]
			if got, want := resp.Header.Get("Content-Type"), types[ext]; got != want {
				t.Errorf("Content-Type: got %q, want %q", got, want)
			}
			if name == "palette.js" || name == "palette.css" {
				t.Errorf("static/%s: the server makes this file from chart.Palette; a file of the name would never be served", name)
			}
		})
	}

	// The palette module: chart.Palette and chart.Yellow, in order.
	paletteCases := []struct {
		path, contentType string
		want              []string // the lines that hold the colours
	}{
		{"/static/palette.js", types[".js"], []string{
			"export const palette = Object.freeze(" + mustJSON(t, chart.Palette) + ");",
			"export const yellow = " + mustJSON(t, chart.Yellow) + ";",
		}},
		{"/static/palette.css", types[".css"], append(paletteVars(), "  --palette-yellow: "+chart.Yellow+";")},
	}
	for _, c := range paletteCases {
		t.Run(c.path, func(t *testing.T) {
			resp, err := ts.Client().Get(ts.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if got := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || got != c.contentType {
				t.Fatalf("got %d, Content-Type %q, want 200 and %q", resp.StatusCode, got, c.contentType)
			}
			var got []string
			for _, line := range strings.Split(body, "\n") {
				if strings.Contains(line, "#") && !strings.HasPrefix(line, "//") && !strings.HasPrefix(line, "/*") {
					got = append(got, line)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func paletteVars() []string {
	var out []string
	for i, c := range chart.Palette {
		out = append(out, fmt.Sprintf("  --palette-%d: %s;", i, c))
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readAll reads and closes an answer's body.
func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNoSecondPalette: the page's own files name none of chart.Palette's
// colours (nor its yellow): they take them from palette.js and
// palette.css, so that a colour changed in chart changes on the page too.
func TestNoSecondPalette(t *testing.T) {
	entries, err := os.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	colours := append(chart.Palette[:], chart.Yellow)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			b, err := os.ReadFile("static/" + e.Name())
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ToLower(string(b))
			var got []string
			for _, c := range colours {
				if strings.Contains(text, strings.ToLower(c)) {
					got = append(got, c)
				}
			}
			if len(got) > 0 {
				t.Errorf("got %v written out, want none: name chart.Palette's colours by palette[i] (palette.js) or var(--palette-i) (palette.css)", got)
			}
		})
	}
}

// pageReads lists, for each of the page's modules, the Go types whose JSON
// it reads and the names it reads that are not API fields: the browser's
// (DOM and JavaScript) and the module's own objects'. A name a module reads
// with .name that is neither fails TestPageReadsAPIFields: the page would
// read a field no Go type writes.
var pageReads = []struct {
	module string
	types  []any
	own    []string
}{
	{"analysis.js", []any{web.Analysis{}, web.AnalyzeRequest{}, web.Info{}},
		[]string{"length", "message", "style"}},
	{"api.js", []any{web.ErrorReply{}},
		[]string{"body", "headers", "ok", "status"}}, // a fetch Response and its options
	{"app.js", []any{}, []string{"body", "dataset", "message", "ready", "search"}},
	{"board.js", []any{web.BoardInfo{}},
		[]string{"dataset", "key", "length", "piece", "square", "style", "target", // the browser's
			"captures", "last", "legal", "selected", // a render's marks
			"cells", "interactive", // a parsed position, the Board's options
			"from", "label", "to", "weight"}}, // arrows
	{"charts.js", []any{}, []string{"length", "log10",
		"color", "marker", "name", "points", "shift", "hi", "lo", "x", "y", // series and their points
		"percent", "zero"}}, // options
	{"dom.js", []any{}, []string{"scope"}},
	{"engines.js", []any{web.NetworkInfo{}}, []string{"chosen", "dataset", "disabled", "length", "options", "value"}},
	{"play.js", []any{web.GameState{}, web.NewGameRequest{}, web.Info{}},
		[]string{"cells", "chosen", "clipboard", "dataset", "detail", "files", "hidden", "key", "last", "length", "message", "name", "search", "status", "value"}},
	{"replay.js", []any{web.FileGames{}, web.ReplayedGame{}, web.FileInfo{}, web.Info{}, web.ReviewRequest{}},
		[]string{"children", "dataset", "disabled", "hidden", "key", "length", "message", "target", "value"}},
	{"review.js", []any{web.ReviewEvent{}, web.ReviewRequest{}},
		[]string{"children", "dataset", "hidden", "left", "length", "max", "message", "name", "signal", "title", "value", "width", // the browser's
			"color", "shape"}}, // a label's look
	{"runs.js", []any{web.RunReport{}, loop.GenSummary{}, loop.HostThroughput{}, balance.Report{}, ratings.Report{}},
		[]string{"length", "message", "value"}},
	{"views.js", []any{}, []string{"hidden"}},
}

// TestPageReadsAPIFields reads every module of the page for the fields it
// reads (x.name, not a call x.name()) and checks each against the JSON of
// the Go types the module is listed with: the API's (package web) and the
// run reports' that /api/run passes on (loop's summary, balance's and
// ratings' reports).
func TestPageReadsAPIFields(t *testing.T) {
	entries, err := os.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	var modules []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".js") {
			modules = append(modules, e.Name())
		}
	}
	var listed []string
	for _, m := range pageReads {
		listed = append(listed, m.module)
	}
	if fmt.Sprint(listed) != fmt.Sprint(modules) {
		t.Fatalf("modules listed: got %v, want %v (every module of static/, in order)", listed, modules)
	}
	for _, m := range pageReads {
		t.Run(m.module, func(t *testing.T) {
			src, err := os.ReadFile("static/" + m.module)
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]bool{}
			for _, v := range m.types {
				jsonKeys(reflect.TypeOf(v), keys)
			}
			own := map[string]bool{}
			for _, n := range m.own {
				if keys[n] {
					t.Errorf("own name %q is a JSON field of the module's types: list it there only", n)
				}
				own[n] = true
			}
			var unknown []string
			for _, n := range propertyReads(string(src)) {
				if !keys[n] && !own[n] {
					unknown = append(unknown, n)
				}
			}
			if len(unknown) > 0 {
				t.Errorf("reads %v: got no JSON field of %s of that name, want one (or, for a name of the browser's or the module's own, add it to pageReads)", unknown, typeNames(m.types))
			}
		})
	}
}

func typeNames(types []any) string {
	var out []string
	for _, v := range types {
		out = append(out, reflect.TypeOf(v).String())
	}
	if len(out) == 0 {
		return "no API type"
	}
	return strings.Join(out, ", ")
}

// jsonKeys adds the JSON keys of t's fields, and of the structs they hold
// (through pointers, slices, arrays and maps), as encoding/json writes
// them: embedded structs' fields at the top.
func jsonKeys(t reflect.Type, keys map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			jsonKeys(f.Type, keys)
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys[name] = true
		jsonKeys(f.Type, keys)
	}
}

var (
	jsStrings  = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'`)
	jsComments = regexp.MustCompile(`//[^\n]*`)
	// .name, in lower case and snake_case as the API's JSON keys are, and
	// whether a call follows.
	jsDotName = regexp.MustCompile(`\.([a-z_][a-z0-9_]*)\b(\s*\()?`)
)

// propertyReads returns the names a module's code reads as x.name (or
// x?.name, x).name, x].name), sorted, leaving out calls (x.name()),
// this.name, spreads, numbers' decimals, and what strings and comments
// hold. Template literals are kept whole: their ${} hold reads.
func propertyReads(src string) []string {
	src = jsStrings.ReplaceAllString(src, `""`)
	src = jsComments.ReplaceAllString(src, "")
	isName := func(c byte) bool {
		return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	seen := map[string]bool{}
	for _, m := range jsDotName.FindAllStringSubmatchIndex(src, -1) {
		before := m[0] // the dot
		if before > 0 && src[before-1] == '?' {
			before--
		}
		if before == 0 || m[4] >= 0 { // nothing before it, or a call
			continue
		}
		if c := src[before-1]; !isName(c) && c != ')' && c != ']' || strings.HasSuffix(src[:before], "this") && (before == 4 || !isName(src[before-5])) {
			continue
		}
		seen[src[m[2]:m[3]]] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// TestPropertyReads checks the scanner TestPageReadsAPIFields rests on.
func TestPropertyReads(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		{`x.player || x.source`, []string{"player", "source"}},
		{`r.search.best_move.length`, []string{"best_move", "length", "search"}},
		{`a?.b[0].c`, []string{"b", "c"}},
		{`f(x).y`, []string{"y"}},
		{`x.split("/").pop()`, nil},                     // calls
		{`this.cells[sq]`, nil},                         // the object's own
		{`"summary.json" + 'a.b' // c.d`, nil},          // strings and comments
		{`0.35 + 0.6 * w; [...xs]; s.textContent`, nil}, // numbers, spreads, camelCase
		{"`${st.to_move} to move`", []string{"to_move"}},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			if got := propertyReads(c.src); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
