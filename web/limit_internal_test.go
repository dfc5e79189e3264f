package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/internal/nettest"
	"taflab/mcts"
	"taflab/rules"
)

// brokenEval fails every evaluation, by panicking or with an error.
type brokenEval struct{ panics bool }

func (e brokenEval) Evaluate(*mcts.Batch) error {
	if e.panics {
		panic("a bug in the evaluator")
	}
	return errors.New("the evaluator failed")
}

func (brokenEval) ID() string { return "broken" }

// TestEngineFailureReleasesGame: an engine move whose search panics or
// fails is answered 500, and leaves the game to move again, not "already
// thinking" for ever, with its search slot free.
func TestEngineFailureReleasesGame(t *testing.T) {
	for _, c := range []struct {
		name   string
		panics bool
		msg    string
	}{
		{"a panic", true, "engine: the search failed: a bug in the evaluator"},
		{"an error", false, "the evaluator failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MaxSearches = 1
			s, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			gm, err := s.newGame(NewGameRequest{Human: "defenders", Engine: "builtin", Playouts: 10})
			if err != nil {
				t.Fatal(err)
			}
			gm.newEval = func() (mcts.Evaluator, error) { return brokenEval{c.panics}, nil }
			for i := range 3 { // the same answer each time: never "already thinking"
				w := httptest.NewRecorder()
				s.ServeHTTP(w, httptest.NewRequest("POST", "http://127.0.0.1/api/games/"+gm.id+"/engine", nil))
				var body struct{ Error string }
				json.Unmarshal(w.Body.Bytes(), &body)
				if w.Code != http.StatusInternalServerError || !strings.Contains(body.Error, c.msg) {
					t.Fatalf("request %d: got %d %q, want 500 with %q", i+1, w.Code, body.Error, c.msg)
				}
				gm.mu.Lock()
				thinking, version := gm.thinking, gm.version
				gm.mu.Unlock()
				if thinking || version != 0 || s.searches.running() != 0 {
					t.Fatalf("request %d: got thinking %v, version %d, %d searches running; want false, 0, 0", i+1, thinking, version, s.searches.running())
				}
			}
		})
	}
}

// TestNetworkCacheBounded: a page that asks for every network of a run
// keeps at most maxNetworks loaded, and one dropped loads again.
func TestNetworkCacheBounded(t *testing.T) {
	file, err := os.ReadFile(nettest.TinyFile(t, 9))
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	var ids []string
	for i := range maxNetworks + 3 {
		rel := fmt.Sprintf("gen-%03d/network.safetensors", i+1)
		if err := os.MkdirAll(filepath.Join(run, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, rel), file, 0o644); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, runPrefix+rel)
	}
	cfg := DefaultConfig()
	cfg.RunDir = run
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for round, want := range []int{maxNetworks, maxNetworks} { // the second round loads the dropped ones again
		for _, id := range ids {
			if _, err := s.network(id); err != nil {
				t.Fatalf("round %d: %s: %v", round+1, id, err)
			}
		}
		s.netMu.Lock()
		got, order := len(s.networks), len(s.netOrder)
		s.netMu.Unlock()
		if got != want || order != want {
			t.Fatalf("round %d: got %d networks loaded (%d in order), want %d", round+1, got, order, want)
		}
	}
}

// TestGameEndsAtMaxPlies: a game on the page holds at most MaxPlies
// plies, so that its state (which lists its moves) stays bounded under a
// rule set whose games need not end: a person's move and the engine's
// past it are refused with 409, naming the bound.
func TestGameEndsAtMaxPlies(t *testing.T) {
	s, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ human, path, body, msg string }{
		{"both", "move", `{"move":"d1-d2"}`, "move d1-d2: the game has 10000 plies, the most the page plays: start a new one"},
		{"defenders", "engine", ``, "engine: the game has 10000 plies, the most the page plays: start a new one"},
	} {
		gm, err := s.newGame(NewGameRequest{Human: c.human, Engine: "builtin", Playouts: 1})
		if err != nil {
			t.Fatal(err)
		}
		gm.moves = make([]rules.RecordedMove, MaxPlies) // as if played
		req := httptest.NewRequest(http.MethodPost, "/api/games/"+gm.id+"/"+c.path, strings.NewReader(c.body))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), c.msg) {
			t.Errorf("%s: got %d %s, want 409 saying %q", c.path, rec.Code, rec.Body, c.msg)
		}
	}
}
