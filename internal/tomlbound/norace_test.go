//go:build !race

package tomlbound_test

const raceEnabled = false
