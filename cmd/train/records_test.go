package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/net"
	"taflab/rules"
	"taflab/training"
)

// trainRecords writes n legal copenhagen-classic games of a few random
// plies each as game records (with a header line, so the games are on
// lines 2 to n+1), and returns the file and the number of positions
// training sees (the records on every 10th line are held out). edit, if
// not nil, may replace a line's text before it is written.
func trainRecords(t *testing.T, n int, edit func(line int, text string) string) (string, int) {
	t.Helper()
	v := variants.MustLoad("copenhagen-classic")
	g := rules.NewGame(v)
	var b strings.Builder
	b.WriteString("moves,attacker_captures,defender_captures,result\n")
	positions := 0
	var moves []rules.Move
	for i := range n {
		line := i + 2
		rng := rand.New(rand.NewPCG(21, uint64(i)))
		g.Reset()
		var parts []string
		for g.Ply() < 6+i%5 && !g.Outcome().Over() {
			moves = g.GenerateMoves(moves[:0])
			g.Make(moves[rng.IntN(len(moves))])
			m, captured := g.LastMove()
			parts = append(parts, string(rules.AppendMove(nil, m, captured)))
		}
		if !datasets.HeldOut(line, 10) {
			positions += len(parts)
		}
		text := fmt.Sprintf("%s,0,0,%s", strings.Join(parts, " "), []string{"Black", "White"}[i%2])
		if edit != nil {
			text = edit(line, text)
		}
		b.WriteString(text + "\n")
	}
	path := filepath.Join(t.TempDir(), "records.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, positions
}

// saveNetwork saves a random network and returns its file.
func saveNetwork(t *testing.T, cfg net.Config, seed uint64) (string, *net.Network) {
	t.Helper()
	n, err := net.New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("init-%d.safetensors", seed))
	if err := n.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	return path, n
}

func loadNetwork(t *testing.T, path string) *net.Network {
	t.Helper()
	n, _, err := net.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// distance is the root mean square difference of two weight vectors.
func distance(t *testing.T, a, b []float32) float64 {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("got %d and %d weights, want networks of one architecture", len(a), len(b))
	}
	var sum float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		sum += d * d
	}
	return math.Sqrt(sum / float64(len(a)))
}

// TestTrainOnRecordsAlone: -records with -records-share 1 trains without
// -data, on the records' positions less the held-out ones, and writes the
// network, the metrics and the plot.
func TestTrainOnRecordsAlone(t *testing.T) {
	records, positions := trainRecords(t, 12, nil)
	tests := []struct {
		name  string
		steps int
	}{
		{"one step", 1},
		{"three steps", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out := runTrainCmd(t, "-records", records, "-records-share", "1", "-out", dir, "-config", tinyConfig(t, 2),
				"-steps", fmt.Sprint(tt.steps))
			if code != 0 {
				t.Fatalf("got exit %d, want 0\n%s", code, out)
			}
			if want := fmt.Sprintf("on 0 self-play positions and %d record positions", positions); !strings.Contains(out, want) {
				t.Errorf("got output\n%s\nwant it to say %q", out, want)
			}
			n := loadNetwork(t, filepath.Join(dir, training.NetworkFile))
			if got, want := n.Config().Channels, 8; got != want {
				t.Errorf("got a network of %d channels, want the config's %d", got, want)
			}
			metrics, err := os.ReadFile(filepath.Join(dir, training.MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(string(metrics), "\n"); got != tt.steps+1 {
				t.Errorf("got %d metrics lines, want a header and %d steps", got, tt.steps)
			}
			if info, err := os.Stat(filepath.Join(dir, training.PlotFile)); err != nil || info.Size() == 0 {
				t.Errorf("got no loss plot (%v), want one", err)
			}
		})
	}
}

// TestTrainInit: -init starts from the given network's weights and
// architecture, where a run without it starts from random ones of the
// config's architecture.
func TestTrainInit(t *testing.T) {
	records, _ := trainRecords(t, 12, nil)
	cfg := tinyConfig(t, 2)
	// The tiny config's architecture (value_channels as the embedded
	// config's 4), and another one.
	same, sameNet := saveNetwork(t, net.Config{Blocks: 1, Channels: 8, ValueChannels: 4, ValueHidden: 8}, 99)
	other, otherNet := saveNetwork(t, net.Config{Blocks: 1, Channels: 12, ValueChannels: 2, ValueHidden: 6}, 98)
	train := func(t *testing.T, steps int, args ...string) *net.Network {
		t.Helper()
		dir := t.TempDir()
		code, out := runTrainCmd(t, append([]string{"-records", records, "-records-share", "1", "-out", dir, "-config", cfg,
			"-steps", fmt.Sprint(steps)}, args...)...)
		if code != 0 {
			t.Fatalf("got exit %d, want 0\n%s", code, out)
		}
		return loadNetwork(t, filepath.Join(dir, training.NetworkFile))
	}
	weightsOf := func(n *net.Network) []float32 {
		var all []float32
		for _, tn := range n.Tensors() {
			all = append(all, tn.Data...)
		}
		return all
	}

	t.Run("one step from init stays near it", func(t *testing.T) {
		fromInit, fromScratch := weightsOf(train(t, 1, "-init", same)), weightsOf(train(t, 1))
		init := weightsOf(sameNet)
		near, far := distance(t, fromInit, init), distance(t, fromScratch, init)
		t.Logf("after one step: %.4g from the init network, against %.4g for a run from random weights", near, far)
		if near == 0 {
			t.Errorf("got the init network's weights unchanged after a step, want them trained")
		}
		if !(near < far/10) {
			t.Errorf("got weights %.4g from the init network's, want far nearer than a run from random weights (%.4g)", near, far)
		}
	})
	t.Run("architecture of init", func(t *testing.T) {
		got := train(t, 1, "-init", other)
		if got.Config() != otherNet.Config() {
			t.Errorf("got architecture %+v, want the init network's %+v", got.Config(), otherNet.Config())
		}
	})
	t.Run("zero steps keep init", func(t *testing.T) {
		got := train(t, 0, "-init", other)
		if got.Config() != otherNet.Config() || !slices.Equal(weightsOf(got), weightsOf(otherNet)) {
			t.Errorf("got a network of %+v, other weights than the init network's %+v, want them the same", got.Config(), otherNet.Config())
		}
	})
}

// TestTrainRecordsBadInput: -init with -resume and a missing -init are bad
// flags (2); records with an illegal move fail (1) naming the file, line
// and ply.
func TestTrainRecordsBadInput(t *testing.T) {
	records, _ := trainRecords(t, 8, nil)
	illegal, _ := trainRecords(t, 8, func(line int, text string) string {
		if line == 5 {
			return "d1-d3 d3-d1 f4-a4," + strings.SplitN(text, ",", 2)[1]
		}
		return text
	})
	init, _ := saveNetwork(t, net.Config{Blocks: 1, Channels: 8, ValueChannels: 4, ValueHidden: 8}, 99)
	cfg := tinyConfig(t, 2)
	tests := []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"init and resume", []string{"-records", records, "-records-share", "1", "-init", init, "-resume"}, 2, []string{"-init and -resume"}},
		{"missing init", []string{"-records", records, "-records-share", "1", "-init", filepath.Join(t.TempDir(), "none.safetensors")}, 2,
			[]string{"-init", "none.safetensors"}},
		{"illegal move", []string{"-records", illegal, "-records-share", "1"}, 1, []string{illegal, "line 5, ply 2", "d3-d1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out := runTrainCmd(t, append(tt.args, "-out", dir, "-config", cfg, "-steps", "2")...)
			if code != tt.code {
				t.Errorf("got exit %d, want %d\n%s", code, tt.code, out)
			}
			for _, want := range tt.wants {
				if !strings.Contains(out, want) {
					t.Errorf("got output\n%s\nwant it to name %q", out, want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, training.NetworkFile)); err == nil {
				t.Errorf("got %s written, want no network", training.NetworkFile)
			}
		})
	}
}
