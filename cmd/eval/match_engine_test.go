package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"taflab/cmd/internal/cli"
)

// TestMatchEngines plays eval match between taflab's engine (cmd/engine)
// through UCI and through OTEP, as external players: every game finished
// by the rules, no forfeit, and games.csv replays.
func TestMatchEngines(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "engine")
	if out, err := exec.Command("go", "build", "-o", bin, "../engine").CombinedOutput(); err != nil {
		t.Fatalf("go build ../engine: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "match")
	var stdout, stderr bytes.Buffer
	code := runMatchCtx(context.Background(), []string{
		"-a", "uci:cmd=" + bin + " -protocol uci -net builtin,nodes=20",
		"-b", `otep:cmd="` + bin + ` -protocol otep -net builtin",movetime=20,name=otep-self`,
		"-max-games", "2", "-openings", "random", "-out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	f, err := cli.ReadMatchFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Games) != 2 || f.B.Name != "otep-self" || !strings.Contains(f.A.Engine, "-protocol uci") {
		t.Fatalf("got %d games, players %+v and %+v; want 2 games between the engines", len(f.Games), f.A, f.B)
	}
	for i, g := range f.Games {
		if g.Forfeit != "" || g.Reason == "" {
			t.Errorf("game %d: reason %q, forfeit %q (%s): want an ending by the rules", i, g.Reason, g.Forfeit, g.Detail)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "games.csv"))
	if err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run([]string{"replay", "-variant", "copenhagen", filepath.Join(out, "games.csv")}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("replay of %s: exit %d: %s%s", csv, code, stdout.String(), stderr.String())
	}
}
