package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"taflab/cmd/internal/cli"
)

// openTaflFirstMove is what OpenTafl's host sent taflab for its first move
// (../shared/data/opentafl/opentafl-hosts-taflab.txt): rules, the
// attackers' move, the clock (20 s + 3 x 2 s), play.
const openTaflFirstMove = `rules dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/
opponent-move f2-j2 /3ttttt3/9t1/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/
clock 18390 20000 2 3 3 
play defenders
`

// TestPlayoutsUnderAClock: an explicit -playouts caps a search that the
// host's clock would let run for over a second; -movetime caps the clock's
// budget.
func TestPlayoutsUnderAClock(t *testing.T) {
	for _, c := range []struct {
		name     string
		args     []string
		most     int           // playouts
		mostTime time.Duration // the search's time
	}{
		{"playouts 30", []string{"-playouts", "30"}, 30, time.Hour},
		// 40 ms against the clock's 1.6 s: a search under a second shows the
		// cap, with room for a loaded machine.
		{"movetime 40", []string{"-movetime", "40"}, 1 << 30, time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The input stays open until the move: an input that ends
			// stops the search at once.
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var errs bytes.Buffer
			args := append([]string{"-protocol", "otep", "-net", "builtin"}, c.args...)
			done := make(chan int, 1)
			go func() {
				done <- run(context.Background(), args, inR, outW, &errs)
				outW.Close()
			}()
			go io.WriteString(inW, openTaflFirstMove)
			var n, ms int
			found, moved := false, false
			sc := bufio.NewScanner(outR)
			for !moved && sc.Scan() {
				if _, err := fmt.Sscanf(sc.Text(), "status %d playouts in %d ms", &n, &ms); err == nil {
					found = true
				}
				moved = strings.HasPrefix(sc.Text(), "move ")
			}
			inW.Close()
			go io.Copy(io.Discard, outR)
			if code := <-done; code != 0 {
				t.Fatalf("exit %d: %s", code, errs.String())
			}
			if !found || !moved {
				t.Fatalf("want a status line and a move (%s)", errs.String())
			}
			if n > c.most || time.Duration(ms)*time.Millisecond > c.mostTime {
				t.Errorf("got %d playouts in %d ms, want at most %d playouts and %v", n, ms, c.most, c.mostTime)
			}
		})
	}
}

// TestPlanesFlag: -planes names the rule set whose planes the network is
// shown, and says so; without it each shipped network is shown the planes
// its file names (copenhagen's, and the human-trained one
// copenhagen-classic's); a name that is no embedded rule set is refused
// before a line is read.
func TestPlanesFlag(t *testing.T) {
	netFile := filepath.Join("..", "..", "networks", "copenhagen.safetensors")
	classicFile := filepath.Join("..", "..", "networks", "copenhagen-classic.safetensors")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-net", netFile, "-planes", "fetlar"}, 0, "shown the planes of fetlar"},
		{[]string{"-net", netFile}, 0, "shown the planes of copenhagen\n"}, // the file's own
		{[]string{"-net", classicFile}, 0, "shown the planes of copenhagen-classic\n"},
		{[]string{"-net", netFile, "-planes", "nope"}, 2, "-planes"},
	} {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run(context.Background(), append([]string{"-protocol", "uci"}, c.args...), strings.NewReader("isready\n"), &out, &errs)
			if code != c.code || !strings.Contains(errs.String(), c.want) {
				t.Errorf("got exit %d and %q, want %d and a message with %q", code, errs.String(), c.code, c.want)
			}
		})
	}
}

// TestOwnNetwork: without -net the engine plays with the network that
// ships for -variant's rule set, copenhagen's by default and for a rule set
// none ships for (a rules string), as a user starts it from the repository.
func TestOwnNetwork(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, c := range []struct{ variant, want string }{
		{"", "copenhagen"},
		{"fetlar", "fetlar"},
		{"hnefatafl11", "hnefatafl11"},
		{"copenhagen-classic", "copenhagen-classic"},
		{"otr:dim:11 name:Mine atkf:y surf:n efe:n tfr:w sw:n start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/", "copenhagen"},
	} {
		t.Run(c.want+"/"+c.variant, func(t *testing.T) {
			args := []string{"-protocol", "uci"}
			if c.variant != "" {
				args = append(args, "-variant", c.variant)
			}
			var out, errs bytes.Buffer
			code := run(context.Background(), args, strings.NewReader("isready\n"), &out, &errs)
			want := "engine: network " + filepath.Join("networks", c.want+".safetensors") + "\n"
			if code != 0 || !strings.Contains(errs.String(), want) {
				t.Errorf("got exit %d and %q, want 0 and %q", code, errs.String(), want)
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("the pipe broke") }

// TestReadErrorNamedOnce: a failed read is reported once, with the
// package's prefix once.
func TestReadErrorNamedOnce(t *testing.T) {
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"-protocol", "uci", "-net", "builtin"}, io.MultiReader(strings.NewReader("isready\n"), failingReader{}), &out, &errs)
	if code != 1 {
		t.Fatalf("got exit %d, want 1", code)
	}
	if got, want := strings.TrimSpace(errs.String()), "engine: read: the pipe broke"; !strings.HasSuffix(got, want) || strings.Contains(got, "engine: engine:") {
		t.Errorf("got %q, want it to end %q, the prefix once", got, want)
	}
}

// TestFlagRanges: every numeric flag of the engine has a documented range
// (derived from the flag set itself), and refuses its maximum plus one and
// its minimum minus one with exit status 2 and a message naming the flag,
// before it reads a line.
func TestFlagRanges(t *testing.T) {
	var fs *flag.FlagSet
	cli.OnRanged = func(f *flag.FlagSet, _ cli.Ranges) { fs = f }
	var help bytes.Buffer
	code := run(context.Background(), []string{"-h"}, strings.NewReader(""), &help, &help)
	cli.OnRanged = nil
	if code != 0 || fs == nil {
		t.Fatalf("engine -h: got exit %d and flag set %v, want 0 and the flag set", code, fs)
	}
	ranges := cli.FlagRanges[fs.Name()]
	for _, f := range cli.NumericFlags(fs) {
		if _, ok := ranges[f]; !ok {
			t.Errorf("-%s: got no documented range, want one in cli.FlagRanges[%q]", f, fs.Name())
		}
	}
	cases := cli.OutOfRange(fs, ranges)
	if len(cases) == 0 {
		t.Fatal("got no out-of-range cases, want two a flag")
	}
	for _, c := range cases {
		t.Run(c.Flag+"="+c.Value, func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run(context.Background(), []string{"-protocol", "uci", "-net", "builtin", "-" + c.Flag + "=" + c.Value}, strings.NewReader("isready\n"), &out, &errs)
			if code != 2 || !strings.Contains(errs.String(), "-"+c.Flag) || out.Len() != 0 {
				t.Errorf("got exit %d, %q on stderr and %q on stdout; want 2, a message naming -%s and no answer", code, errs.String(), out.String(), c.Flag)
			}
		})
	}
}
