package datasets

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"taflab/rules"
)

// testTime returns a fixed time, i seconds after a fixed start.
func testTime(i int) time.Time {
	return time.Date(2026, 11, 30, 16, 15, 0, 123456789, time.UTC).Add(time.Duration(i) * time.Second)
}

func TestShardName(t *testing.T) {
	tests := []struct {
		t      time.Time
		worker string
		seq    int
		want   string
		inName string // the worker as the name holds it
	}{
		{testTime(0), "host1-4242", 1, "20261130T161500.123456789Z-host1-4242-000001", "host1-4242"},
		{time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), "a/b c", 1234567, "20260102T020405.000000000Z-a_b_c-1234567", "a_b_c"},
		{testTime(0), "", 0, "20261130T161500.123456789Z-worker-000000", "worker"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := ShardName(tt.t, tt.worker, tt.seq)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			when, ok := shardTime(got)
			if !ok || !when.Equal(tt.t) {
				t.Errorf("shardTime(%q): got %v, %v, want %v", got, when, ok, tt.t)
			}
			when, worker, seq, ok := ParseShardName(got)
			if !ok || !when.Equal(tt.t) || worker != tt.inName || seq != tt.seq {
				t.Errorf("ParseShardName(%q): got %v, %q, %d, %v; want %v, %q, %d", got, when, worker, seq, ok, tt.t, tt.inName, tt.seq)
			}
		})
	}
	// Names of other forms.
	for _, name := range []string{"", "data", "20261130T161500.123456789Z", "20261130T161500.123456789Z-w", "20261130T161500.123456789Z--000001",
		"20261130T161500.123456789Z-w-00001", "20261130T161500.123456789Z-w-00000x", "20261130T161500.123456789Zxw-000001", "2026113XT161500.123456789Z-w-000001"} {
		if _, _, _, ok := ParseShardName(name); ok {
			t.Errorf("ParseShardName(%q): got ok, want a name of another form", name)
		}
	}
	// Names sort as their times, whatever the worker.
	var names []string
	for i := range 30 {
		names = append(names, ShardName(testTime(0).Add(time.Duration(i*i)*time.Millisecond), []string{"zz", "a", "m-9"}[i%3], 30-i))
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("got names %v, want them sorted by time", names)
	}
}

// writeWindowShards writes shards of sizes[i] positions (brandubh, i seconds
// after testTime(0)) and returns each shard's rows, oldest shard first.
func writeWindowShards(t *testing.T, dir string, sizes []int) [][]PositionRow {
	t.Helper()
	var out [][]PositionRow
	for i, n := range sizes {
		positions, games := genShard(t, defBrandubh, 1+n/20, 100, uint64(100+i))
		for len(positions) < n {
			more, moreGames := genShard(t, defBrandubh, 5, 100, uint64(1000*i+len(positions)))
			positions, games = append(positions, more...), append(games, moreGames...)
		}
		positions = positions[:n]
		mustWriteShard(t, dir, ShardName(testTime(i), "w", i), defBrandubh, positions, dedupGames(games))
		out = append(out, normalize(positions))
	}
	return out
}

// dedupGames drops repeated game ids (genShard with another seed may repeat
// none, but the window does not care about games anyway).
func dedupGames(games []GameRow) []GameRow {
	seen := map[string]bool{}
	var out []GameRow
	for _, g := range games {
		if !seen[g.GameID] {
			seen[g.GameID] = true
			out = append(out, g)
		}
	}
	return out
}

func TestWindowSelection(t *testing.T) {
	dir := t.TempDir()
	shards := writeWindowShards(t, dir, []int{30, 40, 50}) // oldest first
	// Things the window must ignore.
	for name, content := range map[string]string{
		".20991231T000000.000000000Z-w-0.positions.arrow.tmp-123": "half-written",
		"20991231T000000.000000000Z-w-0.positions.arrow.tmp-9":    "half-written",
		"notes.txt": "not a shard",
		"20991231T000000.000000000Z-x.games.arrow": "not positions",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.positions.arrow"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		newest    int
		wantFiles int
		want      []PositionRow // the window's rows, from the newest shard first
	}{
		{newest: 0, wantFiles: 3, want: slices.Concat(shards[2], shards[1], shards[0])},
		{newest: 200, wantFiles: 3, want: slices.Concat(shards[2], shards[1], shards[0])},
		{newest: 120, wantFiles: 3, want: slices.Concat(shards[2], shards[1], shards[0])},
		{newest: 90, wantFiles: 2, want: slices.Concat(shards[2], shards[1])},
		{newest: 60, wantFiles: 2, want: slices.Concat(shards[2], shards[1][30:])},
		{newest: 50, wantFiles: 1, want: shards[2]},
		{newest: 1, wantFiles: 1, want: shards[2][49:]},
	}
	for _, tt := range tests {
		t.Run("newest="+strconv.Itoa(tt.newest), func(t *testing.T) {
			w, err := OpenWindow(dir, tt.newest, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(w.Files()); got != tt.wantFiles {
				t.Errorf("files: got %d (%v), want %d", got, w.Files(), tt.wantFiles)
			}
			for i, f := range w.Files() {
				if want := filepath.Join(dir, ShardName(testTime(2-i), "w", 2-i)+PositionsSuffix); f != want {
					t.Errorf("file %d: got %s, want %s", i, f, want)
				}
			}
			want := slices.Clone(tt.want)
			slices.SortStableFunc(want, byGameAndPly)
			if w.Len() != len(want) || !reflect.DeepEqual(w.Rows(), want) {
				t.Errorf("rows: got %d, want %d: %s", w.Len(), len(want), firstDiff(w.Rows(), want))
			}
			if got := w.Definitions(); !reflect.DeepEqual(got, []rules.Definition{defBrandubh}) {
				t.Errorf("definitions: got %v, want [%v]", got, defBrandubh)
			}
		})
	}
}

func TestWindowShuffle(t *testing.T) {
	dir := t.TempDir()
	writeWindowShards(t, dir, []int{40, 57})
	open := func(seed uint64) *Window {
		t.Helper()
		w, err := OpenWindow(dir, 0, seed)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	// serve returns the canonical indices of the next n positions.
	serve := func(w *Window, n int) []int {
		t.Helper()
		index := map[string]int{}
		for i, r := range w.Rows() {
			index[r.GameID+"/"+strconv.Itoa(int(r.Ply))] = i
		}
		batch := make([]PositionRow, n)
		w.Next(batch)
		out := make([]int, n)
		for i, r := range batch {
			out[i] = index[r.GameID+"/"+strconv.Itoa(int(r.Ply))]
		}
		return out
	}
	w := open(7)
	n := w.Len()
	if n != 97 {
		t.Fatalf("got %d positions, want 97", n)
	}
	all := serve(w, 3*n)
	t.Run("each epoch a permutation", func(t *testing.T) {
		for e := range 3 {
			epoch := slices.Clone(all[e*n : (e+1)*n])
			slices.Sort(epoch)
			for i, k := range epoch {
				if k != i {
					t.Fatalf("epoch %d: got index %d at sorted place %d, want every index once", e, k, i)
				}
			}
		}
		if slices.Equal(all[:n], all[n:2*n]) {
			t.Errorf("epochs 0 and 1 in the same order, want a new shuffle each epoch")
		}
		if ordered := slices.IsSorted(all[:n]); ordered {
			t.Errorf("epoch 0 in file order, want it shuffled")
		}
		if got := w.Offset(); got != int64(3*n) {
			t.Errorf("offset: got %d, want %d", got, 3*n)
		}
		if got := w.Epoch(); got != 3 {
			t.Errorf("epoch: got %d, want 3", got)
		}
	})
	t.Run("same seed, same order", func(t *testing.T) {
		if got := serve(open(7), 3*n); !slices.Equal(got, all) {
			t.Errorf("got %v, want %v", got, all)
		}
	})
	t.Run("another seed, another order", func(t *testing.T) {
		if got := serve(open(8), n); slices.Equal(got, all[:n]) {
			t.Errorf("seeds 7 and 8 gave the same order %v", got)
		}
	})
	t.Run("resume at an offset", func(t *testing.T) {
		for _, off := range []int{0, 1, 37, n - 1, n, n + 5, 2*n + 96} {
			w := open(7)
			if err := w.SetOffset(int64(off)); err != nil {
				t.Fatal(err)
			}
			k := min(20, 3*n-off)
			if got := serve(w, k); !slices.Equal(got, all[off:off+k]) {
				t.Errorf("offset %d: got %v, want %v", off, got, all[off:off+k])
			}
		}
		// Batches of any size give the same sequence.
		w := open(7)
		var got []int
		for _, size := range []int{1, 10, 0, 96, 3, 100, 81} {
			got = append(got, serve(w, size)...)
		}
		if !slices.Equal(got, all[:len(got)]) {
			t.Errorf("batched: got %v, want %v", got, all[:len(got)])
		}
		if err := w.SetOffset(-1); err == nil {
			t.Errorf("SetOffset(-1): got no error, want one")
		}
	})
}

// TestPermuteGolden pins the permutation of a seed, so that a change of
// algorithm (which would break resuming old runs) does not go unseen.
func TestPermuteGolden(t *testing.T) {
	perm := make([]int32, 10)
	permute(perm, 42, 3)
	want := []int32{9, 3, 2, 1, 6, 5, 4, 0, 8, 7}
	if !slices.Equal(perm, want) {
		t.Errorf("got %v, want %v", perm, want)
	}
}

func TestWindowRefuses(t *testing.T) {
	t.Run("bad file in the window", func(t *testing.T) {
		dir := t.TempDir()
		writeWindowShards(t, dir, []int{10, 10, 10})
		bad := filepath.Join(dir, ShardName(testTime(1), "w", 1)+PositionsSuffix)
		data, err := os.ReadFile(bad)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bad, data[:len(data)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = OpenWindow(dir, 25, 1)
		wantFileError(t, err, bad, "truncated shard in the window")
		// Outside the window, it is not read.
		w, err := OpenWindow(dir, 10, 1)
		if err != nil {
			t.Fatalf("window of the newest shard only: %v", err)
		}
		if w.Len() != 10 {
			t.Errorf("got %d positions, want 10", w.Len())
		}
	})
	t.Run("no positions", func(t *testing.T) {
		dir := t.TempDir()
		_, err := OpenWindow(dir, 10, 1)
		wantFileError(t, err, dir, "empty directory")
		mustWriteShard(t, dir, "empty", defBrandubh, nil, nil)
		_, err = OpenWindow(dir, 10, 1)
		wantFileError(t, err, dir, "shard of no positions")
	})
	t.Run("missing directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "absent")
		_, err := OpenWindow(dir, 10, 1)
		wantFileError(t, err, dir, "missing directory")
	})
	t.Run("one name, two definitions", func(t *testing.T) {
		dir := t.TempDir()
		writeWindowShards(t, dir, []int{10})
		other := defBrandubh
		other.NoProgressMoves = 50
		positions, games := genShard(t, other, 1, 10, 3)
		_, _ = mustWriteShard(t, dir, ShardName(testTime(-1), "w", 9), other, positions, games)
		_, err := OpenWindow(dir, 0, 1)
		wantFileError(t, err, filepath.Join(dir, ShardName(testTime(-1), "w", 9)+PositionsSuffix), "conflicting definitions")
	})
}

// TestWindowModTime orders shards whose names carry no time stamp by their
// modification time.
func TestWindowModTime(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i, name := range []string{"c", "a", "b"} { // written in this order, oldest first
		positions, games := genShard(t, defBrandubh, 1, 10, uint64(i))
		path, _ := mustWriteShard(t, dir, name, defBrandubh, positions, games)
		when := testTime(10 * i)
		if err := os.Chtimes(path, when, when); err != nil {
			t.Fatal(err)
		}
		want = append([]string{path}, want...)
	}
	w, err := OpenWindow(dir, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Files(); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestWindowFiles: a window reopened from its Files after a new shard has
// arrived serves the same positions in the same order.
func TestWindowFiles(t *testing.T) {
	dir := t.TempDir()
	writeWindowShards(t, dir, []int{30, 45})
	w, err := OpenWindow(dir, 60, 3)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]PositionRow, 50)
	w.Next(first)
	mustWriteShard(t, dir, ShardName(testTime(9), "w", 9), defBrandubh, normalize(first[:10]), nil)
	again, err := OpenWindowFiles(w.Files(), 60, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.SetOffset(20); err != nil {
		t.Fatal(err)
	}
	second := make([]PositionRow, 30)
	again.Next(second)
	if got, want := normalize(second), normalize(first[20:50]); !slices.EqualFunc(got, want, func(a, b PositionRow) bool {
		return a.GameID == b.GameID && a.Ply == b.Ply
	}) {
		t.Errorf("got positions %v, want %v", got[:3], want[:3])
	}
	if _, err := OpenWindowFiles([]string{dir + "/missing.positions.arrow"}, 0, 1); err == nil || !strings.Contains(err.Error(), "missing.positions.arrow") {
		t.Errorf("got %v, want an error naming the missing file", err)
	}
}

// TestWindowSameGamesAnySharding writes the same games into one shard and,
// in another order, into three: the two windows hold the same rows in the
// same order and serve the same batches, as the games of a self-play run
// on one worker and on several must.
func TestWindowSameGamesAnySharding(t *testing.T) {
	positions, games := genShard(t, defBrandubh, 6, 40, 77)
	one, three := t.TempDir(), t.TempDir()
	mustWriteShard(t, one, ShardName(testTime(0), "w", 0), defBrandubh, positions, games)
	// Three shards of two games each, the first games in the oldest shard,
	// which the window reads last.
	for i := range 3 {
		var ps []PositionRow
		var gs []GameRow
		for _, g := range games[2*i : 2*i+2] {
			gs = append(gs, g)
			for _, p := range positions {
				if p.GameID == g.GameID {
					ps = append(ps, p)
				}
			}
		}
		mustWriteShard(t, three, ShardName(testTime(i), "w", i), defBrandubh, ps, gs)
	}
	a, err := OpenWindow(one, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenWindow(three, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Rows(), b.Rows()) {
		t.Fatalf("rows: %s", firstDiff(b.Rows(), a.Rows()))
	}
	batchA, batchB := make([]PositionRow, 16), make([]PositionRow, 16)
	for step := range 5 {
		a.Next(batchA)
		b.Next(batchB)
		if !reflect.DeepEqual(batchA, batchB) {
			t.Fatalf("batch %d: %s", step, firstDiff(batchB, batchA))
		}
	}
}
