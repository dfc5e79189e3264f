package datasets

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"taflab/internal/errctx"
	"taflab/rules"
)

// shardTimeLayout is the time stamp that starts a ShardName: fixed width,
// UTC, so that names sort as times do.
const shardTimeLayout = "20060102T150405.000000000Z"

// ShardName returns a shard name, such as
// "20261130T161500.123456789Z-host1-4242-000001": the time t in UTC to the
// nanosecond, the worker and a sequence number. Names sort by time; two
// writers never clash if each has its own worker name (host and process id,
// for example). Characters of worker other than letters, digits, '-', '_'
// and '.' become '_'.
func ShardName(t time.Time, worker string, seq int) string {
	w := []byte(worker)
	for i, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			w[i] = '_'
		}
	}
	if len(w) == 0 {
		w = []byte("worker")
	}
	return fmt.Sprintf("%s-%s-%06d", t.UTC().Format(shardTimeLayout), w, seq)
}

// ParseShardName reads a shard name that ShardName made (without the file
// suffixes): its time, worker and sequence number. ok is false for a name
// of another form.
func ParseShardName(name string) (t time.Time, worker string, seq int, ok bool) {
	t, ok = shardTime(name)
	rest := name[min(len(name), len(shardTimeLayout)):]
	i := strings.LastIndexByte(rest, '-')
	if !ok || !strings.HasPrefix(rest, "-") || i < 2 {
		return time.Time{}, "", 0, false
	}
	digits := rest[i+1:]
	seq, err := strconv.Atoi(digits)
	if err != nil || len(digits) < 6 || strings.Trim(digits, "0123456789") != "" {
		return time.Time{}, "", 0, false
	}
	return t, rest[1:i], seq, true
}

// shardTime returns the time a shard name starts with, if it starts with
// one in ShardName's layout.
func shardTime(name string) (time.Time, bool) {
	if len(name) < len(shardTimeLayout) {
		return time.Time{}, false
	}
	t, err := time.Parse(shardTimeLayout, name[:len(shardTimeLayout)])
	return t, err == nil
}

// Window is the newest positions of a directory of shards, loaded in memory
// in the order of their game ids and plies, and served in a shuffled order
// that the seed, the positions and the offset fix: epoch e (offsets e*Len()
// to (e+1)*Len()-1) serves every position once, in a permutation drawn from
// a PCG generator seeded with (seed, e). Reopening the same shards with the same seed and setting a
// saved Offset resumes exactly where training stopped.
//
// A Window is not safe for concurrent use.
type Window struct {
	seed   uint64
	files  []string
	defs   []rules.Definition
	rows   []PositionRow
	perm   []int32
	epoch  int64 // the epoch perm holds; -1 before the first
	offset int64
}

type shard struct {
	path string
	name string
	time time.Time
}

// OpenWindow loads the newest positions of dir: the files named
// *.positions.arrow (not those starting with '.', such as the temporary
// files of a write in progress; nothing else), newest first, whole shards
// until it has newest positions; of the oldest shard it takes, it keeps only
// the last rows, which the writer wrote last. newest <= 0 takes every shard.
//
// Shards are ordered by the time stamp their names start with (see
// ShardName), or by the file's modification time for a name without one;
// ties go by name. Every file taken is read whole and checked; a bad one is
// an error naming it. So is a window with no positions, or two files that
// give one rule set's name to different definitions.
func OpenWindow(dir string, newest int, seed uint64) (*Window, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, errctx.Errorf("datasets", "%w", err)
	}
	var shards []shard
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, PositionsSuffix) || strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		sh := shard{path: filepath.Join(dir, name), name: name}
		t, ok := shardTime(name)
		if !ok {
			info, err := e.Info()
			if err != nil {
				return nil, errctx.Errorf("datasets", "%s: %w", sh.path, err)
			}
			t = info.ModTime()
		}
		sh.time = t
		shards = append(shards, sh)
	}
	slices.SortFunc(shards, func(a, b shard) int { // newest first
		if c := b.time.Compare(a.time); c != 0 {
			return c
		}
		return cmp.Compare(b.name, a.name)
	})

	paths := make([]string, len(shards))
	for i, sh := range shards {
		paths[i] = sh.path
	}
	return openFiles(dir, paths, newest, seed)
}

// OpenWindowFiles loads a window from the given positions files, newest
// first, as OpenWindow would from a directory holding just them: training
// resumes on exactly the window a checkpoint names (Files), even after new
// shards have arrived.
func OpenWindowFiles(files []string, newest int, seed uint64) (*Window, error) {
	return openFiles(strings.Join(files, ", "), files, newest, seed)
}

func openFiles(where string, paths []string, newest int, seed uint64) (*Window, error) {
	w := &Window{seed: seed, epoch: -1}
	var (
		chunks [][]PositionRow
		total  int
		defOf  = map[string]string{} // rule set name -> the file that defined it first
	)
	for _, path := range paths {
		sh := shard{path: path}
		if newest > 0 && total >= newest {
			break
		}
		rows, meta, err := ReadPositionsFile(sh.path)
		if err != nil {
			return nil, err
		}
		if first, ok := defOf[meta.Definition.Name]; ok {
			i := slices.IndexFunc(w.defs, func(d rules.Definition) bool { return d.Name == meta.Definition.Name })
			if w.defs[i] != meta.Definition {
				return nil, errctx.Errorf("datasets", "%s: rule set %q is defined otherwise than in %s", sh.path, meta.Definition.Name, first)
			}
		} else {
			defOf[meta.Definition.Name] = sh.path
			w.defs = append(w.defs, meta.Definition)
		}
		if newest > 0 && total+len(rows) > newest {
			rows = rows[len(rows)-(newest-total):]
		}
		w.files = append(w.files, sh.path)
		chunks = append(chunks, rows)
		total += len(rows)
	}
	if total == 0 {
		return nil, errctx.Errorf("datasets", "%s: no positions (%d positions files)", where, len(w.files))
	}
	if total > math.MaxInt32 {
		return nil, errctx.Errorf("datasets", "%s: %d positions, more than a window holds (%d)", where, total, math.MaxInt32)
	}
	w.rows = make([]PositionRow, 0, total)
	for i, c := range chunks {
		w.rows = append(w.rows, c...)
		chunks[i] = nil
	}
	// A writer's shards hold its games in the order they finished, which
	// depends on the timing of its workers; in the order of game id and
	// ply, the same games make the same window (and the same training)
	// however they were split into shards. Stable, so that rows with the
	// same id and ply keep the order of their files.
	slices.SortStableFunc(w.rows, byGameAndPly)
	w.perm = make([]int32, total)
	return w, nil
}

// byGameAndPly orders position rows by game id, then ply.
func byGameAndPly(a, b PositionRow) int {
	if c := strings.Compare(a.GameID, b.GameID); c != 0 {
		return c
	}
	return cmp.Compare(a.Ply, b.Ply)
}

// Len returns the number of positions in the window.
func (w *Window) Len() int { return len(w.rows) }

// Files returns the positions files of the window, newest first.
func (w *Window) Files() []string { return slices.Clone(w.files) }

// Definitions returns the rule sets of the window's positions, in the order
// the files (newest first) brought them.
func (w *Window) Definitions() []rules.Definition { return slices.Clone(w.defs) }

// Rows returns the window's positions in file order: the newest file's
// first. The slice is the window's own: do not modify it.
func (w *Window) Rows() []PositionRow { return w.rows }

// Offset returns the number of positions served so far (or sought to): save
// it to resume.
func (w *Window) Offset() int64 { return w.offset }

// Epoch returns the epoch of the next position served: Offset() / Len().
func (w *Window) Epoch() int64 { return w.offset / int64(len(w.rows)) }

// SetOffset sets the offset of the next position served.
func (w *Window) SetOffset(offset int64) error {
	if offset < 0 {
		return errctx.Errorf("datasets", "window offset %d: want 0 or more", offset)
	}
	w.offset = offset
	return nil
}

// Next fills batch with the next len(batch) positions of the shuffled order,
// going on into the next epoch (a new permutation) at the end of one. The
// rows share their Policy slices with the window: do not modify them.
func (w *Window) Next(batch []PositionRow) {
	n := int64(len(w.rows))
	for i := range batch {
		e, k := w.offset/n, w.offset%n
		if e != w.epoch {
			permute(w.perm, w.seed, uint64(e))
			w.epoch = e
		}
		batch[i] = w.rows[w.perm[k]]
		w.offset++
	}
}

// permute sets perm to a permutation of 0..len(perm)-1 drawn by
// Fisher-Yates from PCG(seed, stream). It uses only the PCG's output, which
// math/rand/v2 fixes, so the order stays the same across Go releases.
func permute(perm []int32, seed, stream uint64) {
	for i := range perm {
		perm[i] = int32(i)
	}
	src := rand.NewPCG(seed, stream)
	for i := len(perm) - 1; i > 0; i-- {
		j := bounded(src, uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
}

// bounded returns a uniform number in 0..n-1 (Lemire's multiply and
// reject).
func bounded(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}
