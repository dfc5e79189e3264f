package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"taflab/cmd/eval/internal/balancecmd"
	"taflab/cmd/internal/cli"
	"taflab/datasets"
)

// endless is a reader that never ends: the byte b, again and again, as
// /dev/zero is for b = 0. It counts what was read.
type endless struct {
	b    byte
	read atomic.Int64 // bytes read: a command's stdin copier may still read it after the command returns
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	e.read.Add(int64(len(p)))
	return len(p), nil
}

// blankLines is a reader of lines of 1 MiB of spaces, without end: every
// line within the line limit and skipped as blank, so that only the file
// limit stops a reader of it.
type blankLines struct {
	read atomic.Int64 // bytes read: a command's stdin copier may still read it after the command returns
}

func (b *blankLines) Read(p []byte) (int, error) {
	at := b.read.Load()
	for i := range p {
		if (at+int64(i))%(1<<20) == 1<<20-1 {
			p[i] = '\n'
		} else {
			p[i] = ' '
		}
	}
	b.read.Add(int64(len(p)))
	return len(p), nil
}

// TestReplayHostileInput: the reproductions of issue 23 item 7 (eval replay
// /dev/zero read 2 GB in 6 s): an endless line, endless blank lines, and a
// stop by a signal while reading, each ending within a bound with the
// error, the exit status and the games before it.
func TestReplayHostileInput(t *testing.T) {
	cases := []struct {
		name     string
		stdin    func() io.Reader
		wantCode int
		want     string
		maxRead  int64
	}{
		{"an endless line of zeros (/dev/zero)", func() io.Reader { return &endless{b: 0} },
			1, "eval replay: stdin: line 1: longer than 1048576 bytes, the most a game-record line may hold", 2 << 20},
		{"a game, then an endless line", func() io.Reader {
			return io.MultiReader(strings.NewReader(game2+",0,0,Black\n"), &endless{b: 'a'})
		}, 1, "eval replay: stdin: line 2: longer than 1048576 bytes", 2 << 20},
		{"endless blank lines of 1 MiB", func() io.Reader { return &blankLines{} },
			1, "eval replay: stdin: line 257: past 268435456 bytes, the most a game-record file may hold", 257 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.stdin()
			var stdout, stderr bytes.Buffer
			code := runReplayCtx(context.Background(), []string{"-"}, in, &stdout, &stderr)
			if code != c.wantCode || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("got exit %d and %q, want %d and %q", code, stderr.String(), c.wantCode, c.want)
			}
			var read int64
			switch r := in.(type) {
			case *endless:
				read = r.read.Load()
			case *blankLines:
				read = r.read.Load()
			}
			if read > c.maxRead {
				t.Errorf("got %d bytes read, want at most %d", read, c.maxRead)
			}
		})
	}
	t.Run("the game before the long line is reported", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		in := io.MultiReader(strings.NewReader(game2+",0,0,Black\n"), &endless{b: 'a'})
		runReplayCtx(context.Background(), []string{"-"}, in, &stdout, &stderr)
		if got := strings.Count(stdout.String(), "\n"); got != 1 || !strings.Contains(stdout.String(), game2After) {
			t.Errorf("got %q, want one report of game 2 ending at %s", stdout.String(), game2After)
		}
	})
	t.Run("stopped by a signal while reading", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		in := &cancelAfter{r: &blankLines{}, after: 10 << 20, cancel: cancel}
		var stdout, stderr bytes.Buffer
		code := runReplayCtx(ctx, []string{"-"}, in, &stdout, &stderr)
		if code != 130 || !strings.Contains(stderr.String(), "stopped") {
			t.Errorf("got exit %d and %q, want 130 and a message that it stopped", code, stderr.String())
		}
		if in.read.Load() > 12<<20 {
			t.Errorf("got %d bytes read, want the reading to stop within a line or two of the stop at %d", in.read.Load(), 10<<20)
		}
	})
}

// cancelAfter reads r and calls cancel once after bytes have been read, as a
// signal arriving while a command reads.
type cancelAfter struct {
	r      io.Reader
	read   atomic.Int64 // bytes read: a command's stdin copier may still read it after the command returns
	after  int64
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.read.Add(int64(n)) >= c.after {
		c.cancel()
	}
	return n, err
}

// TestReplayFinishedStart: a -start that is already over (the king on a
// corner, issue 23 item 8) is refused with exit status 2, as is one with no
// move.
func TestReplayFinishedStart(t *testing.T) {
	cases := []struct {
		name, start, want string
	}{
		{"king on a corner", "k2aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1dd1dd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a", "the king is on a corner"},
		{"no move for the attackers", "11/11/11/11/11/5k5/11/11/11/11/11 a", "-start"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, lines, stderr := runEval(t, "", "replay", "-variant", "copenhagen", "-start", c.start, "-moves", "d1-d3")
			if code != 2 || len(lines) != 0 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "-start") {
				t.Errorf("got exit %d, %d lines and %q, want 2, none and -start: ... %q", code, len(lines), stderr, c.want)
			}
		})
	}
}

// TestFitHostileRecords: eval fit -records of an endless line (issue 23
// item 7: /dev/zero read 1.7 GB, "token too long" named no line) names the
// file and the line, and a stop while reading is honoured.
func TestFitHostileRecords(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.csv")
	data := append([]byte(fitGames[0]+"\n"), bytes.Repeat([]byte{0}, datasets.MaxRecordLineBytes+10)...)
	if err := os.WriteFile(long, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := runFitCtx(context.Background(), []string{"-records", long, "-split", "all", "-search-playouts", "0"}, &stdout, &stderr)
	want := "eval fit: -records: " + long + ": line 2: longer than 1048576 bytes, the most a game-record line may hold"
	if code != 2 || !strings.Contains(stderr.String(), want) {
		t.Errorf("got exit %d and %q, want 2 and %q", code, stderr.String(), want)
	}

	blank := filepath.Join(dir, "blank.csv")
	if err := os.WriteFile(blank, bytes.Repeat([]byte("\n"), 10_000), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stdout.Reset()
	stderr.Reset()
	code = runFitCtx(ctx, []string{"-records", blank, "-split", "all"}, &stdout, &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "stopped while reading -records") {
		t.Errorf("got exit %d and %q, want 130 and a stop while reading", code, stderr.String())
	}
}

// TestSuiteRandomPlies: issue 23 item 3 (eval suite -random 1 -random-plies
// 5000 never finished and ignored SIGTERM): the plies have a range, the
// drawing of openings ends within a bound, and a stop while drawing is
// honoured.
func TestSuiteRandomPlies(t *testing.T) {
	t.Run("the reproduction", func(t *testing.T) {
		dir := t.TempDir()
		code, msg, data := runSuiteTest(t, context.Background(), dir, "-variant", "copenhagen", "-random", "1", "-random-plies", "5000", "-games", "2")
		want := "eval suite: -random-plies 5000: out of range: want 1 to 100"
		if code != 2 || data != nil || !strings.Contains(msg, want) {
			t.Errorf("got exit %d, a file %v and %q, want 2, none and %q", code, data != nil, msg, want)
		}
	})
	t.Run("stopped while drawing openings", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		dir := t.TempDir()
		code, msg, data := runSuiteTest(t, ctx, dir, "-variant", "copenhagen", "-random", "100000", "-random-plies", "100", "-games", "2")
		if code != 130 || data != nil || !strings.Contains(msg, "stopped while gathering the candidates") {
			t.Errorf("got exit %d, a file %v and %q, want 130, none and a stop", code, data != nil, msg)
		}
	})
}

// TestBalanceHostileRecords: eval balance -records - of an endless line
// names the input and the line, with exit status 2, and stops at a signal
// while reading.
func TestBalanceHostileRecords(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	in := &endless{b: 0}
	code := runBalanceCtx(context.Background(), []string{"-variants", "", "-records", "-", "-out", dir}, in, &stdout, &stderr)
	want := "eval balance: -records: stdin: line 1: longer than 1048576 bytes"
	if code != 2 || !strings.Contains(stderr.String(), want) || in.read.Load() > 2<<20 {
		t.Errorf("got exit %d, %q after %d bytes, want 2 and %q within 2 MiB", code, stderr.String(), in.read.Load(), want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr.Reset()
	lines := &cancelAfter{r: &blankLines{}, after: 4 << 20, cancel: cancel}
	code = runBalanceCtx(ctx, []string{"-variants", "", "-records", "-", "-out", dir}, lines, &stdout, &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "stopped while reading -records") || lines.read.Load() > 6<<20 {
		t.Errorf("got exit %d and %q after %d bytes, want 130 and a stop within 6 MiB", code, stderr.String(), lines.read.Load())
	}
}

// TestRatingsLimits: more match files, or more bytes of them, than ratings
// reads is an error naming the path, exit status 2, before any is read.
func TestRatingsLimits(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
		if err := os.WriteFile(filepath.Join(dir, d, cli.MatchFileName), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, bytes0 := maxMatchFiles, maxMatchBytes
	defer func() { maxMatchFiles, maxMatchBytes = files, bytes0 }()
	cases := []struct {
		name  string
		files int
		bytes int64
		want  string
	}{
		{"files", 2, 1 << 30, "more than 2 match files"},
		{"bytes", 10, 5, "more than 5 bytes of match files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			maxMatchFiles, maxMatchBytes = c.files, c.bytes
			code, _, stderr := runEval(t, "", "ratings", dir)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("got exit %d and %q, want 2 and %q", code, stderr, c.want)
			}
		})
	}
}

// TestIssue36Replay: issue 36's finding 1 as it was run: an 80 KB rule-set
// file of one table header 40,000 parts deep (eval replay peaked at 1,646
// MB on it) is refused before it is decoded, exit 2, naming the file's
// line and the bound; and finding 2's class: a named pipe given as a file
// to replay is refused at once, exit 1, naming it (a pipe is read as "-").
func TestIssue36Replay(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "d.toml")
	if err := os.WriteFile(deep, []byte("["+strings.Repeat("a.", 40000)+"b]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.csv")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"finding 1: a rule set 40,000 tables deep", []string{"replay", "-variant", deep, "-moves", "d1-d3"}, 2,
			"eval replay: -variant: variants: " + deep + ": line 1: a value nested 17 deep, past the most a TOML file may nest (16 tables, arrays and inline tables)"},
		{"finding 2's class: a named pipe to replay", []string{"replay", fifo}, 1,
			"eval replay: " + fifo + ": a named pipe (FIFO), not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runEval(t, "", c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("got exit %d and %q, want %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
}

// TestIssue36SmallItems: issue 36's finding 9 for eval, as it was run:
// eval suite -out afile/s.txt with afile a file (it said the folder did
// not exist) names what it is, exit 2; eval ratings of a match whose
// games include a player against itself (rated without a word) leaves
// those games out and says so, exit 0; eval match -odds with more rungs
// than a ladder may have (a list of thousands once made an error of
// hundreds of KB) is refused with a short error, exit 2.
func TestIssue36SmallItems(t *testing.T) {
	dir := t.TempDir()
	afile := filepath.Join(dir, "afile")
	if err := os.WriteFile(afile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	matches := filepath.Join(dir, "matches")
	games := pairGames(gen2, builtin16, 40, 30, 2)
	self := games[0]
	self.Defender = self.Attacker
	writeMatchFile(t, filepath.Join(matches, "m1"), "fetlar", append(games, self, self))
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"eval suite -out under a file", []string{"suite", "-variant", "fetlar", "-out", filepath.Join(afile, "s.txt")}, 2,
			"eval suite: -out " + filepath.Join(afile, "s.txt") + ": " + afile + " is not a folder"},
		{"eval ratings of a player against itself", []string{"ratings", matches}, 0,
			"eval ratings: warning: " + filepath.Join(matches, "m1", "match.json") + ": 2 games of " + gen2 + " against itself, left out of the fit"},
		{"eval match -odds past the rungs", []string{"match", "-a", "builtin:playouts=1", "-b", "builtin:playouts=1", "-out", filepath.Join(dir, "m"), "-odds", "2,3," + oddsList(40)}, 2,
			"-odds: 42 multipliers: want at most 32 rungs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runEval(t, "", c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("got exit %d and %q, want %d and %q", code, stderr, c.code, c.want)
			}
			if len(stderr) > 2000 {
				t.Errorf("got %d bytes of errors, want a short message", len(stderr))
			}
		})
	}
}

// oddsList is n distinct multipliers from 4, with commas.
func oddsList(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprint(4 + i)
	}
	return strings.Join(parts, ",")
}

// silent is standard input that never sends a byte (a terminal no one
// types at, a pipe whose writer waits): its Read blocks until the test
// ends.
type silent struct{ done chan struct{} }

func (s silent) Read([]byte) (int, error) {
	<-s.done
	return 0, io.EOF
}

// TestStopWhileWaitingForInput: eval replay - and eval balance -records -
// stop on a signal while they wait for input that never comes (exit 130,
// the games before written), not only between lines.
func TestStopWhileWaitingForInput(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(ctx context.Context, stdin io.Reader, out, errs io.Writer) int
	}{
		{"eval replay -", func(ctx context.Context, stdin io.Reader, out, errs io.Writer) int {
			return runReplayCtx(ctx, []string{"-"}, stdin, out, errs)
		}},
		{"eval balance -records -", func(ctx context.Context, stdin io.Reader, out, errs io.Writer) int {
			return balancecmd.RunCtx(ctx, []string{"-records", "-", "-games", "2", "-out", t.TempDir()}, stdin, out, errs)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdin := silent{make(chan struct{})}
			defer close(stdin.done)
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			done := make(chan int, 1)
			var stdout, stderr bytes.Buffer
			go func() {
				done <- c.run(ctx, io.MultiReader(strings.NewReader(game2+",0,0,Black\n"), stdin), &stdout, &stderr)
			}()
			select {
			case code := <-done:
				if code != 130 {
					t.Errorf("got exit %d (%s), want 130", code, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("still waiting for input 10 s after the signal")
			}
		})
	}
}
