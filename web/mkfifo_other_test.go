//go:build !unix

package web_test

import "errors"

func mkfifo(string) error { return errors.New("no named pipes on this system") }
