package match

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"slices"
	"sync"

	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/rules"
)

// A journal of finished pairs keeps a match's games while it runs, one line
// a pair, so that an interrupted match carries on where it stopped
// (Config.Played): the loop's gates and "eval match -resume" keep one. A
// line is the pair as JSON, a tab and the CRC-32C (Castagnoli) of the JSON
// in 8 hex digits; reading it back checks the checksum and replays its
// games (Config.CheckJournal), so that a line damaged or changed is
// refused, naming it, rather than taken into the match's results. A line
// without a checksum, written before there were any, is replayed only.

var journalCRC = crc32.MakeTable(crc32.Castagnoli)

// AppendPair writes p as one line, with its checksum, and flushes it to
// the disk, so that a pair counted by the test is a pair kept.
func AppendPair(f *os.File, p Pair) error {
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	line = fmt.Appendf(line, "\t%08x\n", crc32.Checksum(line, journalCRC))
	if _, err := f.Write(line); err != nil {
		return err
	}
	return f.Sync()
}

// ReadPairs reads a journal of finished pairs, a line a pair in the order
// of its lines; a missing journal has none. A last line cut short (the
// process was killed while writing it) is dropped and cut from the file;
// any other line that is not a pair, or whose checksum is not its own, is
// an error naming it. Its games are not replayed: Config.CheckJournal does.
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
		text := data[good : good+end]
		if tab := bytes.LastIndexByte(text, '\t'); tab >= 0 {
			var sum uint32
			if _, err := fmt.Sscanf(string(text[tab+1:]), "%08x", &sum); err != nil || len(text)-tab-1 != 8 {
				return nil, errctx.Errorf("match", "%s: line %d: %q is not a checksum", path, line, clip(string(text[tab+1:])))
			}
			text = text[:tab]
			if got := crc32.Checksum(text, journalCRC); got != sum {
				return nil, errctx.Errorf("match", "%s: line %d: the checksum is %08x, the line's own %08x: the line was changed or damaged", path, line, sum, got)
			}
		}
		var p Pair
		if err := json.Unmarshal(text, &p); err != nil {
			return nil, errctx.Errorf("match", "%s: line %d: %v", path, line, err)
		}
		for _, g := range p.Games {
			if !g.Outcome.Over() || len(g.Captures) != len(g.Moves) {
				return nil, errctx.Errorf("match", "%s: line %d: pair %d holds an unfinished or inconsistent game", path, line, p.Index)
			}
		}
		pairs = append(pairs, p)
		good += end + 1
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, errctx.Errorf("match", "%w", err)
		}
	}
	return pairs, nil
}

// clip shortens text quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// CheckJournal checks the pairs read back from a match's journal at path
// (ReadPairs; pairs[k] is its line k+1) against the match: each pair of
// the match's range and given once, its two games the pair's (A attacking
// the first), each from the pair's opening (its start, then its moves),
// every move legal under the rules with the captures the rules make, and
// each ending as it says: by the rules, or by a forfeit while the rules
// had not ended it. A pair that fails is an error naming the line. Without
// a Variant nothing is replayed.
func (c *Config) CheckJournal(path string, pairs []Pair) error {
	seen := map[int]bool{}
	for k, p := range pairs {
		if err := c.checkPair(p, seen); err != nil {
			return errctx.Key("match", fmt.Sprintf("%s: line %d: pair %d", path, k+1, p.Index), err)
		}
	}
	return nil
}

// checkPair is CheckJournal's check of one pair; seen holds the pairs
// checked before.
func (c *Config) checkPair(p Pair, seen map[int]bool) error {
	if p.Index < 0 || c.MaxPairs > 0 && p.Index >= c.MaxPairs || seen[p.Index] {
		return fmt.Errorf("want distinct pairs from 0 to %d", c.MaxPairs-1)
	}
	seen[p.Index] = true
	if c.Variant == nil {
		return nil
	}
	o := c.opening(p.Index)
	for half, g := range p.Games {
		name := [2]string{"A attacking", "B attacking"}[half]
		if g.Pair != p.Index || g.AAttacks != (half == 0) {
			return fmt.Errorf("the game of %s is another pair's or half's (pair %d, A attacking %v)", name, g.Pair, g.AAttacks)
		}
		if err := c.replayGame(o, g); err != nil {
			return errctx.Key("match", "the game of "+name, err)
		}
	}
	return nil
}

// replayGame replays a finished game of a journal from its opening o.
func (c *Config) replayGame(o Opening, g Game) error {
	if g.Start != o.Start {
		return fmt.Errorf("it starts from %s, not from its opening's %s", g.Start, o.Start)
	}
	if len(g.Moves) < len(o.Moves) || !slices.Equal(g.Moves[:len(o.Moves)], o.Moves) {
		return fmt.Errorf("its moves do not begin with its opening's %d", len(o.Moves))
	}
	game, err := startGame(c.Variant, o)
	if err != nil {
		return err
	}
	for i, m := range g.Moves {
		if game.Outcome().Over() {
			return fmt.Errorf("ply %d: %s after the rules ended the game (%v)", i+1, m, game.Outcome())
		}
		if err := game.Play(m); err != nil {
			return errctx.Key("match", fmt.Sprintf("ply %d", i+1), err)
		}
		if _, captured := game.LastMove(); captured != g.Captures[i] {
			return fmt.Errorf("ply %d: %s captures %v by the rules, the journal says %v", i+1, m, captured, g.Captures[i])
		}
	}
	switch {
	case g.Forfeit == "" && game.Outcome() != g.Outcome:
		return fmt.Errorf("it ends %v by the rules, the journal says %v", game.Outcome(), g.Outcome)
	case g.Forfeit != "" && game.Outcome().Over():
		return fmt.Errorf("a forfeit (%s) of a game the rules ended (%v)", g.Forfeit, game.Outcome())
	case g.Forfeit != "" && g.Outcome.Winner != rules.AttackersWin && g.Outcome.Winner != rules.DefendersWin:
		return fmt.Errorf("a forfeit (%s) won by %v: want the attackers or the defenders", g.Forfeit, g.Outcome.Winner)
	}
	return nil
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
		return errctx.Errorf("match", "%w", err)
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
		return nil, errctx.Errorf("match", "%s: %v", path, err)
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
		return nil, errctx.Errorf("match", "%w", err)
	}
	return data, nil
}
