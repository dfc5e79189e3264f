//go:build !unix

package cputime

import "time"

// Process reports the CPU time unknown where getrusage is not.
func Process() (time.Duration, bool) { return 0, false }
