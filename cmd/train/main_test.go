package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/datasets"
	"taflab/net"
	"taflab/selfplay"
	"taflab/training"
)

// tinyData writes a small self-play dataset once and keeps it for later
// runs, in a folder named by the dataset schema it was written in.
func tinyData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("taflab-train-test-data-v%d", datasets.SchemaVersion))
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	cfg := configs.DefaultSelfPlay()
	cfg.Games, cfg.Out, cfg.Search.Playouts, cfg.Search.CheapPlayouts = 12, dir, 32, 8
	if _, err := selfplay.Run(context.Background(), cfg, variants.MustLoad("copenhagen"), selfplay.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tinyConfig is a training config file for a tiny network.
func tinyConfig(t *testing.T, every int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.toml")
	text := "batch_size = 16\ncheckpoint_every = " + string(rune('0'+every)) + "\n[network]\nblocks = 1\nchannels = 8\nvalue_hidden = 8\n[optimizer]\nwarmup_steps = 2\ntotal_steps = 10\nthreads = 1\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runTrainCmd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := run(context.Background(), args, &out, &out)
	return code, out.String()
}

func weights(t *testing.T, path string) []float32 {
	t.Helper()
	n, _, err := net.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var all []float32
	for _, tn := range n.Tensors() {
		all = append(all, tn.Data...)
	}
	return all
}

// TestResumeIsExact: 3 steps, then a resumed run to 6, gives bit for bit the
// weights of 6 steps in one go.
func TestResumeIsExact(t *testing.T) {
	data, cfg := tinyData(t), tinyConfig(t, 3)
	whole, split := t.TempDir(), t.TempDir()
	if code, out := runTrainCmd(t, "-data", data, "-out", whole, "-config", cfg, "-steps", "6"); code != 0 {
		t.Fatalf("got exit %d, want 0\n%s", code, out)
	}
	if code, out := runTrainCmd(t, "-data", data, "-out", split, "-config", cfg, "-steps", "3"); code != 0 {
		t.Fatalf("got exit %d, want 0\n%s", code, out)
	}
	if code, out := runTrainCmd(t, "-data", data, "-out", split, "-config", cfg, "-steps", "6"); code != 1 || !strings.Contains(out, "-resume") {
		t.Fatalf("training into a run folder with a checkpoint: got exit %d, want 1 and a hint to -resume\n%s", code, out)
	}
	if code, out := runTrainCmd(t, "-data", data, "-out", split, "-config", cfg, "-steps", "6", "-resume"); code != 0 {
		t.Fatalf("resume: got exit %d, want 0\n%s", code, out)
	}
	if a, b := weights(t, filepath.Join(whole, training.NetworkFile)), weights(t, filepath.Join(split, training.NetworkFile)); !slices.Equal(a, b) {
		t.Errorf("resumed weights differ from the uninterrupted run's")
	}
	for _, dir := range []string{whole, split} {
		metrics, err := os.ReadFile(filepath.Join(dir, training.MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(metrics), "\n"); got != 7 {
			t.Errorf("%s: got %d metrics lines, want a header and 6 steps", dir, got)
		}
		if info, err := os.Stat(filepath.Join(dir, training.PlotFile)); err != nil || info.Size() == 0 {
			t.Errorf("%s: no loss plot: %v", dir, err)
		}
	}
}

func TestExport(t *testing.T) {
	data, cfg := tinyData(t), tinyConfig(t, 2)
	dir := t.TempDir()
	if code, out := runTrainCmd(t, "-data", data, "-out", dir, "-config", cfg, "-steps", "2"); code != 0 {
		t.Fatalf("got exit %d, want 0\n%s", code, out)
	}
	src := filepath.Join(dir, training.NetworkFile)
	for _, format := range []string{"onnx", "safetensors"} {
		dst := filepath.Join(dir, "out."+format)
		if code, out := runTrainCmd(t, "export", "-net", src, "-format", format, "-out", dst); code != 0 {
			t.Fatalf("%s: got exit %d, want 0\n%s", format, code, out)
		}
		if info, err := os.Stat(dst); err != nil || info.Size() == 0 {
			t.Errorf("%s: got %v, want a file", format, err)
		}
	}
	if !slices.Equal(weights(t, src), weights(t, filepath.Join(dir, "out.safetensors"))) {
		t.Errorf("exported safetensors differ from the source network")
	}
	bad := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "-net", src, "-format", "pt", "-out", "x"}, 2, "-format"},
		{[]string{"export", "-net", filepath.Join(dir, "none"), "-format", "onnx", "-out", filepath.Join(dir, "x")}, 1, "none"},
		{[]string{"export", "-net", filepath.Join(dir, training.CheckpointFile), "-format", "onnx", "-out", filepath.Join(dir, "x")}, 1, "format"},
		{[]string{"-data", filepath.Join(dir, "nodata"), "-out", dir}, 2, "nodata"},
		{[]string{"-data", data, "-out", dir, "-steps", "-1"}, 2, "steps"},
	}
	for _, c := range bad {
		if code, out := runTrainCmd(t, c.args...); code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: got exit %d and %q, want %d and a message naming %q", c.args, code, out, c.code, c.want)
		}
	}
}

// TestKilled kills a training process (SIGKILL) after its first checkpoint
// and resumes: the checkpoint loads and training carries on from its step.
func TestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	data, cfg := tinyData(t), tinyConfig(t, 2)
	bin := buildTrain(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "-data", data, "-out", dir, "-config", cfg, "-steps", "100000")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, training.CheckpointFile)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no checkpoint after 60 s\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	_, meta, err := net.ReadSafetensors(filepath.Join(dir, training.CheckpointFile))
	if err != nil {
		t.Fatalf("the checkpoint after SIGKILL: %v", err)
	}
	step, err := strconv.Atoi(meta["taflab.step"])
	if err != nil {
		t.Fatal(err)
	}
	target := strconv.Itoa(step + 10)
	if code, out := runTrainCmd(t, "-data", data, "-out", dir, "-config", cfg, "-steps", target, "-resume"); code != 0 {
		t.Fatalf("resume after SIGKILL at step %d: got exit %d, want 0\n%s", step, code, out)
	}
	_, meta, err = net.ReadSafetensors(filepath.Join(dir, training.CheckpointFile))
	if err != nil || meta["taflab.step"] != target {
		t.Errorf("after resuming from step %d: got step %s (%v), want %s", step, meta["taflab.step"], err, target)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Logf("left by the kill (ignored by readers): %s", e.Name())
		}
	}
}

// TestFlagsAndPrintConfig checks the commands' shared flag handling: a
// stray argument is refused by name, -print-config prints the embedded
// file, -h exits 0 and an unreadable -config names the flag.
func TestFlagsAndPrintConfig(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"stray argument", []string{"-steps", "3", "extra"}, 2, `train: unexpected argument "extra"`},
		{"loop stray argument", []string{"loop", "now"}, 2, `train loop: unexpected argument "now"`},
		{"export stray argument", []string{"export", "x"}, 2, `train export: unexpected argument "x"`},
		{"print config", []string{"-print-config"}, 0, string(configs.TrainFile())},
		{"loop print config", []string{"loop", "-print-config"}, 0, string(configs.LoopFile())},
		{"help", []string{"-h"}, 0, "usage: train"},
		{"help lists the flags", []string{"-h"}, 0, "-records-share share"},
		{"missing config", []string{"-config", "/no/such.toml"}, 2, "train: -config: open /no/such.toml"},
		{"bad config", []string{"-config", "../../configs/loop.toml"}, 2, "train: configs: ../../configs/loop.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := runTrainCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("got exit %d and\n%s\nwant exit %d and output containing %q", code, out, tt.code, tt.want)
			}
		})
	}
}

// buildTrain builds this command into a temporary folder and returns the
// executable's path, for the tests that kill it.
func buildTrain(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "train")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
