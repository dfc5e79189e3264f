package datasets

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
	"strings"

	"taflab/internal/errctx"
	"taflab/rules"
)

// RecordSet is a file of game records replayed under a rule set and held
// compactly, for drawing training positions from: each ply's move (2
// bytes), every checkpointEvery'th position of each game (40 bytes) and
// 12 bytes a game, some 4 bytes a ply in all for games of 50 plies, where
// Game holds some 64 (every position and move). A position is made again, when asked for, from the
// checkpoint before it. Training reads a game-record file of up to
// MaxRecordFileBytes this way, a line at a time (ReadRecordSet): the file
// itself is never held whole.
type RecordSet struct {
	variant     *rules.Variant
	moves       blocks[rules.Move]     // every game's moves, one game after another
	checkpoints blocks[rules.Position] // every game's positions at plies 0, k, 2k, ... (k = checkpointEvery)
	games       []gameSpan
}

// blocks is a list held in blocks of blockLen items, so that it grows
// without copying what it holds or keeping a doubled array's unused half:
// a record set of 256 MiB of records holds some 140 MB this way, where
// growing slices took twice that at their peak.
type blocks[T any] struct {
	b [][]T
	n int
}

// blockLen is the items a block holds.
const blockLen = 1 << 16

func (l *blocks[T]) append(items ...T) {
	for _, it := range items {
		if l.n%blockLen == 0 {
			l.b = append(l.b, make([]T, 0, blockLen))
		}
		last := &l.b[len(l.b)-1]
		*last = append(*last, it)
		l.n++
	}
}

func (l *blocks[T]) at(i int) T { return l.b[i/blockLen][i%blockLen] }

func (l *blocks[T]) len() int { return l.n }

// gameSpan is where a game of a RecordSet lies in its lists (its first
// move and checkpoint) and its result: the set holds no Game.
type gameSpan struct {
	firstPly, firstCheckpoint uint32
	winner                    rules.Winner
}

// checkpointEvery is how many plies apart a RecordSet keeps positions: a
// position drawn is made again with at most checkpointEvery-1 moves.
const checkpointEvery = 32

// ReadRecordSet reads the game-record file name from r a line at a time,
// within the limits of ScanRecordLines, and replays every record under v
// as ParseRecordGames does (strictly: a record the rules refuse is an error
// naming the file, the line and the ply). It keeps the records whose line
// keep accepts (nil: every one) and returns them with the CRC-32C
// (Castagnoli) of every byte read: the file's, read to its end. When ctx
// is done it stops with ctx's error.
func ReadRecordSet(ctx context.Context, name string, r io.Reader, v *rules.Variant, keep func(line int) bool) (*RecordSet, uint32, error) {
	sum := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	s := &RecordSet{variant: v}
	g := rules.NewGame(v)
	records := 0
	err := ScanRecordLines(ctx, name, io.TeeReader(r, sum), func(line int, text string) error {
		if strings.TrimSpace(text) == "" || line == 1 && rules.IsRecordHeader(text) {
			return nil
		}
		rec, err := rules.ParseRecord(line, text)
		if err != nil {
			return errctx.Key("datasets", name, err)
		}
		game, err := replayRecord(g, v, records, rec)
		records++
		if err != nil {
			return errctx.Key("datasets", name, err)
		}
		if keep == nil || keep(line) {
			if err := s.add(&game); err != nil {
				return errctx.Errorf("datasets", "%s: line %d: %w", name, line, err)
			}
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, 0, err
	}
	if records == 0 {
		return nil, 0, errctx.Errorf("datasets", "%s: no game records in it", name)
	}
	return s, sum.Sum32(), nil
}

// add keeps a replayed game: its moves, and its positions every
// checkpointEvery plies.
func (s *RecordSet) add(game *Game) error {
	if s.moves.len()+len(game.Moves) > 1<<32-1 {
		return errors.New("more plies than a record set holds (4,294,967,295)")
	}
	s.games = append(s.games, gameSpan{firstPly: uint32(s.moves.len()), firstCheckpoint: uint32(s.checkpoints.len()), winner: game.Winner})
	for i := 0; i < len(game.Moves); i += checkpointEvery {
		s.checkpoints.append(game.Positions[i])
	}
	for _, m := range game.Moves {
		s.moves.append(m.Move)
	}
	return nil
}

// Len returns the positions the set holds: one for every move of every
// game kept.
func (s *RecordSet) Len() int { return s.moves.len() }

// Games returns the games the set holds.
func (s *RecordSet) Games() int { return len(s.games) }

// Variant returns the rule set the records were replayed under.
func (s *RecordSet) Variant() *rules.Variant { return s.variant }

// At returns position i of the set (its games' positions in order, each
// before its move), made again on g (a game of the set's rule set, the
// caller's scratch): the position, the move played there, and the game's
// result for the side to move (Game.Result: ok is false for a game
// without one).
func (s *RecordSet) At(i int, g *rules.Game) (p rules.Position, m rules.Move, result int8, ok bool) {
	gi := sort.Search(len(s.games), func(k int) bool { return int(s.games[k].firstPly) > i }) - 1
	sg := &s.games[gi]
	ply := i - int(sg.firstPly)
	cp := ply / checkpointEvery
	if err := g.ResetTo(s.checkpoints.at(int(sg.firstCheckpoint) + cp)); err != nil {
		panic(fmt.Sprintf("datasets: a record set's checkpoint: %v", err)) // it was a position of the game
	}
	for j := int(sg.firstPly) + cp*checkpointEvery; j < i; j++ {
		g.Make(s.moves.at(j))
	}
	p = g.Position()
	result, ok = resultFor(sg.winner, p.ToMove)
	return p, s.moves.at(i), result, ok
}
