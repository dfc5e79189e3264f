package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/analysis"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/mcts"
	"taflab/rules"
	"taflab/web"
)

// postReview posts a review request and reads its answer's lines until
// stop says so (nil reads them all); it returns the status and the events.
func postReview(t *testing.T, ctx context.Context, url, body string, stop func(web.ReviewEvent) bool) (int, []web.ReviewEvent) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/api/review", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []web.ReviewEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e web.ReviewEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		events = append(events, e)
		if stop != nil && stop(e) {
			break
		}
	}
	return resp.StatusCode, events
}

// pageReview is the review the page gets of a game of v from its start
// with the built-in searcher at playouts: the analysis library's under the
// server's settings (two stretches of the game side by side).
func pageReview(t *testing.T, v *rules.Variant, moves []string, playouts int) *analysis.Review {
	t.Helper()
	game := &datasets.Game{Variant: v, Start: v.Start()}
	for _, text := range moves {
		m, captures, err := rules.ParseMove(text)
		if err != nil {
			t.Fatal(err)
		}
		game.Moves = append(game.Moves, rules.RecordedMove{Move: m, Captures: captures})
	}
	cfg := analysis.DefaultConfig()
	cfg.Playouts, cfg.Parallel = playouts, 2
	rev, err := analysis.ReviewGame(context.Background(), &cfg, mcts.NewHeuristic(), game, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// TestReview: a file's game reviewed on the server streams the game, then
// every ply once, then the summary; the plies are the analysis library's
// under the page's settings (two stretches), repeatably; a game played on
// the page is reviewed by its id.
func TestReview(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	data := t.TempDir()
	row := randomGame(t, v, 5, 40)
	if err := datasets.WriteGamesFile(filepath.Join(data, "a.games.arrow"), v.Definition(), []datasets.GameRow{row}); err != nil {
		t.Fatal(err)
	}
	cfg := web.DefaultConfig()
	cfg.DataDir = data
	ts := testServer(t, cfg)

	status, events := postReview(t, context.Background(), ts.URL, `{"src":"data","path":"a.games.arrow","game":0,"playouts":40}`, nil)
	if status != 200 || len(events) < 2 || events[0].Game == nil || events[0].Total != len(row.Moves) {
		t.Fatalf("got %d and %d events, want 200, the game first with %d plies", status, len(events), len(row.Moves))
	}
	last := events[len(events)-1]
	if last.Review == nil || last.Error != "" {
		t.Fatalf("last event %+v, want the review's summary", last)
	}
	plies := map[int]analysis.Ply{}
	for _, e := range events[1 : len(events)-1] {
		if e.Ply == nil || plies[e.Ply.Ply].Ply != 0 {
			t.Fatalf("event %+v: want each ply once", e)
		}
		plies[e.Ply.Ply] = *e.Ply
	}
	want := pageReview(t, v, row.Moves, 40)
	for _, p := range want.Plies {
		if got := plies[p.Ply]; got.Label != p.Label || got.Best != p.Best || got.WinAfter != p.WinAfter {
			t.Errorf("ply %d: got %s %q best %s after %v, want %s %q best %s after %v", p.Ply, got.Move, got.Label, got.Best, got.WinAfter, p.Move, p.Label, p.Best, p.WinAfter)
		}
	}
	if *last.Review.Attackers.Accuracy != *want.Attackers.Accuracy {
		t.Errorf("attackers' accuracy: got %v, want %v", *last.Review.Attackers.Accuracy, *want.Attackers.Accuracy)
	}

	// A game played here: the two moves of a game between two people.
	st := newGame(t, ts, `{"human":"both","variant":"copenhagen"}`)
	for _, m := range []string{"d1-d3", "h6-h9"} {
		if status, _, raw := call(t, ts, "POST", "/api/games/"+st.ID+"/move", `{"move":"`+m+`"}`); status != 200 {
			t.Fatalf("move %s: %d %s", m, status, raw)
		}
	}
	status, events = postReview(t, context.Background(), ts.URL, `{"game_id":"`+st.ID+`","playouts":20}`, nil)
	if status != 200 || events[0].Total != 2 || len(events) != 4 || events[3].Review == nil {
		t.Errorf("a game played here: got %d, %d events, want 200, the game, 2 plies and the summary", status, len(events))
	}
}

// TestReviewRefused: a review of no game, of a game the server does not
// have, or at playouts out of range is refused before it starts.
func TestReviewRefused(t *testing.T) {
	ts := testServer(t, web.DefaultConfig())
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"no game", `{"playouts":10}`, 400, "no game"},
		{"playouts 0", `{"game_id":"x","playouts":0}`, 400, "playouts 0"},
		{"playouts past the maximum", `{"game_id":"x","playouts":20001}`, 400, "playouts 20001"},
		{"no such game", `{"game_id":"x","playouts":10}`, 404, "no such game"},
		{"no data folder", `{"src":"data","path":"a.csv","playouts":10}`, 404, "-data"},
		{"unknown field", `{"game_id":"x","playouts":10,"nope":1}`, 400, "nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, raw := call(t, ts, "POST", "/api/review", c.body)
			if status != c.status || !strings.Contains(string(raw), c.want) {
				t.Errorf("got %d %s, want %d and %q", status, raw, c.status, c.want)
			}
		})
	}
}

// TestReviewStops: a review whose client goes away stops, and frees every
// slot it used; between its steps it holds no search slot, so an analysis
// runs beside it when one slot is all there is.
func TestReviewStops(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	data := t.TempDir()
	if err := datasets.WriteGamesFile(filepath.Join(data, "a.games.arrow"), v.Definition(), []datasets.GameRow{randomGame(t, v, 6, 200)}); err != nil {
		t.Fatal(err)
	}
	cfg := web.DefaultConfig()
	cfg.DataDir, cfg.MaxSearches = data, 1
	ts := testServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		_, events := postReview(t, ctx, ts.URL, `{"src":"data","path":"a.games.arrow","game":0,"playouts":20000}`, func(e web.ReviewEvent) bool { return e.Ply != nil })
		done <- len(events)
	}()
	select {
	case n := <-done:
		if n < 2 {
			t.Fatalf("got %d events before the first ply, want the game and a ply", n)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no ply within a minute")
	}
	// The review runs on: an analysis gets the one slot between its steps.
	if status, _, raw := call(t, ts, "POST", "/api/analyze", `{"playouts":10}`); status != 200 {
		t.Errorf("an analysis beside a review, one slot: got %d %s, want 200", status, raw)
	}
	cancel()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		in := getInfo(t, ts)
		if in.Searches.Running == 0 && in.Searches.Waiting == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("20 s after its client went away: %+v searches, want none", in.Searches)
		}
	}
	if status, events := postReview(t, context.Background(), ts.URL, `{"src":"data","path":"a.games.arrow","game":0,"playouts":1}`, nil); status != 200 || events[len(events)-1].Review == nil {
		t.Errorf("a review after the stopped one: got %d and %+v last, want 200 and the summary", status, events[len(events)-1])
	}

}

// TestArchiveReplay: the human archive that ships inside taflab is listed
// first and replays under its own rule set, with no folder served.
func TestArchiveReplay(t *testing.T) {
	ts := testServer(t, web.DefaultConfig())
	status, _, raw := call(t, ts, "GET", "/api/files", "")
	var files []web.FileInfo
	if err := json.Unmarshal(raw, &files); status != 200 || err != nil || len(files) == 0 {
		t.Fatalf("files: %d %s %v", status, raw, err)
	}
	if f := files[0]; f.Src != "archive" || f.Path != "copenhagen" || f.Kind != "records" {
		t.Fatalf("first file %+v, want the archive copenhagen", f)
	}
	status, _, raw = call(t, ts, "GET", "/api/file-games?src=archive&path=copenhagen", "")
	var page web.FileGames
	if err := json.Unmarshal(raw, &page); status != 200 || err != nil || page.Total != 876 || page.Games[0].Board.Variant != "copenhagen-classic" {
		t.Fatalf("the archive's games: %d, %d games of %s (%v), want 876 of copenhagen-classic", status, page.Total, page.Games[0].Board.Variant, err)
	}
	if status, _, raw := call(t, ts, "GET", "/api/replay?src=archive&path=nope&game=0", ""); status != 404 {
		t.Errorf("an archive that is not: got %d %s, want 404", status, raw)
	}
}
