package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/net"
	"taflab/web"
)

// ownNetworks writes a small network for copenhagen and one for
// copenhagen-classic, each saying it learnt its rule set's planes, and
// returns Config.OwnNetworks for them and each file's evaluator id
// ("net-" and its hash), by rule set.
func ownNetworks(t *testing.T) (files, ids map[string]string) {
	t.Helper()
	files, ids = map[string]string{}, map[string]string{}
	dir := t.TempDir()
	for i, name := range []string{"copenhagen", "copenhagen-classic"} {
		n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, uint64(20+i))
		if err != nil {
			t.Fatal(err)
		}
		n.SetPlanesOf(variants.MustLoad(name))
		file := filepath.Join(dir, name+".safetensors")
		if err := n.Save(file, nil); err != nil {
			t.Fatal(err)
		}
		loaded, _, err := net.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		files[name], ids[name] = file, "net-"+loaded.Hash()
	}
	return files, ids
}

// TestOwnNetwork: player "own" plays, analyses and reviews each rule set
// with the network Config.OwnNetworks gives for it (copenhagen's for
// copenhagen, copenhagen-classic's for copenhagen-classic, and
// copenhagen's again once the other is loaded), also for a rule-set file
// that is an embedded rule set word for word; GET /api/networks lists it
// second, the page's default, with its files.
func TestOwnNetwork(t *testing.T) {
	files, ids := ownNetworks(t)
	cfg := web.DefaultConfig()
	cfg.OwnNetworks = files
	ts := testServer(t, cfg)

	status, _, raw := call(t, ts, "GET", "/api/networks", "")
	var list []web.NetworkInfo
	if err := json.Unmarshal(raw, &list); status != 200 || err != nil {
		t.Fatalf("networks: %d %s %v", status, raw, err)
	}
	if len(list) != 2 || list[0].ID != "builtin" || list[1].ID != "own" || fmt.Sprint(list[1].Files) != fmt.Sprint(files) {
		t.Fatalf("networks: got %+v, want the built-in searcher, then \"own\" with files %v", list, files)
	}

	copenhagenFile, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, request, variant string // the request's rule set, as its body gives it; the rule set it is
	}{
		{"copenhagen", `"variant":"copenhagen"`, "copenhagen"},
		{"copenhagen-classic", `"variant":"copenhagen-classic"`, "copenhagen-classic"},
		{"copenhagen after copenhagen-classic", `"variant":"copenhagen"`, "copenhagen"},
		{"a rule-set file that is copenhagen's", fmt.Sprintf(`"variant_toml":%q`, copenhagenFile), "copenhagen"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, _, raw := call(t, ts, "POST", "/api/analyze", `{`+c.request+`,"network":"own"}`)
			var a web.Analysis
			if err := json.Unmarshal(raw, &a); status != 200 || err != nil {
				t.Fatalf("analyze: %d %s %v", status, raw, err)
			}
			if a.PlanesOf != c.variant || a.Network != "own" {
				t.Errorf("analyze: got planes of %q by %q, want %q's own network (%s)", a.PlanesOf, a.Network, c.variant, files[c.variant])
			}

			// A game against it: the engine (attackers) moves first.
			g := newGame(t, ts, `{`+c.request+`,"human":"defenders","engine":"own","playouts":2}`)
			if status, _, raw := call(t, ts, "POST", "/api/games/"+g.ID+"/engine", ""); status != 200 {
				t.Fatalf("engine's move: got %d %s, want 200", status, raw)
			}
			// Its review names the evaluator: the network's hash.
			status, events := postReview(t, context.Background(), ts.URL, `{"game_id":"`+g.ID+`","network":"own","playouts":2}`, nil)
			if status != 200 || len(events) == 0 || events[len(events)-1].Review == nil {
				t.Fatalf("review: got %d %+v, want 200 and a summary", status, events)
			}
			if got, want := events[len(events)-1].Review.Evaluator, ids[c.variant]; got != want {
				t.Errorf("review's evaluator: got %v, want %v (%s)", got, want, files[c.variant])
			}
		})
	}
}

// TestOwnNetworkRefused: "own" for a rule set that has no network of its
// own is refused with 422, naming the rule set and the players that can
// play it, by every request that takes a player; and a client cannot
// name another rule set's own network.
func TestOwnNetworkRefused(t *testing.T) {
	files, _ := ownNetworks(t)
	copenhagenFile, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(copenhagenFile), `name = "copenhagen"`, `name = "mine"`, 1)
	for _, c := range []struct {
		name    string
		own     map[string]string
		netFile bool
		path    string
		body    string
		status  int
		want    []string
	}{
		{"analysis of fetlar", files, false, "/api/analyze", `{"variant":"fetlar","network":"own"}`, 422,
			[]string{"no network ships for fetlar", `built-in searcher (engine "builtin")`, "-net FILE"}},
		{"game of hnefatafl11", files, false, "/api/games", `{"variant":"hnefatafl11","human":"defenders","engine":"own","playouts":2}`, 422,
			[]string{"no network ships for hnefatafl11", `"builtin"`}},
		{"fetlar with a -net file", files, true, "/api/analyze", `{"variant":"fetlar","network":"own"}`, 422,
			[]string{"no network ships for fetlar", `"builtin"`, `(engine "net")`}},
		{"a rule-set file of its own", files, false, "/api/analyze", fmt.Sprintf(`{"variant_toml":%q,"network":"own"}`, changed), 422,
			[]string{"rule set mine is not one of the embedded rule sets", `"builtin"`}},
		{"no own networks", nil, false, "/api/analyze", `{"variant":"copenhagen","network":"own"}`, 422,
			[]string{"no network ships for copenhagen"}},
		{"another rule set's own network", files, false, "/api/analyze", `{"variant":"copenhagen","network":"own:copenhagen-classic"}`, 400,
			[]string{`network "own:copenhagen-classic": no such network`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := web.DefaultConfig()
			cfg.OwnNetworks = c.own
			if c.netFile {
				cfg.NetFile = files["copenhagen"]
			}
			ts := testServer(t, cfg)
			status, m, raw := call(t, ts, "POST", c.path, c.body)
			if status != c.status {
				t.Errorf("got %v %s, want %v", status, raw, c.status)
			}
			msg, _ := m["error"].(string)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("got error %q, want it to say %q", msg, w)
				}
			}
		})
	}

	t.Run("review of fetlar", func(t *testing.T) {
		cfg := web.DefaultConfig()
		cfg.OwnNetworks = files
		ts := testServer(t, cfg)
		g := newGame(t, ts, `{"variant":"fetlar","human":"both"}`)
		if status, _, raw := call(t, ts, "POST", "/api/games/"+g.ID+"/move", `{"move":"`+g.Legal[0]+`"}`); status != 200 {
			t.Fatalf("move: %d %s", status, raw)
		}
		status, events := postReview(t, context.Background(), ts.URL, `{"game_id":"`+g.ID+`","network":"own","playouts":2}`, nil)
		if status != 422 || len(events) != 1 || !strings.Contains(events[0].Error, "no network ships for fetlar") {
			t.Fatalf("got %v %+v, want %v and an error naming fetlar", status, events, 422)
		}
	})
}
