package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	stdnet "net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/internal/nettest"
	"taflab/web"
)

// ruleSet returns copenhagen's rule-set file with its name, size and start
// replaced, as a JSON string for a request.
func ruleSet(t *testing.T, name string, size int, start string) string {
	t.Helper()
	toml, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(toml), `name = "copenhagen"`, fmt.Sprintf("name = %q", name), 1)
	text = strings.Replace(text, "size = 11", fmt.Sprintf("size = %d", size), 1)
	old := `start = "3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a"`
	if !strings.Contains(text, old) {
		t.Fatal("copenhagen.toml's start line changed: update ruleSet")
	}
	text = strings.Replace(text, old, fmt.Sprintf("start = %q", start), 1)
	b, _ := json.Marshal(text)
	return string(b)
}

// TestHostileRequests: the web parts of issue 23's reproductions, each
// answered by a JSON error that names what is wrong, and none of them able
// to leave a game thinking.
func TestHostileRequests(t *testing.T) {
	cfg := web.DefaultConfig()
	cfg.NetFile = nettest.TinyFile(t, 3)
	ts := testServer(t, cfg)
	noMove := ruleSet(t, "no-move", 11, "11/11/11/11/11/5k5/11/11/11/11/11 a")       // the issue's: no attacker
	hemmed := ruleSet(t, "hemmed-in", 11, "11/11/11/11/11/5k5/11/11/11/2d8/1dad7 a") // one attacker, walled in
	kingOut := ruleSet(t, "king-out", 11, "k10/11/11/11/11/11/5a5/11/11/11/11 a")    // the king on a corner
	small := ruleSet(t, "brandubh-like", 7, "3a3/3a3/3d3/aadkdaa/3d3/3a3/3a3 a")
	for _, c := range []struct {
		name, path, body string
		status           int
		msg              string
	}{
		// Item 2: a rule set whose start has no legal move.
		{"a start without attackers, playing", "/api/games", `{"variant_toml":` + noMove + `,"human":"defenders","engine":"builtin","playouts":10}`, 422, "the game is over"},
		{"a start without attackers, two people", "/api/games", `{"variant_toml":` + noMove + `,"human":"both"}`, 422, "the game is over"},
		{"a start without attackers, analysis", "/api/analyze", `{"variant_toml":` + noMove + `,"playouts":10}`, 422, "the game is over"},
		{"a start with the attackers walled in, playing", "/api/games", `{"variant_toml":` + hemmed + `,"human":"defenders","engine":"builtin","playouts":10}`, 422, "the game is over"},
		{"a start with the attackers walled in, analysis", "/api/analyze", `{"variant_toml":` + hemmed + `,"playouts":10}`, 422, "the game is over"},
		{"a start with the king on a corner", "/api/games", `{"variant_toml":` + kingOut + `,"human":"both"}`, 422, "corner"},
		{"a given start without a move", "/api/games", `{"start":"11/11/11/11/11/5k5/11/11/11/2d8/1dad7 a","human":"both"}`, 422, "start:"},
		{"a given start with the king on a corner", "/api/games", `{"start":"k10/11/11/11/11/11/5a5/11/11/11/11 a","human":"both"}`, 422, "corner"},
		// Item 8: a 7x7 game against an 11x11 network.
		{"a 7x7 game against a network", "/api/games", `{"variant_toml":` + small + `,"human":"attackers","engine":"net","playouts":10}`, 422, `network "net" plays 11x11 boards, and brandubh-like is 7x7: choose the built-in searcher`},
		{"a 7x7 analysis with a network", "/api/analyze", `{"variant_toml":` + small + `,"network":"net","playouts":10}`, 422, "plays 11x11 boards"},
		// Item 6 (and 1): playouts out of range, named with the range.
		{"analysis playouts past the maximum", "/api/analyze", `{"playouts":20001}`, 400, "playouts 20001: want 0 to 20000"},
		{"analysis playouts past 32 bits", "/api/analyze", `{"playouts":4294967297}`, 400, "playouts 4294967297: want 0 to 20000"},
		{"analysis playouts past 64 bits", "/api/analyze", `{"playouts":99999999999999999999}`, 400, "playouts 99999999999999999999: want a whole number, at most 20000"},
		{"analysis playouts not whole", "/api/analyze", `{"playouts":1e30}`, 400, "playouts 1e30: want a whole number"},
		{"analysis playouts negative", "/api/analyze", `{"playouts":-5}`, 400, "playouts -5: want 0 to 20000"},
		{"game playouts past the maximum", "/api/games", `{"human":"defenders","engine":"builtin","playouts":3000000000}`, 400, "playouts 3000000000: want 1 to 20000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body, raw := call(t, ts, "POST", c.path, c.body)
			if status != c.status {
				t.Fatalf("got status %d (%.200s), want %d", status, raw, c.status)
			}
			if msg, _ := body["error"].(string); msg == "" || !strings.Contains(msg, c.msg) {
				t.Fatalf("got error %q, want one containing %q", msg, c.msg)
			}
		})
	}
	// The 7x7 rule set plays against the built-in searcher.
	g := newGame(t, ts, `{"variant_toml":`+small+`,"human":"defenders","engine":"builtin","playouts":10}`)
	if status, _, raw := call(t, ts, "POST", "/api/games/"+g.ID+"/engine", ""); status != 200 {
		t.Fatalf("a 7x7 game's engine move: got %d %s, want 200", status, raw)
	}
}

// info is /api/info's load.
type info struct {
	Searches struct{ Running, Waiting, Max int } `json:"searches"`
}

func getInfo(t *testing.T, ts *httptest.Server) info {
	t.Helper()
	_, _, raw := call(t, ts, "GET", "/api/info", "")
	var in info
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatalf("/api/info %s: %v", raw, err)
	}
	return in
}

// waitRunning waits up to d for n searches to run, and reports whether they
// did.
func waitRunning(t *testing.T, ts *httptest.Server, n int, d time.Duration) bool {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if getInfo(t, ts).Searches.Running == n {
			return true
		}
	}
	return false
}

// longSearch starts an analysis that would take the tiny network many
// seconds, and returns the function that cancels it (its client goes away)
// and waits for its answer.
func longSearch(t *testing.T, ts *httptest.Server) (cancel func() error) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/analyze", strings.NewReader(`{"network":"net","playouts":200000}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		resp, err := ts.Client().Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			err = fmt.Errorf("the long search answered %d %s before it was cancelled", resp.StatusCode, b)
		}
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		done <- err
	}()
	return func() error { stop(); return <-done }
}

// TestSearchLimit: the searches that run at once are bounded; a request
// past the limit waits its turn briefly, then gets 503 with a message, and a
// search whose client goes away stops, freeing its slot.
func TestSearchLimit(t *testing.T) {
	for _, c := range []struct {
		name      string
		queue     int
		wait      time.Duration
		minWaited time.Duration
	}{
		{"no queue", 0, 5 * time.Second, 0},
		{"a queue that times out", 4, 300 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := web.DefaultConfig()
			cfg.NetFile = nettest.TinyFile(t, 4)
			cfg.MaxSearches, cfg.MaxQueue, cfg.QueueWait, cfg.MaxPlayouts = 1, c.queue, c.wait, 200000
			ts := testServer(t, cfg)
			cancel := longSearch(t, ts)
			if !waitRunning(t, ts, 1, 5*time.Second) {
				cancel()
				t.Fatalf("got %+v, want the long search running", getInfo(t, ts))
			}
			start := time.Now()
			req, _ := http.NewRequest("POST", ts.URL+"/api/analyze", strings.NewReader(`{"playouts":10}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := ts.Client().Do(req)
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			waited := time.Since(start)
			if resp.StatusCode != 503 || !strings.Contains(string(raw), "the server is busy: 1 searches are running") || resp.Header.Get("Retry-After") == "" {
				t.Errorf("got %d %s (Retry-After %q), want 503 saying the server is busy, with Retry-After", resp.StatusCode, raw, resp.Header.Get("Retry-After"))
			}
			if waited < c.minWaited {
				t.Errorf("got an answer after %v, want one after the queue's wait %v", waited, c.minWaited)
			}
			// The client goes away: its search stops, and the slot is free.
			if err := cancel(); err != nil {
				t.Fatal(err)
			}
			if !waitRunning(t, ts, 0, 2*time.Second) {
				t.Fatalf("got %+v 2 s after the client went away, want no search running", getInfo(t, ts))
			}
			if status, _, raw := call(t, ts, "POST", "/api/analyze", `{"playouts":10}`); status != 200 {
				t.Fatalf("after the long search: got %d %s, want 200", status, raw)
			}
		})
	}
}

// TestEngineMoveCancelled: an engine move whose client goes away stops, and
// leaves the game to move again (not thinking).
func TestEngineMoveCancelled(t *testing.T) {
	cfg := web.DefaultConfig()
	cfg.NetFile = nettest.TinyFile(t, 5)
	cfg.MaxPlayouts = 200000
	ts := testServer(t, cfg)
	g := newGame(t, ts, `{"human":"defenders","engine":"net","playouts":200000}`)
	ctx, stop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/games/"+g.ID+"/engine", nil)
	done := make(chan error, 1)
	go func() {
		resp, err := ts.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	if !waitRunning(t, ts, 1, 5*time.Second) {
		stop()
		t.Fatal("the engine's search did not start")
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the request cancelled", err)
	}
	if !waitRunning(t, ts, 0, 2*time.Second) {
		t.Fatal("the engine's search still runs 2 s after its client went away")
	}
	_, body, raw := call(t, ts, "GET", "/api/games/"+g.ID, "")
	if body["thinking"] != false || body["engine_to_move"] != true || body["ply"] != 0.0 {
		t.Fatalf("got %s, want the game at ply 0, the engine to move, not thinking", raw)
	}
}

// timeoutServer serves cfg through its own http.Server (HTTPServer), with
// the Config's timeouts.
func timeoutServer(t *testing.T, cfg web.Config) *httptest.Server {
	t.Helper()
	srv, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	hs := srv.HTTPServer()
	hs.Handler = ts.Config.Handler
	ts.Config = hs
	ts.Start()
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts
}

// TestTimeouts: a client that trickles its request's headers or body, or
// keeps an idle connection, is cut off within the server's timeouts.
func TestTimeouts(t *testing.T) {
	cfg := web.DefaultConfig()
	cfg.ReadHeaderTimeout, cfg.ReadTimeout, cfg.IdleTimeout = 300*time.Millisecond, 1500*time.Millisecond, 400*time.Millisecond
	ts := timeoutServer(t, cfg)
	addr := strings.TrimPrefix(ts.URL, "http://")
	object, spaces := `{"playouts":10}`, strings.Repeat(" ", 25) // a body of 40 bytes: 4 s at a byte every 100 ms
	request := "POST /api/analyze HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: " + fmt.Sprint(len(object+spaces)) + "\r\n\r\n"
	const slack = 700 * time.Millisecond
	for _, c := range []struct {
		name     string
		sent     string        // sent at once
		trickled string        // then a byte every 100 ms
		answered time.Duration // the answer has come by then
		within   time.Duration // and the connection is closed by then
		answer   string        // the start of the answer
	}{
		{"trickled headers", "", request, cfg.ReadHeaderTimeout + slack, cfg.ReadHeaderTimeout + slack, "HTTP/1.1 400"},
		{"trickled body", request, object + spaces, cfg.ReadTimeout + slack, cfg.ReadTimeout + slack, "HTTP/1.1 408"},
		{"a whole object, then trickled spaces", request + object, spaces, cfg.ReadTimeout + slack, cfg.ReadTimeout + slack, "HTTP/1.1 408"},
		// Answered at the first bad byte; the server reads (and drops) the
		// rest until the read timeout before it closes.
		{"a bad body, trickled", request, "x" + spaces, 100*time.Millisecond + slack, cfg.ReadTimeout + slack, "HTTP/1.1 400"},
		{"idle connection", request + object + spaces, "", slack, cfg.IdleTimeout + slack, "HTTP/1.1 200"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := stdnet.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			conn.SetDeadline(start.Add(5 * time.Second)) // the test's own bound
			if _, err := io.WriteString(conn, c.sent); err != nil {
				t.Fatal(err)
			}
			go func() {
				for i := range len(c.trickled) {
					time.Sleep(100 * time.Millisecond)
					if _, err := conn.Write([]byte{c.trickled[i]}); err != nil {
						return
					}
				}
			}()
			rd := bufio.NewReader(conn)
			first, err := rd.Peek(1)
			if err == nil && len(first) == 1 {
				if d := time.Since(start); d > c.answered {
					t.Errorf("got the answer after %v, want it within %v", d, c.answered)
				}
			}
			got, err := io.ReadAll(rd)
			elapsed := time.Since(start)
			var ne stdnet.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("got the connection open after %v, want it closed within %v", elapsed, c.within)
			}
			if elapsed > c.within {
				t.Errorf("got the connection closed after %v, want within %v", elapsed, c.within)
			}
			if !strings.HasPrefix(string(got), c.answer) {
				t.Errorf("got answer %.100q, want one starting %q", got, c.answer)
			}
		})
	}
}

// TestRunByteCap: /api/run reads a run's reports up to MaxRunBytes in all,
// and names each one it skipped past the cap.
func TestRunByteCap(t *testing.T) {
	dir := t.TempDir()
	big := `{"pad":"` + strings.Repeat("x", 600<<10) + `"}` // about 600 KiB
	for _, sub := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, "r", sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "r", sub, "balance.json"), []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name    string
		cap     int64
		read    int
		skipped int
	}{
		{"all fit", 4 << 20, 3, 0},
		{"one fits", 1 << 20, 1, 2},
		{"none fits", 100 << 10, 0, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := web.DefaultConfig()
			cfg.RunDir, cfg.MaxRunBytes = dir, c.cap
			ts := testServer(t, cfg)
			status, _, raw := call(t, ts, "GET", "/api/run?path=r", "")
			var r struct {
				Balance []json.RawMessage `json:"balance"`
				Errors  []string          `json:"errors"`
			}
			if err := json.Unmarshal(raw, &r); status != 200 || err != nil {
				t.Fatalf("got %d (%v), want 200 and a reply", status, err)
			}
			skipped := 0
			for _, e := range r.Errors {
				if strings.Contains(e, fmt.Sprintf("would pass the %d bytes the server reads for one request", c.cap)) {
					skipped++
				}
			}
			if len(r.Balance) != c.read || skipped != c.skipped || len(r.Errors) != c.skipped {
				t.Fatalf("got %d reports read and %d skipped (errors %q), want %d and %d", len(r.Balance), skipped, r.Errors, c.read, c.skipped)
			}
		})
	}
}

// TestSearchOutlastsWriteTimeout: a search that takes longer than the
// server's write timeout is still answered: the timeout is lifted while it
// searches, and set again for its answer.
func TestSearchOutlastsWriteTimeout(t *testing.T) {
	cfg := web.DefaultConfig()
	cfg.NetFile = nettest.TinyFile(t, 6)
	cfg.WriteTimeout = 50 * time.Millisecond
	ts := timeoutServer(t, cfg)
	for _, c := range []struct {
		name, path, body string
	}{
		{"a network's search", "/api/analyze", `{"network":"net","playouts":8000}`},
		{"an engine's move", "", `{"human":"attackers","engine":"net","playouts":8000}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			body := c.body
			if path == "" { // a game first, then the engine's move
				g := newGame(t, ts, c.body)
				status, _, raw := call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"d1-d3"}`)
				if status != 200 {
					t.Fatalf("my move: %d %s", status, raw)
				}
				path, body = "/api/games/"+g.ID+"/engine", ""
			}
			start := time.Now()
			status, _, raw := call(t, ts, "POST", path, body)
			took := time.Since(start)
			if status != 200 {
				t.Fatalf("got %d %.200s after %v, want 200", status, raw, took)
			}
			if took < 2*cfg.WriteTimeout {
				t.Fatalf("the search took %v: make it longer than the write timeout %v for the test to mean something", took, cfg.WriteTimeout)
			}
		})
	}
}

// TestSlotsFreedAfterErrors: requests that fail inside a search or read slot
// free it: after many of them, none is held and a good request runs.
func TestSlotsFreedAfterErrors(t *testing.T) {
	data := t.TempDir()
	for name, text := range map[string]string{"bad.csv": "z9-z9,0,0,Ongoing", "good.csv": "d1-d3,0,0,Ongoing"} {
		if err := os.WriteFile(filepath.Join(data, name), []byte("moves,attacker_captures,defender_captures,result\n"+text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := web.DefaultConfig()
	cfg.DataDir, cfg.MaxSearches, cfg.MaxReads, cfg.QueueWait = data, 1, 1, 100*time.Millisecond
	ts := testServer(t, cfg)
	for _, c := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"a missing file", "GET", "/api/file-games?src=data&path=none.csv", "", 404},
		{"a bad record", "GET", "/api/file-games?src=data&path=bad.csv", "", 422},
		{"a replay past the end", "GET", "/api/replay?src=data&path=good.csv&game=5", "", 404},
		{"a finished game analysed", "POST", "/api/analyze", `{"start":"k10/11/11/11/11/11/5a5/11/11/11/11 a"}`, 422},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range 3 { // more than the one slot of each
				if status, _, raw := call(t, ts, c.method, c.path, c.body); status != c.status {
					t.Fatalf("got %d %s, want %d", status, raw, c.status)
				}
			}
			_, _, raw := call(t, ts, "GET", "/api/info", "")
			var in struct {
				Searches, Reads struct{ Running, Waiting int }
			}
			if err := json.Unmarshal(raw, &in); err != nil || in.Searches.Running+in.Reads.Running+in.Searches.Waiting+in.Reads.Waiting != 0 {
				t.Fatalf("got %s (%v), want no slot held or waited for", raw, err)
			}
		})
	}
	if status, _, raw := call(t, ts, "POST", "/api/analyze", `{"playouts":10}`); status != 200 {
		t.Fatalf("a good analysis after them: got %d %s, want 200", status, raw)
	}
}

// TestTreeBudget: a search whose tree reaches Config.TreeBytes ends early
// with the playouts it has, and says how many; one within it runs them all.
func TestTreeBudget(t *testing.T) {
	for _, c := range []struct {
		name      string
		treeBytes int64
		playouts  int
		all       bool
	}{
		{"within the budget", 64 << 20, 2000, true},
		{"past the budget", 4 << 20, 1_000_000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := web.DefaultConfig()
			cfg.TreeBytes, cfg.MaxPlayouts = c.treeBytes, web.PlayoutsLimit
			ts := testServer(t, cfg)
			start := time.Now()
			status, _, raw := call(t, ts, "POST", "/api/analyze", fmt.Sprintf(`{"playouts":%d}`, c.playouts))
			var a struct {
				Search struct{ Playouts int } `json:"search"`
			}
			if err := json.Unmarshal(raw, &a); status != 200 || err != nil {
				t.Fatalf("got %d %.200s, want 200", status, raw)
			}
			if got := a.Search.Playouts; got < 1 || got > c.playouts || (got == c.playouts) != c.all {
				t.Fatalf("got %d playouts of %d asked in %v, want all of them: %v", got, c.playouts, time.Since(start), c.all)
			}
		})
	}
}

// TestIssue36Reproductions: the web parts of issue 36's findings 1 to 3.
// A rule set 40,000 tables deep posted as variant_toml (82 KB, which took
// 21.6 s and 1.7 GB) is refused 400 naming the bound; a named pipe in a
// served folder (which held the one read slot for good, every replay then
// answered 503) is refused 400 at once, and the slot is free again: a
// games file replays after it; a million one-move games (16 MB, a 348 MB
// answer before) are listed a page of GamesPage at a time, and a game
// longer than MaxPlies is refused 422.
func TestIssue36Reproductions(t *testing.T) {
	data := t.TempDir()
	for name, text := range map[string]string{
		"games.csv": "d1-d3 e5-e2,0,0,Ongoing\n",
		"ones.csv":  strings.Repeat("d1-d3,0,0,Black\n", 1_000_000),
		"long.csv":  strings.TrimSuffix(strings.Repeat("d1-d2 ", web.MaxPlies+1), " ") + ",0,0,Ongoing\n",
	} {
		if err := os.WriteFile(filepath.Join(data, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(data, "fifo.csv")); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	cfg := web.DefaultConfig()
	cfg.DataDir = data
	ts := testServer(t, cfg)
	deep, _ := json.Marshal("[" + strings.Repeat("a.", 40000) + "b]\n")
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		msg                      string
	}{
		{"finding 1: variant_toml 40,000 tables deep", "POST", "/api/games", `{"variant_toml":` + string(deep) + `,"human":"both"}`, 400,
			"rule-set file: line 1: a value nested 17 deep, past the most a TOML file may nest (16 tables, arrays and inline tables)"},
		{"finding 2: a named pipe's games", "GET", "/api/file-games?src=data&path=fifo.csv", "", 400, "data/fifo.csv: not a regular file"},
		{"finding 2: a named pipe's game", "GET", "/api/replay?src=data&path=fifo.csv&game=0", "", 400, "data/fifo.csv: not a regular file"},
		{"finding 2: a file after the pipe", "GET", "/api/file-games?src=data&path=games.csv", "", 200, ""},
		{"finding 3: a million one-move games, the first page", "GET", "/api/file-games?src=data&path=ones.csv", "", 200, ""},
		{"finding 3: the last page", "GET", "/api/file-games?src=data&path=ones.csv&offset=999990", "", 200, ""},
		{"finding 3: past the last game", "GET", "/api/file-games?src=data&path=games.csv&offset=5", "", 200, ""},
		{"finding 3: a bad offset", "GET", "/api/file-games?src=data&path=games.csv&offset=-1", "", 400, `offset "-1": want a game's index from 0`},
		{"finding 3: a game past MaxPlies", "GET", "/api/replay?src=data&path=long.csv&game=0", "", 422, "game 0: 10001 plies, more than the 10000 the page replays a game of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body, raw := call(t, ts, c.method, c.path, c.body)
			if status != c.status {
				t.Fatalf("got %d %s, want %d", status, raw, c.status)
			}
			if msg, _ := body["error"].(string); !strings.Contains(msg, c.msg) {
				t.Errorf("got error %q, want it to say %q", msg, c.msg)
			}
			if !strings.Contains(c.path, "/api/file-games") || status != 200 {
				return
			}
			var page web.FileGames
			if err := json.Unmarshal(raw, &page); err != nil {
				t.Fatal(err)
			}
			total := 1
			if strings.Contains(c.path, "ones.csv") {
				total = 1_000_000
			}
			want := max(0, min(web.GamesPage, total-page.Offset))
			if page.Total != total || len(page.Games) != want || want > 0 && page.Games[0].Index != page.Offset {
				t.Errorf("got %d games of %d from %d, want %d of %d", len(page.Games), page.Total, page.Offset, want, total)
			}
		})
	}
	var in struct {
		Reads struct{ Running, Waiting int } `json:"reads"`
	}
	if _, _, raw := call(t, ts, "GET", "/api/info", ""); json.Unmarshal(raw, &in) != nil || in.Reads.Running != 0 || in.Reads.Waiting != 0 {
		t.Errorf("/api/info: got %s, want no read running or waiting", raw)
	}
}
