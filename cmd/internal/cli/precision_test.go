package cli

import (
	"bytes"
	"strings"
	"testing"

	"taflab/net"
)

// TestPrecision: -precision sets the process's network precision, auto by
// default; a name that is not one, or a precision this CPU lacks, is
// refused when the flags are parsed; -h names the flag and what auto is
// here.
func TestPrecision(t *testing.T) {
	t.Cleanup(func() { net.SetDefaultPrecision(net.Float32) })
	tests := []struct {
		args []string
		want net.Precision
		ok   bool
	}{
		{nil, net.Auto, true},
		{[]string{"-precision", "float32"}, net.Float32, true},
		{[]string{"-precision", "auto"}, net.Auto, true},
		{[]string{"-precision", "fp16"}, 0, false},
		{[]string{"-precision", "bf16"}, net.BF16, net.BF16.Native()},
		{[]string{"-precision", "int8"}, net.Int8, net.Int8.Native()},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			fs := NewFlagSet("cmd", "usage\n", &stderr)
			Precision(fs)
			err := fs.Parse(tt.args)
			if (err == nil) != tt.ok {
				t.Fatalf("got %v, want ok = %v", err, tt.ok)
			}
			if tt.ok && net.DefaultPrecision() != tt.want {
				t.Errorf("got the default precision %v, want %v", net.DefaultPrecision(), tt.want)
			}
			if !tt.ok && !strings.Contains(stderr.String(), "-precision") {
				t.Errorf("got %q on stderr, want the flag named", stderr.String())
			}
		})
	}
	var stderr bytes.Buffer
	fs := NewFlagSet("cmd", "usage\n", &stderr)
	Precision(fs)
	fs.Usage()
	if auto := net.Auto.Resolve().String(); !strings.Contains(stderr.String(), "-precision P") || !strings.Contains(stderr.String(), "on this CPU "+auto) {
		t.Errorf("usage %q: want -precision P and what auto is here (%s)", stderr.String(), auto)
	}
}
