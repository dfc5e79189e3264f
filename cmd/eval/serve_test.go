package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"taflab/cmd/internal/cli"
	"taflab/internal/nettest"
	"taflab/web"
)

func TestServeAddress(t *testing.T) {
	for _, c := range []struct {
		addr     string
		loopback bool
		bad      bool
	}{
		{"127.0.0.1:8080", true, false},
		{"localhost:0", true, false},
		{"[::1]:8080", true, false},
		{"127.9.9.9:1", true, false},
		{"0.0.0.0:8080", false, false},
		{":8080", false, false},
		{"192.168.1.5:80", false, false},
		{"example.org:80", false, false},
		{"8080", false, true},
		{"", false, true},
	} {
		t.Run(c.addr, func(t *testing.T) {
			got, err := isLoopback(c.addr)
			if (err != nil) != c.bad || got != c.loopback {
				t.Fatalf("got %v, %v; want loopback %v, error %v", got, err, c.loopback, c.bad)
			}
		})
	}
}

func TestServeFlags(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage.safetensors")
	if err := os.WriteFile(garbage, []byte("this is not a network\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"bad address", []string{"-addr", "8080"}, `-addr "8080"`},
		{"missing data folder", []string{"-data", "/nonexistent/data"}, "data folder"},
		{"missing network", []string{"-net", "/nonexistent/n.safetensors"}, "network"},
		{"stray argument", []string{"x"}, "unexpected argument"},
		// Issue 23: a file that is not a network fails the start, named.
		{"garbage network", []string{"-net", garbage}, "network file: net: " + garbage + ": "},
		// Issue 23: counts out of their range, named with the range.
		{"no playouts", []string{"-max-playouts", "0"}, "-max-playouts 0: out of range: want 1 to 1000000"},
		{"playouts past the limit", []string{"-max-playouts", "1000001"}, "-max-playouts 1000001: out of range: want 1 to 1000000"},
		{"playouts past 32 bits", []string{"-max-playouts", "4294967297"}, "-max-playouts 4294967297: out of range: want 1 to 1000000"},
		{"no searches", []string{"-max-searches", "0"}, "-max-searches 0: out of range: want 1 to 256"},
		{"searches past the limit", []string{"-max-searches", "257"}, "-max-searches 257: out of range: want 1 to 256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(append([]string{"serve"}, c.args...), nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.msg) {
				t.Fatalf("got exit %d, %q; want 2 and a message with %q", code, stderr.String(), c.msg)
			}
		})
	}
}

// TestServeFlagRanges: every numeric flag of eval serve has a documented
// range, shown in -h, and refuses its maximum plus one and its minimum
// minus one with exit status 2 and a message naming the flag.
func TestServeFlagRanges(t *testing.T) {
	cfg := web.DefaultConfig()
	var addr string
	var help bytes.Buffer
	fs := serveFlags(&cfg, &addr, &help)
	numeric := cli.NumericFlags(fs)
	if len(numeric) == 0 {
		t.Fatal("got no numeric flags, want -max-playouts and -max-searches")
	}
	for _, f := range numeric {
		r, ok := serveRanges[f]
		if !ok {
			t.Errorf("-%s: got no documented range, want one in serveRanges", f)
		} else if !strings.Contains(fs.Lookup(f).Usage, r.String()) {
			t.Errorf("-%s: got help %q, want it to give the range %q", f, fs.Lookup(f).Usage, r.String())
		}
	}
	for _, c := range cli.OutOfRange(fs, serveRanges) {
		t.Run(c.Flag+"="+c.Value, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"serve", "-addr", "127.0.0.1:0", "-" + c.Flag + "=" + c.Value}, nil, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), "-"+c.Flag) {
				t.Fatalf("got exit %d, %q; want 2 and a message naming -%s", code, stderr.String(), c.Flag)
			}
		})
	}
}

const serveChildEnv = "TAFLAB_SERVE_CHILD_ARGS" // the child's eval serve arguments, as JSON

// TestServeProcess is the eval serve of TestServeSignal, in a process of
// its own so that the test can signal it.
func TestServeProcess(t *testing.T) {
	js := os.Getenv(serveChildEnv)
	if js == "" {
		t.Skip("the eval serve process of TestServeSignal; it runs only as that test's child")
	}
	var args []string
	if err := json.Unmarshal([]byte(js), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(run(append([]string{"serve"}, args...), os.Stdin, os.Stdout, os.Stderr))
}

// TestServeSignal runs eval serve in a process of its own: it listens on
// loopback, serves its page with the limits its flags set, and on SIGINT or
// SIGTERM stops the search in progress (answered 503) and exits 130 at once,
// not when the search would have ended.
func TestServeSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("signals to a child process: Linux only here")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			args, _ := json.Marshal([]string{"-addr", "127.0.0.1:0", "-net", nettest.TinyFile(t, 1), "-max-searches", "3", "-max-playouts", "500000"})
			cmd := exec.Command(os.Args[0], "-test.run=^TestServeProcess$")
			cmd.Env = append(os.Environ(), serveChildEnv+"="+string(args))
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1) // cmd.Wait's error, once
			done := false                 // whether the test received it
			defer func() {
				if !done {
					cmd.Process.Kill() // the process this test started
					<-exited
				}
			}()
			line, err := bufio.NewReader(stdout).ReadString('\n')
			go func() { exited <- cmd.Wait() }()
			base, ok := strings.CutPrefix(strings.TrimSpace(line), "eval serve: http://127.0.0.1:")
			if err != nil || !ok {
				t.Fatalf("got %q (%v, %s), want its loopback URL", line, err, stderr.String())
			}
			base = "http://127.0.0.1:" + strings.TrimSuffix(base, "/")
			resp, err := http.Get(base + "/api/info")
			if err != nil {
				t.Fatal(err)
			}
			var info struct {
				MaxPlayouts int `json:"max_playouts"`
				Searches    struct{ Running, Max int }
			}
			json.NewDecoder(resp.Body).Decode(&info)
			resp.Body.Close()
			if info.MaxPlayouts != 500000 || info.Searches.Max != 3 {
				t.Fatalf("got %+v, want the limits of the flags: 500000 playouts, 3 searches", info)
			}
			// A search of seconds with the tiny network (it ends at the tree budget,
			// some 40,000 playouts), then the signal.
			answer := make(chan string, 1)
			go func() {
				resp, err := http.Post(base+"/api/analyze", "application/json", strings.NewReader(`{"network":"net","playouts":500000}`))
				if err != nil {
					answer <- err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				answer <- fmt.Sprintf("%d %s", resp.StatusCode, b)
			}()
			for end := time.Now().Add(5 * time.Second); info.Searches.Running == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if resp, err := http.Get(base + "/api/info"); err == nil {
					json.NewDecoder(resp.Body).Decode(&info)
					resp.Body.Close()
				}
			}
			if info.Searches.Running != 1 {
				t.Fatalf("got %+v, want the search running", info.Searches)
			}
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				done = true
				// Issue 36: it exited 0, where every other command exits
				// 130 when a signal stops it.
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 130 {
					t.Fatalf("got %v (%s), want exit 130", err, stderr.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("got no exit 5 s after %v, want one at once", sig)
			}
			if got := <-answer; !strings.HasPrefix(got, "503 ") || !strings.Contains(got, "cancelled") {
				t.Errorf("got the search answered %q, want 503 saying it was cancelled", got)
			}
			t.Logf("exited %v after %v", sig, time.Since(start).Round(time.Millisecond))
		})
	}
}
