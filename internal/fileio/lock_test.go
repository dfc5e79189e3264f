package fileio

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const lockChildEnv = "TAFLAB_FILEIO_LOCK_CHILD" // the folder the child locks

// TestLockDirProcess is TestLockDir's other process: it locks the folder
// in $TAFLAB_FILEIO_LOCK_CHILD, says "locked", and holds the lock until its
// standard input closes.
func TestLockDirProcess(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("the other process of TestLockDir; it runs only as that test's child")
	}
	l, err := LockDir(dir, "the test's child")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
	l.Unlock()
}

// TestLockDir: two processes on one folder, the second refused with
// ErrLocked naming the first (its process id); once the first is gone
// (here, it ends without unlocking: its lock goes with it) the folder is
// locked again at once. In one process, a second lock of the folder is
// refused too, and Unlock frees it.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockDirProcess$", "-test.v=false")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("the child said %q, want locked", line)
	}
	_, err = LockDir(dir, "the test")
	want := fmt.Sprintf("%s: in use by another process: the test's child, process %d on ", dir, cmd.Process.Pid)
	if !errors.Is(err, ErrLocked) || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(it holds .taflab.lock): wait for it to end, or use another folder") {
		t.Errorf("the second process: got %v, want ErrLocked starting %q", err, want)
	}
	cmd.Process.Kill() // the child this test started: its lock goes with it
	stdin.Close()
	cmd.Wait()
	l, err := LockDir(dir, "the test")
	if err != nil {
		t.Fatalf("after the child ended: got %v, want the lock", err)
	}
	if _, err := LockDir(dir, "again"); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("the test, process %d on ", os.Getpid())) {
		t.Errorf("a second lock in one process: got %v, want ErrLocked naming this process", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l, err = LockDir(dir, "again")
	if err != nil {
		t.Fatalf("after Unlock: got %v, want the lock", err)
	}
	l.Unlock()
}
