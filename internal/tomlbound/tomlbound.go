// Package tomlbound decodes TOML within bounds checked before the decoder
// allocates anything: the file's size, how deep its values nest, how long
// a key's path is and how many keys and values it holds. Every TOML file
// taflab reads (rule sets, run configs, a dataset's rule-set metadata, a
// run's variant.toml, the web page's rule-set text) goes through Decode.
//
//	md, err := tomlbound.Decode(data, &cfg) // *tomlbound.LimitError past a bound
//
// Why a check before the decoder: github.com/BurntSushi/toml keeps, for
// every key and every implicit table, the whole dotted path as a string
// (its MetaData and the parser's bookkeeping), so a key path of n parts
// costs it some n² bytes: an 80 KB table header of 40,000 parts took 1.6
// GB, and inline tables 10,000 deep 4.2 GB. Check scans the file once in
// linear time and constant memory per level, following the decoder's own
// grammar (strings basic, literal and multi-line, comments, arrays, inline
// tables with newlines, dotted keys, [table] and [[array]] headers), and
// refuses a file past MaxBytes, MaxDepth, MaxKeyBytes or MaxValues with
// the line where the bound was passed. Within the bounds the decoder's
// cost is linear in the file (TestMemoryDecode measures it).
//
// Errors carry no package prefix: the caller adds its own and the file's
// name.
package tomlbound

import (
	"bytes"
	"fmt"

	"github.com/BurntSushi/toml"
)

// The bounds of a TOML file. The largest real files (a loop config, a
// rule set) are a few KB, nest 4 deep and hold some 150 values.
const (
	// MaxBytes is the largest TOML file read: 1 MiB.
	MaxBytes = 1 << 20
	// MaxDepth is the most tables, arrays and inline tables a value may
	// sit in (the file itself not counted): x = 1 is 0 deep, [a] x = 1 is
	// 1, x = [[1]] is 2, and an element of [[a]] is in the array and its
	// table, 2.
	MaxDepth = 16
	// MaxKeyBytes bounds a key's whole path, its parts' decoded bytes
	// added up (the table header's, the dotted key's, the enclosing inline
	// tables'): 1 KiB.
	MaxKeyBytes = 1 << 10
	// MaxValues is the most keys, table headers and array elements a file
	// may hold.
	MaxValues = 10_000
)

// LimitError is Check's error: the file passes one of the bounds.
type LimitError struct {
	Line  int    // the line where the bound was passed, from 1 (0 for the size)
	What  string // "more than 1048576 bytes", "nested 17 deep", ...
	Bound string // "the most a TOML file may hold", ...
}

func (e *LimitError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s, %s", e.What, e.Bound)
	}
	return fmt.Sprintf("line %d: %s, %s", e.Line, e.What, e.Bound)
}

// Decode checks data's bounds (Check) and then decodes it into dst with
// github.com/BurntSushi/toml, returning the decoder's metadata and error
// as it gives them (toml.ParseError for a syntax error).
func Decode(data []byte, dst any) (toml.MetaData, error) {
	if err := Check(data); err != nil {
		return toml.MetaData{}, err
	}
	return toml.NewDecoder(bytes.NewReader(data)).Decode(dst)
}

// Check returns a *LimitError when data passes one of the bounds, and nil
// otherwise, syntax errors included (the decoder reports those, with its
// own messages; it stops at the first, and Check has bounded everything
// before it).
func Check(data []byte) error {
	if len(data) > MaxBytes {
		return &LimitError{What: fmt.Sprintf("more than %d bytes", MaxBytes), Bound: "the most a TOML file may hold"}
	}
	s := scanner{data: data, line: 1}
	s.document()
	return s.err
}

// Stats is what Scan measured of a file, for tests that compare it with
// what the decoder made.
type Stats struct {
	Depth  int  // the deepest value's depth (MaxDepth's measure); -1 for none
	Keys   int  // table headers and keys (inline tables' included): the decoder's MetaData.Keys
	Values int  // keys, table headers and array elements (MaxValues's measure)
	GaveUp bool // the scan met a syntax error and stopped there
}

// Scan is Check returning what it measured as well; the bounds stop it as
// they stop Check.
func Scan(data []byte) (Stats, error) {
	if len(data) > MaxBytes {
		return Stats{}, Check(data)
	}
	s := scanner{data: data, line: 1, depth: -1}
	s.document()
	return Stats{Depth: s.depth, Keys: s.keys, Values: s.values, GaveUp: s.gaveUp}, s.err
}
