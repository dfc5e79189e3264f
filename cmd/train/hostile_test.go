package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/datasets"
)

// TestIssue36TOMLAndFIFO: issue 36's findings 1 and 2 for train, as they
// were run: a loop config of inline tables 8,000 deep (32 KB; 2,635 MB
// before) is refused before it is decoded, exit 2, naming the line and the
// bound; a named pipe called *.positions.arrow in train -data (training
// hung on it, deaf to SIGTERM) is refused at once, exit 1, naming it.
func TestIssue36TOMLAndFIFO(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep.toml")
	if err := os.WriteFile(deep, []byte("x = "+strings.Repeat("{a=", 8000)+"1"+strings.Repeat("}", 8000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(data, datasets.ShardName(time.Now(), "h", 1)+datasets.PositionsSuffix)
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"finding 1: a loop config 8,000 inline tables deep", []string{"loop", "-config", deep, "-run", filepath.Join(dir, "run")}, 2,
			"configs: " + deep + ": line 1: a value nested 17 deep, past the most a TOML file may nest (16 tables, arrays and inline tables)"},
		{"finding 2: a named pipe as a shard in -data", []string{"-data", data, "-out", filepath.Join(dir, "out"), "-steps", "1"}, 1,
			fifo + ": a named pipe (FIFO), not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := runTrainCmd(t, c.args...)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("got exit %d and %q, want %d and %q", code, out, c.code, c.want)
			}
		})
	}
}
