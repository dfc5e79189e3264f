package kernels

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// TestParallel checks that Parallel calls f once for every part, on
// several goroutines at once when there are several parts, and that a
// negative count panics.
func TestParallel(t *testing.T) {
	for _, parts := range []int{0, 1, 2, 3, 8} {
		t.Run(fmt.Sprintf("parts=%d", parts), func(t *testing.T) {
			calls := make([]atomic.Int32, max(parts, 1))
			// Every part waits until all have started: this finishes only if
			// the parts run at the same time.
			var started atomic.Int32
			Parallel(parts, func(p int) {
				calls[p].Add(1)
				started.Add(1)
				for started.Load() < int32(parts) {
				}
			})
			for p := range parts {
				if got := calls[p].Load(); got != 1 {
					t.Errorf("part %d: got %d calls, want 1", p, got)
				}
			}
			if parts == 0 && calls[0].Load() != 0 {
				t.Errorf("parts=0: got %d calls of part 0, want 0", calls[0].Load())
			}
		})
	}
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("Parallel(-1, f): got no panic, want one")
		}
	}()
	Parallel(-1, func(int) {})
}

// TestParallelAllocs: Parallel with a func value made once allocates
// nothing in steady state.
func TestParallelAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	var sum [4]float32
	x := make([]float32, 1000)
	f := func(p int) { sum[p] = Dot(x, x) }
	Parallel(4, f)
	if got := testing.AllocsPerRun(50, func() { Parallel(4, f) }); got != 0 {
		t.Errorf("got %v allocations per Parallel, want 0", got)
	}
}
