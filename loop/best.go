package loop

import (
	"encoding/json"
	"path/filepath"
	"time"

	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/match"
	"taflab/stats"
)

// BestPointer is the best-network pointer that gating writes: which network
// self-play and the next gate should use.
type BestPointer struct {
	Network  string    `json:"network"` // the network file
	Promoted time.Time `json:"promoted"`
	Match    string    `json:"match,omitempty"` // the folder of the match that promoted it
	Elo      float64   `json:"elo"`             // its Elo over the previous best in that match
	LLR      float64   `json:"llr"`
}

// ReadBestPointer reads a best-network pointer.
func ReadBestPointer(path string) (BestPointer, error) {
	data, err := fileio.ReadFileLimit(path, fileio.MaxConfigBytes, "a best-network pointer")
	if err != nil {
		return BestPointer{}, errctx.Errorf("loop", "best-network pointer: %w", err)
	}
	var p BestPointer
	if err := json.Unmarshal(data, &p); err != nil || p.Network == "" {
		return BestPointer{}, errctx.Errorf("loop", "best-network pointer %s: not a pointer (%v)", path, err)
	}
	return p, nil
}

// Promote makes network the best one if its match f (A the network, its
// folder dir) accepted H1, A is stronger: it writes the best-network
// pointer at path (a run's BestFile, eval match -gate's -best) whole,
// naming the match and its result. It reports whether it promoted.
func Promote(path, network, dir string, f match.File) (bool, error) {
	if f.Report.Decision != stats.AcceptH1 {
		return false, nil
	}
	abs, err := filepath.Abs(network)
	if err != nil {
		return false, errctx.Errorf("loop", "promoting %s: %w", network, err)
	}
	p := BestPointer{Network: abs, Promoted: time.Now().UTC(), Match: dir, Elo: f.Report.Elo, LLR: f.Report.LLR}
	if err := fileio.WriteJSON(path, p); err != nil {
		return false, errctx.Errorf("loop", "%w", err)
	}
	return true, nil
}
