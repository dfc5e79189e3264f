//go:build !linux

package kernels

import "runtime"

// osYield lets other goroutines run (Linux's also gives the core to other
// threads).
func osYield() { runtime.Gosched() }
