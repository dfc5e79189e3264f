package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/nettest"
	"taflab/net"
	"taflab/rules"
	"taflab/web"
)

// testServer serves cfg (with a data folder made by the caller) on a test
// HTTP server.
func testServer(t *testing.T, cfg web.Config) *httptest.Server {
	t.Helper()
	srv, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts
}

// call sends a request and returns the status and the decoded JSON body.
func call(t *testing.T, ts *httptest.Server, method, path, body string) (int, map[string]any, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(raw, &m)
	return resp.StatusCode, m, raw
}

type state struct {
	ID           string   `json:"id"`
	Start        string   `json:"start"`
	Position     string   `json:"position"`
	ToMove       string   `json:"to_move"`
	Ply          int      `json:"ply"`
	Moves        []string `json:"moves"`
	Legal        []string `json:"legal"`
	EngineToMove bool     `json:"engine_to_move"`
	Record       string   `json:"record"`
	Version      int      `json:"version"`
	Outcome      struct {
		Over   bool   `json:"over"`
		Winner string `json:"winner"`
		Reason string `json:"reason"`
	} `json:"outcome"`
}

func decodeState(t *testing.T, raw []byte) state {
	t.Helper()
	var s state
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return s
}

// checkState replays a state's moves through the rules and checks that the
// position, the legal moves, the outcome and the record agree with them.
func checkState(v *rules.Variant, s state) error {
	start, err := rules.ParsePosition(s.Start)
	if err != nil {
		return err
	}
	g, err := rules.NewGameFrom(v, start)
	if err != nil {
		return err
	}
	for i, text := range s.Moves {
		m, caps, err := rules.ParseMove(text)
		if err != nil {
			return fmt.Errorf("move %d %q: %v", i+1, text, err)
		}
		if err := g.Play(m); err != nil {
			return fmt.Errorf("move %d: %v", i+1, err)
		}
		if _, got := g.LastMove(); got != caps {
			return fmt.Errorf("move %d %q: the rules capture %v", i+1, text, got)
		}
	}
	if got := g.Position().String(); got != s.Position || g.Ply() != s.Ply {
		return fmt.Errorf("position %q at ply %d, want %q at ply %d", s.Position, s.Ply, got, g.Ply())
	}
	var legal []string
	if !g.Outcome().Over() {
		for _, m := range g.GenerateMoves(nil) {
			legal = append(legal, m.String())
		}
	}
	if fmt.Sprint(legal) != fmt.Sprint(s.Legal) && !(len(legal) == 0 && len(s.Legal) == 0) {
		return fmt.Errorf("legal moves %v, want %v", s.Legal, legal)
	}
	if s.Outcome.Over != g.Outcome().Over() || s.Outcome.Winner != g.Outcome().Winner.String() {
		return fmt.Errorf("outcome %+v, want %v", s.Outcome, g.Outcome())
	}
	rec, err := rules.ParseRecord(1, s.Record)
	if err != nil {
		return fmt.Errorf("record %q: %v", s.Record, err)
	}
	if r := rules.Replay(v, rec.StartOr(v.Start()), rec.Moves, 1); r.Err != nil || r.Position != g.Position() || r.CaptureMismatches != 0 {
		return fmt.Errorf("record %q replays to %v (%v, %d capture mismatches)", s.Record, r.Position, r.Err, r.CaptureMismatches)
	}
	return nil
}

func TestPathsRefused(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.csv"), []byte("h1-h3,0,0,Black\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	for _, d := range []string{data, filepath.Join(data, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{"ok.csv": "d1-d3,0,0,Ongoing\n", "sub/more.csv": "d1-d3,0,0,Ongoing\n", "bad.csv": "d1-d3,0,0,Nobody\n", "notes.txt": "hello"} {
		if err := os.WriteFile(filepath.Join(data, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"out.csv":  filepath.Join(outside, "secret.csv"), // a file outside
		"outdir":   outside,                              // a folder outside
		"rel.csv":  "../" + filepath.Base(outside),       // relative, leading out
		"in.csv":   "ok.csv",                             // inside: allowed
		"loop.csv": "loop.csv",
	} {
		if err := os.Symlink(target, filepath.Join(data, link)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := web.DefaultConfig()
	cfg.DataDir = data
	ts := testServer(t, cfg)
	for _, c := range []struct {
		name, path string
		status     int
		msg        string
	}{
		{"inside", "ok.csv", 200, ""},
		{"in a subfolder", "sub/more.csv", 200, ""},
		{"symlink inside", "in.csv", 200, ""},
		{"dot-dot", "../secret.csv", 403, `".." is refused`},
		{"dot-dot inside the path", "sub/../../secret.csv", 403, `".." is refused`},
		{"encoded dot-dot", "%2e%2e/secret.csv", 403, `".." is refused`},
		{"absolute", "/etc/passwd", 403, "absolute paths are refused"},
		{"absolute outside folder", filepath.Join(outside, "secret.csv"), 403, "absolute paths are refused"},
		{"symlink to a file outside", "out.csv", 403, "leads outside the served folder"},
		{"symlink to a folder outside", "outdir/secret.csv", 403, "leads outside the served folder"},
		{"relative symlink outside", "rel.csv/secret.csv", 403, "leads outside the served folder"},
		{"missing", "nothing.csv", 404, "no such file"},
		{"empty", "", 400, "path: empty"},
		{"dot", "./ok.csv", 400, "not a clean relative path"},
		{"not a games file", "notes.txt", 400, "not a games file"},
		{"a folder", "sub", 400, "not a regular file"},
		{"bad record", "bad.csv", 422, "line 1"},
		{"symlink loop", "loop.csv", 400, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body, raw := call(t, ts, "GET", "/api/file-games?src=data&path="+strings.ReplaceAll(c.path, "%2e", "%252e")+"", "")
			if c.name == "encoded dot-dot" {
				status, body, raw = call(t, ts, "GET", "/api/file-games?src=data&path=%2e%2e/secret.csv", "")
			}
			if status != c.status {
				t.Fatalf("status %d (%s), want %d", status, raw, c.status)
			}
			if msg, _ := body["error"].(string); !strings.Contains(msg, c.msg) || c.status != 200 && msg == "" {
				t.Fatalf("error %q, want one containing %q", msg, c.msg)
			}
			if strings.Contains(string(raw), "h1-h3") {
				t.Fatalf("the answer shows the file outside: %s", raw)
			}
		})
	}
	// The listing holds the files inside, and no link leading out (and
	// the archives that ship inside taflab).
	status, _, raw := call(t, ts, "GET", "/api/files", "")
	var files []struct{ Src, Path string }
	if err := json.Unmarshal(raw, &files); status != 200 || err != nil {
		t.Fatalf("files: %d %s %v", status, raw, err)
	}
	var paths []string
	for _, f := range files {
		if f.Src != "archive" {
			paths = append(paths, f.Path)
		}
	}
	slices.Sort(paths)
	if want := []string{"bad.csv", "ok.csv", "sub/more.csv"}; fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Fatalf("files %v, want %v", paths, want)
	}
	// The run folder's paths are checked the same way.
	cfg.RunDir = data
	ts = testServer(t, cfg)
	for _, p := range []string{"..", "../" + filepath.Base(outside), "outdir", "/tmp"} {
		if status, _, raw := call(t, ts, "GET", "/api/run?path="+p, ""); status != 403 {
			t.Errorf("run %q: status %d (%s), want 403", p, status, raw)
		}
	}
	// And the page's own files: nothing outside the embedded folder.
	for _, p := range []string{"/static/../server.go", "/static/%2e%2e/server.go", "/static/../../go.mod"} {
		if status, _, raw := call(t, ts, "GET", p, ""); status == 200 && (strings.Contains(string(raw), "package web") || strings.Contains(string(raw), "module taflab")) {
			t.Errorf("%s served a file outside the page: %.60s", p, raw)
		}
	}
}

func newGame(t *testing.T, ts *httptest.Server, body string) state {
	t.Helper()
	status, _, raw := call(t, ts, "POST", "/api/games", body)
	if status != 200 {
		t.Fatalf("new game %s: %d %s", body, status, raw)
	}
	return decodeState(t, raw)
}

func TestBadRequests(t *testing.T) {
	cfg := web.DefaultConfig()
	cfg.MaxBody = 4096
	ts := testServer(t, cfg)
	g := newGame(t, ts, `{"variant":"copenhagen","human":"attackers","engine":"builtin","playouts":10}`)
	game := "/api/games/" + g.ID
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		msg                      string
	}{
		{"not JSON", "POST", "/api/games", `{"variant":`, 400, "request body"},
		{"unknown field", "POST", "/api/games", `{"colour":"red"}`, 400, `unknown field "colour"`},
		{"trailing data", "POST", "/api/games", `{"human":"both"} {}`, 400, "data after the JSON object"},
		{"empty body", "POST", game + "/move", ``, 400, "empty"},
		{"too big", "POST", "/api/games", `{"start":"` + strings.Repeat("1", 5000) + `"}`, 413, "more than 4096 bytes"},
		{"no such rule set", "POST", "/api/games", `{"variant":"chess","human":"both"}`, 400, `variant "chess": no such rule set`},
		{"bad rule-set file", "POST", "/api/games", `{"variant_toml":"size = 11","human":"both"}`, 400, "missing key"},
		{"bad side", "POST", "/api/games", `{"human":"martians"}`, 400, `human "martians"`},
		{"no playouts", "POST", "/api/games", `{"human":"defenders","playouts":0}`, 400, "playouts 0"},
		{"too many playouts", "POST", "/api/games", `{"human":"defenders","playouts":1000000}`, 400, "playouts 1000000"},
		{"bad start", "POST", "/api/games", `{"human":"both","start":"11/11 a"}`, 400, "start:"},
		{"no such network", "POST", "/api/games", `{"human":"defenders","playouts":5,"engine":"gnubg"}`, 400, `network "gnubg"`},
		{"no such game", "GET", "/api/games/nope", ``, 404, `game "nope"`},
		{"bad move text", "POST", game + "/move", `{"move":"z1-z3"}`, 400, `move "z1-z3"`},
		{"illegal move", "POST", game + "/move", `{"move":"d1-d9"}`, 422, "d1-d9"},
		{"the engine's turn to undo", "POST", game + "/undo", ``, 409, "no move to take back"},
		{"the person's turn", "POST", game + "/engine", ``, 409, "the person's move"},
		{"bad replay index", "GET", "/api/replay?src=data&path=x.csv&game=first", ``, 400, `game "first"`},
		{"no data folder", "GET", "/api/file-games?src=data&path=x.csv", ``, 404, "without -data"},
		{"bad src", "GET", "/api/file-games?src=home&path=x.csv", ``, 400, `src "home"`},
		{"no run folder", "GET", "/api/run?path=.", ``, 404, "without -run"},
		{"bad analysis network", "POST", "/api/analyze", `{"network":"nope"}`, 400, `network "nope"`},
		{"bad analysis playouts", "POST", "/api/analyze", `{"playouts":-1}`, 400, "playouts -1"},
		{"bad analysis move", "POST", "/api/analyze", `{"moves":["d1-d9"]}`, 422, "moves[0]"},
		{"no such API", "GET", "/api/nothing", ``, 404, "no API GET /api/nothing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body, raw := call(t, ts, c.method, c.path, c.body)
			if status != c.status {
				t.Fatalf("status %d (%s), want %d", status, raw, c.status)
			}
			if msg, _ := body["error"].(string); !strings.Contains(msg, c.msg) || msg == "" {
				t.Fatalf("error %q, want one containing %q", msg, c.msg)
			}
		})
	}
	// A form post (what another site could make a browser send) is refused.
	resp, err := ts.Client().Post(ts.URL+"/api/games", "application/x-www-form-urlencoded", strings.NewReader("human=both"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("form post: status %d, want %d", resp.StatusCode, http.StatusUnsupportedMediaType)
	}
	// The wrong method.
	if status, body, _ := call(t, ts, "DELETE", "/api/games", ""); status != http.StatusNotFound || body["error"] != "no API DELETE /api/games" {
		t.Fatalf("DELETE /api/games: status %d, %v; want 404 naming the method and path", status, body)
	}
	// None of it touched the game.
	status, _, raw := call(t, ts, "GET", game, "")
	if s := decodeState(t, raw); status != 200 || s.Version != 0 || s.Ply != 0 {
		t.Fatalf("the game after the bad requests: %d, version %d, ply %d; want version 0 at ply 0", status, s.Version, s.Ply)
	}
}

func TestConfigValidate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		name string
		edit func(*web.Config)
		msg  string
	}{
		{"default", func(*web.Config) {}, ""},
		{"no games", func(c *web.Config) { c.MaxGames = 0 }, "MaxGames 0"},
		{"no playouts", func(c *web.Config) { c.MaxPlayouts = 0 }, "MaxPlayouts 0"},
		{"tiny body", func(c *web.Config) { c.MaxBody = 10 }, "MaxBody 10"},
		{"missing data", func(c *web.Config) { c.DataDir = "/nonexistent/x" }, "data folder"},
		{"data is a file", func(c *web.Config) { c.DataDir = file }, "is not a folder"},
		{"missing net", func(c *web.Config) { c.NetFile = "/nonexistent/n" }, "network"},
		{"net is a folder", func(c *web.Config) { c.NetFile = t.TempDir() }, "is a folder"},
		{"own network of no embedded rule set", func(c *web.Config) { c.OwnNetworks = map[string]string{"brandubh": file} }, `"brandubh" is not an embedded rule set`},
		{"own network missing", func(c *web.Config) { c.OwnNetworks = map[string]string{"fetlar": "/nonexistent/n"} }, "own network of fetlar"},
		{"own network is a folder", func(c *web.Config) { c.OwnNetworks = map[string]string{"fetlar": t.TempDir()} }, "own network of fetlar: "},
		{"own network with no file", func(c *web.Config) { c.OwnNetworks = map[string]string{"fetlar": ""} }, "own network of fetlar: no file given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := web.DefaultConfig()
			c.edit(&cfg)
			err := cfg.Validate()
			if c.msg == "" && err != nil || c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "web: ")) {
				t.Fatalf("got %v, want an error with %q", err, c.msg)
			}
		})
	}
}

// TestConcurrentRequests plays a game against the engine while other
// clients read it, send it illegal moves and ask the engine to move, and
// play games of their own: the game ends as the rules say, every snapshot
// of it is whole, and only the player's moves and the engine's are in it.
func TestConcurrentRequests(t *testing.T) {
	cfg := web.DefaultConfig()
	ts := testServer(t, cfg)
	v := variants.MustLoad("copenhagen")
	g := newGame(t, ts, `{"variant":"copenhagen","human":"defenders","engine":"builtin","playouts":20}`)
	path := "/api/games/" + g.ID
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				switch (w + i) % 4 {
				case 0:
					status, _, raw := call(t, ts, "GET", path, "")
					if status != 200 {
						errs <- fmt.Errorf("GET: %d %s", status, raw)
						return
					}
					if err := checkState(v, decodeState(t, raw)); err != nil {
						errs <- fmt.Errorf("a snapshot: %v", err)
						return
					}
				case 1:
					if status, _, raw := call(t, ts, "POST", path+"/move", `{"move":"a1-a2"}`); status == 200 {
						errs <- fmt.Errorf("an illegal move was played: %s", raw)
						return
					}
				case 2:
					// The engine's move, asked by someone else: played at
					// most once per turn (or refused while it thinks).
					if status, _, raw := call(t, ts, "POST", path+"/engine", ""); status != 200 && status != 409 {
						errs <- fmt.Errorf("engine: %d %s", status, raw)
						return
					}
				case 3:
					o := newGame(t, ts, `{"variant":"fetlar","human":"both"}`)
					call(t, ts, "POST", "/api/games/"+o.ID+"/move", `{"move":"d1-d3"}`)
				}
			}
		}()
	}
	var mine []string
	for ply := 0; ply < 40; ply++ {
		status, _, raw := call(t, ts, "GET", path, "")
		s := decodeState(t, raw)
		if status != 200 || s.Outcome.Over {
			break
		}
		if s.EngineToMove {
			if status, _, raw := call(t, ts, "POST", path+"/engine", ""); status != 200 && status != 409 {
				t.Fatalf("engine: %d %s", status, raw)
			}
			continue
		}
		move := s.Legal[(ply*7)%len(s.Legal)]
		status, _, raw = call(t, ts, "POST", path+"/move", `{"move":"`+move+`"}`)
		if status != 200 {
			t.Fatalf("my move %s: %d %s", move, status, raw)
		}
		mine = append(mine, move)
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, _, raw := call(t, ts, "GET", path, "")
	s := decodeState(t, raw)
	if err := checkState(v, s); err != nil {
		t.Fatal(err)
	}
	var played []string
	for i := 1; i < len(s.Moves); i += 2 { // the attackers move first: mine are the odd plies
		played = append(played, strings.SplitN(s.Moves[i], "x", 2)[0])
	}
	if fmt.Sprint(played) != fmt.Sprint(mine) || s.Version != len(s.Moves) {
		t.Fatalf("the game holds my moves %v and version %d over %d moves, want %v and one version a move", played, s.Version, len(s.Moves), mine)
	}
}

func TestUndo(t *testing.T) {
	ts := testServer(t, web.DefaultConfig())
	v := variants.MustLoad("copenhagen")
	g := newGame(t, ts, `{"variant":"copenhagen","human":"defenders","engine":"builtin","playouts":10}`)
	path := "/api/games/" + g.ID
	for range 2 {
		if status, _, raw := call(t, ts, "POST", path+"/engine", ""); status != 200 {
			t.Fatalf("engine: %d %s", status, raw)
		}
		_, _, raw := call(t, ts, "GET", path, "")
		s := decodeState(t, raw)
		if status, _, raw := call(t, ts, "POST", path+"/move", `{"move":"`+s.Legal[0]+`"}`); status != 200 {
			t.Fatalf("move: %d %s", status, raw)
		}
	}
	for _, want := range []int{3, 1} { // back to the person's move each time: the engine's reply goes too
		status, _, raw := call(t, ts, "POST", path+"/undo", "")
		s := decodeState(t, raw)
		if status != 200 || s.Ply != want || s.ToMove != "defenders" {
			t.Fatalf("undo: %d, ply %d, %s to move; want ply %d, defenders to move", status, s.Ply, s.ToMove, want)
		}
		if err := checkState(v, s); err != nil {
			t.Fatal(err)
		}
	}
	if status, _, _ := call(t, ts, "POST", path+"/undo", ""); status != 409 {
		t.Fatalf("undo of the engine's first move: status %d, want 409", status)
	}
}

// TestReplayAndAnalysis reads a dataset through the API and analyses a
// position with a network.
func TestReplayAndAnalysis(t *testing.T) {
	v := variants.MustLoad("fetlar")
	data := t.TempDir()
	var rows []datasets.GameRow
	for seed := uint64(1); seed <= 3; seed++ {
		rows = append(rows, randomGame(t, v, seed, 300))
	}
	if err := datasets.WriteGamesFile(filepath.Join(data, "a.games.arrow"), v.Definition(), rows); err != nil {
		t.Fatal(err)
	}
	cfg := web.DefaultConfig()
	cfg.DataDir, cfg.NetFile = data, nettest.TinyFile(t, 2)
	ts := testServer(t, cfg)
	for i, row := range rows {
		status, _, raw := call(t, ts, "GET", fmt.Sprintf("/api/replay?src=data&path=a.games.arrow&game=%d", i), "")
		var r struct {
			Positions []string `json:"positions"`
			Moves     []struct {
				Move string `json:"move"`
			} `json:"moves"`
			Outcome struct{ Winner, Reason string } `json:"outcome"`
			Error   string                          `json:"error"`
		}
		if err := json.Unmarshal(raw, &r); status != 200 || err != nil || r.Error != "" {
			t.Fatalf("game %d: %d %v %s", i, status, err, r.Error)
		}
		g := rules.NewGame(v)
		for j, text := range row.Moves {
			m, _, _ := rules.ParseMove(text)
			g.Play(m)
			if r.Moves[j].Move != text || r.Positions[j+1] != g.Position().String() {
				t.Fatalf("game %d ply %d: %s at %s, want %s at %s", i, j+1, r.Moves[j].Move, r.Positions[j+1], text, g.Position())
			}
		}
		if r.Outcome.Winner != g.Outcome().Winner.String() || r.Outcome.Reason != reasonName(g.Outcome()) {
			t.Fatalf("game %d: outcome %v, want %v", i, r.Outcome, g.Outcome())
		}
	}
	status, _, raw := call(t, ts, "POST", "/api/analyze", `{"variant":"fetlar","moves":["d1-d3"],"network":"net","playouts":30,"top":5}`)
	var a struct {
		WDL    *struct{ Win, Draw, Loss float64 } `json:"wdl"`
		Policy []struct {
			Move  string  `json:"move"`
			Prior float64 `json:"prior"`
		} `json:"policy"`
		Search *struct {
			Playouts int `json:"playouts"`
			Moves    []struct {
				Visits int `json:"visits"`
			} `json:"moves"`
		} `json:"search"`
	}
	if err := json.Unmarshal(raw, &a); status != 200 || err != nil {
		t.Fatalf("analyze: %d %s %v", status, raw, err)
	}
	if a.WDL == nil || a.WDL.Win+a.WDL.Draw+a.WDL.Loss < 0.99 || a.WDL.Win+a.WDL.Draw+a.WDL.Loss > 1.01 {
		t.Fatalf("wdl %v, want three probabilities summing to 1", a.WDL)
	}
	if len(a.Policy) != 5 || !slices.IsSortedFunc(a.Policy, func(x, y struct {
		Move  string  `json:"move"`
		Prior float64 `json:"prior"`
	}) int {
		return -cmpFloat(x.Prior, y.Prior)
	}) {
		t.Fatalf("policy %v, want 5 moves by prior", a.Policy)
	}
	g := rules.NewGame(v)
	g.Play(rules.NewMove(rules.NewSquare(3, 0), rules.NewSquare(3, 2)))
	for _, p := range a.Policy {
		m, _, _ := rules.ParseMove(p.Move)
		if !g.IsLegal(m) {
			t.Fatalf("policy move %s is not legal after d1-d3", p.Move)
		}
	}
	if a.Search == nil || a.Search.Playouts != 30 || len(a.Search.Moves) == 0 {
		t.Fatalf("search %+v, want 30 playouts with moves", a.Search)
	}
	// Equal requests give equal answers: the analysis is deterministic.
	_, _, again := call(t, ts, "POST", "/api/analyze", `{"variant":"fetlar","moves":["d1-d3"],"network":"net","playouts":30,"top":5}`)
	if !bytes.Equal(raw, again) {
		t.Fatalf("two analyses differ:\n%s\n%s", raw, again)
	}
}

// TestAnalysisPlanesOf: the analysis names the rule set whose planes the
// network was shown: the one its file names, else the played one; none for
// the built-in searcher.
func TestAnalysisPlanesOf(t *testing.T) {
	n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 4)
	if err != nil {
		t.Fatal(err)
	}
	n.SetPlanesOf(variants.MustLoad("copenhagen-classic"))
	classicNet := filepath.Join(t.TempDir(), "classic.safetensors")
	if err := n.Save(classicNet, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, network, want string
	}{
		{"a network that learnt copenhagen-classic", classicNet, "net", "copenhagen-classic"},
		{"a network that names none", nettest.TinyFile(t, 2), "net", "fetlar"},
		{"the built-in searcher", classicNet, "builtin", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := web.DefaultConfig()
			cfg.DataDir, cfg.NetFile = t.TempDir(), tc.file
			ts := testServer(t, cfg)
			status, _, raw := call(t, ts, "POST", "/api/analyze", `{"variant":"fetlar","network":"`+tc.network+`"}`)
			var a web.Analysis
			if err := json.Unmarshal(raw, &a); status != 200 || err != nil {
				t.Fatalf("analyze: %d %s %v", status, raw, err)
			}
			if a.PlanesOf != tc.want {
				t.Errorf("planes_of: got %q, want %q", a.PlanesOf, tc.want)
			}
		})
	}
}

func reasonName(o rules.Outcome) string {
	if !o.Over() {
		return ""
	}
	return o.Reason.String()
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestFilesRefused: corrupt files in the served folders get an answer that
// names the file and the problem, and a rule-set file plays as sent.
func TestFilesRefused(t *testing.T) {
	dir := t.TempDir()
	own := variants.MustLoad("copenhagen").Definition() // a rule set that does not ship
	own.Name, own.Referee = "opentafl-copenhagen", rules.RefereeOpenTafl
	ownJSON, err := json.Marshal(map[string]any{"variant": own.Name, "rules": own})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"broken.games.arrow":                "ARROW1 but not really",
		"gen-001/train/network.safetensors": "not a network",
		"gen-001/gate/games.csv":            "d1-d3,0,0,Ongoing\n",
		"gen-001/gate/match.json":           `{"variant":"fetlar"}`,
		"gen-001/outside/ot/games.csv":      "d1-d3,0,0,Ongoing\n",
		"gen-001/outside/ot/match.json":     string(ownJSON),
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := web.DefaultConfig()
	cfg.DataDir, cfg.RunDir = dir, dir
	ts := testServer(t, cfg)
	status, body, raw := call(t, ts, "GET", "/api/file-games?src=data&path=broken.games.arrow", "")
	if msg, _ := body["error"].(string); status != 422 || !strings.HasPrefix(msg, "datasets: data/broken.games.arrow: ") {
		t.Fatalf("a broken dataset: %d %s, want 422 naming the file", status, raw)
	}
	status, body, raw = call(t, ts, "POST", "/api/analyze", `{"network":"run:gen-001/train/network.safetensors"}`)
	if msg, _ := body["error"].(string); status != 422 || !strings.HasPrefix(msg, "net: run/gen-001/train/network.safetensors: ") {
		t.Fatalf("a broken network: %d %s, want 422 naming the file", status, raw)
	}
	// A match's games.csv plays under the rule set its match.json names.
	status, _, raw = call(t, ts, "GET", "/api/replay?src=run&path=gen-001/gate/games.csv&game=0", "")
	var r struct {
		Board struct{ Variant string } `json:"board"`
	}
	if err := json.Unmarshal(raw, &r); status != 200 || err != nil || r.Board.Variant != "fetlar" {
		t.Fatalf("a match's games: %d %s, want them under fetlar", status, raw)
	}
	// ... or under its own rules, which it carries.
	status, _, raw = call(t, ts, "GET", "/api/replay?src=run&path=gen-001/outside/ot/games.csv&game=0", "")
	if err := json.Unmarshal(raw, &r); status != 200 || err != nil || r.Board.Variant != own.Name {
		t.Fatalf("a match's games under its own rules: %d %s, want them under %s", status, raw, own.Name)
	}
	// A rule-set file sent by the page.
	toml, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(strings.Replace(string(toml), "edge_fort = true", "edge_fort = false", 1), `name = "copenhagen"`, `name = "no-fort"`, 1)
	body2, _ := json.Marshal(map[string]any{"variant_toml": edited, "human": "both"})
	status, _, raw = call(t, ts, "POST", "/api/games", string(body2))
	if status != 200 || !strings.Contains(string(raw), `"variant":"no-fort"`) {
		t.Fatalf("a rule-set file: %d %s, want a game of no-fort", status, raw)
	}
	// ... but not one that keeps a shipped name with other rules.
	kept := strings.Replace(string(toml), "edge_fort = true", "edge_fort = false", 1)
	body2, _ = json.Marshal(map[string]any{"variant_toml": kept, "human": "both"})
	status, body, raw = call(t, ts, "POST", "/api/games", string(body2))
	if msg, _ := body["error"].(string); status != 400 || !strings.Contains(msg, `name "copenhagen" is a shipped rule set's, but the rules differ from it in edge_fort`) {
		t.Fatalf("a rule-set file under a shipped name: %d %s, want 400 naming edge_fort", status, raw)
	}
}

// TestRunSummary: a run's summary.json is read in both of the loop's
// formats (a bare array of generations, and since the worker hosts
// {"generations", "hosts"}), and the page gets the generations as an array
// either way; a summary of neither form is named in the reply's errors.
func TestRunSummary(t *testing.T) {
	gens := `[{"generation": 1, "selfplay_games": 10}, {"generation": 2, "selfplay_games": 12}]`
	hosts := `[{"host": "a", "processes": 1, "games": 22}]`
	cases := []struct {
		name, summary string
		gens          int
		hosts         bool
		err           string
	}{
		{"array", gens, 2, false, ""},
		{"object", `{"generations": ` + gens + `, "hosts": ` + hosts + `}`, 2, true, ""},
		{"object without hosts", `{"generations": ` + gens + `}`, 2, false, ""},
		{"no generations", `{"hosts": ` + hosts + `}`, 0, false, `run/r/summary.json: no "generations" array`},
		{"a number", `7`, 0, false, "run/r/summary.json: want an array of generations"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "r"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "r", "summary.json"), []byte(c.summary), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := web.DefaultConfig()
			cfg.RunDir = dir
			ts := testServer(t, cfg)
			status, _, raw := call(t, ts, "GET", "/api/run?path=r", "")
			var r struct {
				Summary []map[string]any `json:"summary"`
				Hosts   []map[string]any `json:"hosts"`
				Errors  []string         `json:"errors"`
			}
			if err := json.Unmarshal(raw, &r); status != 200 || err != nil {
				t.Fatalf("got %d %s (%v), want 200 and a reply", status, raw, err)
			}
			if len(r.Summary) != c.gens || (r.Hosts != nil) != c.hosts {
				t.Errorf("got %d generations and hosts %v, want %d and hosts %v", len(r.Summary), r.Hosts, c.gens, c.hosts)
			}
			if got := strings.Join(r.Errors, "; "); (c.err == "") != (got == "") || !strings.Contains(got, c.err) {
				t.Errorf("got errors %q, want %q", got, c.err)
			}
		})
	}
}

// TestHostAndOrigin: a server on the loopback address answers only to a
// loopback Host (a page elsewhere could point its own name at 127.0.0.1 and
// read the served folders through its visitor's browser) unless AnyHost,
// and refuses a request from another site's page that would change a game.
func TestHostAndOrigin(t *testing.T) {
	for _, anyHost := range []bool{false, true} {
		cfg := web.DefaultConfig()
		cfg.AnyHost = anyHost
		ts := testServer(t, cfg)
		cases := []struct {
			name, method, path, host string
			header                   map[string]string
			want                     int // with AnyHost false; AnyHost answers a refused Host
		}{
			{"127.0.0.1", "GET", "/api/info", "127.0.0.1:8080", nil, 200},
			{"localhost", "GET", "/api/info", "LocalHost:8080", nil, 200},
			{"::1", "GET", "/", "[::1]:8080", nil, 200},
			{"127.0.0.2 without a port", "GET", "/api/info", "127.0.0.2", nil, 200},
			{"another name", "GET", "/api/info", "rebound.example:8080", nil, 403},
			{"another address", "GET", "/static/app.js", "192.0.2.7:8080", nil, 403},
			{"a name ending in localhost", "GET", "/api/info", "localhost.example", nil, 403},
			{"the page's own POST", "POST", "/api/games", "127.0.0.1:8080",
				map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"}, 200},
			{"another site's POST", "POST", "/api/games", "127.0.0.1:8080",
				map[string]string{"Origin": "https://elsewhere.example", "Sec-Fetch-Site": "cross-site"}, 403},
			{"another site's POST, Origin only", "POST", "/api/games", "127.0.0.1:8080",
				map[string]string{"Origin": "https://elsewhere.example"}, 403},
			{"another site's GET", "GET", "/api/info", "127.0.0.1:8080",
				map[string]string{"Origin": "https://elsewhere.example", "Sec-Fetch-Site": "cross-site"}, 200},
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("any host %v: %s", anyHost, c.name), func(t *testing.T) {
				var body io.Reader
				if c.method == "POST" {
					body = strings.NewReader(`{"human": "both"}`)
				}
				req, err := http.NewRequest(c.method, ts.URL+c.path, body)
				if err != nil {
					t.Fatal(err)
				}
				req.Host = c.host
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				for k, v := range c.header {
					req.Header.Set(k, v)
				}
				resp, err := ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				want := c.want
				if anyHost && !loopbackHostName(c.host) {
					want = 200
				}
				if resp.StatusCode != want {
					t.Errorf("got %d %s, want %d", resp.StatusCode, raw, want)
				}
				if want == 403 && !strings.Contains(string(raw), `"error"`) {
					t.Errorf("got %s, want a JSON error saying why", raw)
				}
			})
		}
	}
}

// loopbackHostName is the test's own list of the Hosts above that name the
// loopback interface.
func loopbackHostName(host string) bool {
	switch host {
	case "127.0.0.1:8080", "LocalHost:8080", "[::1]:8080", "127.0.0.2":
		return true
	}
	return false
}
