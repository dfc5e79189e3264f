package cputime

import (
	"runtime"
	"testing"
)

// TestProcessGrows: work on this goroutine adds to the process's CPU time.
func TestProcessGrows(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Skipf("no CPU time on %s", runtime.GOOS)
	}
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	after, _ := Process()
	if after <= before {
		t.Errorf("got %v then %v (x %d), want the CPU time to grow", before, after, x)
	}
}
