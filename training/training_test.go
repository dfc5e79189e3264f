package training

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/net"
	"taflab/rules"
)

// recordFile writes n games of copenhagen-classic as game records, each the
// same 12 random plies (so that a tiny network can learn them) ending Black
// or White by turns, and returns the file's path; bad, if not nil, edits a
// line before it is written.
func recordFile(t *testing.T, n int, bad func(line int, text string) string) string {
	t.Helper()
	v := variants.MustLoad("copenhagen-classic")
	g := rules.NewGame(v)
	var b strings.Builder
	b.WriteString("moves,attacker_captures,defender_captures,result\n")
	var moves []rules.Move
	for i := range n {
		g.Reset()
		rng := rand.New(rand.NewPCG(4, 4))
		var parts []string
		for g.Ply() < 12 && !g.Outcome().Over() {
			moves = g.GenerateMoves(moves[:0])
			g.Make(moves[rng.IntN(len(moves))])
			m, captured := g.LastMove()
			parts = append(parts, string(rules.AppendMove(nil, m, captured)))
		}
		result := []string{"Black", "White"}[i%2]
		text := fmt.Sprintf("%s,0,0,%s", strings.Join(parts, " "), result)
		if bad != nil {
			text = bad(i+2, text)
		}
		b.WriteString(text + "\n")
	}
	path := filepath.Join(t.TempDir(), "games.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func recordsConfig(t *testing.T, file string) configs.Train {
	cfg := configs.DefaultTrain()
	cfg.Data, cfg.Out = "", t.TempDir()
	cfg.Steps, cfg.BatchSize, cfg.CheckpointEvery = 60, 32, 30
	cfg.Records = configs.Records{File: file, Variant: "copenhagen-classic", Share: 1, ValueWeight: 0.5, HoldoutEvery: 10}
	cfg.Network.Blocks, cfg.Network.Channels, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Optimizer.Optimizer, cfg.Optimizer.LearningRate, cfg.Optimizer.WarmupSteps = "adam", 0.01, 0
	cfg.Optimizer.TotalSteps, cfg.Optimizer.Threads = 60, 1
	return cfg
}

// TestTrainOnRecords trains a tiny network on game records alone: the
// policy loss falls (the moves played are learnt), and a resumed run is
// the same as one in a go.
func TestTrainOnRecords(t *testing.T) {
	cfg := recordsConfig(t, recordFile(t, 12, nil))
	sum, err := Run(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Lines 2 to 13 hold the games; line 10 is held out.
	if sum.Positions != 0 || sum.RecordPositions != 11*12 {
		t.Errorf("got %d self-play and %d record positions, want none and 132 (11 games of 12 plies)", sum.Positions, sum.RecordPositions)
	}
	// Records of one rule set alone: the network knows their planes, and
	// its file says so.
	n, _, err := net.Load(filepath.Join(cfg.Out, NetworkFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.PlanesOf(); got == nil || got.Name() != "copenhagen-classic" {
		t.Errorf("got PlanesOf %v, want copenhagen-classic, the records' rule set", got)
	}
	losses := policyLosses(t, filepath.Join(cfg.Out, MetricsFile))
	first, last := mean(losses[:5]), mean(losses[len(losses)-5:])
	t.Logf("policy loss: first steps %.3f, last steps %.3f", first, last)
	if !(last < first-1) {
		t.Errorf("policy loss: got %.3f at the end against %.3f at the start, want it to fall by 1 or more", last, first)
	}

	resumed := cfg
	resumed.Out = t.TempDir()
	resumed.Steps = 30
	if _, err := Run(context.Background(), resumed, Options{}); err != nil {
		t.Fatal(err)
	}
	resumed.Steps = 60
	if _, err := Run(context.Background(), resumed, Options{Resume: true}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(cfg.Out, NetworkFile))
	b, _ := os.ReadFile(filepath.Join(resumed.Out, NetworkFile))
	if string(a) != string(b) {
		t.Error("30 steps and 30 resumed: got another network than 60 in a go")
	}
}

// TestResumeRefusesOtherRecords resumes a run on records that changed: an
// edited file, another share, and records that were not there are refused.
func TestResumeRefusesOtherRecords(t *testing.T) {
	file := recordFile(t, 12, nil)
	cfg := recordsConfig(t, file)
	cfg.Steps = 5
	if _, err := Run(context.Background(), cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	edited := recordFile(t, 13, nil)
	cases := []struct {
		name string
		edit func(*configs.Train)
	}{
		{"another file", func(c *configs.Train) { c.Records.File = edited }},
		{"another value weight", func(c *configs.Train) { c.Records.ValueWeight = 0.3 }},
		{"another hold-out", func(c *configs.Train) { c.Records.HoldoutEvery = 5 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			again := cfg
			again.Steps = 10
			c.edit(&again)
			_, err := Run(context.Background(), again, Options{Resume: true})
			if err == nil || !strings.Contains(err.Error(), "a resumed run must see the same data") {
				t.Errorf("got error %v, want a refusal to resume on other records", err)
			}
		})
	}
	again := cfg
	again.Steps = 10
	if _, err := Run(context.Background(), again, Options{Resume: true}); err != nil {
		t.Errorf("the same records: got %v, want the run to resume", err)
	}
}

func TestTrainOnRecordsRefusesBadRecords(t *testing.T) {
	cases := []struct {
		name string
		bad  func(line int, text string) string
		want string
	}{
		{"illegal move", func(line int, text string) string {
			if line == 4 {
				return "d1-d3 d3-d1 f4-a4," + strings.SplitN(text, ",", 2)[1]
			}
			return text
		}, "line 4, ply 2: illegal move d3-d1"},
		{"bad line", func(line int, text string) string {
			if line == 6 {
				return "d1-d3,0,0"
			}
			return text
		}, "line 6: 3 fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := recordsConfig(t, recordFile(t, 8, c.bad))
			_, err := Run(context.Background(), cfg, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "games.csv") {
				t.Fatalf("got error %v, want one naming games.csv and %q", err, c.want)
			}
		})
	}
	t.Run("optional and missing", func(t *testing.T) {
		cfg := recordsConfig(t, filepath.Join(t.TempDir(), "none.csv"))
		cfg.Records.Optional = true
		var log strings.Builder
		_, err := Run(context.Background(), cfg, Options{Log: &log})
		if err == nil || !strings.Contains(err.Error(), "nothing to train on") {
			t.Errorf("got error %v, want nothing to train on", err)
		}
		if !strings.Contains(log.String(), "no game records at") {
			t.Errorf("got log %q, want a note that the records are skipped", log.String())
		}
	})
}

func policyLosses(t *testing.T, path string) []float64 {
	t.Helper()
	steps, err := ReadMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, s := range steps {
		out = append(out, s.Losses.Policy)
	}
	return out
}

// TestMetricsFile: the steps written read back (at the file's precision);
// a resumed run's file keeps the steps up to its checkpoint and drops a
// line cut short; a line of another form is an error naming it.
func TestMetricsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), MetricsFile)
	var want []Step
	m, err := openMetrics(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		s := Step{Step: i, LearningRate: 0.001 * float64(i), Losses: net.Losses{Policy: 2.5 / float64(i), Value: 0.75, L2: 0.125},
			SamplesPerSec: 100.5, Elapsed: time.Duration(i) * 1500 * time.Millisecond}
		want = append(want, s)
		if err := m.write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	if len(got) != len(want) {
		t.Fatalf("got %d steps, want %d", len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.Step != w.Step || !near(g.LearningRate, w.LearningRate) || !near(g.Losses.Policy, w.Losses.Policy) || !near(g.Losses.Value, w.Losses.Value) ||
			!near(g.Losses.L2, w.Losses.L2) || !near(g.SamplesPerSec, w.SamplesPerSec) || g.Elapsed != w.Elapsed {
			t.Errorf("step %d: got %+v, want %+v", i+1, g, w)
		}
	}

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("5,0.005,3.1") // cut short by a kill
	f.Close()
	if _, err := ReadMetrics(path); err == nil || !strings.Contains(err.Error(), "line 6") {
		t.Errorf("a line cut short: got %v, want an error naming line 6", err)
	}
	if m, err = openMetrics(path, 2); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if got, err := ReadMetrics(path); err != nil || len(got) != 2 || got[1].Step != 2 {
		t.Errorf("resumed at step 2: got %+v, %v; want steps 1 and 2", got, err)
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// TestRunRefusesInitWithResume: Init and Resume together are an error
// before anything is written (a resumed run keeps its own weights).
func TestRunRefusesInitWithResume(t *testing.T) {
	cfg := recordsConfig(t, recordFile(t, 8, nil))
	cfg.Out = filepath.Join(t.TempDir(), "run")
	init, err := net.New(cfg.Network, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, Options{Init: init, Resume: true}); !errors.Is(err, ErrInitWithResume) {
		t.Errorf("got %v, want ErrInitWithResume", err)
	}
	if _, err := os.Stat(cfg.Out); err == nil {
		t.Errorf("got %s made, want nothing written", cfg.Out)
	}
}

// TestRunRecordErrors: a missing records file is the file system's error
// under one package prefix, as errors.Is sees it.
func TestRunRecordErrors(t *testing.T) {
	cfg := recordsConfig(t, filepath.Join(t.TempDir(), "none.csv"))
	_, err := Run(context.Background(), cfg, Options{})
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "training: game records: ") || !strings.Contains(err.Error(), "none.csv") {
		t.Errorf("got %v, want training's error naming none.csv that is os.ErrNotExist", err)
	}
	if strings.Contains(err.Error(), "datasets") {
		t.Errorf("got %q, want one package name", err)
	}
}

// TestPlanesOfInit: a run on records alone that starts from a network
// keeps the records' planes only if that network knew them alone too.
func TestPlanesOfInit(t *testing.T) {
	file := recordFile(t, 12, nil)
	for _, tt := range []struct {
		initPlanes string // "" for a network that knows several
		want       string // "" for none
	}{
		{"copenhagen-classic", "copenhagen-classic"},
		{"copenhagen", ""},
		{"", ""},
	} {
		t.Run("init "+tt.initPlanes, func(t *testing.T) {
			cfg := recordsConfig(t, file)
			cfg.Steps = 2
			init, err := net.New(cfg.Network, 9)
			if err != nil {
				t.Fatal(err)
			}
			if tt.initPlanes != "" {
				init.SetPlanesOf(variants.MustLoad(tt.initPlanes))
			}
			if _, err := Run(context.Background(), cfg, Options{Init: init}); err != nil {
				t.Fatal(err)
			}
			n, _, err := net.Load(filepath.Join(cfg.Out, NetworkFile))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if n.PlanesOf() != nil {
				got = n.PlanesOf().Name()
			}
			if got != tt.want {
				t.Errorf("got PlanesOf %q, want %q", got, tt.want)
			}
		})
	}
}
