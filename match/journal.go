package match

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"taflab/internal/fileio"
)

// A journal of finished pairs keeps a match's games while it runs, one JSON
// object a line, so that an interrupted match carries on where it stopped
// (Config.Played): the loop's gates and "eval match -resume" keep one.

// AppendPair writes p as one line and flushes it to the disk, so that a
// pair counted by the test is a pair kept.
func AppendPair(f *os.File, p Pair) error {
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// ReadPairs reads a journal of finished pairs; a missing journal has none.
// A last line cut short (the process was killed while writing it) is
// dropped and cut from the file; any other bad line is an error naming it.
func ReadPairs(path string) ([]Pair, error) {
	data, err := fileio.ReadFileLimit(path, fileio.MaxRunFileBytes, "this file")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	var pairs []Pair
	good := 0 // bytes of whole lines
	for line := 1; good < len(data); line++ {
		end := bytes.IndexByte(data[good:], '\n')
		if end < 0 {
			break // the torn tail of a killed write
		}
		var p Pair
		if err := json.Unmarshal(data[good:good+end], &p); err != nil {
			return nil, fmt.Errorf("match: %s: line %d: %v", path, line, err)
		}
		for _, g := range p.Games {
			if !g.Outcome.Over() || len(g.Captures) != len(g.Moves) {
				return nil, fmt.Errorf("match: %s: line %d: pair %d holds an unfinished or inconsistent game", path, line, p.Index)
			}
		}
		pairs = append(pairs, p)
		good += end + 1
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, fmt.Errorf("match: %w", err)
		}
	}
	return pairs, nil
}
