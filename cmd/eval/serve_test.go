package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{"no playouts", []string{"-max-playouts", "0"}, "-max-playouts 0: want 1 to 1000000"},
		{"playouts past the limit", []string{"-max-playouts", "1000001"}, "-max-playouts 1000001: want 1 to 1000000"},
		{"playouts past 32 bits", []string{"-max-playouts", "4294967297"}, "-max-playouts 4294967297: want 1 to 1000000"},
		{"no searches", []string{"-max-searches", "0"}, "-max-searches 0: want 1 to 256"},
		{"searches past the limit", []string{"-max-searches", "257"}, "-max-searches 257: want 1 to 256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(append([]string{"serve"}, c.args...), nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.msg) {
				t.Fatalf("got exit %d, %q; want 2 and a message with %q", code, stderr.String(), c.msg)
			}
		})
	}
}
