package matchcmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/rules"
)

// TestResumeInPlay: a match against an engine program keeps the moves of
// its games in play in OUT/in-play.json; resumed, each of those games goes
// on from its moves (the engine told of them all), not from its start,
// and the file goes once the match is done. The kept moves are replaced
// by moves neither player would choose, so that a game played again from
// its start could not have them.
func TestResumeInPlay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/engine")
	}
	bin := filepath.Join(t.TempDir(), "engine")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../engine").CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/engine: %v\n%s", err, out)
	}
	defer func(every time.Duration) { inPlayEvery = every }(inPlayEvery)
	inPlayEvery = 5 * time.Millisecond
	args := []string{"-a", "builtin:playouts=16", "-b", `otep:cmd="` + bin + ` -protocol otep -net builtin -playouts 8",clock=off,limit=20000,name=engine`,
		"-max-games", "2", "-openings", "random", "-opening-plies", "4", "-elo0", "0", "-elo1", "1", "-alpha", "1e-9", "-beta", "1e-9", "-workers", "1"}
	out := filepath.Join(t.TempDir(), "m")
	run := func(ctx context.Context, extra ...string) (int, string) {
		var buf bytes.Buffer
		code := Run(ctx, append(append(append([]string{}, args...), "-out", out), extra...), &buf, &buf)
		return code, buf.String()
	}
	inPlayPath := filepath.Join(out, InPlayFile)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // stop the match once a game in play has 10 moves kept
		for ctx.Err() == nil {
			if games, err := match.ReadInPlay(inPlayPath); err == nil && slices.ContainsFunc(games, func(u match.Unfinished) bool { return len(u.Moves) >= 10 }) {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	code, msg := run(ctx)
	cancel()
	if code != 130 {
		t.Fatalf("stopped match: got exit %d, want 130\n%s", code, msg)
	}
	kept, err := match.ReadInPlay(inPlayPath)
	if err != nil || len(kept) == 0 {
		t.Fatalf("got %v, %v from %s; want the games in play", kept, err, InPlayFile)
	}
	// Each game's moves past its first 4 (the random opening's) become
	// the first legal move, again and again.
	v := variants.MustLoad("copenhagen")
	for i, u := range kept {
		g := rules.NewGame(v)
		moves := slices.Clone(u.Moves[:min(4, len(u.Moves))])
		for _, m := range moves {
			g.Make(m)
		}
		for range 6 {
			m := g.GenerateMoves(nil)[0]
			g.Make(m)
			moves = append(moves, m)
		}
		kept[i].Moves = moves
	}
	if err := fileio.WriteJSON(inPlayPath, kept); err != nil {
		t.Fatal(err)
	}

	code, msg = run(context.Background(), "-resume")
	if code != 0 || !strings.Contains(msg, "games begun go on from their moves") {
		t.Fatalf("resumed match: got exit %d, want 0 and a note of the games in play\n%s", code, msg)
	}
	f, err := match.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range kept {
		i := slices.IndexFunc(f.Games, func(g match.FileGame) bool { return g.Pair == u.Pair && (g.Attacker == "builtin-16") == (u.Half == 0) })
		if i < 0 {
			t.Fatalf("pair %d half %d: no game in match.json", u.Pair, u.Half)
		}
		var want []string
		for _, m := range u.Moves {
			want = append(want, m.String())
		}
		var got []string
		for _, tok := range strings.Fields(f.Games[i].Moves) {
			move, _, _ := strings.Cut(tok, "x") // the record names captures
			got = append(got, move)
		}
		if len(got) <= len(want) || !slices.Equal(got[:len(want)], want) {
			t.Errorf("pair %d half %d: got moves %v, want them to go on from %v", u.Pair, u.Half, got, want)
		}
	}
	if _, err := os.Stat(inPlayPath); !os.IsNotExist(err) {
		t.Errorf("%s: got %v, want it removed once the match is done", InPlayFile, err)
	}
}
