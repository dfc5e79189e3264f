//go:build unix

package engine

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills cmd's process group: the program and whatever it
// started and left in its group. The program must have been started.
func killProcessGroup(cmd *exec.Cmd) {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}
