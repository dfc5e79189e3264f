package match

import (
	"context"
	"maps"
	"slices"

	"taflab/stats"
)

// Result is a finished match under a sequential test.
type Result struct {
	// Report is the test's state when the match stopped.
	Report stats.Report
	// Pairs are the pairs the test counted, in index order: every finished
	// pair but those that finished after the test decided.
	Pairs []Pair
	// Why the match stopped: "decided" (the test accepted a hypothesis),
	// "max-pairs" or "interrupted".
	Stopped string
}

// RunSPRT plays a match under the pentanomial SPRT test (A is the
// candidate): it stops as soon as the test decides, after cfg.MaxPairs
// pairs, or when ctx is done (Stopped says which; an interrupted match
// returns its result so far and ctx's error). The test counts the pairs in
// index order, those of cfg.Played among them, whatever order they finish
// in, so that a match decides after the same pairs on any number of
// workers; a test the played pairs already decide plays nothing more.
// onPair, if set, sees each newly played pair as it finishes (to keep it,
// say) and the report after the pairs counted so far.
func RunSPRT(ctx context.Context, cfg Config, test stats.SPRT, onPair func(Pair, stats.Report)) (Result, error) {
	if err := test.Validate(); err != nil {
		return Result{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	counter := newInOrder(test)
	for _, p := range cfg.Played {
		counter.add(p)
	}
	var err error
	if counter.report.Decision == stats.Continue && len(cfg.Played) < cfg.MaxPairs {
		err = Play(ctx, cfg, func(p Pair) bool {
			counter.add(p)
			if onPair != nil {
				onPair(p, counter.report)
			}
			return counter.report.Decision == stats.Continue
		})
		if err != nil {
			// Interrupted: the pairs past an unfinished one count too.
			counter.flush()
		}
	}
	res := Result{Report: counter.report, Pairs: counter.counted}
	switch {
	case res.Report.Decision != stats.Continue:
		res.Stopped = "decided"
	case err != nil:
		res.Stopped = "interrupted"
	default:
		res.Stopped = "max-pairs"
	}
	return res, err
}

// inOrder feeds a sequential test the pairs of a match in index order: a
// pair that finishes before one with a smaller index waits until that one
// is in (or the match is interrupted), and none is counted once the test
// has decided. With several
// workers pairs finish in an order that depends on timing; counting them
// in that order would make the decision, and the pairs behind it, differ
// between two runs of the same match.
type inOrder struct {
	test    stats.SPRT
	tally   stats.PairTally
	report  stats.Report // the test's report on the counted pairs
	counted []Pair       // in index order
	ahead   map[int]Pair // finished pairs past the first missing index
	next    int          // the index of the next pair to count in order
}

func newInOrder(test stats.SPRT) *inOrder {
	o := &inOrder{test: test, ahead: map[int]Pair{}}
	o.report = test.Report(o.tally)
	return o
}

// add takes a finished pair and counts every pair it makes countable.
func (o *inOrder) add(p Pair) {
	o.ahead[p.Index] = p
	for o.report.Decision == stats.Continue {
		next, ok := o.ahead[o.next]
		if !ok {
			return
		}
		o.next++
		delete(o.ahead, next.Index)
		o.count(next)
	}
}

// flush counts the pairs still waiting, in index order, until the test
// decides: for a match that stops with pairs missing before them.
func (o *inOrder) flush() {
	for _, i := range slices.Sorted(maps.Keys(o.ahead)) {
		if o.report.Decision != stats.Continue {
			return
		}
		o.count(o.ahead[i])
		delete(o.ahead, i)
	}
}

func (o *inOrder) count(p Pair) {
	if err := o.tally.Add(p.Games[0].ScoreA(), p.Games[1].ScoreA()); err != nil {
		panic(err) // ScoreA gives 0, 0.5 or 1
	}
	o.counted = append(o.counted, p)
	o.report = o.test.Report(o.tally)
}
