package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
	"taflab/net"
)

// shippedNetwork is the network in the repository for copenhagen, the one
// commands take when given none; humanNetwork, beside it, is the one
// trained on people's games of copenhagen-classic; fetlarNetwork and
// elevenNetwork are fetlar's and hnefatafl11's, adapted from humanNetwork
// by self-play.
const (
	shippedNetwork = "../../networks/copenhagen.safetensors"
	humanNetwork   = "../../networks/copenhagen-classic.safetensors"
	fetlarNetwork  = "../../networks/fetlar.safetensors"
	elevenNetwork  = "../../networks/hnefatafl11.safetensors"
)

// TestShippedNetwork: the networks that ship (every network file in
// networks/, the known ones among them) are small and are the ones their
// README describes (by SHA-256), and the one for copenhagen works where a
// user reaches for it on a fresh clone: analysis and a match.
func TestShippedNetwork(t *testing.T) {
	readme, err := os.ReadFile("../../networks/README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../networks/*.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{shippedNetwork, humanNetwork, fetlarNetwork, elevenNetwork} {
		if !slices.Contains(files, want) {
			t.Errorf("networks/: got %v, want %s among them", files, want)
		}
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 5<<20 {
			t.Errorf("%s: got %d bytes, want under 5 MB", file, len(data))
		}
		sum := sha256.Sum256(data)
		if want := hex.EncodeToString(sum[:]); !strings.Contains(string(readme), want) {
			t.Errorf("networks/README.md: got no SHA-256 %s in it, want it to describe %s", want, file)
		}
	}

	var out, errs bytes.Buffer
	if code := run([]string{"analyze", "-net", shippedNetwork, "-playouts", "32", "-top", "5"}, nil, &out, &errs); code != 0 {
		t.Fatalf("analyze: got exit %d, want 0: %s", code, errs.String())
	}
	var rep analyzeReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("analyze: got %q, want one JSON object: %v", out.String(), err)
	}
	if len(rep.Policy) != 5 || rep.Search == nil || rep.Search.BestMove == "" {
		t.Errorf("analyze: got %+v, want five top moves and a search's choice", rep)
	}

	dir := t.TempDir()
	code, msg := runMatchTest(t, "-variant", "copenhagen", "-a", "net="+shippedNetwork+",playouts=4", "-b", "builtin:playouts=4",
		"-max-games", "2", "-out", dir)
	if code != 0 {
		t.Fatalf("match: got exit %d, want 0\n%s", code, msg)
	}
	f, err := cli.ReadMatchFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Games) != 2 || !strings.HasPrefix(filepath.Base(f.A.Network), "copenhagen") {
		t.Errorf("match: got %d games by %+v, want 2 by the shipped network", len(f.Games), f.A)
	}
}

// TestShippedNetworkOwnRuleSet: given no network, analysis of a rule set
// that has a network of its own in networks/ takes it, shown that rule
// set's planes, as its file names them.
func TestShippedNetworkOwnRuleSet(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, c := range []struct{ variant, file, planes string }{
		{"fetlar", "fetlar.safetensors", "fetlar"},
		{"hnefatafl11", "hnefatafl11.safetensors", "hnefatafl11"},
		{"copenhagen-classic", "copenhagen-classic.safetensors", "copenhagen-classic"},
	} {
		t.Run(c.variant, func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := run([]string{"analyze", "-variant", c.variant, "-playouts", "8", "-top", "3"}, nil, &out, &errs); code != 0 {
				t.Fatalf("analyze: got exit %d, want 0: %s", code, errs.String())
			}
			var rep analyzeReport
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("analyze: got %q, want one JSON object: %v", out.String(), err)
			}
			n, _, err := net.Load(filepath.Join("networks", c.file))
			if err != nil {
				t.Fatal(err)
			}
			id, _ := strings.CutPrefix(rep.Evaluator, "net-")
			if id == "" || !strings.HasPrefix(n.Hash(), id) || rep.PlanesOf != c.planes {
				t.Errorf("got evaluator %q shown the planes of %q, want networks/%s (net-%s) shown %s's", rep.Evaluator, rep.PlanesOf, c.file, n.Hash()[:16], c.planes)
			}
		})
	}
}
