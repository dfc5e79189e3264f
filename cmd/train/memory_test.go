package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"taflab/archive"
	"taflab/datasets"
	"taflab/internal/proctest"
)

const recordsChildEnv = "TAFLAB_TRAIN_MEMORY_CHILD" // the child's train arguments, as JSON

// TestTrainMemoryProcess is TestMemoryRecords's train, in a process of its
// own: it runs train with the arguments in $TAFLAB_TRAIN_MEMORY_CHILD and
// prints its exit status and its peak resident memory.
func TestTrainMemoryProcess(t *testing.T) {
	js := os.Getenv(recordsChildEnv)
	if js == "" {
		t.Skip("the train process of TestMemoryRecords; it runs only as that test's child")
	}
	var args []string
	if err := json.Unmarshal([]byte(js), &args); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := run(context.Background(), args, &out, &out)
	peak, err := proctest.PeakRSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("exit %d peak %d\n%s", code, peak, out.String())
}

// recordsMemoryBound is the most resident memory train may reach on the
// largest game-record file it takes (datasets.MaxRecordFileBytes, 256 MiB).
const recordsMemoryBound = 384 << 20

// TestMemoryRecords trains a step on the largest game-record file allowed
// (256 MiB: the archive again and again, some 750,000 games and 38 million
// plies) in a process of its own, and checks its peak resident memory: the
// records are read a line at a time and held at some 4 bytes a ply (40 MB
// of them, 128 archives, once took 935 MB).
func TestMemoryRecords(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies memory: the bound is checked without -race")
	}
	if testing.Short() {
		t.Skip("-short: writes and reads 256 MiB of game records")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the peak memory is read from /proc/PID/status")
	}
	f, err := archive.Open(archive.Copenhagen)
	if err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	one.ReadFrom(f)
	f.Close()
	body := one.Bytes()
	if i := bytes.IndexByte(body, '\n'); i >= 0 && strings.HasPrefix(string(body), "moves,") {
		body = body[i+1:] // the header, once
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.csv")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for size+len(body) <= datasets.MaxRecordFileBytes {
		w.Write(body)
		size += len(body)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal([]string{"-records", path, "-records-share", "1", "-out", filepath.Join(dir, "out"), "-config", tinyConfig(t, 1), "-steps", "1"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestTrainMemoryProcess$", "-test.v=false")
	cmd.Env = append(os.Environ(), recordsChildEnv+"="+string(args))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var code int
	var peak int64
	if _, err := fmt.Sscanf(string(out), "exit %d peak %d", &code, &peak); err != nil || code != 0 {
		t.Fatalf("child: exit %d (%v)\n%s", code, err, out)
	}
	t.Logf("%d MiB of game records: train's peak resident memory %d MiB (bound %d MiB)\n%s", size>>20, peak>>20, recordsMemoryBound>>20, out)
	if peak > recordsMemoryBound {
		t.Errorf("got a peak of %d MiB, want at most %d MiB", peak>>20, recordsMemoryBound>>20)
	}
}
