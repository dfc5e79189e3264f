package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
	"taflab/internal/nettest"
)

func runMatchTest(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := runMatchCtx(context.Background(), args, &out, &out)
	return code, out.String()
}

// TestMatchWritesAndGates: a network against itself is exactly as strong
// as itself, so a test of H0 Elo -200 against H1 Elo -100 accepts H1 and
// promotes it, and one of H0 0 against H1 50 accepts H0 and does not. (That
// the test finds the stronger of two real players is match's
// TestFindsTheStrongerPlayer.)
func TestMatchWritesAndGates(t *testing.T) {
	netFile := nettest.TinyFile(t, 1)
	player := "net=" + netFile + ",playouts=2"
	cases := []struct {
		name       string
		elo0, elo1 string
		promoted   bool
	}{
		{"accepted", "-200", "-100", true},
		{"rejected", "0", "50", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out := runMatchTest(t, "-variant", "fetlar", "-a", player, "-b", player, "-max-games", "200",
				"-elo0", c.elo0, "-elo1", c.elo1, "-gate", "-out", dir)
			if code != 0 {
				t.Fatalf("got exit %d, want 0\n%s", code, out)
			}
			f, err := cli.ReadMatchFile(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Games) != 2*f.Report.Pairs || f.Report.Pairs == 0 {
				t.Errorf("got %d games for %d pairs, want two a pair", len(f.Games), f.Report.Pairs)
			}
			if f.A.Name == f.B.Name {
				t.Errorf("got one name %q for both players, want them apart", f.A.Name)
			}
			wantDecision := "H0"
			if c.promoted {
				wantDecision = "H1"
			}
			if f.Decision != wantDecision {
				t.Errorf("got decision %s, want %s\n%s", f.Decision, wantDecision, out)
			}
			p, err := cli.ReadBestPointer(filepath.Join(dir, "best.json"))
			if promoted := err == nil; promoted != c.promoted {
				t.Errorf("got promoted %v (%v), want %v", promoted, err, c.promoted)
			} else if promoted && filepath.Base(p.Network) != filepath.Base(netFile) {
				t.Errorf("got pointer to %s, want %s", p.Network, netFile)
			}
			// The games replay under the rules with no error.
			var rout, rerr bytes.Buffer
			if code := run([]string{"replay", "-variant", "fetlar", filepath.Join(dir, "games.csv")}, nil, &rout, &rerr); code != 0 {
				t.Errorf("replaying games.csv: got exit %d, want 0: %s", code, rerr.String())
			}
			if md, err := os.ReadFile(filepath.Join(dir, "match.md")); err != nil || !strings.Contains(string(md), "LLR") {
				t.Errorf("match.md: got %v, want a report", err)
			}
		})
	}
}

func TestMatchBadInput(t *testing.T) {
	netFile := nettest.TinyFile(t, 1)
	other := filepath.Join(t.TempDir(), "other.safetensors")
	data, err := os.ReadFile(netFile)
	if err != nil {
		t.Fatal(err)
	}
	// Another input encoding: the metadata names one this build does not read.
	if err := os.WriteFile(other, bytes.Replace(data, []byte("taflab-planes-v1"), []byte("taflab-planes-v9"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing network", []string{"-a", "net=" + filepath.Join(dir, "none.safetensors"), "-b", "builtin"}, "none.safetensors"},
		{"other encoding", []string{"-a", "net=" + other, "-b", "builtin"}, "encoding"},
		{"unknown rule set", []string{"-variant", "chess", "-a", "builtin", "-b", "builtin"}, "chess"},
		{"alpha", []string{"-a", "builtin", "-b", "builtin", "-alpha", "0.7"}, "alpha"},
		{"elo bounds", []string{"-a", "builtin", "-b", "builtin", "-elo0", "10", "-elo1", "5"}, "elo"},
		{"bad player", []string{"-a", "builtin:playouts=x", "-b", "builtin"}, "playouts"},
		{"gate a builtin", []string{"-a", "builtin", "-b", "builtin", "-gate"}, "-gate"},
		{"no players", []string{}, "-a and -b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name)
			code, msg := runMatchTest(t, append(c.args, "-out", out)...)
			if code != 2 || !strings.Contains(strings.ToLower(msg), strings.ToLower(c.want)) {
				t.Errorf("got exit %d and %q, want 2 and a message naming %q", code, msg, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("bad input wrote %s: want nothing written before the error", out)
			}
		})
	}
}
