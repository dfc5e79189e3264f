//go:build !linux

package kernels

// amxPermit reports whether this process may use AMX's tile registers:
// only on Linux, where it asks for them, is that known.
func amxPermit() bool { return false }
