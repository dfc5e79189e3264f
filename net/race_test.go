//go:build race

package net

// raceEnabled reports a -race build: sync.Pool drops items at random
// there, so allocation counts mean nothing.
const raceEnabled = true
