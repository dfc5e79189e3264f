package kernels

import "syscall"

// osYield gives the processor to another thread that is ready to run, if
// any (sched_yield): a waiting goroutine's thread may share its core with
// the very thread it waits for.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
