//go:build !linux

package kernels

import "runtime"

// osYield lets other goroutines run (Linux's gives the processor to other
// threads too).
func osYield() { runtime.Gosched() }
