// Package cputime reads the processor time the process has used, so that
// long runs can say what they cost in CPU hours rather than in wall time,
// which follows the machine's load:
//
//	before, ok := cputime.Process()
//	work()
//	after, _ := cputime.Process()
//	fmt.Printf("%.1f CPU seconds\n", (after - before).Seconds())
package cputime
