package cli

import (
	"context"
	"io"
)

// StopReader returns a reader of r that stops when ctx is done, with ctx's
// error, even while r waits for input (standard input from a terminal or a
// pipe that writes nothing): a command that reads "-" stops on Ctrl-C or
// SIGTERM while it waits, as it does between lines. r is read by a
// goroutine of its own, which a wait cut short leaves blocked in r's Read
// until the process ends; use it for a command's standard input.
func StopReader(ctx context.Context, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err) // nil: EOF for the reader
	}()
	go func() {
		<-ctx.Done()
		pr.CloseWithError(ctx.Err())
	}()
	return pr
}
