package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"taflab/analysis"
	"taflab/chart"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/internal/nettest"
	"taflab/net"
	"taflab/rules"
	"taflab/web"
)

// The browser test drives headless Chromium (Debian's chromium package,
// which .ci/run installs) through the DevTools protocol. It plays a whole
// game with the keyboard alone, replays a dataset's game, analyses a
// position with a network and draws a run's charts, checking what the page
// shows against the rules core. With TAFLAB_SCREENSHOTS=1 it writes the
// screenshots of docs/web/README.md (two of which the README shows) into docs/web/; otherwise into a temporary folder.

// forkStart is a copenhagen position, defenders to move, in which the king's
// c3-c1 captures the attacker on b1 (against the corner) and opens both ways
// along the edge to a corner: one attacker's move can close only one, so
// the king escapes on his next move whatever the engine plays.
// shippedNetwork is the network that ships with the project.
var shippedNetwork = filepath.Join("..", "networks", "copenhagen.safetensors")

const forkStart = "11/11/11/7a3/11/4d6/1a9/11/2k8/11/1a9 d"

func chromium(t *testing.T) string {
	if p := os.Getenv("TAFLAB_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (Debian's chromium package; .ci/run installs it, or set TAFLAB_CHROMIUM): the browser test skips")
	return ""
}

// pageState is what a board on the page shows.
type pageState struct {
	Pieces   map[string]string `json:"pieces"`
	Legal    []string          `json:"legal"`
	Captured []string          `json:"captured"`
	Selected string            `json:"selected"`
	Ply      string            `json:"ply"`
	Active   string            `json:"active"` // the focused square, or the focused element's id
	EndShown bool              `json:"end_shown"`
	Reason   string            `json:"reason"`
	Winner   string            `json:"winner"`
	EndText  string            `json:"end_text"`
	Moves    []string          `json:"moves"`
	Dialog   bool              `json:"dialog"`
}

const readState = `((view) => {
  const b = document.getElementById(view + "-board");
  const s = { pieces: {}, legal: [], captured: [], selected: "", ply: b.dataset.ply || "", moves: [] };
  for (const c of b.querySelectorAll(".cell")) {
    if (c.dataset.piece) s.pieces[c.dataset.square] = c.dataset.piece;
    if (c.classList.contains("legal")) s.legal.push(c.dataset.square);
    if (c.classList.contains("captured")) s.captured.push(c.dataset.square);
    if (c.classList.contains("selected")) s.selected = c.dataset.square;
  }
  const a = document.activeElement;
  s.active = (a && (a.dataset.square || a.id)) || "";
  const end = document.getElementById(view + "-end");
  s.end_shown = !end.hidden; s.reason = end.dataset.reason || ""; s.winner = end.dataset.winner || ""; s.end_text = end.textContent;
  for (const li of document.getElementById(view + "-moves").children) s.moves.push(li.textContent);
  s.dialog = !document.getElementById("confirm").hidden;
  return s;
})`

type browser struct {
	t   *testing.T
	ctx context.Context
}

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) state(view string) pageState {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[pageState](readState+`("`+view+`")`))
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

func (b *browser) wait(expr string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		b.t.Fatalf("waiting for %s: %v", expr, err)
	}
}

func (b *browser) keys(k string) { b.t.Helper(); b.do(chromedp.KeyEvent(k)) }

// tabTo presses Tab until the element the predicate names has the focus.
func (b *browser) tabTo(what, predicate string) {
	b.t.Helper()
	for range 40 {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => { const a = document.activeElement; return !!(`+predicate+`); })()`))
		if err != nil {
			b.t.Fatal(err)
		}
		if ok {
			return
		}
		b.keys(kb.Tab)
	}
	b.t.Fatalf("Tab never reached %s", what)
}

// cursorTo moves the board's cursor with the arrow keys from the focused
// square to sq.
func (b *browser) cursorTo(sq string) {
	b.t.Helper()
	from := b.state("play").Active
	f, err := rules.ParseSquare(from)
	if err != nil {
		b.t.Fatalf("the focus is on %q, not on a square", from)
	}
	to, err := rules.ParseSquare(sq)
	if err != nil {
		b.t.Fatal(err)
	}
	for d := to.File() - f.File(); d != 0; {
		if d > 0 {
			b.keys(kb.ArrowRight)
			d--
		} else {
			b.keys(kb.ArrowLeft)
			d++
		}
	}
	for d := to.Rank() - f.Rank(); d != 0; {
		if d > 0 {
			b.keys(kb.ArrowUp)
			d--
		} else {
			b.keys(kb.ArrowDown)
			d++
		}
	}
	if got := b.state("play").Active; got != sq {
		b.t.Fatalf("cursor on %s, want %s", got, sq)
	}
}

func (b *browser) screenshot(dir, name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// pieces returns what a position holds, as the page marks it.
func pieces(p rules.Position) map[string]string {
	out := map[string]string{}
	for b := p.Attackers; b.Any(); {
		out[b.PopFirst().String()] = "a"
	}
	for b := p.Defenders; b.Any(); {
		out[b.PopFirst().String()] = "d"
	}
	out[p.King.String()] = "k"
	return out
}

func names(b rules.Bitboard) []string {
	out := []string{}
	for b.Any() {
		out = append(out, b.PopFirst().String())
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	s = append([]string{}, s...)
	slices.Sort(s)
	return s
}

// destinations returns the squares the piece on from may move to now.
func destinations(g *rules.Game, from string) []string {
	var out []string
	for _, m := range g.GenerateMoves(nil) {
		if m.From().String() == from {
			out = append(out, m.To().String())
		}
	}
	slices.Sort(out)
	return out
}

func checkBoard(t *testing.T, what string, got pageState, g *rules.Game) {
	t.Helper()
	want := pieces(g.Position())
	if fmt.Sprint(got.Pieces) != fmt.Sprint(want) {
		t.Fatalf("%s: the page shows %v, want %v", what, got.Pieces, want)
	}
}

// randomGame plays a game with captures under v from its start, moves
// chosen by seed, up to maxPlies, and returns it as a dataset row.
func randomGame(t *testing.T, v *rules.Variant, seed uint64, maxPlies int) datasets.GameRow {
	rng := rand.New(rand.NewPCG(seed, 1))
	g := rules.NewGame(v)
	row := datasets.GameRow{GameID: fmt.Sprintf("test-%d", seed), RuleSet: v.Name(), Seed: seed, Evaluator: "random"}
	for !g.Outcome().Over() && g.Ply() < maxPlies {
		moves := g.GenerateMoves(nil)
		g.Make(moves[rng.IntN(len(moves))])
		m, caps := g.LastMove()
		row.Moves = append(row.Moves, string(rules.AppendMove(nil, m, caps)))
	}
	row.Winner, row.Reason, row.Length = g.Outcome().Winner, g.Outcome().Reason, int32(len(row.Moves))
	return row
}

func TestBrowser(t *testing.T) {
	exe := chromium(t)
	shots := t.TempDir()
	if os.Getenv("TAFLAB_SCREENSHOTS") != "" {
		shots = filepath.Join("..", "docs", "web")
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// A dataset of one finished random game with captures.
	v := variants.MustLoad("copenhagen")
	data := t.TempDir()
	if err := os.Mkdir(filepath.Join(data, "selfplay"), 0o755); err != nil {
		t.Fatal(err)
	}
	var row datasets.GameRow
	for seed := uint64(1); ; seed++ {
		row = randomGame(t, v, seed, 400)
		if row.Winner != rules.NoWinner && strings.Count(strings.Join(row.Moves, " "), "x") >= 3 && len(row.Moves) < 150 {
			break
		}
	}
	if err := datasets.WriteGamesFile(filepath.Join(data, "selfplay", "test.games.arrow"), v.Definition(), []datasets.GameRow{row}); err != nil {
		t.Fatal(err)
	}
	cfg := web.DefaultConfig()
	cfg.DataDir, cfg.RunDir, cfg.NetFile = data, filepath.Join("testdata", "run"), nettest.TinyFile(t, 1)
	if _, err := os.Stat(shippedNetwork); err == nil {
		cfg.NetFile = shippedNetwork // the screenshot shows what a trained network thinks
	}
	// Own networks for two rule sets, none for the others.
	own := map[string]string{"copenhagen": nettest.TinyFile(t, 2), "copenhagen-classic": nettest.TinyFile(t, 3)}
	cfg.OwnNetworks = own
	srv, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 900)}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // start the browser, without a deadline
		t.Fatalf("starting Chromium %s: %v", exe, err)
	}
	tctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelT()
	b := &browser{t: t, ctx: tctx}
	console := watchConsole(tctx)
	defer console.stop()

	t.Run("modules", func(t *testing.T) {
		b.t = t
		b.do(chromedp.Navigate(ts.URL + "/"))
		b.wait(`document.body.dataset.ready === "1"`)
		// Every module of the page's folder loads, and the palette the
		// server makes from chart.Palette, as JavaScript.
		want := []string{"/static/palette.js"}
		entries, err := os.ReadDir("static")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".js") {
				want = append(want, "/static/"+e.Name())
			}
		}
		slices.Sort(want)
		got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname).filter((p) => p.endsWith(".js")).sort()`))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("modules loaded: got %v, want %v", got, want)
		}
		// No error on the way: a module that fails to load or to link, an
		// exception, or a failed request is one.
		if got := console.problems(); len(got) > 0 {
			t.Errorf("console: got %q, want no errors or warnings", got)
		}
	})

	t.Run("play", func(t *testing.T) {
		b.t = t
		q := url.Values{"variant": {"copenhagen"}, "start": {forkStart}, "human": {"defenders"}, "engine": {"builtin"}, "playouts": {"50"}}
		b.do(chromedp.Navigate(ts.URL + "/?" + q.Encode()))
		b.wait(`document.body.dataset.ready === "1"`)
		// Every control has a name for screen readers.
		unnamed, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("input, select, textarea, button, [role=grid], [role=tab]")].filter((e) => !(e.getAttribute("aria-label") || (e.labels && e.labels.length) || (e.tagName === "BUTTON" && e.textContent.trim()))).map((e) => e.id || e.outerHTML.slice(0, 60))`))
		if err != nil || len(unnamed) > 0 {
			t.Fatalf("controls without a name: %v (%v)", unnamed, err)
		}
		// Keyboard only from here: Tab to "New game", Enter, Tab to the board.
		// On the way, the focus is seen on the dark header's view tabs too.
		b.tabTo("the Play tab", `a.id === "tab-play"`)
		if ring, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + " " + s.outlineWidth + " " + s.outlineColor; })()`)); err != nil || ring != "solid 3px rgb(255, 255, 255)" {
			t.Fatalf("the focused Play tab's outline: %q (%v), want solid 3px white on the dark header", ring, err)
		}
		b.tabTo("the New game button", `a.id === "play-new"`)
		b.keys(kb.Enter)
		b.wait(`document.getElementById("play-board").dataset.ply === "0"`)
		b.tabTo("the board", `a.classList && a.classList.contains("cell")`)

		start, err := rules.ParsePosition(forkStart)
		if err != nil {
			t.Fatal(err)
		}
		g, err := rules.NewGameFrom(v, start)
		if err != nil {
			t.Fatal(err)
		}
		checkBoard(t, "start", b.state("play"), g)

		// Select the king: the page marks his legal moves as the rules make them.
		b.cursorTo("c3")
		b.keys(kb.Enter)
		s := b.state("play")
		if s.Selected != "c3" {
			t.Fatalf("selected %q, want c3", s.Selected)
		}
		if got, want := sorted(s.Legal), destinations(g, "c3"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("legal marks %v, want %v", got, want)
		}
		// Enter on c1 asks to confirm; Escape cancels; Enter, Enter plays.
		b.cursorTo("c1")
		b.keys(kb.Enter)
		if s := b.state("play"); !s.Dialog || s.Active != "confirm-yes" {
			t.Fatalf("after Enter on a destination: dialogue %v, focus %q; want the dialogue with Confirm focused", s.Dialog, s.Active)
		}
		b.keys(kb.Escape)
		if s := b.state("play"); s.Dialog || s.Active != "c1" || s.Ply != "0" {
			t.Fatalf("after Escape: dialogue %v, focus %q, ply %s; want no dialogue, focus back on c1, no move", s.Dialog, s.Active, s.Ply)
		}
		b.keys(kb.Enter)
		b.keys(kb.Enter)
		// The engine answers; then the board holds both moves.
		b.wait(`document.getElementById("play-board").dataset.ply === "2"`)
		s = b.state("play")
		if len(s.Moves) != 2 {
			t.Fatalf("moves %v, want 2", s.Moves)
		}
		first := rules.NewMove(mustSquare(t, "c3"), mustSquare(t, "c1"))
		if err := g.Play(first); err != nil {
			t.Fatal(err)
		}
		_, caps := g.LastMove()
		if want := string(rules.AppendMove(nil, first, caps)); s.Moves[0] != want || !caps.Any() {
			t.Fatalf("first move shown as %q, want %q (a capture)", s.Moves[0], want)
		}
		reply, replyCaps, err := rules.ParseMove(s.Moves[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(reply); err != nil {
			t.Fatalf("the engine's move %s: %v", s.Moves[1], err)
		}
		if _, caps := g.LastMove(); caps != replyCaps {
			t.Fatalf("engine's move %s: captures %v, want %v", s.Moves[1], names(replyCaps), names(caps))
		}
		checkBoard(t, "after the engine's move", s, g)
		if got, want := sorted(s.Captured), names(replyCaps); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("capture marks %v, want %v", got, want)
		}
		// The king's way to a corner that is still open.
		var win rules.Move
		for _, m := range g.GenerateMoves(nil) {
			if m.From() == g.Position().King && v.Corners().Has(m.To()) {
				win = m
			}
		}
		if win == rules.NoMove {
			t.Fatalf("no escape for the king after %v: the test position is wrong", s.Moves)
		}
		b.cursorTo(win.From().String())
		b.keys(" ") // Space selects as Enter does
		if got, want := sorted(b.state("play").Legal), destinations(g, win.From().String()); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("legal marks %v, want %v", got, want)
		}
		b.cursorTo(win.To().String())
		b.keys(kb.Enter)
		b.keys(kb.Enter)
		b.wait(`!document.getElementById("play-end").hidden`)
		g.Play(win)
		s = b.state("play")
		checkBoard(t, "at the end", s, g)
		if o := g.Outcome(); s.Reason != o.Reason.String() || s.Winner != o.Winner.String() || !strings.Contains(s.EndText, "corner") {
			t.Fatalf("end shown as %s/%s %q, want %s/%s (the king reached a corner)", s.Winner, s.Reason, s.EndText, o.Winner, o.Reason)
		}
		record, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("play-record").value`))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := rules.ParseRecord(1, record)
		if err != nil {
			t.Fatalf("record %q: %v", record, err)
		}
		if r := rules.Replay(v, rec.StartOr(v.Start()), rec.Moves, 1); r.Err != nil || r.Outcome != g.Outcome() || rec.Result != rules.ResultWhite {
			t.Fatalf("record %q replays to %v (%v), result %v; want %v, White", record, r.Outcome, r.Err, rec.Result, g.Outcome())
		}
		b.screenshot(shots, "play-end.png")

		// A game from the rule set's start, a defender selected: the
		// screenshot of the play view.
		b.tabTo("the start position field", `a.id === "play-start"`)
		b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("play-start").value = ""`))
		b.tabTo("the New game button", `a.id === "play-new"`)
		b.keys(kb.Enter)
		b.wait(`document.getElementById("play-board").dataset.ply === "1"`)
		b.tabTo("the board", `a.classList && a.classList.contains("cell")`)
		b.cursorTo("e5")
		b.keys(kb.Enter)
		if s := b.state("play"); s.Selected != "e5" || len(s.Legal) == 0 {
			t.Fatalf("selected %q with %d legal marks, want e5 with some", s.Selected, len(s.Legal))
		}
		b.screenshot(shots, "play.png")

		// The mouse: Escape drops the keyboard's selection; a click selects
		// a piece and the page marks its moves; a click on one of them plays
		// it at once (no confirmation), and the engine answers.
		b.keys(kb.Escape)
		s = b.state("play")
		g = rules.NewGame(v)
		playAll(t, g, s.Moves)
		var m rules.Move
		for _, c := range g.GenerateMoves(nil) {
			if c.From() != g.Position().King && (m == rules.NoMove || c.String() < m.String()) {
				m = c
			}
		}
		b.do(chromedp.Click(cellSelector("play", m.From().String())))
		if s := b.state("play"); s.Selected != m.From().String() || fmt.Sprint(sorted(s.Legal)) != fmt.Sprint(destinations(g, m.From().String())) {
			t.Fatalf("after a click on %s: selected %q, legal marks %v; want %s and %v", m.From(), s.Selected, sorted(s.Legal), m.From(), destinations(g, m.From().String()))
		}
		b.do(chromedp.Click(cellSelector("play", m.To().String())))
		b.wait(`document.getElementById("play-board").dataset.ply === "3"`)
		s = b.state("play")
		g = rules.NewGame(v)
		playAll(t, g, s.Moves)
		if want := m.String(); !strings.HasPrefix(s.Moves[1], want) {
			t.Fatalf("moves %v, want the clicked %s second", s.Moves, want)
		}
		checkBoard(t, "after a move by mouse and the engine's answer", s, g)
		if _, caps := g.LastMove(); fmt.Sprint(sorted(s.Captured)) != fmt.Sprint(names(caps)) {
			t.Fatalf("capture marks %v, want %v", sorted(s.Captured), names(caps))
		}
		sel := g.GenerateMoves(nil)[0].From().String()
		b.do(chromedp.Click(cellSelector("play", sel)))
		if s := b.state("play"); s.Selected != sel || fmt.Sprint(sorted(s.Legal)) != fmt.Sprint(destinations(g, sel)) {
			t.Fatalf("after a click on %s: selected %q, legal marks %v; want %s and %v", sel, s.Selected, sorted(s.Legal), sel, destinations(g, sel))
		}
		// A phone-sized window: the page fits its width.
		b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		if w, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); err != nil || w > 0 {
			t.Fatalf("phone width: the page is %d px wider than the window (%v)", w, err)
		}
		b.screenshot(shots, "play-phone.png")
		b.do(chromedp.EmulateViewport(1280, 900))
	})

	t.Run("rule-set file", func(t *testing.T) {
		b.t = t
		// Copenhagen renamed, without two of its defenders, sent from a file
		// through the page's file field.
		toml, err := variants.File("copenhagen")
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(strings.Replace(string(toml), `name = "copenhagen"`, `name = "from-a-file"`, 1),
			"a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a", "a9a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a9a", 1)
		fv, err := variants.Parse("test", []byte(text))
		if err != nil || fv.Name() != "from-a-file" {
			t.Fatalf("the test's rule-set file: %v (%v), want from-a-file", fv, err)
		}
		file := filepath.Join(t.TempDir(), "from-a-file.toml")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		b.do(chromedp.Navigate(ts.URL + "/?human=both"))
		b.wait(`document.body.dataset.ready === "1"`)
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("play-variant"); s.value = "file"; s.dispatchEvent(new Event("change")); })()`))
		b.do(chromedp.SetUploadFiles("#play-toml", []string{file}))
		b.wait(`/from-a-file.toml read/.test(document.getElementById("play-status").textContent)`)
		b.do(chromedp.Click("#play-new"))
		b.wait(`document.getElementById("play-board").dataset.ply === "0"`)
		variant, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("play-board").dataset.variant`))
		if err != nil || variant != "from-a-file" {
			t.Fatalf("the game's rule set: %q (%v), want from-a-file", variant, err)
		}
		checkBoard(t, "the rule-set file's start", b.state("play"), rules.NewGame(fv))
	})

	t.Run("replay", func(t *testing.T) {
		b.t = t
		b.do(chromedp.Click("#tab-replay"))
		b.wait(`document.getElementById("replay-file").options.length > 1`)
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("replay-file");
			s.value = [...s.options].find((o) => o.text.endsWith("test.games.arrow")).value; s.dispatchEvent(new Event("change")); })()`))
		b.wait(`document.getElementById("replay-board").dataset.ply === "0"`)
		g := rules.NewGame(v)
		checkBoard(t, "replay at ply 0", b.state("replay"), g)
		// Step by keyboard: the Right arrow, from the Next button.
		b.do(chromedp.Focus("#replay-next"))
		shot := false
		for i, text := range row.Moves {
			b.keys(kb.ArrowRight)
			m, caps, _ := rules.ParseMove(text)
			if err := g.Play(m); err != nil {
				t.Fatal(err)
			}
			s := b.state("replay")
			if s.Ply != fmt.Sprint(i+1) {
				t.Fatalf("ply %s after %d steps", s.Ply, i+1)
			}
			checkBoard(t, fmt.Sprintf("replay at ply %d", i+1), s, g)
			if got, want := sorted(s.Captured), names(caps); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("ply %d (%s): capture marks %v, want %v", i+1, text, got, want)
			}
			if caps.Any() && !shot {
				b.screenshot(shots, "replay.png")
				shot = true
			}
		}
		s := b.state("replay")
		if o := g.Outcome(); !s.EndShown || s.Reason != o.Reason.String() || s.Winner != o.Winner.String() {
			t.Fatalf("end shown %v as %s/%s, want %s/%s", s.EndShown, s.Winner, s.Reason, o.Winner, o.Reason)
		}
		// And by mouse: Previous goes back a move.
		b.do(chromedp.Click("#replay-prev"))
		if s := b.state("replay"); s.Ply != fmt.Sprint(len(row.Moves)-1) || s.EndShown {
			t.Fatalf("after Previous: ply %s, end shown %v; want %d and no end", s.Ply, s.EndShown, len(row.Moves)-1)
		}
	})

	t.Run("analysis", func(t *testing.T) {
		b.t = t
		// A position from the middle of the game, by keyboard.
		b.do(chromedp.Focus("#replay-next"))
		b.keys(kb.Home)
		for range min(12, len(row.Moves)/2) {
			b.keys(kb.ArrowRight)
		}
		b.do(chromedp.Click("#replay-analyse"))
		b.wait(`!document.getElementById("view-analysis").hidden`)
		b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("analysis-network").value = "net"`))
		b.do(chromedp.Click("#analysis-eval"))
		b.wait(`document.getElementById("analysis-wdl").children.length === 3`)
		// A network that learnt another rule set's planes says so.
		served, _, err := net.Load(cfg.NetFile)
		if err != nil {
			t.Fatal(err)
		}
		status, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("analysis-status").textContent`))
		if err != nil {
			t.Fatal(err)
		}
		if p := served.PlanesOf(); p != nil && p.Name() != v.Name() {
			if want := "the network (shown " + p.Name() + "'s planes, the rule set it learnt): win"; !strings.Contains(status, want) {
				t.Errorf("analysis status %q: want it to contain %q", status, want)
			}
		} else if strings.Contains(status, "planes") {
			t.Errorf("analysis status %q: want no planes named for a network of the played rule set's", status)
		}
		b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("analysis-playouts").value = "40"`))
		b.do(chromedp.Click("#analysis-search"))
		b.wait(`document.querySelectorAll("#analysis-searchtable tbody tr").length > 0`)
		n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.arrows line").length`))
		if err != nil || n == 0 {
			t.Fatalf("%d arrows drawn (%v), want some", n, err)
		}
		b.screenshot(shots, "analysis.png")

		// The built-in searcher: no policy of its own (uniform priors), so
		// no table or arrows of priors; its static value, then its search's
		// value, best move and moves.
		b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("analysis-network").value = "builtin"`))
		b.do(chromedp.Click("#analysis-eval"))
		b.wait(`/static value/.test(document.getElementById("analysis-status").textContent)`)
		if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.arrows line").length + document.querySelectorAll("#analysis-policy tr, #analysis-wdl div").length`)); err != nil || n != 0 {
			t.Fatalf("built-in searcher: %d arrows, policy rows and WDL bars (%v), want none", n, err)
		}
		b.do(chromedp.Click("#analysis-search"))
		b.wait(`/search of 40 playouts: value [-+]?[0-9.]+, best move [a-k][0-9]+-[a-k][0-9]+/.test(document.getElementById("analysis-status").textContent)`)
		if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.arrows line").length`)); err != nil || n == 0 {
			t.Fatalf("built-in searcher's search: %d arrows (%v), want some", n, err)
		}
	})

	t.Run("own network", func(t *testing.T) {
		b.t = t
		// The menus name the file of the rule set's own network; for a rule
		// set with none the option says so and is disabled, and the
		// person's choice of it comes back with a rule set that has one.
		type menu struct {
			Text     string `json:"text"`
			Disabled bool   `json:"disabled"`
			Value    string `json:"value"`
		}
		read := func(id string) menu {
			t.Helper()
			m, err := chromedp.Run(b.ctx, chromedp.Evaluate[menu](`(() => { const s = document.getElementById("`+id+`"), o = [...s.options].find((o) => o.value === "own");
				return { text: o ? o.text : "", disabled: o ? o.disabled : false, value: s.value }; })()`))
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		choose := func(id, value string) {
			b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("` + id + `"); s.value = "` + value + `"; s.dispatchEvent(new Event("change")); })()`))
		}
		choose("analysis-network", "own")
		for _, c := range []struct {
			menu, variantMenu, variant string
			want                       menu
		}{
			{"analysis-network", "analysis-variant", "copenhagen", menu{"own network (" + own["copenhagen"] + ")", false, "own"}},
			{"analysis-network", "analysis-variant", "fetlar", menu{"own network (none ships for fetlar)", true, "builtin"}},
			{"analysis-network", "analysis-variant", "copenhagen-classic", menu{"own network (" + own["copenhagen-classic"] + ")", false, "own"}},
			{"play-engine", "play-variant", "file", menu{"each rule set's own network", false, "net"}},
			{"play-engine", "play-variant", "hnefatafl11", menu{"own network (none ships for hnefatafl11)", true, "net"}},
			{"play-engine", "play-variant", "copenhagen-classic", menu{"own network (" + own["copenhagen-classic"] + ")", false, "net"}},
		} {
			choose(c.variantMenu, c.variant)
			if got := read(c.menu); got != c.want {
				t.Errorf("%s with %s: got %+v, want %+v", c.menu, c.variant, got, c.want)
			}
		}
		// The replay's menu names the own network of the game shown, the
		// dataset's copenhagen game.
		if got, want := read("replay-network").Text, "own network ("+own["copenhagen"]+")"; got != want {
			t.Errorf("replay-network: got %v, want %v", got, want)
		}
		// Copenhagen-classic's position evaluated by its own network.
		b.do(chromedp.Click("#tab-analysis"))
		b.wait(`!document.getElementById("view-analysis").hidden`)
		b.do(chromedp.Click("#analysis-eval"))
		b.wait(`document.getElementById("analysis-wdl").children.length === 3`)
	})

	t.Run("review", func(t *testing.T) {
		b.t = t
		// The dataset's game, reviewed with the built-in searcher: what the
		// page marks is what the analysis library gives under the page's
		// settings (two stretches).
		b.do(chromedp.Click("#tab-replay"))
		b.wait(`!document.getElementById("view-replay").hidden`)
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { document.getElementById("replay-network").value = "builtin"; document.getElementById("replay-playouts").value = "30"; })()`))
		b.do(chromedp.Click("#replay-review"))
		b.wait(`/^Reviewed /.test(document.getElementById("review-status").textContent)`)
		want := pageReview(t, v, row.Moves, 30)
		var wantMarks, wantList []string
		for _, p := range want.Plies {
			if p.Label != analysis.Good {
				wantMarks = append(wantMarks, fmt.Sprintf("%d:%s", p.Ply, p.Label))
			}
			wantList = append(wantList, string(p.Label))
		}
		if len(wantMarks) == 0 {
			t.Fatalf("the test game has no labelled move at 30 playouts: choose another")
		}
		type graph struct {
			Points int      `json:"points"`
			Marks  []string `json:"marks"`
			List   []string `json:"list"`
		}
		got, err := chromedp.Run(b.ctx, chromedp.Evaluate[graph](`(() => {
			const g = document.getElementById("review-graph");
			const line = g.querySelector("polyline.win");
			return { points: line ? line.getAttribute("points").trim().split(/\s+/).length : 0,
				marks: [...g.querySelectorAll(".mark")].map((m) => m.dataset.ply + ":" + m.dataset.label),
				list: [...document.getElementById("replay-moves").children].map((li) => li.dataset.label) };
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if got.Points != len(row.Moves)+1 {
			t.Errorf("the graph's line has %d points, want %d (before the first ply and after each)", got.Points, len(row.Moves)+1)
		}
		if fmt.Sprint(got.Marks) != fmt.Sprint(wantMarks) {
			t.Errorf("marks on the graph: got %v, want %v", got.Marks, wantMarks)
		}
		if fmt.Sprint(got.List) != fmt.Sprint(wantList) {
			t.Errorf("labels in the move list: got %v, want %v", got.List, wantList)
		}
		// A click on the graph goes to that ply: the first labelled move.
		target := want.Plies[0].Ply
		for _, p := range want.Plies {
			if p.Label != analysis.Good {
				target = p.Ply
				break
			}
		}
		b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
			const g = document.getElementById("review-graph"), r = g.getBoundingClientRect();
			const x = r.left + (38 + %d / %d * (640 - 48)) / 640 * r.width, y = r.top + r.height / 2;
			g.dispatchEvent(new MouseEvent("click", { clientX: x, clientY: y, bubbles: true }));
		})()`, target, len(row.Moves))))
		if s := b.state("replay"); s.Ply != fmt.Sprint(target) {
			t.Fatalf("after a click on the graph at ply %d: the board shows ply %s", target, s.Ply)
		}
		// The keyboard steps from there, the graph focused.
		b.do(chromedp.Focus("#review-graph"))
		b.keys(kb.ArrowRight)
		if s := b.state("replay"); s.Ply != fmt.Sprint(target+1) {
			t.Errorf("ArrowRight on the graph: ply %s, want %d", s.Ply, target+1)
		}
		b.keys(kb.Home)
		if s := b.state("replay"); s.Ply != "0" {
			t.Errorf("Home on the graph: ply %s, want 0", s.Ply)
		}
		// At the start, the best line from it as numbered arrows, the
		// first the best move.
		best, _, err := rules.ParseMove(want.Plies[0].Best)
		if err != nil {
			t.Fatal(err)
		}
		arrows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#view-replay svg.arrows line")].map((l) => [l.getAttribute("x1"), l.getAttribute("y1"), l.getAttribute("x2"), l.getAttribute("y2")].join(","))`))
		if err != nil {
			t.Fatal(err)
		}
		n := v.Size()
		centre := func(sq rules.Square) string { return fmt.Sprintf("%d,%d", sq.File()*10+5, (n-1-sq.Rank())*10+5) }
		if wantN := min(4, len(want.Plies[0].PV)); len(arrows) != wantN || len(arrows) > 0 && arrows[0] != centre(best.From())+","+centre(best.To()) {
			t.Errorf("arrows at ply 0: got %v, want %d starting with the best move %s (%s)", arrows, wantN, best, centre(best.From())+","+centre(best.To()))
		}
	})

	t.Run("review of people's game", func(t *testing.T) {
		b.t = t
		// A game of the human archive, reviewed with the network: the
		// progress shows while it works; the screenshot shows a blunder.
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("replay-file");
			s.value = [...s.options].find((o) => o.text === "archive/copenhagen").value; s.dispatchEvent(new Event("change")); })()`))
		b.wait(`document.getElementById("replay-game").options.length > 100`)
		// A whole game of 50 to 90 plies.
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("replay-game");
			s.value = [...s.options].find((o) => { const m = /: ([0-9]+) plies, (attackers|defenders)/.exec(o.text); return m && +m[1] >= 50 && +m[1] <= 90; }).value;
			s.dispatchEvent(new Event("change")); })()`))
		b.wait(`document.getElementById("replay-board").dataset.ply === "0" && document.getElementById("replay-moves").children.length >= 50`)
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { document.getElementById("replay-network").value = "net"; document.getElementById("replay-playouts").value = "100"; })()`))
		// Every status the review shows, and the progress bar's values.
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { window.seen = []; const st = document.getElementById("review-status"), pr = document.getElementById("review-progress");
			new MutationObserver(() => window.seen.push((pr.hidden ? "" : pr.value + "/" + pr.max + " ") + st.textContent)).observe(st, { childList: true, characterData: true, subtree: true }); })()`))
		b.do(chromedp.Click("#replay-review"))
		b.wait(`/^Reviewed /.test(document.getElementById("review-status").textContent)`)
		seen, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`window.seen`))
		if err != nil {
			t.Fatal(err)
		}
		progress := 0
		for _, text := range seen {
			var done, total int
			if _, err := fmt.Sscanf(text, "%d/%d Reviewing: ", &done, &total); err == nil && done > 0 && done < total {
				progress++
			}
		}
		if progress == 0 {
			t.Errorf("statuses %q: want the progress shown while the review works (a bar and \"Reviewing: N of M plies\")", seen)
		}
		ply, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`(() => { const m = document.querySelector("#review-graph .mark[data-label=blunder]") || document.querySelector("#review-graph .mark"); return m ? +m.dataset.ply : 0; })()`))
		if err != nil {
			t.Fatal(err)
		}
		b.do(chromedp.Focus("#review-graph"))
		b.keys(kb.Home)
		for range ply - 1 {
			b.keys(kb.ArrowRight)
		}
		b.screenshot(shots, "review.png")
	})

	t.Run("review after play", func(t *testing.T) {
		b.t = t
		// The fork again, played by mouse; the game over, its review.
		q := url.Values{"variant": {"copenhagen"}, "start": {forkStart}, "human": {"defenders"}, "engine": {"builtin"}, "playouts": {"50"}}
		b.do(chromedp.Navigate(ts.URL + "/?" + q.Encode()))
		b.wait(`document.body.dataset.ready === "1"`)
		b.do(chromedp.Click("#play-new"))
		b.wait(`document.getElementById("play-board").dataset.ply === "0"`)
		b.do(chromedp.Click(cellSelector("play", "c3")))
		b.do(chromedp.Click(cellSelector("play", "c1")))
		b.wait(`document.getElementById("play-board").dataset.ply === "2"`)
		start, _ := rules.ParsePosition(forkStart)
		g, err := rules.NewGameFrom(v, start)
		if err != nil {
			t.Fatal(err)
		}
		playAll(t, g, b.state("play").Moves)
		var win rules.Move
		for _, m := range g.GenerateMoves(nil) {
			if m.From() == g.Position().King && v.Corners().Has(m.To()) {
				win = m
			}
		}
		b.do(chromedp.Click(cellSelector("play", win.From().String())))
		b.do(chromedp.Click(cellSelector("play", win.To().String())))
		b.wait(`!document.getElementById("play-review").hidden`)
		b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("replay-network").value = "builtin"`))
		b.do(chromedp.Click("#play-review"))
		b.wait(`!document.getElementById("view-replay").hidden && /^Reviewed /.test(document.getElementById("review-status").textContent)`)
		points, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelector("#review-graph polyline.win").getAttribute("points").trim().split(/\s+/).length`))
		if err != nil || points != 4 || len(b.state("replay").Moves) != 3 {
			t.Errorf("the played game's review: %d points on the graph, %d moves listed (%v); want 4 and 3", points, len(b.state("replay").Moves), err)
		}
	})

	t.Run("runs", func(t *testing.T) {
		b.t = t
		b.do(chromedp.Click("#tab-runs"))
		// Three charts of the summary, and the ratings report's by generation.
		b.wait(`document.querySelectorAll("#runs-charts svg[role=img]").length >= 4`)
		var summary []struct {
			Generation int `json:"generation"`
		}
		raw, err := os.ReadFile(filepath.Join("testdata", "run", "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &summary); err != nil {
			t.Fatal(err)
		}
		// The generation axis reads whole numbers, from the first to the last.
		ticks, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runs-charts svg[role=img]")[0].querySelectorAll("text[text-anchor=middle]")].map((t) => t.textContent).filter((s) => /^-?[0-9.]+$/.test(s))`))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{}
		for _, s := range summary {
			want = append(want, fmt.Sprint(s.Generation))
		}
		if fmt.Sprint(ticks) != fmt.Sprint(want) {
			t.Fatalf("generation ticks %v, want %v", ticks, want)
		}
		// Each generation's rating over all the run's games, in the rating
		// chart (its own series) and in the generations' table.
		series, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#runs-charts svg[role=img]")[0].closest("figure").querySelectorAll(".legend li")].filter((t) => t.textContent.startsWith("Elo over all the run's")).length`))
		if err != nil || series != 1 {
			t.Fatalf("rating chart: %d legend entries for the ratings over all games (%v), want 1", series, err)
		}
		cells, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...[...document.querySelectorAll("#runs-charts table")].find((t) => t.caption && t.caption.textContent.startsWith("Generations")).tBodies[0].rows].map((r) => r.cells[5].textContent)`))
		if err != nil || fmt.Sprint(cells) != "[400 ± 131 540 ± 150 586 ± 169]" {
			t.Fatalf("generations table's ratings over all games: got %v (%v), want [400 ± 131 540 ± 150 586 ± 169]", cells, err)
		}
		// Balance by strength: playouts on a log axis, ticked at the
		// report's playouts.
		ticks, err = chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelector("#runs-charts svg[aria-label^='Balance by strength']").querySelectorAll("text[text-anchor=middle]")].map((t) => t.textContent).filter((s) => /^[0-9]+$/.test(s))`))
		if err != nil || fmt.Sprint(ticks) != "[16 64 256]" {
			t.Fatalf("balance chart's ticks %v (%v), want [16 64 256]", ticks, err)
		}
		// The ratings report's four groups of players, a table each.
		groups, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#runs-charts h3")].filter((h) => /^Ratings: .*group [1-4] of 4/.test(h.textContent)).length`))
		if err != nil || groups != 4 {
			t.Fatalf("%d ratings groups shown (%v), want 4", groups, err)
		}
		b.screenshot(shots, "runs.png")
	})

	t.Run("colours", func(t *testing.T) {
		b.t = t
		// The pieces on the board (drawn above) in the sides' colours,
		// the king's crown yellow.
		pieceCases := []struct {
			name, selector, want string
		}{
			{"attacker", `#play-board .cell[data-piece=a] svg.piece polygon`, chart.Palette[0]},
			{"defender", `#play-board .cell[data-piece=d] svg.piece circle`, chart.Palette[1]},
			{"king's disc", `#play-board .cell[data-piece=k] svg.piece circle`, chart.Palette[1]},
			{"king's crown", `#play-board .cell[data-piece=k] svg.piece polygon`, chart.Yellow},
		}
		for _, c := range pieceCases {
			t.Run(c.name, func(t *testing.T) {
				got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(`+jsString(c.selector)+`)).fill`))
				if err != nil {
					t.Fatal(err)
				}
				if want := cssRGB(c.want); got != want {
					t.Errorf("got %s, want %s (%s)", got, want, c.want)
				}
			})
		}
		// The run charts' series in the colours summary.png gives them:
		// chart.Color(i) for its i-th series of a panel.
		seriesCases := []struct {
			chart, series string
			want          string
		}{
			{"Rating against the baseline", "Elo against the network-free searcher", chart.Palette[0]},
			{"Rating against the baseline", "Elo over all the run's gate and baseline games", chart.Palette[3]},
			{"Training loss", "total", chart.Palette[0]},
			{"Training loss", "policy", chart.Palette[1]},
			{"Training loss", "value", chart.Palette[2]},
			{"Self-play results", "attackers win", chart.Palette[0]},
			{"Self-play results", "defenders win", chart.Palette[1]},
			{"Self-play results", "draws", chart.Palette[2]},
		}
		for _, c := range seriesCases {
			t.Run(c.chart+": "+c.series, func(t *testing.T) {
				// The series' line on the plot and its key in the legend.
				got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
					const fig = [...document.querySelectorAll("#runs-charts figure")].find((f) => f.querySelector("h3").textContent === `+jsString(c.chart)+`);
					const line = [...fig.querySelectorAll("svg[role=img] polyline")].find((l) => l.dataset.series === `+jsString(c.series)+`);
					const key = [...fig.querySelectorAll(".legend li")].find((li) => li.textContent === `+jsString(c.series)+`);
					return [line.getAttribute("stroke"), key.querySelector("line").getAttribute("stroke")];
				})()`))
				if err != nil {
					t.Fatal(err)
				}
				if want := []string{c.want, c.want}; fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("line and legend: got %v, want %v", got, want)
				}
			})
		}
	})

	t.Run("phone width", func(t *testing.T) {
		b.t = t
		// Every view fits a phone's width (the play view is looked at above).
		b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		defer b.do(chromedp.EmulateViewport(1280, 900))
		for _, view := range []string{"replay", "analysis", "runs"} {
			b.do(chromedp.Click("#tab-" + view))
			b.wait(`!document.getElementById("view-` + view + `").hidden`)
			if w, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); err != nil || w > 0 {
				t.Errorf("%s view at phone width: the page is %d px wider than the window (%v)", view, w, err)
			}
		}
	})
	t.Run("console", func(t *testing.T) {
		// Through every view above, the page wrote no error or warning.
		if got := console.problems(); len(got) > 0 {
			t.Errorf("console: got %q, want no errors or warnings", got)
		}
	})
}

// consoleLog gathers what the page writes to the console: its calls of
// the console API, uncaught exceptions and the browser's log (failed
// requests among them).
type consoleLog struct {
	mu     sync.Mutex
	msgs   []chromedp.ConsoleMessage
	cancel context.CancelFunc
	done   chan struct{}
}

func watchConsole(ctx context.Context) *consoleLog {
	ctx, cancel := context.WithCancel(ctx)
	c := &consoleLog{cancel: cancel, done: make(chan struct{})}
	msgs := chromedp.Console(ctx) // subscribed from here on
	go func() {
		defer close(c.done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			c.mu.Lock()
			c.msgs = append(c.msgs, m)
			c.mu.Unlock()
		}
	}()
	return c
}

// problems returns the errors, exceptions and warnings so far.
func (c *consoleLog) problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.msgs {
		switch m.Type {
		case chromedp.ConsoleError, chromedp.ConsoleException, chromedp.ConsoleWarning:
			out = append(out, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
		}
	}
	return out
}

func (c *consoleLog) stop() { c.cancel(); <-c.done }

// cssRGB writes a "#RRGGBB" colour as a computed style gives it.
func cssRGB(hex string) string {
	c := chart.Hex(hex)
	return fmt.Sprintf("rgb(%d, %d, %d)", c.R, c.G, c.B)
}

// jsString quotes s as a JavaScript string.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cellSelector is the CSS selector of a square of a view's board.
func cellSelector(view, sq string) string {
	return fmt.Sprintf(`#%s-board .cell[data-square="%s"]`, view, sq)
}

// playAll plays the moves the page lists (with their captures) in g.
func playAll(t *testing.T, g *rules.Game, moves []string) {
	t.Helper()
	for _, text := range moves {
		m, _, err := rules.ParseMove(text)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(m); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
	}
}

func mustSquare(t *testing.T, name string) rules.Square {
	s, err := rules.ParseSquare(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
