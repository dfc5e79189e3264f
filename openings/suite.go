package openings

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"taflab/internal/errctx"
	"taflab/match"
	"taflab/rules"
)

// An opening suite is a file of start positions for match play, one a line
// in position notation (the side to move last), such as
//
//	# copenhagen: kept where builtin:playouts=200 against itself won 2 to 6 of 8 games as defenders
//	3aaaaa3/5a5/11/a4d4a/a3ddd3a/aa1ddkdd1aa/a3ddd3a/a4d4a/11/5a5/3aaaaa3 a   # the start
//
// Text after '#' is a comment; blank lines are skipped. A suite is chosen so
// that equal players split their results from its positions: from the start
// of hnefatafl the defenders win nearly every game between engines of this
// strength, so a match from the start sees every pair split 1-1 and cannot
// tell two players apart, as fishtest's unbalanced-opening books answer the
// same problem in chess. Users can swap the file for their own.

// SuiteEntry is one position of a suite with its comment.
type SuiteEntry struct {
	Position rules.Position
	Comment  string // "" for none
}

// ParseSuite reads an opening suite for rule set v; file names it in
// errors. Every position must be one of v's boards, a legal position of it
// (one king, no piece on a restricted square it may not stand on) from
// which a game can start (rules.Variant.CheckStart). Errors name the file
// and line.
func ParseSuite(file string, data []byte, v *rules.Variant) ([]SuiteEntry, error) {
	var entries []SuiteEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text, comment, _ := strings.Cut(sc.Text(), "#")
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		bad := func(format string, args ...any) error {
			return errctx.Errorf("openings", "%s: line %d: %s", file, line, fmt.Sprintf(format, args...))
		}
		p, err := rules.ParsePosition(text)
		if err != nil {
			return nil, bad("%v", errctx.Message(err))
		}
		if err := v.CheckStart(p); err != nil {
			return nil, bad("not a start of %s: %v", v.Name(), errctx.Message(err))
		}
		entries = append(entries, SuiteEntry{Position: p, Comment: strings.TrimSpace(comment)})
	}
	if err := sc.Err(); err != nil {
		return nil, errctx.Errorf("openings", "%s: %w", file, err)
	}
	if len(entries) == 0 {
		return nil, errctx.Errorf("openings", "%s: no positions in it", file)
	}
	return entries, nil
}

// FormatSuite writes a suite: header lines (each written as a comment), then
// one entry a line.
func FormatSuite(header []string, entries []SuiteEntry) []byte {
	var b bytes.Buffer
	for _, h := range header {
		b.WriteString(strings.TrimRight("# "+h, " ") + "\n")
	}
	for _, e := range entries {
		b.WriteString(e.Position.String())
		if e.Comment != "" {
			b.WriteString("  # " + e.Comment)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// SuiteOpenings turns a suite into match openings.
func SuiteOpenings(entries []SuiteEntry) []match.Opening {
	out := make([]match.Opening, len(entries))
	for i, e := range entries {
		out[i] = match.Opening{Start: e.Position}
	}
	return out
}
