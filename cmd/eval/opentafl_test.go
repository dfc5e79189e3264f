package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"taflab/cmd/internal/cli"
)

// openTaflCopenhagen is OpenTafl's Copenhagen as its RulesSerializer writes
// it (../shared/notes/opentafl.md).
const openTaflCopenhagen = "dim:11 name:Copenhagen atkf:y surf:y efe:y tfr:w sw:s start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"

// TestMatchOpenTafl plays eval match against the real OpenTafl's engine
// mode, when TAFLAB_OPENTAFL names a command that runs it ("OpenTafl
// --engine" in a folder with its settings.ini; ../shared/notes/opentafl.md
// says how to build one): 8 games under OpenTafl's own Copenhagen rules
// (-variant otr:...), from the copenhagen opening suite, OpenTafl given 3 s
// a move (its clock as OpenTafl's host sends it; OpenTafl's engine plans
// the period less 750 ms, capped by its settings' thinktime), and not one
// forfeit of any kind. The allowance is a minute: OpenTafl's horizon search
// after its main search is not bounded by its clock (seen here: 30 s once,
// at a one-second move time). At one second a move OpenTafl plans 250 ms
// of main search, and when its set-up takes longer than that on a loaded
// machine its timers end the search before it starts
// (AiWorkspace.explore's NullPointerException): so not one second. It
// takes 2 to 10 minutes, depending on the machine's load.
func TestMatchOpenTafl(t *testing.T) {
	cmd := os.Getenv("TAFLAB_OPENTAFL")
	if cmd == "" {
		t.Skip("TAFLAB_OPENTAFL is not set (a command that runs OpenTafl --engine): skipped")
	}
	if testing.Short() {
		t.Skip("-short: skipped")
	}
	out := filepath.Join(t.TempDir(), "match")
	var stdout, stderr bytes.Buffer
	code := runMatchCtx(context.Background(), []string{
		"-variant", "otr:" + openTaflCopenhagen,
		"-openings", "../../configs/openings/copenhagen.txt",
		"-a", "builtin:playouts=400",
		"-b", `otep:cmd="` + cmd + `",movetime=3000,limit=60000,name=opentafl`,
		"-max-games", "8", "-alpha", "0.0001", "-beta", "0.0001",
		"-out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	f, err := cli.ReadMatchFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Games) != 8 {
		t.Fatalf("got %d games, want 8", len(f.Games))
	}
	for i, g := range f.Games {
		t.Logf("game %d: %s in %d plies (%s)", i+1, g.Reason, g.Plies, g.Winner)
		if g.Forfeit != "" || g.Reason == "" {
			t.Errorf("game %d: reason %q, forfeit %q (%s): want an ending by the rules", i+1, g.Reason, g.Forfeit, g.Detail)
		}
	}
}
