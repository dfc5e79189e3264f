package fileio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is the file in a folder that LockDir locks: hidden, never read
// as data, kept when the lock is released (removing it would let a third
// process lock a new file while a second still holds the old one).
const LockFile = ".taflab.lock"

// ErrLocked is LockDir's error (wrapped, naming the folder and the process
// that holds it) when another process holds the folder.
var ErrLocked = errors.New("in use by another process")

// Lock is a folder held by this process (LockDir).
type Lock struct {
	f    *os.File
	path string
}

// LockDir takes the advisory lock of a folder a run writes, so that one
// process at a time writes its files: an exclusive flock(2) on the folder's
// LockFile, taken without waiting. When another process holds it, LockDir
// returns ErrLocked, wrapped with the folder and what the holder wrote in
// the file: what (the holder's name for its work, "training"), its
// process id, host, start time and command line.
//
// The lock is the kernel's: it goes when the process ends, however it
// ends (a SIGKILL, a crash), so a stale lock file never blocks a new run.
// It holds on a local file system and on the shared volumes a cluster
// gives several machines (NFS, where Linux takes flock as a lock on the
// server; CephFS; see docs/scale-out.md). Readers take no lock, and
// self-play followers, which add shards to a shared data folder by design,
// do not lock it. Unlock (or the process's end) releases it.
func LockDir(dir, what string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, unwrapPathError(err))
	}
	if err := CheckRegular(path, f); err != nil {
		f.Close()
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		if !errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		holder := "a process that did not say which"
		if b, err := ReadFileLimit(path, 4096, "a lock file"); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			holder = strings.TrimSpace(string(b))
		}
		return nil, fmt.Errorf("%s: %w: %s (it holds %s): wait for it to end, or use another folder", dir, ErrLocked, holder, LockFile)
	}
	host, _ := os.Hostname()
	cmd := filepath.Base(os.Args[0]) + " " + strings.Join(os.Args[1:], " ")
	if len(cmd) > 300 {
		cmd = cmd[:300] + "..."
	}
	note := fmt.Sprintf("%s, process %d on %s, since %s (%s)\n", what, os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), strings.TrimSpace(cmd))
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(note), 0) // for the next one's message; the lock holds without it
	}
	return &Lock{f: f, path: path}, nil
}

// Unlock releases the lock; a second call does nothing.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the file releases the flock
	l.f = nil
	return err
}
