//go:build race

package stats

// raceEnabled is true in a -race build, where the simulations run fewer
// repetitions: there they check for data races, and the full-size
// statistical checks run in the ordinary build.
const raceEnabled = true
