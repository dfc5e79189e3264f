package datasets

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"taflab/internal/errctx"
)

// decodeGameRows is ReadGamesFile of a games table's contents data; name
// stands for the file in errors.
func decodeGameRows(name string, data []byte) ([]GameRow, Meta, error) {
	rows, meta, err := decodeGames(data, memory.DefaultAllocator)
	if err != nil {
		return nil, Meta{}, errctx.Errorf("datasets", "%s: %w", name, err)
	}
	return rows, meta, nil
}
