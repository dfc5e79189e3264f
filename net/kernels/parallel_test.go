package kernels

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
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

// TestRunParts checks that RunParts calls f once for every part, on
// several goroutines at once when there are several parts and two
// processors, one after another on the caller when another goroutine holds
// the helpers, that it allocates nothing, and that a negative count panics.
func TestRunParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, parts := range []int{0, 1, 2, 3} {
		t.Run(fmt.Sprintf("parts=%d", parts), func(t *testing.T) {
			for round := range 50 { // helpers spinning, then parked
				if round == 49 {
					time.Sleep(2 * teamSpin)
				}
				calls := make([]atomic.Int32, max(parts, 1))
				// Every part waits until all have started: this finishes only
				// if the parts run at the same time (more parts than
				// processors run one after another: see "oversubscribed").
				concurrent := parts <= runtime.GOMAXPROCS(0)
				var started atomic.Int32
				RunParts(parts, func(p int) {
					calls[p].Add(1)
					started.Add(1)
					for concurrent && started.Load() < int32(parts) {
					}
				})
				for p := range parts {
					if got := calls[p].Load(); got != 1 {
						t.Fatalf("round %d, part %d: got %d calls, want 1", round, p, got)
					}
				}
			}
		})
	}
	t.Run("busy", func(t *testing.T) {
		team.mu.Lock()
		var order []int
		RunParts(3, func(p int) { order = append(order, p) })
		team.mu.Unlock()
		if fmt.Sprint(order) != "[0 1 2]" {
			t.Errorf("got parts run in order %v, want [0 1 2] on the caller", order)
		}
	})
	t.Run("oversubscribed", func(t *testing.T) {
		// Three parts on two processors: spinning parts could hold both
		// while the third waits, so they run on the caller.
		var order []int
		RunParts(3, func(p int) { order = append(order, p) })
		if fmt.Sprint(order) != "[0 1 2]" {
			t.Errorf("got parts run in order %v, want [0 1 2] on the caller", order)
		}
	})
	t.Run("allocs", func(t *testing.T) {
		var sum atomic.Int64
		f := func(p int) { sum.Add(int64(p)) }
		RunParts(2, f)
		if allocs := testing.AllocsPerRun(100, func() { RunParts(2, f) }); allocs != 0 {
			t.Errorf("got %v allocations per RunParts, want 0", allocs)
		}
	})
	defer func() {
		if recover() == nil {
			t.Error("RunParts(-1) did not panic")
		}
	}()
	RunParts(-1, func(int) {})
}

// TestRunPhases checks that RunPhases calls f once for every part of every
// phase, the parts of a phase at once, every part of a phase before any of
// the next, and one after another when the helpers are busy.
func TestRunPhases(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, busy := range []bool{false, true} {
		for _, parts := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("busy=%v/parts=%d", busy, parts), func(t *testing.T) {
				// More parts than GOMAXPROCS run one after another, as
				// with busy helpers.
				serial := busy || parts > runtime.GOMAXPROCS(0)
				const phases = 4
				var done [phases]atomic.Int32
				var bad atomic.Int32
				if busy {
					team.mu.Lock()
					defer team.mu.Unlock()
				}
				RunPhases(parts, phases, func(p, ph int) {
					if ph > 0 && done[ph-1].Load() != int32(parts) {
						bad.Add(1) // a part of the previous phase has not finished
					}
					done[ph].Add(1)
					if !serial {
						// Every part of the phase waits for the others: this
						// finishes only if they run at the same time.
						for done[ph].Load() < int32(parts) {
						}
					}
				})
				for ph := range phases {
					if got := done[ph].Load(); got != int32(parts) {
						t.Errorf("phase %d: got %d calls, want %d", ph, got, parts)
					}
				}
				if bad.Load() != 0 {
					t.Errorf("got %d calls before the previous phase had finished, want 0", bad.Load())
				}
			})
		}
	}
}
