package kernels

import (
	"runtime"
	"syscall"
)

// osYield lets other goroutines run on this goroutine's processor
// (runtime.Gosched: a spinning goroutine otherwise keeps its P, and a part
// waiting for one may have none), then gives the core to another thread
// that is ready to run, if any (sched_yield): a waiting goroutine's thread
// may share its core with the very thread it waits for.
func osYield() {
	runtime.Gosched()
	syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
