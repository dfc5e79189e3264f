package datasets

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchRows returns n positions of copenhagen self-play by random moves.
func benchRows(b *testing.B, n int) []PositionRow {
	b.Helper()
	var rows []PositionRow
	for seed := uint64(0); len(rows) < n; seed++ {
		more, _ := genShard(b, defCopenhagen, 50, 300, seed)
		rows = append(rows, more...)
	}
	return rows[:n]
}

// go test ./datasets -run '^$' -bench . -benchmem
func BenchmarkEncodePositions(b *testing.B) {
	rows := benchRows(b, 100_000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := encodePositions(memory.DefaultAllocator, defCopenhagen, rows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkDecodePositions(b *testing.B) {
	rows := benchRows(b, 100_000)
	data, err := encodePositions(memory.DefaultAllocator, defCopenhagen, rows)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := decodePositions(data, memory.DefaultAllocator); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
