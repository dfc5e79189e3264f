//go:build race

package tomlbound_test

// raceEnabled reports a -race build: the race detector multiplies memory
// and time, so the memory test's bound means nothing there.
const raceEnabled = true
