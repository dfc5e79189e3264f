package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	stdnet "net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/internal/nettest"
	"taflab/web"

	"taflab/internal/proctest"
)

// memoryBound is the most resident memory (VmHWM, the peak) the server
// process may reach under TestMemoryUnderLoad's load.
const memoryBound = 512 << 20

// The most bytes an answer about a games file may hold: a page of
// web.GamesPage games listed (some 500 bytes each), and a game replayed
// (within web.MaxPlies; these are one move).
const (
	maxListingAnswer = 400 << 10
	maxReplayAnswer  = 4 << 10
)

const childEnv = "TAFLAB_WEB_MEMORY_CHILD" // the child's Config, as JSON

// TestMemoryServerProcess is the server of TestMemoryUnderLoad, run in a
// process of its own so that its peak memory is its own: it serves the
// Config in $TAFLAB_WEB_MEMORY_CHILD on a loopback port, writes the port's
// URL on its first line, and stops when its standard input closes.
func TestMemoryServerProcess(t *testing.T) {
	js := os.Getenv(childEnv)
	if js == "" {
		t.Skip("the server process of TestMemoryUnderLoad; it runs only as that test's child")
	}
	var cfg web.Config
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg.SetMemoryLimit() // as eval serve does
	ln, err := stdnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	fmt.Printf("http://%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin) // until the parent closes it (or dies)
	hs.Close()
}

// TestMemoryUnderLoad runs the server in a process of its own, with the
// default limits (2 searches at once, 20,000 playouts at most, one request
// reading files at a time, a queue of 32 waiting at most 10 s, 16 MiB read
// by one /api/run), and puts on it at once the loads of issue 23 item 6:
// 40 analyses at 20,000 playouts (32 with the built-in searcher, 8 with a
// network), 8 clients that go away in the middle of a network's search, 4
// requests whose bodies trickle in a byte every 200 ms, 4 requests of a run
// whose reports come to 80 MiB, and 2 listings of a 15 MiB games file.
// Every analysis is answered 200 or 503 (busy), the trickled requests are
// cut off at the read timeout, and the process's peak resident memory
// stays under memoryBound.
func TestMemoryUnderLoad(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies memory: the bound is checked without -race")
	}
	if testing.Short() {
		t.Skip("-short: the memory test takes some 10 s")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the process's peak memory is read from /proc/PID/status")
	}
	run := t.TempDir()
	big := `{"pad":"` + strings.Repeat("x", 10<<20) + `"}` // 10 MiB
	for i := range 8 {
		dir := filepath.Join(run, "r", fmt.Sprintf("b%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "balance.json"), []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 15 MiB of game records (the same few games again and again), under
	// the default MaxFileBytes.
	v := variants.MustLoad("copenhagen")
	var lines strings.Builder
	for seed := range uint64(20) {
		lines.WriteString(strings.Join(randomGame(t, v, seed+1, 150).Moves, " ") + ",0,0,Ongoing\n")
	}
	records := []byte("moves,attacker_captures,defender_captures,result\n" + strings.Repeat(lines.String(), (15<<20)/lines.Len()))
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "games.csv"), records, 0o644); err != nil {
		t.Fatal(err)
	}
	// Issue 36 finding 3: 1,000,000 one-move games, 16 MB (a listing of
	// them was a 348 MB answer and took 1.49 GB).
	if err := os.WriteFile(filepath.Join(data, "ones.csv"), bytes.Repeat([]byte("d1-d3,0,0,Black\n"), 1_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := web.DefaultConfig()
	cfg.RunDir, cfg.DataDir, cfg.NetFile = run, data, nettest.TinyFile(t, 7)
	cfg.ReadTimeout = 2 * time.Second // the default 30 s, shortened for the test
	js, _ := json.Marshal(cfg)

	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryServerProcess$", "-test.v=false")
	cmd.Env = append(os.Environ(), childEnv+"="+string(js))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill() // the process this test started
			<-done
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the server process: %v", err)
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("the server process said %q, want its loopback URL", line)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}
	post := func(ctx context.Context, path, body string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, "POST", base+path, strings.NewReader(body))
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}

	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex // guards the counts and errs below
	answers := map[int]int{}
	largest := 0 // the largest listing's bytes
	var errs []string
	fail := func(format string, a ...any) {
		mu.Lock()
		errs = append(errs, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	// 40 analyses at the most playouts, at once.
	for i := range 40 {
		wg.Go(func() {
			network := "builtin"
			if i%5 == 4 {
				network = "net"
			}
			status, body, err := post(context.Background(), "/api/analyze", fmt.Sprintf(`{"network":%q,"playouts":20000,"moves":["d1-d%d"]}`, network, 2+i%2))
			switch {
			case err != nil:
				fail("analysis %d: %v", i, err)
			case status == 503 && strings.Contains(body, "the server is busy"):
			case status == 200 && strings.Contains(body, `"playouts":20000`):
			default:
				fail("analysis %d: got %d %.200s, want 200 with 20000 playouts or 503 busy", i, status, body)
			}
			mu.Lock()
			answers[status]++
			mu.Unlock()
		})
	}
	// 8 clients that go away in the middle of a network's search.
	for i := range 8 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(50+50*i)*time.Millisecond)
			defer cancel()
			if status, body, err := post(ctx, "/api/analyze", `{"network":"net","playouts":20000}`); err == nil && status != 503 {
				fail("a client gone after %v: got %d %.100s, want no answer (or 503 busy)", time.Duration(50+50*i)*time.Millisecond, status, body)
			}
		})
	}
	// 4 bodies trickled in a byte every 200 ms.
	for i := range 4 {
		wg.Go(func() {
			conn, err := stdnet.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				fail("trickle %d: %v", i, err)
				return
			}
			defer conn.Close()
			body := `{"playouts":20000}`
			fmt.Fprintf(conn, "POST /api/analyze HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
			t0 := time.Now()
			conn.SetDeadline(t0.Add(10 * time.Second))
			go func() {
				for j := range len(body) {
					time.Sleep(200 * time.Millisecond)
					if _, err := conn.Write([]byte{body[j]}); err != nil {
						return
					}
				}
			}()
			got, _ := io.ReadAll(conn)
			if d := time.Since(t0); d > cfg.ReadTimeout+2*time.Second || !strings.HasPrefix(string(got), "HTTP/1.1 408") {
				fail("trickle %d: got %.60q after %v, want 408 within the read timeout %v", i, got, d, cfg.ReadTimeout)
			}
		})
	}
	// 4 readings of a run whose reports are 80 MiB in all.
	for i := range 4 {
		wg.Go(func() {
			resp, err := client.Get(base + "/api/run?path=r")
			if err != nil {
				fail("run %d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			var r struct {
				Balance []json.RawMessage `json:"balance"`
				Errors  []string          `json:"errors"`
			}
			err = json.NewDecoder(resp.Body).Decode(&r)
			if resp.StatusCode == 503 {
				return
			}
			if err != nil || resp.StatusCode != 200 || len(r.Balance) != 1 || len(r.Errors) != 7 {
				fail("run %d: got %d, %d reports, %d errors (%v), want 200, 1 report and 7 skipped past the 16 MiB cap", i, resp.StatusCode, len(r.Balance), len(r.Errors), err)
			}
		})
	}
	// Listings of the first and the last page of a 15 MiB games file and
	// of 1,000,000 one-move games, and a replay of the millionth game: each
	// answer within its bound.
	longGames := bytes.Count(records, []byte("\n")) - 1
	for i, c := range []struct {
		path  string
		total int // the file's games; -1 for a replay
	}{
		{"/api/file-games?src=data&path=games.csv", longGames},
		{fmt.Sprintf("/api/file-games?src=data&path=games.csv&offset=%d", longGames-1), longGames},
		{"/api/file-games?src=data&path=ones.csv", 1_000_000},
		{"/api/file-games?src=data&path=ones.csv&offset=999500", 1_000_000},
		{"/api/replay?src=data&path=ones.csv&game=999999", -1},
	} {
		wg.Go(func() {
			resp, err := client.Get(base + c.path)
			if err != nil {
				fail("file %d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			if resp.StatusCode == 503 {
				return
			}
			if err != nil || resp.StatusCode != 200 {
				fail("%s: got %d %.200s (%v), want 200", c.path, resp.StatusCode, raw, err)
				return
			}
			if c.total < 0 {
				if len(raw) > maxReplayAnswer {
					fail("%s: a %d-byte answer, want at most %d", c.path, len(raw), maxReplayAnswer)
				}
				return
			}
			var page struct {
				Total, Offset int
				Games         []json.RawMessage
			}
			err = json.Unmarshal(raw, &page)
			if want := min(web.GamesPage, c.total-page.Offset); err != nil || page.Total != c.total || len(page.Games) != want {
				fail("%s: got %d games of %d (%v), want %d of %d", c.path, len(page.Games), page.Total, err, want, c.total)
			}
			if len(raw) > maxListingAnswer {
				fail("%s: a %d-byte answer, want at most %d", c.path, len(raw), maxListingAnswer)
			}
			mu.Lock()
			largest = max(largest, len(raw))
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, e := range errs {
		t.Error(e)
	}
	if answers[200] < 2 {
		t.Errorf("got answers %v, want at least 2 analyses done", answers)
	}
	// Once the load is gone, no search is left running.
	resp, err := client.Get(base + "/api/info")
	if err != nil {
		t.Fatal(err)
	}
	var in info
	json.NewDecoder(resp.Body).Decode(&in)
	resp.Body.Close()
	if in.Searches.Running != 0 || in.Searches.Waiting != 0 {
		t.Errorf("after the load: got %+v, want no search running or waiting", in.Searches)
	}
	peak, err := proctest.PeakRSS(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("in %v: analyses answered %v; the largest listing %d KiB (bound %d KiB); the server's peak resident memory %d MiB (bound %d MiB)",
		elapsed.Round(time.Millisecond), answers, largest>>10, maxListingAnswer>>10, peak>>20, memoryBound>>20)
	if peak > memoryBound {
		t.Errorf("got a peak resident memory of %d MiB, want at most %d MiB", peak>>20, memoryBound>>20)
	}
}
