//go:build !unix

package fileio

import "errors"

func mkfifo(string) error { return errors.New("no named pipes on this system") }
