package match

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"taflab/rules"
	"taflab/stats"
)

// pairScoring returns a finished pair in which A scores a (as attacker) and
// d (as defender), each 0, 0.5 or 1.
func pairScoring(index int, a, d float64) Pair {
	outcome := func(score float64, aAttacks bool) rules.Outcome {
		switch {
		case score == 0.5:
			return rules.Outcome{Winner: rules.Draw}
		case (score == 1) == aAttacks:
			return rules.Outcome{Winner: rules.AttackersWin}
		default:
			return rules.Outcome{Winner: rules.DefendersWin}
		}
	}
	return Pair{Index: index, Games: [2]Game{
		{Pair: index, AAttacks: true, Outcome: outcome(a, true)},
		{Pair: index, AAttacks: false, Outcome: outcome(d, false)},
	}}
}

// TestInOrderCountsByIndex feeds the test the same pairs in several
// orders: it counts them in index order and decides after the same pairs
// whatever the order they come in.
func TestInOrderCountsByIndex(t *testing.T) {
	test := stats.SPRT{Elo0: 0, Elo1: 100, Alpha: 0.1, Beta: 0.1}
	rng := rand.New(rand.NewPCG(4, 4))
	scores := []float64{0, 0.5, 1}
	pairs := make([]Pair, 60)
	for i := range pairs {
		pairs[i] = pairScoring(i, scores[rng.IntN(3)], scores[rng.IntN(3)])
	}
	// A run of wins for A from pair 20 on decides the test there, so
	// that pairs finishing early past the decision must not count.
	for i := 20; i < len(pairs); i++ {
		pairs[i] = pairScoring(i, 1, 1)
	}
	want := newInOrder(test)
	for _, p := range pairs {
		want.add(p)
	}
	if want.report.Decision == stats.Continue || len(want.counted) == len(pairs) {
		t.Fatalf("got %d pairs counted, decision %v: want the test to decide before pair %d", len(want.counted), want.report.Decision, len(pairs))
	}
	for trial := range 5 {
		t.Run(fmt.Sprintf("order %d", trial), func(t *testing.T) {
			shuffled := append([]Pair(nil), pairs...)
			rng := rand.New(rand.NewPCG(uint64(trial), 9))
			// Shuffle within windows of 8, as workers finish pairs a few
			// places out of order.
			for lo := 0; lo < len(shuffled); lo += 8 {
				hi := min(lo+8, len(shuffled))
				rng.Shuffle(hi-lo, func(i, j int) { shuffled[lo+i], shuffled[lo+j] = shuffled[lo+j], shuffled[lo+i] })
			}
			got := newInOrder(test)
			for _, p := range shuffled {
				got.add(p)
			}
			if got.report != want.report {
				t.Errorf("got report %v, want %v", got.report, want.report)
			}
			if len(got.counted) != len(want.counted) {
				t.Fatalf("got %d pairs counted, want %d", len(got.counted), len(want.counted))
			}
			for i, p := range got.counted {
				if p.Index != i {
					t.Fatalf("got pair %d counted %dth, want pair %d", p.Index, i, i)
				}
			}
		})
	}
}

// TestInOrderFlush: a match interrupted with a pair missing counts the
// pairs past it too, in index order.
func TestInOrderFlush(t *testing.T) {
	o := newInOrder(stats.SPRT{Elo0: 0, Elo1: 1, Alpha: 1e-9, Beta: 1e-9}) // never decides here
	for _, i := range []int{4, 0, 3, 1} {
		o.add(pairScoring(i, 1, 0))
	}
	if got := len(o.counted); got != 2 {
		t.Fatalf("got %d pairs counted before the flush, want 2 (pairs 0 and 1)", got)
	}
	o.flush()
	var got []int
	for _, p := range o.counted {
		got = append(got, p.Index)
	}
	if want := []int{0, 1, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("got pairs %v counted, want %v", got, want)
	}
	if o.report.Pairs != 4 {
		t.Errorf("got a report on %d pairs, want 4", o.report.Pairs)
	}
}
