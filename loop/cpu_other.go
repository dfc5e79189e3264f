//go:build !unix

package loop

import "time"

// processCPU reports the CPU time unknown where getrusage is not.
func processCPU() (time.Duration, bool) { return 0, false }
