// Package fileio reads files within a size limit and writes them whole or
// not at all: the one place where taflab's packages turn bytes into files.
//
// A writer puts its bytes in a hidden temporary file beside the target
// (".BASE.tmp-DIGITS", which no reader takes for a data file), syncs it,
// renames it over the target and syncs the folder, so that a reader sees
// the old file or the new one, never a part:
//
//	if err := fileio.WriteFile("run/best.json", data); err != nil { ... }
//
// Errors name the file and carry no package prefix: the caller adds its own
// ("match: ", "net: ").
package fileio

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The limits of the files the commands and packages read whole.
const (
	// MaxConfigBytes is the largest config, suite, match or pointer file
	// read: 64 MiB (a match.json of 100,000 games is some 50 MiB).
	MaxConfigBytes = 64 << 20
	// MaxRunFileBytes is the largest log, journal, metrics or network file
	// of a run folder read whole: 1 GiB.
	MaxRunFileBytes = 1 << 30
)

// ReadFileLimit reads the regular file at path whole (Open), refusing one
// of more than limit bytes without reading past the limit; what names the
// kind of file in that error ("a game-record file"). A file that cannot be
// opened gets os.Open's error, which os.IsNotExist reads.
func ReadFileLimit(path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLimit(path, f, limit, what)
}

// ErrNotRegular is Open's error (wrapped, naming the file and what it is)
// for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens the file at path for reading if it is a regular file (after
// symbolic links), and refuses anything else with ErrNotRegular: a named
// pipe (FIFO) would block the reader until something writes into it, and
// a device (/dev/zero, a terminal) or a socket has no end or no size to
// check. The open itself never waits: a FIFO is opened without blocking
// (O_NONBLOCK, which changes nothing for a regular file) and then refused.
// Errors other than ErrNotRegular are os.Open's.
func Open(path string) (*os.File, error) {
	return openRegular(path, os.O_RDONLY)
}

// OpenAppend opens the regular file at path for appending (creating it,
// mode 0644, if it does not exist), refusing anything else as Open does.
func OpenAppend(path string) (*os.File, error) {
	return openRegular(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
}

// OpenIn opens the regular file name inside root for reading, refusing
// anything else as Open does (and whatever os.Root refuses: a path that
// leads out of the folder).
func OpenIn(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	if err := CheckRegular(name, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func openRegular(path string, flag int) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode()) // named before the open: a FIFO no one reads cannot be opened for writing
	}
	f, err := os.OpenFile(path, flag|nonBlock, 0o644)
	if err != nil {
		return nil, err
	}
	if err := CheckRegular(path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CheckRegular returns ErrNotRegular, wrapped with name and what the file
// is, if the open file f is not a regular file; an error of Stat as it is.
func CheckRegular(name string, f interface{ Stat() (os.FileInfo, error) }) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Mode().IsRegular() {
		return nil
	}
	return notRegular(name, st.Mode())
}

func notRegular(name string, m os.FileMode) error {
	return fmt.Errorf("%s: %s, %w: taflab reads and writes files only", name, Kind(m), ErrNotRegular)
}

// Kind names what a file mode that is not a regular file's is.
func Kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0 || m&os.ModeCharDevice != 0:
		return "a device"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

// ReadLimit reads r whole, refusing more than limit bytes without reading
// past them; name stands for r in errors, and what names the kind of input.
func ReadLimit(name string, r io.Reader, limit int64, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than %d bytes, the most %s may hold", name, limit, what)
	}
	return data, nil
}

// WriteFile writes data to path whole or not at all (mode 0644). A
// temporary file of path's that a killed writer left more than StaleTempAge
// ago is removed first.
func WriteFile(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	RemoveStaleTemps(dir, base, StaleTempAge)
	tmp, err := WriteTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	return SyncDir(dir)
}

// WriteJSON writes v as indented JSON, with a final newline, to path whole
// or not at all.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFile(path, append(data, '\n'))
}

// WriteTemp writes data to a new temporary file beside path
// (".BASE.tmp-DIGITS", mode 0644), syncs and closes it, and returns its
// name, for a caller that renames several files into place together. On an
// error it removes the file; errors name path.
func WriteTemp(path string, data []byte) (tmp string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return "", fmt.Errorf("%q: no file name", path)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("%s: %w", path, unwrapPathError(err))
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if err := f.Chmod(0o644); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// SyncDir makes the renames in dir durable. A file system that cannot sync
// a folder (os.ErrInvalid) is not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("syncing the folder %s: %w", dir, err)
	}
	return nil
}

// unwrapPathError drops an *os.PathError's operation and path, which the
// caller's message already names.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// StaleTempAge is the age past which a temporary file of ours (see
// RemoveStaleTemps) is taken for one a killed writer left behind: no
// writer takes that long to write one file.
const StaleTempAge = time.Hour

// RemoveStaleTemps removes, from dir, the temporary files that WriteTemp
// names (".BASE.tmp-DIGITS") and that were last modified more than age ago:
// files a writer killed between writing and renaming them (SIGKILL, a power
// cut) left behind, hidden and never read. base, if not "", takes only
// those of one target file. Nothing else is touched: not a folder, not a
// link, not a file of another name, not a fresh temporary file that a
// running writer may be about to rename. It returns the names removed; an
// error is a folder it could not list (a file it could not remove is left,
// and not an error).
func RemoveStaleTemps(dir, base string, age time.Duration) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	now := time.Now()
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTempName(e.Name(), base) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < age {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if os.Remove(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed, nil
}

// isTempName reports whether name is ".BASE.tmp-DIGITS" (of the given base
// when base is not "").
func isTempName(name, base string) bool {
	i := strings.LastIndex(name, ".tmp-")
	if i < 2 || name[0] != '.' {
		return false
	}
	digits := name[i+len(".tmp-"):]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false
	}
	return base == "" || name[1:i] == base
}
