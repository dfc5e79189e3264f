//go:build !unix

package fileio

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("locked")

// flock does nothing where there is no flock(2): folders are not locked.
func flock(*os.File) error { return nil }
