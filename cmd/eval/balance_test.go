package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/archive"
	"taflab/cmd/internal/cli"
	"taflab/internal/nettest"
)

// humanGames is the human game archive that ships inside taflab.
const humanGames = archive.Copenhagen

// runBalanceTest runs eval balance and reads balance.json from out when the
// run wrote it.
func runBalanceTest(t *testing.T, ctx context.Context, out string, args ...string) (int, string, *balanceJSON) {
	t.Helper()
	var buf bytes.Buffer
	code := runBalanceCtx(ctx, append(args, "-out", out), nil, &buf, &buf)
	data, err := os.ReadFile(filepath.Join(out, "balance.json"))
	if err != nil {
		return code, buf.String(), nil
	}
	var rep balanceJSON
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("balance.json: %v", err)
	}
	return code, buf.String(), &rep
}

// checkRates checks that a report's three rates add up to its games and
// that each interval holds its rate.
func checkRates(t *testing.T, what string, games int, rates ...rateJSON) {
	t.Helper()
	wins, sum := 0, 0.0
	for _, r := range rates {
		wins += r.Wins
		sum += r.Rate
		if r.Games != games || !(r.Lo <= r.Rate && r.Rate <= r.Hi) || r.Lo < 0 || r.Hi > 1 {
			t.Errorf("%s: got %+v, want %d games and lo <= rate <= hi within [0, 1]", what, r, games)
		}
	}
	if wins != games || (games > 0 && (sum < 0.9999 || sum > 1.0001)) {
		t.Errorf("%s: got %d results and rates adding up to %v, want %d and 1", what, wins, sum, games)
	}
}

// checkOutputs checks that the Markdown report and the chart are there.
func checkOutputs(t *testing.T, out string, wantMD ...string) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(out, "balance.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wantMD {
		if !strings.Contains(string(md), w) {
			t.Errorf("balance.md: got\n%s\nwant it to hold %q", md, w)
		}
	}
	png, err := os.ReadFile(filepath.Join(out, "balance.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("balance.png: got %d bytes (%v), want a PNG", len(png), err)
	}
}

func TestBalanceSelfPlay(t *testing.T) {
	netFile := nettest.TinyFile(t, 1)
	netPlayer, err := cli.ParsePlayer("net=" + netFile + ",playouts=1")
	if err != nil {
		t.Fatal(err)
	}
	netName := strings.TrimSuffix(netPlayer.Name, "-1")
	cases := []struct {
		name        string
		args        []string
		players     []string
		games       int
		stopped     string
		comparisons int
	}{
		{"two budgets", []string{"-variants", "copenhagen,fetlar", "-player", "builtin:playouts=8", "-strengths", "8,16",
			"-games", "6", "-width", "0"}, []string{"builtin-8", "builtin-16"}, 6, "max-games", 2},
		{"two players, one budget", []string{"-variants", "fetlar,hnefatafl11", "-player", "builtin:playouts=8",
			"-player", "builtin:playouts=12", "-games", "4", "-width", "0"}, []string{"builtin-8", "builtin-12"}, 4, "max-games", 2},
		// Any interval is at most 1 wide: every run stops at -min-games.
		{"early stop", []string{"-variants", "copenhagen,fetlar", "-player", "builtin:playouts=8", "-games", "40",
			"-width", "1", "-min-games", "3"}, []string{"builtin-8"}, 3, "precision", 1},
		{"network player", []string{"-variants", "fetlar", "-player", "net=" + netFile + ",playouts=8", "-strengths", "4,8",
			"-games", "2", "-width", "0"}, []string{netName + "-4", netName + "-8"}, 2, "max-games", 0},
		{"one rule set", []string{"-variants", "copenhagen-classic", "-player", "builtin:playouts=8", "-games", "3"},
			[]string{"builtin-8"}, 3, "max-games", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append(c.args, "-workers", "2", "-games-per-worker", "3")
			code, msg, rep := runBalanceTest(t, context.Background(), out, args...)
			if code != 0 || rep == nil {
				t.Fatalf("got exit %d, want 0:\n%s", code, msg)
			}
			if got, want := len(rep.Runs), len(c.players)*len(rep.Variants); got != want {
				t.Fatalf("got %d runs, want %d", got, want)
			}
			for i, r := range rep.Runs {
				if want := c.players[i/len(rep.Variants)]; r.Player != want {
					t.Errorf("run %d: got player %s, want %s", i, r.Player, want)
				}
				what := r.Variant + " " + r.Player
				if r.Games != c.games || r.Stopped != c.stopped {
					t.Errorf("%s: got %d games, stopped %q, want %d and %q", what, r.Games, r.Stopped, c.games, c.stopped)
				}
				checkRates(t, what, r.Games, r.Attackers, r.Defenders, r.Draws)
				ended := 0
				for _, e := range ruleEndings {
					ended += r.Endings[e]
				}
				if ended != r.Games {
					t.Errorf("%s: got endings %v, want %d games by the rules' endings", what, r.Endings, r.Games)
				}
				if l := r.Lengths; !(l.Min > 0 && float64(l.Min) <= l.Median && l.Median <= float64(l.Max) && float64(l.Min) <= l.Mean) {
					t.Errorf("%s: got lengths %+v, want 0 < min <= median, mean <= max", what, l)
				}
			}
			if len(rep.Comparisons) != c.comparisons {
				t.Errorf("got %d comparisons, want %d", len(rep.Comparisons), c.comparisons)
			}
			for _, cmp := range rep.Comparisons {
				if !(cmp.P >= 0 && cmp.P <= 1 && cmp.PHolm >= cmp.P && cmp.PHolm <= 1) {
					t.Errorf("comparison %+v: want 0 <= p <= p (Holm) <= 1", cmp)
				}
			}
			if !strings.Contains(msg, "defenders ") || !strings.Contains(msg, "attackers ") {
				t.Errorf("got output %q, want progress lines with the rates", msg)
			}
			checkOutputs(t, out, "| "+rep.Runs[0].Variant+" | "+c.players[0]+" | ", "How the games ended")
		})
	}
}

// TestBalanceSameSeed: the same seed gives the same games.
func TestBalanceSameSeed(t *testing.T) {
	var reps []*balanceJSON
	for _, workers := range []string{"1", "2"} {
		code, msg, rep := runBalanceTest(t, context.Background(), filepath.Join(t.TempDir(), "out"), "-variants", "fetlar",
			"-player", "builtin:playouts=8", "-games", "5", "-width", "0", "-workers", workers, "-seed", "9")
		if code != 0 {
			t.Fatalf("got exit %d, want 0:\n%s", code, msg)
		}
		reps = append(reps, rep)
	}
	a, b := reps[0].Runs[0], reps[1].Runs[0]
	if a.Lengths != b.Lengths || a.Defenders != b.Defenders {
		t.Errorf("got %+v %+v and %+v %+v, want the same games", a.Lengths, a.Defenders, b.Lengths, b.Defenders)
	}
}

func TestBalanceInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "out")
	code, msg, rep := runBalanceTest(t, ctx, out, "-variants", "fetlar", "-player", "builtin:playouts=8", "-games", "5")
	if code != 130 || rep == nil || !rep.Interrupted {
		t.Fatalf("got exit %d and report %+v, want 130 and an interrupted report:\n%s", code, rep, msg)
	}
	checkOutputs(t, out, "Interrupted")
}

// recordCounts counts the results a game-record file states.
func recordCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := archive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "moves,") {
			continue
		}
		counts[line[strings.LastIndexByte(line, ',')+1:]]++
	}
	return counts
}

func TestBalanceRecords(t *testing.T) {
	synthetic := filepath.Join(t.TempDir(), "games.csv")
	os.WriteFile(synthetic, []byte("moves,attacker_captures,defender_captures,result\n"+
		"d1-d3 e5-e2 f2-i2,0,0,White\n"+
		"d1-d3 e5-e2 timeout,0,0,Black\n"+
		"\n"+
		"d1-d3,0,0,Ongoing\n"+
		"d1-d3 e5-e2,0,0,Draw\n"+
		"d1-d3 d1-d4,0,0,White\n"), 0o644)
	cases := []struct {
		name    string
		file    string
		endings map[string]int // some of the endings, or nil
	}{
		{"synthetic", synthetic, map[string]int{endResigned: 1, endTimedOut: 1, endUnfinished: 1, endAgreedDraw: 1, endIllegal: 1}},
		{"human archive", humanGames, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := archive.Stat(c.file); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			code, msg, rep := runBalanceTest(t, context.Background(), out, "-variants", "", "-records", c.file)
			if code != 0 || rep == nil {
				t.Fatalf("got exit %d, want 0:\n%s", code, msg)
			}
			if len(rep.Runs) != 0 || len(rep.Records) != 1 {
				t.Fatalf("got %d runs and %d record reports, want 0 and 1", len(rep.Runs), len(rep.Records))
			}
			r := rep.Records[0]
			want := recordCounts(t, c.file)
			got := map[string]int{"Black": r.Attackers.Wins, "White": r.Defenders.Wins, "Draw": r.Draws.Wins, "Ongoing": r.Ongoing}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("got %d %s games, want %d as the records say", got[k], k, n)
				}
			}
			if r.Variant != "copenhagen-classic" {
				t.Errorf("got rule set %s, want copenhagen-classic", r.Variant)
			}
			checkRates(t, c.name, r.Games-r.Ongoing, r.Attackers, r.Defenders, r.Draws)
			total := 0
			for _, n := range r.Endings {
				total += n
			}
			if total != r.Games {
				t.Errorf("got endings %v adding up to %d, want %d", r.Endings, total, r.Games)
			}
			for k, n := range c.endings {
				if r.Endings[k] != n {
					t.Errorf("got %d %s endings, want %d (all: %v)", r.Endings[k], k, n, r.Endings)
				}
			}
			if c.file == humanGames && (r.Illegal != 0 || r.Endings["king-escaped"] == 0) {
				t.Errorf("got %d illegal games and endings %v, want none illegal and some escapes", r.Illegal, r.Endings)
			}
			checkOutputs(t, out, "## Game records", filepath.Base(c.file))
		})
	}
}

// TestBalanceRecordsWithSelfPlay: a record file of a rule set that self-play
// also ran is compared with it.
func TestBalanceRecordsWithSelfPlay(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, msg, rep := runBalanceTest(t, context.Background(), out, "-variants", "copenhagen-classic,fetlar",
		"-player", "builtin:playouts=8", "-games", "3", "-records", humanGames)
	if code != 0 || rep == nil {
		t.Fatalf("got exit %d, want 0:\n%s", code, msg)
	}
	if len(rep.Baselines) != 1 || rep.Baselines[0].Player != "builtin-8" || !(rep.Baselines[0].P >= 0 && rep.Baselines[0].P <= 1) {
		t.Errorf("got baselines %+v, want one against builtin-8", rep.Baselines)
	}
	checkOutputs(t, out, "Records against self-play")
}

func TestBalanceBadInput(t *testing.T) {
	netFile := nettest.TinyFile(t, 1)
	tmp := t.TempDir()
	other := filepath.Join(tmp, "other.safetensors")
	data, err := os.ReadFile(netFile)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(other, bytes.Replace(data, []byte("taflab-planes-v1"), []byte("taflab-planes-v9"), 1), 0o644)
	badRecords := filepath.Join(tmp, "bad.csv")
	os.WriteFile(badRecords, []byte("d1-d3,0,0,White\nd1-d3 zz,0,0,White\n"), 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown rule set", []string{"-variants", "copenhagen,chess"}, "chess"},
		{"same rule set twice", []string{"-variants", "fetlar,fetlar"}, "fetlar"},
		{"missing network", []string{"-player", "net=" + filepath.Join(tmp, "none.safetensors")}, "none.safetensors"},
		{"other encoding", []string{"-player", "net=" + other}, "encoding"},
		{"bad player", []string{"-player", "builtin:playouts=0"}, "playouts"},
		{"same player twice", []string{"-player", "builtin", "-player", "builtin"}, "second time"},
		{"no games", []string{"-games", "0"}, "-games"},
		{"width above 1", []string{"-width", "1.5"}, "-width"},
		{"negative width", []string{"-width", "-0.1"}, "-width"},
		{"width NaN", []string{"-width", "NaN"}, "-width"},
		{"confidence 1", []string{"-confidence", "1"}, "-confidence"},
		{"confidence 0", []string{"-confidence", "0"}, "-confidence"},
		{"negative min games", []string{"-min-games", "-1"}, "-min-games"},
		{"strengths not numbers", []string{"-strengths", "50,lots"}, "-strengths"},
		{"strength 0", []string{"-strengths", "0"}, "-strengths"},
		{"strengths empty", []string{"-strengths", ""}, "-strengths"},
		{"strength twice", []string{"-strengths", "50,50"}, "-strengths"},
		{"strengths of an engine", []string{"-player", "uci:cmd=engine,nodes=5", "-strengths", "50"}, "engine program"},
		{"bad engine player", []string{"-player", "otep:cmd=engine,nodes=5"}, "OTEP has no node budget"},
		{"missing records", []string{"-records", filepath.Join(tmp, "none.csv")}, "none.csv"},
		{"malformed records", []string{"-records", badRecords}, "bad.csv: rules: line 2"},
		{"unknown records rule set", []string{"-records", badRecords, "-records-variant", "chess"}, "-records-variant"},
		{"nothing to do", []string{"-variants", ""}, "nothing to report"},
		{"argument", []string{"games.csv"}, "games.csv"},
		{"no -out", []string{"-out", ""}, "-out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(tmp, "out-"+strings.ReplaceAll(c.name, " ", "-"))
			var buf bytes.Buffer
			code := run(append([]string{"balance", "-out", out}, c.args...), nil, &buf, &buf)
			if code != 2 || !strings.Contains(buf.String(), c.want) {
				t.Errorf("got exit %d and %q, want 2 and a message naming %q", code, buf.String(), c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("bad input wrote %s: want nothing written before the error", out)
			}
		})
	}
}

// TestBalanceFromSuite starts the games from the rule set's opening suite:
// the report says so, once for both strengths, and every game starts from
// a suite position.
func TestBalanceFromSuite(t *testing.T) {
	out := t.TempDir()
	code, msg, rep := runBalanceTest(t, context.Background(), out, "-variants", "copenhagen", "-player", "builtin:playouts=4",
		"-strengths", "2,4", "-games", "6", "-width", "0", "-openings", "suite")
	if code != 0 || rep == nil || len(rep.Runs) != 2 {
		t.Fatalf("got exit %d, want 0 and two runs:\n%s", code, msg)
	}
	for _, r := range rep.Runs {
		if !strings.HasPrefix(r.Openings, "the opening suite of copenhagen") || r.Games != 6 {
			t.Errorf("%s: got openings %q over %d games, want the suite of copenhagen over 6", r.Player, r.Openings, r.Games)
		}
	}
	checkOutputs(t, out, "started from the opening suite of copenhagen")
	if md, _ := os.ReadFile(filepath.Join(out, "balance.md")); strings.Count(string(md), "The games of copenhagen started from") != 1 {
		t.Errorf("balance.md: got %d sentences on copenhagen's openings, want 1", strings.Count(string(md), "The games of copenhagen started from"))
	}

	code, msg, rep = runBalanceTest(t, context.Background(), t.TempDir(), "-variants", "copenhagen", "-player", "builtin:playouts=4", "-games", "2", "-width", "0")
	if code != 0 || rep == nil || rep.Runs[0].Openings != "start" {
		t.Errorf("the default: got exit %d and %+v, want games from the start:\n%s", code, rep, msg)
	}
	// A player with Gumbel root search is described as one.
	gout := t.TempDir()
	code, msg, rep = runBalanceTest(t, context.Background(), gout, "-variants", "copenhagen", "-player", "builtin:playouts=4,root=gumbel", "-games", "2", "-width", "0")
	if code != 0 || rep == nil || rep.Runs[0].RootSearch != "gumbel" {
		t.Fatalf("a Gumbel player: got exit %d and %+v, want its run marked gumbel:\n%s", code, rep, msg)
	}
	checkOutputs(t, gout, "Players with Gumbel root search")
	for _, c := range []struct{ args []string }{
		{[]string{"-openings", "middle"}},
		{[]string{"-openings", "suite", "-variants", writeVariantFile(t)}},
	} {
		code, msg, _ := runBalanceTest(t, context.Background(), t.TempDir(), append([]string{"-player", "builtin:playouts=4", "-games", "2"}, c.args...)...)
		if code != 2 || !strings.Contains(msg, "-openings") {
			t.Errorf("%v: got exit %d and %q, want 2 and a message naming -openings", c.args, code, msg)
		}
	}
}

// writeVariantFile writes a copy of copenhagen under another name: a rule
// set of the user's own, with no opening suite.
func writeVariantFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../configs/variants/copenhagen.toml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mine.toml")
	text := strings.Replace(string(data), `name = "copenhagen"`, `name = "mine"`, 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBalanceResume: a study interrupted by a signal carries on with
// -resume to the figures of one that ran through; without -resume its
// folder is refused, as is -resume in a folder with no study.
func TestBalanceResume(t *testing.T) {
	args := []string{"-variants", "fetlar", "-player", "builtin:playouts=8", "-games", "100", "-width", "0", "-workers", "1", "-games-per-worker", "1"}
	_, msg, whole := runBalanceTest(t, context.Background(), filepath.Join(t.TempDir(), "whole"), args...)
	if whole == nil {
		t.Fatalf("no report:\n%s", msg)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, msg, _ := runBalanceTest(t, context.Background(), out, append(args, "-resume")...); code != 2 || !strings.Contains(msg, "holds no study's games") {
		t.Errorf("-resume in a new folder: got exit %d and\n%s\nwant 2 and a message that there is nothing to carry on", code, msg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // stopped once the journal holds a game
		for ctx.Err() == nil {
			if data, _ := os.ReadFile(filepath.Join(out, "games.jsonl")); bytes.Contains(data, []byte(`"game":`)) {
				cancel()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	if code, msg, rep := runBalanceTest(t, ctx, out, args...); code != 130 || rep == nil || !rep.Interrupted {
		t.Fatalf("got exit %d, want 130 and an interrupted report:\n%s", code, msg)
	}
	if code, msg, _ := runBalanceTest(t, context.Background(), out, args...); code != 2 || !strings.Contains(msg, "-resume to carry it on") {
		t.Errorf("no -resume: got exit %d and\n%s\nwant 2 and a message that asks for -resume", code, msg)
	}
	code, msg, rep := runBalanceTest(t, context.Background(), out, append(args, "-resume")...)
	if code != 0 || rep == nil {
		t.Fatalf("-resume: got exit %d, want 0:\n%s", code, msg)
	}
	a, b := whole.Runs[0], rep.Runs[0]
	if a.Games != b.Games || a.Lengths != b.Lengths || a.Defenders != b.Defenders {
		t.Errorf("got %d games %+v %+v, want %d games %+v %+v as the study that ran through", b.Games, b.Lengths, b.Defenders, a.Games, a.Lengths, a.Defenders)
	}
	if !strings.Contains(rep.Command, "-resume") || !strings.HasPrefix(rep.Command, "go run ./cmd/eval balance ") {
		t.Errorf("got command %q, want the command line that made the report", rep.Command)
	}
}

// TestBalanceOwnNetworks: net=own plays each rule set with the network
// -networks names for it.
func TestBalanceOwnNetworks(t *testing.T) {
	a, b := nettest.TinyFile(t, 1), nettest.TinyFile(t, 2)
	out := filepath.Join(t.TempDir(), "out")
	code, msg, rep := runBalanceTest(t, context.Background(), out, "-variants", "fetlar,hnefatafl11", "-player", "net=own,playouts=2",
		"-networks", "fetlar="+a+",hnefatafl11="+b, "-games", "2", "-width", "0")
	if code != 0 || rep == nil {
		t.Fatalf("got exit %d, want 0:\n%s", code, msg)
	}
	for i, want := range []string{a, b} {
		if r := rep.Runs[i]; r.Player != "own-2" || r.Network != want {
			t.Errorf("run %d: got player %s with %s, want own-2 with %s", i, r.Player, r.Network, want)
		}
	}
	code, msg, _ = runBalanceTest(t, context.Background(), filepath.Join(t.TempDir(), "bad"), "-variants", "fetlar",
		"-player", "net=own,playouts=2", "-networks", "fetlar")
	if code != 2 || !strings.Contains(msg, `-networks: "fetlar" is not NAME=FILE`) {
		t.Errorf("got exit %d and\n%s\nwant 2 naming the bad -networks entry", code, msg)
	}
}
