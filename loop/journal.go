package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"taflab/internal/fileio"
	"taflab/match"
)

// PairsJournalSuffix names a match's journal of finished pairs, next to its
// folder (gen-001/gate.pairs.jsonl for gen-001/gate): one JSON object a
// line, written while the match runs and removed when it is done.
const PairsJournalSuffix = ".pairs.jsonl"

// appendPair writes p as one line and flushes it to the disk, so that a
// pair counted by the test is a pair kept.
func appendPair(f *os.File, p match.Pair) error {
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// readPairs reads a journal of finished pairs; a missing journal has none.
// A last line cut short (the process was killed while writing it) is
// dropped and cut from the file; any other bad line is an error naming it.
func readPairs(path string) ([]match.Pair, error) {
	data, err := fileio.ReadFileLimit(path, fileio.MaxRunFileBytes, "this file")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	var pairs []match.Pair
	good := 0 // bytes of whole lines
	for line := 1; good < len(data); line++ {
		end := bytes.IndexByte(data[good:], '\n')
		if end < 0 {
			break // the torn tail of a killed write
		}
		var p match.Pair
		if err := json.Unmarshal(data[good:good+end], &p); err != nil {
			return nil, fmt.Errorf("loop: %s: line %d: %v", path, line, err)
		}
		for _, g := range p.Games {
			if !g.Outcome.Over() || len(g.Captures) != len(g.Moves) {
				return nil, fmt.Errorf("loop: %s: line %d: pair %d holds an unfinished or inconsistent game", path, line, p.Index)
			}
		}
		pairs = append(pairs, p)
		good += end + 1
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
	}
	return pairs, nil
}
