package balance

import (
	"context"
	"errors"
	"fmt"
	"io"

	"taflab/archive"
	"taflab/datasets"
	"taflab/internal/errctx"
	"taflab/match"
	"taflab/rules"
)

// RecordFile is a file of game records, read (datasets.ReadRecords).
type RecordFile struct {
	Name    string // as the report names the file
	Records []rules.Record
}

// Endings of recorded games that the rules did not end on the last move.
const (
	EndTimedOut     = "timed-out"             // the record ends in timeout
	EndResigned     = "resigned-or-timed-out" // a result without the rules' end
	EndAgreedDraw   = "draw-agreed"
	EndPastRulesEnd = "past-rules-end" // moves after the rules' end: the server did not enforce every rule
	EndUnfinished   = "unfinished"     // an Ongoing record
	EndIllegal      = "illegal-move"   // a move the rules refuse; the stated result still counts
)

// ReportRecords replays a record file's games under v and reports them.
// The winner is the record's result; Ongoing games count only among the
// endings. A game the rules end on its last recorded move has the rules'
// ending, any other one of the End endings.
func ReportRecords(rf RecordFile, v *rules.Variant, confidence float64) RecordsReport {
	r := RecordsReport{File: rf.Name, Variant: v.Name(), Games: len(rf.Records)}
	var t match.Tally
	for _, rec := range rf.Records {
		res := rules.Replay(v, rec.StartOr(v.Start()), rec.Moves, rec.Line)
		w := rec.Result.Winner()
		var ending string
		switch {
		case res.Err != nil:
			ending = EndIllegal
			r.Illegal++
			if r.FirstError == "" {
				r.FirstError = rf.Name + ": " + res.Err.Error()
			}
		case res.Outcome.Over() && res.MovesAfterEnd == 0:
			ending = res.Outcome.Reason.String()
			if w != rules.NoWinner && w != res.Outcome.Winner {
				r.Disagree++
			}
		case res.Outcome.Over():
			ending = EndPastRulesEnd
		case rec.Result == rules.ResultOngoing:
			ending = EndUnfinished
		case rec.Timeout:
			ending = EndTimedOut
		case rec.Result == rules.ResultDraw:
			ending = EndAgreedDraw
		default:
			ending = EndResigned
		}
		if rec.Result == rules.ResultOngoing {
			r.Ongoing++
		}
		t.AddEnding(w, ending, len(rec.Moves))
	}
	r.Summary = summarize(&t, confidence)
	return r
}

// ReadRecordFile reads a game-record file (the archive CSV; an embedded
// archive's name such as archive:copenhagen; "-" for stdin), skipping
// blank lines and a header. Errors name the file and the line.
func ReadRecordFile(ctx context.Context, name string, stdin io.Reader) (RecordFile, error) {
	rf := RecordFile{Name: name}
	var in io.Reader
	if name == "-" {
		if stdin == nil {
			return rf, errors.New("standard input: not available")
		}
		in, rf.Name = stdin, "stdin"
	} else {
		f, err := archive.Open(name) // a file, or an embedded archive
		if err != nil {
			return rf, err
		}
		defer f.Close()
		in = f
	}
	// Within datasets' limits of a line and a file; errors name both.
	recs, err := datasets.ReadRecords(ctx, rf.Name, in)
	if err != nil {
		return rf, errors.New(errctx.MessageOf("datasets", err))
	}
	if rf.Records = recs; len(recs) == 0 {
		return rf, fmt.Errorf("%s: no game records in it", rf.Name)
	}
	return rf, nil
}
