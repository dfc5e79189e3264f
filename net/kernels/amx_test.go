//go:build amd64 && linux

package kernels

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestAMXUnderSignals runs the AMX convolutions on more goroutines than
// cores while signals land on their threads (the runtime's preemption
// signals, SIGURG sent to the process as fast as it goes, and the CPU
// profiler's SIGPROF), and checks that every result is bitwise
// the first: the kernel saves and restores the tiles in each signal's
// frame (about 11 KiB with them, in Go's 32 KiB signal stacks), and Go
// neither preempts nor moves a goroutine inside the assembly call that
// holds them.
func TestAMXUnderSignals(t *testing.T) {
	for _, prec := range []Lowp{BF16, Int8} {
		if LowpImplementations(prec)[0] != "amx" {
			t.Skipf("%v: this CPU (or its OS) runs no AMX: %v", prec, LowpImplementations(prec))
		}
	}
	if testing.Short() {
		t.Skip("takes seconds")
	}
	if err := pprof.StartCPUProfile(new(bytes.Buffer)); err != nil {
		t.Logf("no CPU profile (%v): the other signals only", err)
	} else {
		defer pprof.StopCPUProfile()
	}
	stop := make(chan struct{})
	var signals sync.WaitGroup
	sent := 0
	signals.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				syscall.Kill(os.Getpid(), syscall.SIGURG)
				sent++
			}
		}
	})
	deadline := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	for g := range 3 * runtime.GOMAXPROCS(0) {
		prec := []Lowp{BF16, Int8}[g%2]
		wg.Go(func() {
			c := lowpCase{11, 11, 3, 64, 64, 4, true, true}
			_, first, _ := lowpRun(t, c, prec, 9)
			l, a, _ := lowpRun(t, c, prec, 9)
			var ws Workspace
			for n := 0; time.Now().Before(deadline); n++ {
				clear(a.OutF32)
				ws.LowpConv(l, a)
				if !slices.Equal(a.OutF32, first.OutF32) || !slices.Equal(a.OutBF16, first.OutBF16) || !slices.Equal(a.OutU8, first.OutU8) {
					t.Errorf("%v, goroutine %d, run %d: the result changed", prec, g, n)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	signals.Wait()
	t.Logf("%d SIGURG sent", sent)
}

// TestAMXLoopOrders runs the direct comparison of every case with the
// AMX convolutions' blocks in each order (amxRowsOuterBytes chooses one by
// the input's size, and the cases are all small), and checks that both
// orders give bitwise the same outputs.
func TestAMXLoopOrders(t *testing.T) {
	for _, prec := range []Lowp{BF16, Int8} {
		if LowpImplementations(prec)[0] != "amx" {
			t.Skipf("%v: this CPU (or its OS) runs no AMX: %v", prec, LowpImplementations(prec))
		}
	}
	defer func(b int) { amxRowsOuterBytes = b }(amxRowsOuterBytes)
	for _, prec := range []Lowp{BF16, Int8} {
		for ci, c := range lowpCases {
			t.Run(fmt.Sprintf("%v/%d", prec, ci), func(t *testing.T) {
				var outs [2]*LowpArgs
				for i, threshold := range []int{math.MaxInt, 0} {
					amxRowsOuterBytes = threshold
					l, a, _ := lowpRun(t, c, prec, uint64(ci))
					checkLowpDirect(t, c, l, a)
					outs[i] = a
				}
				cols, rows := outs[0], outs[1]
				if !slices.Equal(cols.OutBF16, rows.OutBF16) || !slices.Equal(cols.OutU8, rows.OutU8) ||
					!slices.EqualFunc(cols.OutF32, rows.OutF32, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
					t.Errorf("columns outer and rows outer differ")
				}
			})
		}
	}
}
