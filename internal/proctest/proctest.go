// Package proctest measures other processes for tests that run a program
// under load and bound what it takes. It is for tests only:
//
//	peak, err := proctest.PeakRSS(cmd.Process.Pid) // bytes, the most resident so far
package proctest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns a running process's peak resident memory so far, in bytes
// (Linux's VmHWM in /proc/PID/status), or an error where there is no such
// figure (another system, a process gone).
func PeakRSS(pid int) (int64, error) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("proctest: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("proctest: %s: VmHWM %q: %w", path, strings.TrimSpace(rest), err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("proctest: %s: no VmHWM line", path)
}
