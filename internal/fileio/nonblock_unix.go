//go:build unix

package fileio

import "syscall"

// nonBlock opens a named pipe without waiting for a writer (Open refuses
// it right after).
const nonBlock = syscall.O_NONBLOCK
