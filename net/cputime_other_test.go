//go:build !unix

package net

import "time"

// processCPU returns 0: no CPU time here.
func processCPU() time.Duration { return 0 }
