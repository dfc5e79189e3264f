package configs

import (
	"embed"
	"path"
)

// The opening suites of the shipped rule sets, one file each
// (openings/NAME.txt): start positions for gates, ratings and balance runs
// chosen so that equal players split their results (openings.ParseSuite reads
// them; eval suite builds them).
//
//go:embed openings
var openingFiles embed.FS

// OpeningSuite returns the embedded opening suite of the rule set name, and
// false if it has none.
func OpeningSuite(name string) ([]byte, bool) {
	data, err := openingFiles.ReadFile(path.Join("openings", name+".txt"))
	return data, err == nil
}
