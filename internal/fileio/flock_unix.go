//go:build unix

package fileio

import (
	"os"

	"golang.org/x/sys/unix"
)

// errWouldBlock is flock's error when another open file holds the lock.
var errWouldBlock = unix.EWOULDBLOCK

// flock takes f's exclusive lock without waiting, retrying a call a signal
// interrupted.
func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			return err
		}
	}
}
