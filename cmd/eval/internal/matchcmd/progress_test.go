package matchcmd

import (
	"testing"

	"taflab/stats"
)

// TestPairNote: the progress line says how many pairs the test counts
// where that is fewer than have finished (a resume, pairs ending out of
// order), and nothing more where they are the same.
func TestPairNote(t *testing.T) {
	r := stats.Report{LLR: 1.5, Lower: -2.94, Upper: 2.94, Elo: 40, EloLo: -10, EloHi: 90, Pairs: 2}
	for _, c := range []struct {
		finished int
		want     string
	}{
		{2, "LLR 1.50 (-2.94, 2.94), Elo 40 [-10, 90]"},
		{36, "LLR 1.50 (-2.94, 2.94), Elo 40 [-10, 90] over the first 2 in order"},
	} {
		if got := pairNote(c.finished, r); got != c.want {
			t.Errorf("pairNote(%d): got %q, want %q", c.finished, got, c.want)
		}
	}
}
