package cli

import (
	"flag"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"taflab/configs"
	"taflab/mcts"
	"taflab/openings"
)

// The ranges that several commands share.
const (
	// MaxPlayouts is the most playouts a flag or a player spec may give a
	// search: mcts.MaxPlayouts (1<<24; a count in 32 bits once wrapped).
	MaxPlayouts = mcts.MaxPlayouts
	// MaxWorkers is the most goroutines -workers may ask for: configs'.
	MaxWorkers = configs.MaxWorkers
	// MaxGamesPerWorker bounds -games-per-worker: configs'.
	MaxGamesPerWorker = configs.MaxGamesPerWorker
	// MaxOpeningPlies is the most random moves of a random opening (eval
	// suite -random-plies, eval match -opening-plies): openings.MaxBookPlies.
	MaxOpeningPlies = openings.MaxBookPlies
)

// Ranges several commands' flags share.
var (
	// WorkersRange is a -workers flag's: 0 (one per core) to MaxWorkers.
	WorkersRange = IntRange(0, MaxWorkers, "0: one per core")
	// PlayoutsRange is a search's playouts: 1 to MaxPlayouts.
	PlayoutsRange = IntRange(1, MaxPlayouts, "")
	// GamesPerWorkerRange is a -games-per-worker flag's: 1 to
	// MaxGamesPerWorker.
	GamesPerWorkerRange = IntRange(1, MaxGamesPerWorker, "")
)

// FlagRanges holds the documented ranges of every numeric flag of each
// command whose flags were parsed in this process, by its flag set's name
// and the flag's name: each command declares a flag's range with the flag
// (Flags), and DocumentRanges records them here, for the commands' tests.
// Written only while a command parses its flags; commands parse theirs
// one at a time.
var FlagRanges = map[string]Ranges{}

// OnRanged, when set (by tests), sees every flag set whose ranges a
// command documents, with its ranges: the class test of the ranges
// derives the flags to try from it.
var OnRanged func(fs *flag.FlagSet, ranges Ranges)

// Range is a numeric flag's documented range: from Min to Max, each end
// included unless MinOpen or MaxOpen leaves it out (a probability strictly
// between 0 and 1). Note, if not "", says what a special value means ("0:
// one per core").
type Range struct {
	Min, Max         float64
	MinOpen, MaxOpen bool
	Note             string
}

// Ranges are the documented ranges of a command's numeric flags, by flag
// name. Every numeric flag of a command has one (NumericFlags lists them).
type Ranges map[string]Range

// IntRange is the range of a whole-number flag.
func IntRange(min, max int64, note string) Range {
	return Range{Min: float64(min), Max: float64(max), Note: note}
}

// FullUint64 is the range of a flag that takes any unsigned 64-bit number
// (a seed).
var FullUint64 = Range{Min: 0, Max: math.MaxUint64, Note: "any"}

// String writes the range as the help and the errors show it: "1 to 256",
// "1 to 256; 0: one per core", or with open ends "0 to 1; strictly between
// the two", "0 to 100; more than 0".
func (r Range) String() string {
	text := formatBound(r.Min) + " to " + formatBound(r.Max)
	if r == FullUint64 {
		text = "0 to 18446744073709551615"
	}
	switch {
	case r.MinOpen && r.MaxOpen:
		text += "; strictly between the two"
	case r.MinOpen:
		text += "; more than " + formatBound(r.Min)
	case r.MaxOpen:
		text += "; less than " + formatBound(r.Max)
	}
	if r.Note != "" && r.Note != "any" {
		text += "; " + r.Note
	}
	return text
}

// contains reports whether x is in the range (NaN never is).
func (r Range) contains(x float64) bool {
	above := x > r.Min || !r.MinOpen && x == r.Min
	below := x < r.Max || !r.MaxOpen && x == r.Max
	return above && below
}

func formatBound(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// numberOf returns a flag's value as a number, and whether the flag is a
// numeric one (int, int64, uint, uint64, float64 or a duration, in
// seconds).
func numberOf(f *flag.Flag) (x float64, exact string, ok bool) {
	g, isGetter := f.Value.(flag.Getter)
	if !isGetter {
		return 0, "", false
	}
	switch v := g.Get().(type) {
	case int:
		return float64(v), strconv.Itoa(v), true
	case int64:
		return float64(v), strconv.FormatInt(v, 10), true
	case uint:
		return float64(v), strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return float64(v), strconv.FormatUint(v, 10), true
	case float64:
		return v, strconv.FormatFloat(v, 'g', -1, 64), true
	case time.Duration:
		return v.Seconds(), v.String(), true
	}
	return 0, "", false
}

// NumericFlags lists the names of fs's numeric flags (int, uint, float,
// duration), sorted.
func NumericFlags(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if _, _, ok := numberOf(f); ok {
			names = append(names, f.Name)
		}
	})
	sort.Strings(names)
	return names
}

// DocumentRanges adds each numeric flag's range to its help text, so that
// -h shows it: "(1 to 256; 0: one per core)".
func DocumentRanges(fs *flag.FlagSet, ranges Ranges) {
	FlagRanges[fs.Name()] = ranges
	if OnRanged != nil {
		OnRanged(fs, ranges)
	}
	fs.VisitAll(func(f *flag.Flag) {
		if r, ok := ranges[f.Name]; ok {
			f.Usage += " (range " + r.String() + ")"
		}
	})
}

// CheckRanges checks every numeric flag given on the command line against
// its range. The error names the flag, its value and the range; a numeric
// flag with no range is an error too (a flag added without one).
func CheckRanges(fs *flag.FlagSet, ranges Ranges) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil {
			return
		}
		if _, _, numeric := numberOf(f); numeric {
			if _, ok := ranges[f.Name]; !ok {
				err = fmt.Errorf("-%s: no documented range (a flag of this command without one)", f.Name)
			}
		}
	})
	if err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) {
		if err != nil {
			return
		}
		x, exact, numeric := numberOf(f)
		r, ok := ranges[f.Name]
		if !numeric || !ok || r == FullUint64 {
			return
		}
		if !r.contains(x) {
			err = fmt.Errorf("-%s %s: out of range: want %s", f.Name, exact, r)
		}
	})
	return err
}

// RangeCase is a value out of a flag's range, for the commands' tests of
// their ranges: every one must be refused with exit status 2 and a
// message naming the flag.
type RangeCase struct{ Flag, Value string }

// OutOfRange returns, for each of fs's numeric flags (sorted), the values
// just out of its documented range in ranges: its maximum plus one, its
// minimum minus one, each open end itself, and NaN for a flag that takes
// fractions. A flag with no documented range gets none: the tests check
// that separately.
func OutOfRange(fs *flag.FlagSet, ranges Ranges) []RangeCase {
	var out []RangeCase
	for _, name := range NumericFlags(fs) {
		r, ok := ranges[name]
		if !ok {
			continue
		}
		if r == FullUint64 {
			out = append(out, RangeCase{name, "18446744073709551616"}, RangeCase{name, "-1"})
			continue
		}
		out = append(out, RangeCase{name, formatBound(r.Max + 1)}, RangeCase{name, formatBound(r.Min - 1)})
		if r.MaxOpen {
			out = append(out, RangeCase{name, formatBound(r.Max)})
		}
		if r.MinOpen {
			out = append(out, RangeCase{name, formatBound(r.Min)})
		}
		if _, fraction := fs.Lookup(name).Value.(flag.Getter).Get().(float64); fraction {
			out = append(out, RangeCase{name, "NaN"})
		}
	}
	return out
}
