package datasets

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DecodeGames is ReadGamesFile of a games file's contents data; name
// stands for the file in errors. Programs that open files through a
// restricted root (the web page's server) read the bytes themselves and
// hand them here.
func DecodeGames(name string, data []byte) ([]GameRow, Meta, error) {
	rows, meta, err := decodeGames(data, memory.DefaultAllocator)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("datasets: %s: %w", name, err)
	}
	return rows, meta, nil
}
