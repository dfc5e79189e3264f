package fit

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// tinyRecords are three short games of the human archive's openings, one
// won by each side and one without a result. Attackers move at even plies:
// 6 attackers' positions and 4 defenders'.
const tinyRecords = `d1-d3 e5-e2 f2-i2,0,0,Black
h1-h3 f8-i8 f10-i10 d6-d3,0,0,White
b6-b10 f4-c4 a4-b4,0,0,Ongoing
`

// readRecords writes records into a file and reads them under v.
func readRecords(t *testing.T, v *rules.Variant, records string) []datasets.Game {
	t.Helper()
	path := filepath.Join(t.TempDir(), "games.csv")
	if err := os.WriteFile(path, []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	games, err := datasets.ReadRecordGames(path, v)
	if err != nil {
		t.Fatal(err)
	}
	return games
}

// fake is a predictor whose fit is known by hand: the move played is its
// first choice at ply 0 only and among its first five at plies 0 to 2; its
// value always says win 0.6, draw 0.1, loss 0.3.
type fake struct{ failLine int }

func (fake) Name() string                 { return "fake" }
func (f fake) NewScorer() (Scorer, error) { return f, nil }

func (f fake) Score(v *rules.Variant, g *datasets.Game, out []Score) error {
	if g.Line == f.failLine {
		return errors.New("ply 2: broken")
	}
	for i := range out {
		out[i] = Score{HasValue: true, WDL: [3]float64{0.6, 0.1, 0.3}}
		if i == 0 {
			out[i].Top1 = 1
		}
		if i < 3 {
			out[i].Top5 = 1
		}
	}
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// checkInterval fails unless every interval of a report holds its estimate.
func checkInterval(t *testing.T, name string, e *Estimate) {
	t.Helper()
	if e == nil || e.CI95 == nil {
		return
	}
	if e.CI95[0] > e.Mean || e.Mean > e.CI95[1] {
		t.Errorf("%s: got interval %v, want one that holds the estimate %v", name, *e.CI95, e.Mean)
	}
}

func checkIntervals(t *testing.T, rep *Report) {
	t.Helper()
	checkInterval(t, "constant log loss", rep.ConstantLogLoss)
	for _, p := range rep.Predictors {
		for name, e := range map[string]*Estimate{"top1": &p.Top1, "top5": &p.Top5,
			"attackers top1": &p.Attackers.Top1, "attackers top5": &p.Attackers.Top5,
			"defenders top1": &p.Defenders.Top1, "defenders top5": &p.Defenders.Top5,
			"value log loss": p.ValueLogLoss, "value minus constant": p.ValueMinusConstant} {
			checkInterval(t, p.Name+" "+name, e)
		}
	}
}

func TestMeasureByHand(t *testing.T) {
	v := variants.MustLoad("copenhagen-classic")
	games := readRecords(t, v, tinyRecords)
	rep, err := Measure(context.Background(), v, games, []Predictor{fake{}}, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Value: game 1 (attackers won) has 2 wins (0.6) and 1 loss (0.3) for
	// the side to move; game 2 (defenders won) 2 wins and 2 losses; game 3
	// has no result. The constant says 1/2 for either side.
	loss := (4*-math.Log(0.6) + 3*-math.Log(0.3)) / 7
	p := rep.Predictors[0]
	cases := []struct {
		name      string
		got, want float64
	}{
		{"games", float64(rep.Games), 3},
		{"positions", float64(rep.Positions), 10},
		{"games with a result", float64(rep.GamesWithResult), 2},
		{"positions with a result", float64(rep.PositionsWithResult), 7},
		{"attackers' rate", rep.Rates.Attackers, 0.5},
		{"defenders' rate", rep.Rates.Defenders, 0.5},
		{"draw rate", rep.Rates.Draws, 0},
		{"top-1", p.Top1.Mean, 3.0 / 10},
		{"top-1 positions", float64(p.Top1.Positions), 10},
		{"top-1 games", float64(p.Top1.Games), 3},
		{"top-5", p.Top5.Mean, 9.0 / 10},
		{"attackers' top-1", p.Attackers.Top1.Mean, 3.0 / 6},
		{"attackers' top-5", p.Attackers.Top5.Mean, 6.0 / 6},
		{"attackers' positions", float64(p.Attackers.Top1.Positions), 6},
		{"defenders' top-1", p.Defenders.Top1.Mean, 0},
		{"defenders' top-5", p.Defenders.Top5.Mean, 3.0 / 4},
		{"defenders' positions", float64(p.Defenders.Top5.Positions), 4},
		{"value log loss", p.ValueLogLoss.Mean, loss},
		{"value log loss positions", float64(p.ValueLogLoss.Positions), 7},
		{"value log loss games", float64(p.ValueLogLoss.Games), 2},
		{"constant log loss", rep.ConstantLogLoss.Mean, math.Ln2},
		{"value minus constant", p.ValueMinusConstant.Mean, loss - math.Ln2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !near(c.got, c.want) {
				t.Errorf("got %v, want %v", c.got, c.want)
			}
		})
	}
	checkIntervals(t, rep)
	// Every game of the constant predictor has the same loss per position:
	// its interval has no width.
	if ci := rep.ConstantLogLoss.CI95; ci == nil || !near(ci[0], math.Ln2) || !near(ci[1], math.Ln2) {
		t.Errorf("got constant log loss interval %v, want [ln 2, ln 2]", ci)
	}
}

func TestUniform(t *testing.T) {
	// A 7x7 rule set whose start leaves the attackers two moves, b1-b2 and
	// b1-b3: top-1 1/2, top-5 1 at every position.
	data, err := variants.File("copenhagen-classic")
	if err != nil {
		t.Fatal(err)
	}
	toml := strings.NewReplacer(`name = "copenhagen-classic"`, `name = "cramped"`, "size = 11", "size = 7",
		"3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a", "7/7/7/1d1k3/7/7/1ad4 a").Replace(string(data))
	cramped, err := variants.Parse("cramped.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	classic := variants.MustLoad("copenhagen-classic")
	// The means by hand over the legal moves the rules count: the archive's
	// start has 116 for the attackers.
	classicGames := readRecords(t, classic, tinyRecords)
	var want1, want5, n float64
	g := rules.NewGame(classic)
	for _, game := range classicGames {
		for i := range game.Moves {
			if err := g.ResetTo(game.Positions[i]); err != nil {
				t.Fatal(err)
			}
			moves := float64(len(g.GenerateMoves(nil)))
			if i == 0 && moves != 116 {
				t.Fatalf("got %v legal moves at the start, want 116", moves)
			}
			want1 += 1 / moves
			want5 += min(5, moves) / moves
			n++
		}
	}
	cases := []struct {
		name         string
		v            *rules.Variant
		games        []datasets.Game
		top1, top5   float64
		attackersTop float64
	}{
		{"two moves", cramped, readRecords(t, cramped, "b1-b2,0,0,Ongoing\nb1-b3,0,0,Black\n"), 0.5, 1, 0.5},
		{"copenhagen-classic", classic, classicGames, want1 / n, want5 / n, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Measure(context.Background(), c.v, c.games, []Predictor{Uniform()}, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			p := rep.Predictors[0]
			if !near(p.Top1.Mean, c.top1) || !near(p.Top5.Mean, c.top5) {
				t.Errorf("got top-1 %v, top-5 %v, want %v, %v", p.Top1.Mean, p.Top5.Mean, c.top1, c.top5)
			}
			if c.attackersTop >= 0 && !near(p.Attackers.Top1.Mean, c.attackersTop) {
				t.Errorf("got attackers' top-1 %v, want %v", p.Attackers.Top1.Mean, c.attackersTop)
			}
			if p.ValueLogLoss != nil {
				t.Errorf("got value log loss %+v, want none: uniform has no value", *p.ValueLogLoss)
			}
			checkIntervals(t, rep)
		})
	}
}

func TestEstimate(t *testing.T) {
	t.Run("by hand", func(t *testing.T) {
		// R = 6/12; residuals 0, -1, 1, 0, 0, 0; Var = 6/5 * 2 / 12^2;
		// t(5) at 97.5% = 2.570582.
		cs := []cluster{{1, 2}, {0, 2}, {2, 2}, {1, 2}, {1, 2}, {1, 2}}
		e := estimate(cs, 0, 1)
		half := 2.570582 * math.Sqrt(6.0/5*2) / 12
		if !near(e.Mean, 0.5) || e.CI95 == nil || math.Abs(e.CI95[0]-(0.5-half)) > 1e-6 || math.Abs(e.CI95[1]-(0.5+half)) > 1e-6 {
			t.Errorf("got %+v (interval %v), want 0.5 [%v, %v]", e, e.CI95, 0.5-half, 0.5+half)
		}
		if e.Positions != 12 || e.Games != 6 {
			t.Errorf("got %d positions of %d games, want 12 of 6", e.Positions, e.Games)
		}
	})
	// The same 40 positions, 20 of them hits: from 40 games of one
	// position, or from 4 games of 10 that either hit every time or never.
	spread := make([]cluster, 40)
	for i := range spread {
		spread[i] = cluster{float64(i % 2), 1}
	}
	clustered := []cluster{{10, 10}, {0, 10}, {10, 10}, {0, 10}}
	a, b := estimate(spread, 0, 1), estimate(clustered, 0, 1)
	t.Run("fewer games, wider", func(t *testing.T) {
		if a.Mean != 0.5 || b.Mean != 0.5 {
			t.Fatalf("got means %v and %v, want 0.5", a.Mean, b.Mean)
		}
		wa, wb := a.CI95[1]-a.CI95[0], b.CI95[1]-b.CI95[0]
		if !(wb > 2*wa) {
			t.Errorf("got width %v from 4 games and %v from 40, want the first much wider", wb, wa)
		}
		for _, e := range []Estimate{a, b} {
			checkInterval(t, "estimate", &e)
		}
	})
	t.Run("edges", func(t *testing.T) {
		if e := estimate([]cluster{{3, 4}}, 0, 1); e.Mean != 0.75 || e.CI95 != nil {
			t.Errorf("one game: got %v with interval %v, want 0.75 and none", e.Mean, e.CI95)
		}
		if e := estimate(nil, 0, 1); e.Mean != 0 || e.CI95 != nil || e.Games != 0 {
			t.Errorf("no games: got %+v, want zeros", e)
		}
		if e := estimate([]cluster{{0, 5}, {1, 5}, {0, 5}}, 0, 1); e.CI95[0] != 0 {
			t.Errorf("got lower bound %v, want it clipped to 0", e.CI95[0])
		}
	})
}

func TestLogitRank(t *testing.T) {
	cases := []struct {
		scores []float32
		j      int
		want   int
	}{
		{[]float32{3, 1, 2}, 0, 0},
		{[]float32{3, 1, 2}, 1, 2},
		{[]float32{3, 1, 2}, 2, 1},
		{[]float32{2, 2, 2}, 0, 0}, // ties: move order
		{[]float32{2, 2, 2}, 2, 2},
		{[]float32{1, 5, 1, 1}, 3, 3},
	}
	for _, c := range cases {
		if got := logitRank(c.scores, c.j); got != c.want {
			t.Errorf("logitRank(%v, %d): got %d, want %d", c.scores, c.j, got, c.want)
		}
	}
}

func TestSearchRank(t *testing.T) {
	m := func(s string) rules.Move {
		mv, _, err := rules.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		return mv
	}
	// Best is a1-a2 (a proven win with few visits, say); then by visits,
	// prior, move order.
	stats := []mcts.MoveStat{
		{Move: m("a1-a2"), Visits: 1, Prior: 0.1},
		{Move: m("b1-b2"), Visits: 10, Prior: 0.1},
		{Move: m("c1-c2"), Visits: 5, Prior: 0.3},
		{Move: m("d1-d2"), Visits: 5, Prior: 0.2},
		{Move: m("e1-e2"), Visits: 5, Prior: 0.2},
		{Move: m("f1-f2"), Visits: 0, Prior: 0.5},
	}
	cases := []struct {
		played string
		want   int
	}{
		{"a1-a2", 0}, {"b1-b2", 1}, {"c1-c2", 2}, {"d1-d2", 3}, {"e1-e2", 4}, {"f1-f2", 5},
	}
	for _, c := range cases {
		t.Run(c.played, func(t *testing.T) {
			got, err := searchRank(stats, m("a1-a2"), m(c.played))
			if err != nil || got != c.want {
				t.Errorf("got %d (%v), want %d", got, err, c.want)
			}
		})
	}
	if _, err := searchRank(stats, m("a1-a2"), m("g1-g2")); err == nil || !strings.Contains(err.Error(), "g1-g2") {
		t.Errorf("got %v, want an error naming g1-g2", err)
	}
}

// handNetwork returns a small network whose value head always says win
// 0.6, draw 0.1, loss 0.3: its last layer's weights are zero and its biases
// the logarithms.
func handNetwork(t *testing.T) *net.Network {
	t.Helper()
	n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, tensor := range n.Tensors() {
		switch tensor.Name {
		case "value.fc2.weight":
			clear(tensor.Data)
		case "value.fc2.bias":
			copy(tensor.Data, []float32{float32(math.Log(0.6)), float32(math.Log(0.1)), float32(math.Log(0.3))})
		}
	}
	return n
}

func TestNetwork(t *testing.T) {
	v := variants.MustLoad("copenhagen-classic")
	games := readRecords(t, v, tinyRecords)
	n := handNetwork(t)
	rep, err := Measure(context.Background(), v, games, []Predictor{Network(n, "hand")}, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Predictors[0]
	// The value as TestMeasureByHand's fake predictor's, to float32
	// precision.
	loss := (4*-math.Log(0.6) + 3*-math.Log(0.3)) / 7
	if p.ValueLogLoss == nil || math.Abs(p.ValueLogLoss.Mean-loss) > 1e-5 {
		t.Errorf("got value log loss %+v, want %v", p.ValueLogLoss, loss)
	}
	// The policy: rank every position's moves one position at a time,
	// independently of the batched scorer.
	in := n.NewInference(1, "check")
	g := rules.NewGame(v)
	var hits1, hits5, count float64
	for _, game := range games {
		for i, rm := range game.Moves {
			played := rm.Move
			if err := net.Encode(in.Input(1), v, &game.Positions[i]); err != nil {
				t.Fatal(err)
			}
			logits, _ := in.Forward(1)
			if err := g.ResetTo(game.Positions[i]); err != nil {
				t.Fatal(err)
			}
			moves := g.GenerateMoves(nil)
			better := 0
			for k, m := range moves {
				if m == played {
					for _, o := range moves[:k] {
						if logits[net.MoveIndex(o)] >= logits[net.MoveIndex(played)] {
							better++
						}
					}
					for _, o := range moves[k+1:] {
						if logits[net.MoveIndex(o)] > logits[net.MoveIndex(played)] {
							better++
						}
					}
				}
			}
			if better == 0 {
				hits1++
			}
			if better < 5 {
				hits5++
			}
			count++
		}
	}
	if !near(p.Top1.Mean, hits1/count) || !near(p.Top5.Mean, hits5/count) {
		t.Errorf("got top-1 %v, top-5 %v, want %v, %v", p.Top1.Mean, p.Top5.Mean, hits1/count, hits5/count)
	}
	checkIntervals(t, rep)
}

func TestWorkersChangeNothing(t *testing.T) {
	v := variants.MustLoad("copenhagen-classic")
	games := readRecords(t, v, tinyRecords+
		"d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8xb7,1,0,White\nh1-h3 f4-i4 g1-i1 g5-g3 h3-i3 f5-i5 d1-d3 g3-g2,0,0,Black\n")
	preds := []Predictor{Uniform(), Builtin(24), Network(handNetwork(t), "hand")}
	var reports []*Report
	for _, workers := range []int{1, 3} {
		rep, err := Measure(context.Background(), v, games, preds, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, rep)
	}
	if !reflect.DeepEqual(reports[0], reports[1]) {
		t.Errorf("got %+v with 3 workers, want %+v as with 1", reports[1], reports[0])
	}
	checkIntervals(t, reports[0])
}

func TestMeasureErrors(t *testing.T) {
	v := variants.MustLoad("copenhagen-classic")
	games := readRecords(t, v, tinyRecords)
	illegal := append([]datasets.Game(nil), games...)
	illegal[1].Moves = append([]rules.RecordedMove(nil), illegal[1].Moves...)
	illegal[1].Moves[2] = illegal[1].Moves[0] // h1-h3 again, at ply 3
	small := append([]datasets.Game(nil), games...)
	small[1].Positions = append([]rules.Position(nil), small[1].Positions...)
	small[1].Positions[0].Size = 9 // a board the network does not play
	cases := []struct {
		name  string
		games []datasets.Game
		pred  Predictor
		want  []string
	}{
		{"no games", nil, Uniform(), []string{"no games"}},
		{"scorer error", games, fake{failLine: 2}, []string{"fake", "line 2", "ply 2"}},
		{"illegal move, uniform", illegal, Uniform(), []string{"line 2", "ply 3", "h1-h3"}},
		{"illegal move, builtin", illegal, Builtin(4), []string{"line 2", "ply 3", "h1-h3"}},
		{"no playouts", games, Builtin(0), []string{"0 playouts"}},
		{"a board the network does not play", small, Network(handNetwork(t), "hand"), []string{"hand: line 2: ply 1: the network plays 11x11 boards, not 9x9"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Measure(context.Background(), v, c.games, []Predictor{c.pred}, Options{Workers: 2})
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("got %v, want an error naming %q", err, w)
				}
			}
			if err != nil && (strings.Count(err.Error(), "fit: ") != 1 || strings.Contains(err.Error(), "rules: ") || strings.Contains(err.Error(), "mcts: ")) {
				t.Errorf("got %v, want an error naming package fit alone, once", err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, v, games, []Predictor{Uniform()}, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestValueByPly: the value's figures by ply range, on games made by hand
// whose value is right with probability 1/2 before ply 10, 0.8 from 10 to
// 19 and 0.9 from 20 on, the attackers having won; the constant says 1/2.
func TestValueByPly(t *testing.T) {
	right := func(ply int) float64 {
		switch {
		case ply < 10:
			return 0.5
		case ply < 20:
			return 0.8
		}
		return 0.9
	}
	type want struct {
		plies PlyRange
		loss  float64
		n     int
	}
	cases := []struct {
		name  string
		plies int
		want  []want
	}{
		{"45 plies", 45, []want{{PlyRange{0, 10}, math.Ln2, 10}, {PlyRange{10, 20}, -math.Log(0.8), 10},
			{PlyRange{20, 40}, -math.Log(0.9), 20}, {PlyRange{40, 0}, -math.Log(0.9), 5}}},
		{"15 plies: no range past the game", 15, []want{{PlyRange{0, 10}, math.Ln2, 10}, {PlyRange{10, 20}, -math.Log(0.8), 5}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &datasets.Game{Positions: make([]rules.Position, c.plies), Moves: make([]rules.RecordedMove, c.plies), Winner: rules.AttackersWin}
			scores := make([]Score, c.plies)
			for i := range scores {
				q := right(i)
				if i%2 == 1 {
					g.Positions[i].ToMove = rules.Defenders
					scores[i] = Score{HasValue: true, WDL: [3]float64{1 - q, 0, q}}
				} else {
					scores[i] = Score{HasValue: true, WDL: [3]float64{q, 0, 1 - q}}
				}
			}
			var rates [4]float64
			rates[rules.AttackersWin], rates[rules.DefendersWin] = 0.5, 0.5
			r := predictorReport("by hand", []gameSums{sumGame(g, scores, &rates)})
			if len(r.ValueByPly) != len(c.want) {
				t.Fatalf("got %d ply ranges %+v, want %d", len(r.ValueByPly), r.ValueByPly, len(c.want))
			}
			for i, w := range c.want {
				got := r.ValueByPly[i]
				if got.Plies != w.plies {
					t.Errorf("range %d: got plies %v, want %v", i, got.Plies, w.plies)
				}
				if !near(got.LogLoss.Mean, w.loss) || got.LogLoss.Positions != w.n {
					t.Errorf("range %v: got log loss %v over %d positions, want %v over %d", w.plies, got.LogLoss.Mean, got.LogLoss.Positions, w.loss, w.n)
				}
				if !near(got.MinusConstant.Mean, w.loss-math.Ln2) {
					t.Errorf("range %v: got %v less than the constant, want %v", w.plies, got.MinusConstant.Mean, w.loss-math.Ln2)
				}
			}
		})
	}
}
