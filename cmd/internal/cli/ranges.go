package cli

import (
	"flag"
	"fmt"
	"io"
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

// FlagRanges is the one table of the documented ranges of every numeric
// flag of every command but eval serve (the web's own), by the command's
// flag set name and the flag's name. Each command documents them in its
// help (DocumentRanges) and checks them where it parses its flags
// (CheckRanges): a value out of range is an error naming the flag and the
// range, exit status 2. A numeric flag missing here is refused on every
// run, and the commands' tests fail.
var FlagRanges = map[string]Ranges{
	"engine": {
		"playouts": IntRange(1, MaxPlayouts, ""),
		"movetime": IntRange(0, 24*3600*1000, "0: playouts; a day at most"),
		"threads":  IntRange(1, 256, ""),
	},
	"eval analyze": {
		"playouts": IntRange(0, MaxPlayouts, "0: no search"),
		"top":      IntRange(1, 100, ""),
		"seed":     FullUint64,
	},
	"eval review": {
		"playouts":   IntRange(1, MaxPlayouts, ""),
		"game":       IntRange(0, 1_000_000, "0: every game"),
		"parallel":   IntRange(1, 64, ""),
		"pv":         IntRange(1, 100, ""),
		"inaccuracy": {Min: 0, Max: 100, Note: "more than 0, at most -mistake"},
		"mistake":    {Min: 0, Max: 100, Note: "at most -blunder"},
		"blunder":    {Min: 0, Max: 100},
		"seed":       FullUint64,
	},
	"eval balance": {
		"games":            IntRange(1, 1_000_000, ""),
		"width":            {Min: 0, Max: 1, Note: "0: never stop early"},
		"confidence":       {Min: 0, Max: 1, Note: "strictly between the two"},
		"min-games":        IntRange(0, 1_000_000, ""),
		"workers":          IntRange(0, MaxWorkers, "0: one per core"),
		"games-per-worker": IntRange(1, MaxGamesPerWorker, ""),
		"seed":             FullUint64,
	},
	"eval fit": {
		"holdout-every":   IntRange(0, 1_000_000, "0: none held out; 1 is refused"),
		"search-playouts": IntRange(0, MaxPlayouts, "0: leave the searcher out"),
		"workers":         IntRange(0, MaxWorkers, "0: one per core"),
	},
	"eval match": {
		"max-games":     IntRange(2, 1_000_000, ""),
		"elo0":          {Min: -1000, Max: 1000},
		"elo1":          {Min: -1000, Max: 1000},
		"alpha":         {Min: 0, Max: 1, Note: "strictly between the two"},
		"beta":          {Min: 0, Max: 1, Note: "strictly between the two"},
		"opening-plies": IntRange(0, MaxOpeningPlies, ""),
		"seed":          FullUint64,
		"odds-pairs":    IntRange(1, 100_000, ""),
		"workers":       IntRange(0, MaxWorkers, "0: one per core"),
	},
	"eval ratings": {
		"prior-sd": {Min: 0, Max: 100_000, Note: "0: no prior"},
	},
	"eval suite": {
		"every":            IntRange(1, 1000, ""),
		"random":           IntRange(0, 100_000, ""),
		"random-plies":     IntRange(1, MaxOpeningPlies, ""),
		"games":            IntRange(1, 10_000, ""),
		"min":              {Min: 0, Max: 1},
		"max":              {Min: 0, Max: 1},
		"size":             IntRange(0, 100_000, "0: no limit"),
		"seed":             FullUint64,
		"workers":          IntRange(0, MaxWorkers, "0: one per core"),
		"games-per-worker": IntRange(1, MaxGamesPerWorker, ""),
	},
	"selfplay": {
		"games":            IntRange(1, 100_000_000, ""),
		"workers":          IntRange(0, MaxWorkers, "0: one per core"),
		"playouts":         IntRange(1, MaxPlayouts, ""),
		"seed":             FullUint64,
		"games-per-worker": IntRange(0, MaxGamesPerWorker, "0: the run's"),
		"shard-games":      IntRange(0, 1_000_000, "0: 16"),
		"shard-seconds":    {Min: 0, Max: 86400, Note: "0: 30"},
	},
	"train": {
		"steps":         IntRange(0, 1_000_000_000, "0: no step, the network as it starts"),
		"records-share": {Min: 0, Max: 1},
	},
	"train loop": {
		"generations": IntRange(0, 10_000, "0: the config's"),
	},
}

// OnRanged, when set (by tests), sees every flag set whose ranges a
// command documents, with its ranges: the class test of the ranges
// derives the flags to try from it.
var OnRanged func(fs *flag.FlagSet, ranges Ranges)

// Range is a numeric flag's documented range, both ends included. Note, if
// not "", says what a special value means ("0: one per core").
type Range struct {
	Min, Max float64
	Note     string
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

// String writes the range as the help and the errors show it: "1 to 256"
// or "1 to 256; 0: one per core".
func (r Range) String() string {
	text := formatBound(r.Min) + " to " + formatBound(r.Max)
	if r == FullUint64 {
		text = "0 to 18446744073709551615"
	}
	if r.Note != "" && r.Note != "any" {
		text += "; " + r.Note
	}
	return text
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
		if !(x >= r.Min && x <= r.Max) { // NaN fails too
			err = fmt.Errorf("-%s %s: out of range: want %s", f.Name, exact, r)
		}
	})
	return err
}

// ParseRanged parses a command's flags (ParseFlags), documents their ranges
// (FlagRanges[fs.Name()]) in the help first and checks them after: a value out of its range is
// named on stderr, prefixed with the flag set's name, and the command stops
// with exit status 2.
func ParseRanged(fs *flag.FlagSet, args []string, printConfig *bool, embedded []byte, stdout, stderr io.Writer) (code int, done bool) {
	ranges := FlagRanges[fs.Name()]
	DocumentRanges(fs, ranges)
	if code, done := ParseFlags(fs, args, printConfig, embedded, stdout, stderr); done {
		return code, done
	}
	if err := CheckRanges(fs, ranges); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return 2, true
	}
	return 0, false
}

// RangeCase is a value out of a flag's range, for the commands' tests of
// their ranges: every one must be refused with exit status 2 and a
// message naming the flag.
type RangeCase struct{ Flag, Value string }

// OutOfRange returns, for each of fs's numeric flags (sorted), the values
// just out of its documented range in ranges: its maximum plus one, its
// minimum minus one, and NaN for a flag that takes fractions. A flag with
// no documented range gets none: the tests check that separately.
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
		if _, fraction := fs.Lookup(name).Value.(flag.Getter).Get().(float64); fraction {
			out = append(out, RangeCase{name, "NaN"})
		}
	}
	return out
}
