package servecmd

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"taflab/internal/nettest"
	"taflab/player"
	"taflab/web"
)

// TestNetworksOffered: by default eval serve offers each embedded rule set
// the network that ships for it (player.ShippedNetworks), as the page's
// default player, and an analysis of each embedded rule set under it is by
// that rule set's own network; -net FILE is offered for every rule set
// before it; -net none offers the built-in searcher alone.
func TestNetworksOffered(t *testing.T) {
	ownNetworks := []string{"copenhagen", "copenhagen-classic", "fetlar", "hnefatafl11"} // each has its network in networks/
	t.Chdir(filepath.Join("..", "..", "..", ".."))                                       // the project, where networks/ lies
	shipped := player.ShippedNetworks()
	for _, name := range ownNetworks {
		if got, want := shipped[name], filepath.Join("networks", name+".safetensors"); got != want {
			t.Fatalf("player.ShippedNetworks()[%q]: got %v, want %v", name, got, want)
		}
	}
	tiny := nettest.TinyFile(t, 1)
	for _, c := range []struct {
		name string
		args []string
		ids  []string // GET /api/networks's, in order
		own  map[string]string
	}{
		{"default", nil, []string{"builtin", "own"}, shipped},
		{"-net FILE", []string{"-net", tiny}, []string{"builtin", "net", "own"}, shipped},
		{"-net none", []string{"-net", "none"}, []string{"builtin"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr strings.Builder
			cfg, _, code, done := parse(c.args, io.Discard, &stderr)
			if done {
				t.Fatalf("parse: got exit %d (%s), want it to go on", code, stderr.String())
			}
			srv, err := web.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			ts := httptest.NewServer(srv)
			defer ts.Close()
			var list []web.NetworkInfo
			get(t, ts.URL+"/api/networks", "", &list)
			var ids []string
			var own map[string]string
			for _, n := range list {
				ids = append(ids, n.ID)
				if n.ID == "own" {
					own = n.Files
				}
			}
			if fmt.Sprint(ids) != fmt.Sprint(c.ids) || fmt.Sprint(own) != fmt.Sprint(c.own) {
				t.Fatalf("networks: got %v with own %v, want %v with own %v", ids, own, c.ids, c.own)
			}
			if c.own == nil {
				return
			}
			for _, name := range ownNetworks {
				var a web.Analysis
				get(t, ts.URL+"/api/analyze", `{"variant":"`+name+`","network":"own"}`, &a)
				if a.PlanesOf != name {
					t.Errorf("analysis of %s by its own network: got planes of %v, want %v", name, a.PlanesOf, name)
				}
			}
		})
	}
}

// get sends GET url, or POST url with body when one is given, and decodes
// its 200 answer into v.
func get(t *testing.T, url, body string, v any) {
	t.Helper()
	var resp *http.Response
	var err error
	if body == "" {
		resp, err = http.Get(url)
	} else {
		resp, err = http.Post(url, "application/json", strings.NewReader(body))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("%s: got %d %s, want 200", url, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
}

// TestOfferNetworks: -net none drops the shipped networks without looking
// for them; otherwise they are offered beside the -net file.
func TestOfferNetworks(t *testing.T) {
	shipped := map[string]string{"copenhagen": "c.safetensors"}
	for _, c := range []struct {
		net, wantNet string
		wantOwn      map[string]string
	}{
		{"", "", shipped},
		{"n.safetensors", "n.safetensors", shipped},
		{"none", "", nil},
	} {
		t.Run("-net="+c.net, func(t *testing.T) {
			cfg := web.DefaultConfig()
			cfg.NetFile = c.net
			looked := false
			offerNetworks(&cfg, func() map[string]string { looked = true; return shipped })
			if cfg.NetFile != c.wantNet || fmt.Sprint(cfg.OwnNetworks) != fmt.Sprint(c.wantOwn) || looked != (c.wantOwn != nil) {
				t.Errorf("got net %q, own %v (looked %v), want net %q, own %v", cfg.NetFile, cfg.OwnNetworks, looked, c.wantNet, c.wantOwn)
			}
		})
	}
}
