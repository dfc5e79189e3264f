//go:build !unix

package engine

import "os/exec"

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the program alone.
func killProcessGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
