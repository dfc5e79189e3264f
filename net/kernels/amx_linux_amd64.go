package kernels

import (
	"sync"
	"syscall"
)

// Linux keeps AMX's tile data (8 KiB a thread) off until a process asks
// for it: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), once per
// process, for all its threads. Without that leave the first tile
// instruction that touches tile data kills the process with SIGILL
// (LDTILECFG itself passes). The request fails on kernels before 5.16, when
// the CPU or the hypervisor does not offer the feature, and when a thread's
// signal stack is smaller than a signal frame with the tiles in it (Go's
// are 32 KiB; the frame is about 11 KiB: docs/network.md).
const (
	archGetXcompPerm  = 0x1022
	archReqXcompPerm  = 0x1023
	xfeatureXtiledata = 18
)

var amxPermitOnce = sync.OnceValue(func() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0)
	return errno == 0
})

// amxPermit asks Linux for the tile registers (once) and reports whether
// this process may use them.
func amxPermit() bool { return amxPermitOnce() }
