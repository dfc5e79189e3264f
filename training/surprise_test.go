package training

import (
	"math"
	"testing"

	"taflab/datasets"
	"taflab/net"
)

// TestWeighSurprise: full-search positions weigh by their surprise over the
// batch's mean, at the share asked; cheap searches and positions of unknown
// surprise weigh 1.
func TestWeighSurprise(t *testing.T) {
	rows := []datasets.PositionRow{
		{FullSearch: true, Surprise: 0.2},
		{FullSearch: true, Surprise: 0.6},
		{FullSearch: true},                 // unknown: a file of schema version 2
		{FullSearch: false, Surprise: 0.4}, // a cheap search has no target
	}
	for _, c := range []struct {
		share float64
		want  []float32 // the samples' Weight; 0 reads as 1
	}{
		// The mean of the known ones is 0.4: 0.5 + 0.5*0.5, 0.5 + 0.5*1.5.
		{0.5, []float32{0.75, 1.25, 0, 0}},
		{1, []float32{0.5, 1.5, 0, 0}},
	} {
		samples := make([]net.Sample, len(rows))
		weighSurprise(rows, samples, c.share)
		for i := range rows {
			if math.Abs(float64(samples[i].Weight-c.want[i])) > 1e-6 {
				t.Errorf("share %v, row %d: got weight %v, want %v", c.share, i, samples[i].Weight, c.want[i])
			}
		}
	}
	t.Run("no surprise known", func(t *testing.T) {
		samples := make([]net.Sample, 2)
		weighSurprise([]datasets.PositionRow{{FullSearch: true}, {}}, samples, 0.5)
		if samples[0].Weight != 0 || samples[1].Weight != 0 {
			t.Errorf("got weights %v and %v, want both left to read as 1", samples[0].Weight, samples[1].Weight)
		}
	})
}
