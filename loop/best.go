package loop

import (
	"encoding/json"
	"fmt"
	"time"

	"taflab/internal/fileio"
)

// BestPointer is the best-network pointer that gating writes: which network
// self-play and the next gate should use.
type BestPointer struct {
	Network  string    `json:"network"` // the network file
	Hash     string    `json:"hash,omitempty"`
	Promoted time.Time `json:"promoted"`
	Match    string    `json:"match,omitempty"` // the folder of the match that promoted it
	Elo      float64   `json:"elo"`             // its Elo over the previous best in that match
	LLR      float64   `json:"llr"`
}

// ReadBestPointer reads a best-network pointer.
func ReadBestPointer(path string) (BestPointer, error) {
	data, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "a best-network pointer")
	if err != nil {
		return BestPointer{}, fmt.Errorf("loop: best-network pointer: %w", err)
	}
	var p BestPointer
	if err := json.Unmarshal(data, &p); err != nil || p.Network == "" {
		return BestPointer{}, fmt.Errorf("loop: best-network pointer %s: not a pointer (%v)", path, err)
	}
	return p, nil
}
