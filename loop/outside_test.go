package loop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/internal/fileio"
	"taflab/internal/nettest"
	"taflab/internal/varianttest"
	"taflab/match"
	"taflab/net"
	"taflab/player"
	"taflab/rules"
	"taflab/stats"
)

// openTaflCopenhagen is OpenTafl's own Copenhagen rules string, whose rule
// set differs from taflab's copenhagen in details (shieldwalls,
// repetition), with a draw after 20 moves without a capture (x-np, a key
// of taflab's) so that the test's weak players do not shuffle for
// hundreds of moves.
const openTaflCopenhagen = "otr:dim:11 name:Copenhagen atkf:y surf:y efe:y tfr:w sw:s x-np:20 start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"

// TestOutsidePlayers runs a tiny loop whose generations also play two
// outside players: taflab's own engine program over OTEP, under OpenTafl's
// rules string, and a searcher of another budget. Each plays its games into
// gen-001/outside/NAME, the summary rates both on the run's scale and lists
// their matches, and a second Run plays nothing again.
func TestOutsidePlayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tiny loop")
	}
	bin := buildCommand(t, "engine")
	cfg, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Generations, cfg.Baseline.Odds = 1, nil
	cfg.Baseline.Outside = []configs.LoopOutside{
		{Player: `otep:cmd="` + bin + ` -protocol otep -net builtin -playouts 8",clock=off,name=otep-self`, Games: 2, Variant: openTaflCopenhagen},
		{Player: "builtin:playouts=7", Games: 2},
	}
	run := filepath.Join(t.TempDir(), "run")
	var log strings.Builder
	if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	dir := GenDir(run, 1)
	for _, name := range []string{"builtin-7", "otep-self"} {
		f, err := match.ReadFile(filepath.Join(dir, OutsideDir, name))
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log.String())
		}
		if f.A.Name != "gen-001" || f.B.Name != name || len(f.Games) != 2 || f.A.Playouts != cfg.Baseline.Playouts {
			t.Errorf("%s: got %s (%d playouts) against %s, %d games; want gen-001 at %d against %s, 2 games",
				name, f.A.Name, f.A.Playouts, f.B.Name, len(f.Games), cfg.Baseline.Playouts, name)
		}
		if name == "otep-self" && !strings.Contains(f.B.Engine, bin) {
			t.Errorf("%s: got engine %q, want the program %s", name, f.B.Engine, bin)
		}
		if !done(dir, outsideStage(name)) {
			t.Errorf("%s: no done marker", name)
		}
		// OpenTafl's rules are kept beside its games; the run's are not.
		_, err = os.Stat(filepath.Join(dir, OutsideDir, name, VariantFile))
		if other := name == "otep-self"; (err == nil) != other {
			t.Errorf("%s: %s in its folder: got %v, want %v", name, VariantFile, err == nil, other)
		}
	}

	sum := readSummaryJSON(t, run)
	var played []string
	for _, o := range sum.Generations[0].Outside {
		played = append(played, o.Player)
		if o.Games != 2 || o.AsAttacker.Wins+o.AsAttacker.Draws+o.AsAttacker.Losses != 1 {
			t.Errorf("%s: got %d games, %+v as attackers; want 2 games, one with each side", o.Player, o.Games, o.AsAttacker)
		}
		if a := o.Attacking; a.Side != "attackers" || a.Games != 1 || a.Wins != o.AsAttacker.Wins || (a.Wins > 0) != (a.MedianPlies > 0) {
			t.Errorf("%s: got the generation's attacking %+v, want its one game as attackers, %d wins with their length", o.Player, a, o.AsAttacker.Wins)
		}
	}
	if want := []string{"builtin-7", "otep-self"}; !slices.Equal(played, want) {
		t.Errorf("summary.json outside matches: got %v, want %v", played, want)
	}
	var rated []string
	for _, p := range sum.Ratings.Outside() {
		rated = append(rated, p.Name)
	}
	slices.Sort(rated)
	if want := []string{"builtin-7", "otep-self"}; !slices.Equal(rated, want) {
		t.Errorf("ratings' outside players: got %v, want %v", rated, want)
	}
	md, err := os.ReadFile(filepath.Join(run, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| gen | outside player |", "| 1 | otep-self | opentafl-copenhagen (baseline.outside's variant) |", "The outside players on this scale:",
		"gate, baseline and outside games", "against otep-self were played under baseline.outside's variant"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md: got\n%s\nwant %q in it", md, want)
		}
	}

	log.Reset()
	if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{Log: &log}); err != nil {
		t.Fatalf("carrying on a finished run: %v\n%s", err, log.String())
	}
	if strings.Contains(log.String(), "rating against") {
		t.Errorf("carrying on a finished run: got log\n%s\nwant no match played again", log.String())
	}

	// A run stopped before its last outside match plays that match alone.
	if err := os.Remove(filepath.Join(dir, OutsideDir+"-otep-self.done")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, OutsideDir, "otep-self")); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if err := Run(context.Background(), run, cfg, configs.TinyLoopFile(), Options{Log: &log}); err != nil {
		t.Fatalf("carrying on: %v\n%s", err, log.String())
	}
	if got := strings.Count(log.String(), "rating against"); got != 1 || !strings.Contains(log.String(), "rating against otep-self") || strings.Contains(log.String(), "self-play") {
		t.Errorf("carrying on after the last outside match was lost: got log\n%s\nwant otep-self's match played again, and nothing else", log.String())
	}
	if !done(dir, outsideStage("otep-self")) {
		t.Errorf("otep-self: no done marker after carrying on")
	}
}

// TestReadOutsideRefuses: outside players that cannot be told apart from
// each other or from the run's own, or that cannot be read, are refused
// before any work, naming the entry.
func TestReadOutsideRefuses(t *testing.T) {
	v, err := configs.LoadVariant("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	ruleSetFile := func(name string, rs *rules.Variant) string {
		text, err := variantTOML(rs)
		if err != nil {
			t.Fatal(err)
		}
		return varianttest.WriteFile(t, t.TempDir(), name+".toml", text)
	}
	// small is a 7x7 rule set; mine is copenhagen-classic with a switch
	// changed, which has no suite of its own for outside games of
	// copenhagen to play.
	small := ruleSetFile("small", varianttest.Small(t))
	mine := varianttest.Edited(t, "mine", "edge_fort = true", "edge_fort = false")
	for _, tc := range []struct {
		name    string
		outside []configs.LoopOutside
		want    string
	}{
		{"not a spec", []configs.LoopOutside{{Player: "alphabeta:depth=3", Games: 2}}, "baseline.outside[0].player"},
		{"one name twice", []configs.LoopOutside{{Player: "builtin:playouts=7", Games: 2}, {Player: "builtin:playouts=7", Games: 4}},
			`baseline.outside[1].player: name "builtin-7": another outside player has it`},
		{"a generation's name", []configs.LoopOutside{{Player: "otep:cmd=x,clock=off,name=gen-001", Games: 2}}, `name "gen-001" is the run's own player's`},
		{"the baseline's name", []configs.LoopOutside{{Player: "builtin:playouts=100", Games: 2}}, `name "builtin-100" is the run's own player's`},
		{"not a folder's name", []configs.LoopOutside{{Player: "otep:cmd=x,clock=off,name=../up", Games: 2}}, `name "../up": want letters`},
		{"a rule set that does not read", []configs.LoopOutside{{Player: "builtin:playouts=7", Games: 2, Variant: "otr:dim:11 start:/x/"}}, "baseline.outside[0].variant"},
		{"a rule set of another board", []configs.LoopOutside{{Player: "builtin:playouts=7", Games: 2, Variant: small}}, "baseline.outside[0].variant: a 7x7 rule set for a run on 11x11 boards"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configs.DefaultLoop()
			cfg.Baseline.Playouts = 100
			cfg.Gate.Openings = "suite"
			cfg.Baseline.Outside = tc.outside
			_, err := readOutside(cfg, v)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "loop: ") {
				t.Errorf("got %v, want a loop error naming %q", err, tc.want)
			}
		})
	}
	t.Run("openings that do not load under its rule set", func(t *testing.T) {
		cfg := configs.DefaultLoop()
		cfg.Gate.Openings = "suite"
		cfg.Baseline.Outside = []configs.LoopOutside{{Player: "builtin:playouts=7", Games: 2, Variant: "copenhagen"}}
		_, err := readOutside(cfg, mine)
		if want := "loop: baseline.outside[0]: gate.openings: suite:mine: want a shipped rule set's suite"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	})
}

// fakeOutside writes the match folder of gen's games against an outside
// player: n games, gen winning won of them (as fakeMatch), with the report
// the summary reads; with otherRules, under a rule set of its own (the
// folder's VariantFile), OpenTafl's reading of the run's.
func fakeOutside(t *testing.T, run string, g int, player string, otherRules bool, n, won int) {
	t.Helper()
	dir := filepath.Join(GenDir(run, g), OutsideDir, player)
	fakeMatch(t, dir, GenName(g), player, 100, n, won)
	f, err := match.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if otherRules {
		if err := os.WriteFile(filepath.Join(dir, VariantFile), []byte("name = \"opentafl-copenhagen\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f.Variant = "opentafl-copenhagen"
	}
	f.B.Playouts, f.B.Engine = 0, "opentafl"
	f.Report = stats.Report{Pairs: n / 2, Games: n}
	for i, game := range f.Games {
		wdl := &f.Report.AsDefender
		if game.Attacker == f.A.Name {
			wdl = &f.Report.AsAttacker
		}
		if i < won {
			wdl.Wins++
		} else {
			wdl.Losses++
		}
	}
	if err := fileio.WriteJSON(filepath.Join(dir, match.FileName), f); err != nil {
		t.Fatal(err)
	}
}

// TestRunRatingsOutside: an outside player's games join the fit, so that it
// gets a rating on the run's scale (above a generation that lost to it),
// its games under other rules count as the run's and are said to be, and
// each generation's summary lists its match.
func TestRunRatingsOutside(t *testing.T) {
	run := t.TempDir()
	fakeMatch(t, filepath.Join(GenDir(run, 1), "baseline"), "gen-001", "builtin-100", 100, 20, 14)
	fakeOutside(t, run, 1, "opentafl-depth-3", false, 10, 2)
	fakeMatch(t, filepath.Join(GenDir(run, 2), "gate"), "gen-002", "gen-001", 100, 20, 12)
	fakeMatch(t, filepath.Join(GenDir(run, 2), "baseline"), "gen-002", "builtin-100", 100, 20, 15)
	fakeOutside(t, run, 2, "opentafl-depth-3", true, 10, 4)
	gens, r := summarize(t, run, 2)
	if r == nil {
		t.Fatal("got no ratings, want a fit")
	}
	if r.Games != 80 {
		t.Errorf("got %d games in the fit, want 80", r.Games)
	}
	outside := r.Outside()
	if len(outside) != 1 || outside[0].Name != "opentafl-depth-3" || outside[0].Games != 20 {
		t.Fatalf("got outside players %+v, want opentafl-depth-3 with 20 games", outside)
	}
	if !(outside[0].Elo > gens[0].Rating) {
		t.Errorf("opentafl-depth-3 %.0f Elo, gen-001 %.0f: want the player that won 8 of 10 above", outside[0].Elo, gens[0].Rating)
	}
	if want := []string{"opentafl-depth-3"}; !slices.Equal(r.OutsidePlayers, want) || !slices.Equal(r.OtherRules, want) {
		t.Errorf("got outside players %v, other rules %v; want %v for both", r.OutsidePlayers, r.OtherRules, want)
	}
	if d := r.Describe(); !strings.Contains(d, "opentafl-depth-3 ") || !strings.Contains(d, "against opentafl-depth-3 were played under baseline.outside's variant") {
		t.Errorf("got %q, want the outside player and its rules named", d)
	}
	if line := r.ByGeneration(); !strings.Contains(line, "gen-002") || !strings.Contains(line, "; outside players: opentafl-depth-3 ") {
		t.Errorf("got %q, want the generations, then opentafl-depth-3", line)
	}
	for i, want := range []OutsideResult{
		{Player: "opentafl-depth-3", Variant: "copenhagen", Games: 10, Score: 0.2},
		{Player: "opentafl-depth-3", Variant: "opentafl-copenhagen", OtherRules: true, Games: 10, Score: 0.4},
	} {
		if len(gens[i].Outside) != 1 {
			t.Fatalf("generation %d: got %d outside matches, want 1", i+1, len(gens[i].Outside))
		}
		got := gens[i].Outside[0]
		if got.Player != want.Player || got.Variant != want.Variant || got.OtherRules != want.OtherRules || got.Games != want.Games || got.Score != want.Score {
			t.Errorf("generation %d: got %+v, want %+v", i+1, got, want)
		}
	}
}

// TestOutsideCandidatePlanes: in games of another reading of the run's
// rules the candidate is shown the run's planes, which it learnt; in games
// of the run's rules, and for a network that names its own, nothing is
// changed.
func TestOutsideCandidatePlanes(t *testing.T) {
	run, err := configs.LoadVariant("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	other, err := configs.LoadVariant(openTaflCopenhagen)
	if err != nil {
		t.Fatal(err)
	}
	plain := nettest.TinyFile(t, 1)
	n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 2)
	if err != nil {
		t.Fatal(err)
	}
	classic := variants.MustLoad("copenhagen-classic")
	n.SetPlanesOf(classic)
	own := filepath.Join(t.TempDir(), "own.safetensors")
	if err := n.Save(own, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		file   string
		played *rules.Variant
		want   *rules.Variant // the planes shown; nil: the played rule set's
	}{
		{"another reading of the run's rules", plain, other, run},
		{"the run's rules", plain, run, nil},
		{"a network that names its planes", own, other, classic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := outsideCandidate(new(player.Loader), tc.file, 16, "gen-001", run, tc.played)
			if err != nil {
				t.Fatal(err)
			}
			e, err := p.NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			in, ok := e.(*net.Inference)
			if !ok {
				t.Fatalf("got evaluator %T, want *net.Inference", e)
			}
			if p.Name != "gen-001" || p.Playouts != 16 {
				t.Errorf("got %s at %d playouts, want gen-001 at 16", p.Name, p.Playouts)
			}
			switch {
			case tc.want == nil && in.PlanesOf != nil:
				t.Errorf("got planes of %s, want the played rule set's", in.PlanesOf.Name())
			case tc.want != nil && (in.PlanesOf == nil || in.PlanesOf.Definition() != tc.want.Definition()):
				t.Errorf("got planes of %v, want %s's", in.PlanesOf, tc.want.Name())
			}
		})
	}
}
