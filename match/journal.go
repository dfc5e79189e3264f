package match

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"

	"taflab/internal/fileio"
	"taflab/rules"
)

// A journal of finished pairs keeps a match's games while it runs, one JSON
// object a line, so that an interrupted match carries on where it stopped
// (Config.Played): the loop's gates and "eval match -resume" keep one.

// AppendPair writes p as one line and flushes it to the disk, so that a
// pair counted by the test is a pair kept.
func AppendPair(f *os.File, p Pair) error {
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// ReadPairs reads a journal of finished pairs; a missing journal has none.
// A last line cut short (the process was killed while writing it) is
// dropped and cut from the file; any other bad line is an error naming it.
func ReadPairs(path string) ([]Pair, error) {
	data, err := readRunFile(path, fileio.MaxRunFileBytes)
	if data == nil {
		return nil, err
	}
	var pairs []Pair
	good := 0 // bytes of whole lines
	for line := 1; good < len(data); line++ {
		end := bytes.IndexByte(data[good:], '\n')
		if end < 0 {
			break // the torn tail of a killed write
		}
		var p Pair
		if err := json.Unmarshal(data[good:good+end], &p); err != nil {
			return nil, fmt.Errorf("match: %s: line %d: %v", path, line, err)
		}
		for _, g := range p.Games {
			if !g.Outcome.Over() || len(g.Captures) != len(g.Moves) {
				return nil, fmt.Errorf("match: %s: line %d: pair %d holds an unfinished or inconsistent game", path, line, p.Index)
			}
		}
		pairs = append(pairs, p)
		good += end + 1
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, fmt.Errorf("match: %w", err)
		}
	}
	return pairs, nil
}

// InPlay keeps the games of a match's unfinished pairs, so that an
// interrupted match carries them on from their moves (Config.Unfinished)
// rather than from their starts: Config.OnMove tells it of each move
// (Moved), Config.OnGameEnd of a game's end (Ended: one ended by a forfeit
// keeps it), a finished pair's games go (Finished), and Save writes the
// games whole to a file that ReadInPlay reads back. A game against an
// engine program can take hours; "eval match -resume" keeps one for such
// matches. Safe for concurrent use.
type InPlay struct {
	mu      sync.Mutex             // guards games and changed
	games   map[[2]int]*Unfinished // by pair and half
	changed bool                   // since the last Save
}

// NewInPlay returns a keeper that starts with games (an earlier run's,
// which are in play again).
func NewInPlay(games []Unfinished) *InPlay {
	k := &InPlay{games: map[[2]int]*Unfinished{}}
	for _, u := range games {
		u.Moves = slices.Clone(u.Moves)
		k.games[[2]int{u.Pair, u.Half}] = &u
	}
	return k
}

// Moved records a game's moves so far (Config.OnMove).
func (k *InPlay) Moved(pair, half int, moves []rules.Move) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.record(pair, half, moves)
}

// Ended records a game's end (Config.OnGameEnd).
func (k *InPlay) Ended(g Game) {
	half := 1
	if g.AAttacks {
		half = 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if u := k.record(g.Pair, half, g.Moves); g.Forfeit != "" {
		u.Forfeit = &Forfeit{Reason: g.Forfeit, Detail: g.ForfeitDetail, Winner: g.Outcome.Winner}
	}
}

// record keeps a game's moves, with k.mu held.
func (k *InPlay) record(pair, half int, moves []rules.Move) *Unfinished {
	u := k.games[[2]int{pair, half}]
	if u == nil {
		u = &Unfinished{Pair: pair, Half: half}
		k.games[[2]int{pair, half}] = u
	}
	u.Moves = append(u.Moves[:0], moves...)
	k.changed = true
	return u
}

// Finished forgets a finished pair's games.
func (k *InPlay) Finished(pair int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for half := range 2 {
		if _, ok := k.games[[2]int{pair, half}]; ok {
			delete(k.games, [2]int{pair, half})
			k.changed = true
		}
	}
}

// Forget forgets every game (the match is over).
func (k *InPlay) Forget() {
	k.mu.Lock()
	defer k.mu.Unlock()
	clear(k.games)
	k.changed = true
}

// Save writes the games to path, whole or not at all, if they changed
// since the last Save. The one caller that saves must not call it twice
// at once.
func (k *InPlay) Save(path string) error {
	k.mu.Lock()
	if !k.changed {
		k.mu.Unlock()
		return nil
	}
	games := []Unfinished{}
	for _, u := range k.games {
		c := *u
		c.Moves = slices.Clone(u.Moves)
		games = append(games, c)
	}
	k.changed = false
	k.mu.Unlock() // the moves go on while the file is written
	slices.SortFunc(games, func(a, b Unfinished) int { return cmp.Or(a.Pair-b.Pair, a.Half-b.Half) })
	if err := fileio.WriteJSON(path, games); err != nil {
		k.mu.Lock()
		k.changed = true // to be written again
		k.mu.Unlock()
		return fmt.Errorf("match: %w", err)
	}
	return nil
}

// MaxInPlayBytes bounds the file of games in play that ReadInPlay reads: a
// few games of at most some thousands of moves.
const MaxInPlayBytes = 8 << 20

// ReadInPlay reads the games in play that InPlay.Save wrote; a missing
// file has none. Config.Validate checks the moves.
func ReadInPlay(path string) ([]Unfinished, error) {
	data, err := readRunFile(path, MaxInPlayBytes)
	if data == nil {
		return nil, err
	}
	var games []Unfinished
	if err := json.Unmarshal(data, &games); err != nil {
		return nil, fmt.Errorf("match: %s: %v", path, err)
	}
	return games, nil
}

// readRunFile reads a file a match keeps while it runs, of at most limit
// bytes: nil and no error when there is none.
func readRunFile(path string, limit int64) ([]byte, error) {
	data, err := fileio.ReadFileLimit(path, limit, "this file")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	return data, nil
}
