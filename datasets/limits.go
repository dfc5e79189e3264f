package datasets

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"

	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/rules"
)

// The limits of what the readers of this package take in, so that a
// hostile or mistaken input (/dev/zero, a binary file, a file that grows
// without end) is an error within a bounded time and memory rather than a
// process that grows until the machine kills it.
const (
	// MaxRecordLineBytes is the longest line a game-record file may hold
	// (its newline left out): 1 MiB, some 100,000 moves, where the longest
	// recorded game has a few hundred.
	MaxRecordLineBytes = 1 << 20
	// MaxRecordFileBytes is the largest game-record file read: 256 MiB,
	// some 200 times the archive of every public Copenhagen game.
	MaxRecordFileBytes = 256 << 20
	// MaxArrowFileBytes is the largest Arrow file (a shard's positions or
	// games) read: 1 GiB, some 1,000 times a shard self-play writes. A
	// file's row count is bounded by its size (minRowBytes a row).
	MaxArrowFileBytes = 1 << 30
)

// ReadFileLimit reads the file at path whole, refusing one of more than
// limit bytes (what names the kind of file in the error: "a game-record
// file") without reading past the limit (fileio.ReadFileLimit). Errors name
// the file.
func ReadFileLimit(path string, limit int64, what string) ([]byte, error) {
	data, err := fileio.ReadFileLimit(path, limit, what)
	if err != nil {
		return nil, errctx.Errorf("datasets", "%w", err)
	}
	return data, nil
}

// ScanRecordLines calls fn with every line of a game-record file read from
// r (name labels it in errors), numbered from 1, without its line end
// ("\n" or "\r\n"). It refuses a line of more than MaxRecordLineBytes and a
// file of more than MaxRecordFileBytes, naming the file and the line,
// without reading far past either limit; it stops with ctx's error when
// ctx is done (checked at every line), and with fn's error, returned as it
// is.
func ScanRecordLines(ctx context.Context, name string, r io.Reader, fn func(line int, text string) error) error {
	lr := &io.LimitedReader{R: r, N: MaxRecordFileBytes + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 0, 64*1024), MaxRecordLineBytes+2) // the line, "\r\n"
	line := 0
	var consumed int64 // the bytes of the lines so far, their ends counted (the scanner reads ahead)
	for sc.Scan() {
		line++
		if ctx.Err() != nil {
			return ctx.Err()
		}
		text := strings.TrimSuffix(sc.Text(), "\r")
		if len(text) > MaxRecordLineBytes {
			return errctx.Errorf("datasets", "%s: line %d: longer than %d bytes, the most a game-record line may hold", name, line, MaxRecordLineBytes)
		}
		if consumed += int64(len(sc.Bytes())) + 1; consumed > MaxRecordFileBytes {
			return errctx.Errorf("datasets", "%s: line %d: past %d bytes, the most a game-record file may hold", name, line, MaxRecordFileBytes)
		}
		if err := fn(line, text); err != nil {
			return err
		}
	}
	err := sc.Err()
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return errctx.Errorf("datasets", "%s: line %d: longer than %d bytes, the most a game-record line may hold", name, line+1, MaxRecordLineBytes)
	case err != nil:
		return errctx.Errorf("datasets", "%s: line %d: %w", name, line+1, err)
	case lr.N == 0: // the reader was asked for more than the file may hold
		return errctx.Errorf("datasets", "%s: line %d: past %d bytes, the most a game-record file may hold", name, line+1, MaxRecordFileBytes)
	}
	return ctx.Err()
}

// ReadRecords reads the game records of r, one rules.Record a line with
// its Line set, within ScanRecordLines's limits: blank lines and a header on the first line
// are skipped, and the first line that is not a record is an error naming
// the file and wrapping the *rules.RecordError that names the line
// ("datasets: games.csv: rules: line 2, ply 2: ..."). name labels r in
// errors.
func ReadRecords(ctx context.Context, name string, r io.Reader) ([]rules.Record, error) {
	var recs []rules.Record
	err := ScanRecordLines(ctx, name, r, func(line int, text string) error {
		if strings.TrimSpace(text) == "" || line == 1 && rules.IsRecordHeader(text) {
			return nil
		}
		rec, err := rules.ParseRecord(line, text)
		if err != nil {
			return errctx.Errorf("datasets", "%s: %w", name, err)
		}
		recs = append(recs, rec)
		return nil
	})
	return recs, err
}
