package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/rules"
)

// midGame is a copenhagen middle game (40 random plies from the start, seed
// 1), attackers to move with 126 legal moves.
const midGame = "3aa2a3/ad4a4/3d1a1d3/1a2dd4a/1ad3d3a/aa2dkda3/ad1a1d4a/6aa2a/1a6d2/11/4a1a1aa1 a"

// Bounds of TestTreeBytesPerPlayout, in bytes a playout. The tree is one
// 28-byte node for every legal move of every position expanded (about 3.05
// KB a playout here); the heap holds it in chunks (arena.go), the last one
// partly used (measured: 3.1 KB a playout at 20,000 playouts, 3.3 KB at
// 5,000; the doubling slice before the chunks held 5.9 KB and allocated
// 11.7 KB a playout).
const (
	maxTreeBytesPerPlayout = 3400
	maxHeapBytesPerPlayout = 4000
)

// TestTreeBytesPerPlayout measures a search's memory honestly: the heap's
// growth (after collection, the search alive) and the tree's nodes, per
// playout, from a middle game with the built-in evaluator, and fails when
// either passes its bound.
func TestTreeBytesPerPlayout(t *testing.T) {
	if nodeBytes != 28 {
		t.Errorf("node size: got %d bytes, want 28", nodeBytes)
	}
	for _, playouts := range []int{5000, 20000} {
		t.Run("", func(t *testing.T) {
			g := mustGame(t, "copenhagen", midGame)
			cfg := DefaultConfig()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			s := NewSearch(&cfg, g, 1)
			r := NewRunner(NewHeuristic())
			if err := r.Search(s, playouts); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			n := float64(s.Playouts())
			heap := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
			alloc := float64(after.TotalAlloc-before.TotalAlloc) / n
			tree := float64(s.tree.len()*nodeBytes) / n
			t.Logf("%d playouts: %.0f nodes a playout; tree %.0f B, heap growth %.0f B, allocated %.0f B a playout; arena %d MB",
				s.Playouts(), float64(s.tree.len())/n, tree, heap, alloc, s.TreeBytes()>>20)
			if s.Playouts() != playouts {
				t.Errorf("playouts: got %d, want %d", s.Playouts(), playouts)
			}
			if tree > maxTreeBytesPerPlayout {
				t.Errorf("tree: got %.0f bytes a playout, want at most %d", tree, maxTreeBytesPerPlayout)
			}
			if heap > maxHeapBytesPerPlayout {
				t.Errorf("heap growth: got %.0f bytes a playout, want at most %d", heap, maxHeapBytesPerPlayout)
			}
			runtime.KeepAlive(s)
			runtime.KeepAlive(r)
		})
	}
}

// TestTreeBudget: a search whose tree reaches Config.TreeBytes stops early
// and still returns a legal move, under both root searches, and its arena
// stays within the budget and one round's leaves.
func TestTreeBudget(t *testing.T) {
	cases := []struct {
		name       string
		root       string
		treeBytes  int64
		playouts   int
		wantEarly  bool
		wantBudget int // the most nodes the arena may hold
	}{
		{"puct, the smallest budget", RootPUCT, MinTreeBytes, 100000, true, MinTreeBytes/28 + 4*rules.MaxMoves},
		{"gumbel, the smallest budget", RootGumbel, MinTreeBytes, 100000, true, MinTreeBytes/28 + 4*rules.MaxMoves},
		{"puct, 1 MiB", RootPUCT, 1 << 20, 100000, true, 1<<20/28 + 4*rules.MaxMoves},
		{"puct, room to spare", RootPUCT, 1 << 20, 50, false, 1<<20/28 + 4*rules.MaxMoves},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustGame(t, "copenhagen", midGame)
			cfg := DefaultConfig()
			cfg.RootSearch, cfg.TreeBytes = c.root, c.treeBytes
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			s := NewSearch(&cfg, g, 1)
			if err := NewRunner(NewHeuristic()).Search(s, c.playouts); err != nil {
				t.Fatal(err)
			}
			if early := s.Playouts() < c.playouts; early != c.wantEarly || s.Full() != c.wantEarly {
				t.Errorf("stopped early: got %v (%d of %d playouts, full %v), want %v", early, s.Playouts(), c.playouts, s.Full(), c.wantEarly)
			}
			if !s.Done() {
				t.Errorf("Done: got false, want true")
			}
			if s.Playouts() < 2 {
				t.Errorf("playouts: got %d, want a search of more than the root", s.Playouts())
			}
			if m := s.BestMove(); !g.IsLegal(m) {
				t.Errorf("best move: got %v, want a legal move", m)
			}
			if got := s.tree.bytes() / int64(nodeBytes); got > int64(c.wantBudget) {
				t.Errorf("arena: got %d nodes, want at most %d", got, c.wantBudget)
			}
		})
	}
}

// TestTreeBudgetSelfPlay: self-play under the smallest budget, with tree
// reuse, plays whole games whose every move is legal.
func TestTreeBudgetSelfPlay(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Playouts, cfg.CheapPlayouts, cfg.TreeBytes = 5000, 5000, MinTreeBytes
	v := variants.MustLoad("copenhagen")
	p, err := NewSelfPlayer(cfg, v, NewHeuristic(), 2)
	if err != nil {
		t.Fatal(err)
	}
	games := 0
	err = p.Play(context.Background(), sequentialSource(2, 5), func(r *GameRecord) error {
		games++
		t.Logf("game %d: %d moves, %v", r.Index, len(r.Moves), r.Outcome)
		g := rules.NewGame(v)
		for i, m := range r.Moves {
			if err := g.Play(m); err != nil {
				t.Errorf("game %d, ply %d: got %v, want a legal move", r.Index, i+1, err)
				return nil
			}
		}
		if !r.Outcome.Over() || g.Outcome() != r.Outcome {
			t.Errorf("game %d: got outcome %v, want a finished game (%v)", r.Index, r.Outcome, g.Outcome())
		}
		for i, smp := range r.Samples {
			if smp.Playouts >= cfg.Playouts {
				t.Errorf("game %d, ply %d: got %d playouts, want fewer than %d (the budget)", r.Index, i+1, smp.Playouts, cfg.Playouts)
				break
			}
		}
		return nil
	})
	t.Logf("%d games", games)
	if err != nil || games != 2 {
		t.Errorf("got %d games, %v; want 2 games, no error", games, err)
	}
}

// TestPlayoutRange: counts outside [1, MaxPlayouts] are refused with the
// value and the range by Config.Validate, Runner.Search and (through
// Runner.Step) Search.Start; a count that wrapped to 32 bits before (2^31,
// 2^32+1) among them.
func TestPlayoutRange(t *testing.T) {
	cases := []struct {
		playouts int
		ok       bool
	}{
		{1, true},
		{MaxPlayouts, true},
		{0, false},
		{-1, false},
		{MaxPlayouts + 1, false},
		{math.MaxInt32 + 1, false},
		{1<<32 + 1, false},
		{3_000_000_000, false},
		{1_000_000_000_000, false},
	}
	v := variants.MustLoad("copenhagen")
	for _, c := range cases {
		t.Run("", func(t *testing.T) {
			check := func(what string, err error, keyed bool) {
				t.Helper()
				want := "playouts " + strconv.Itoa(c.playouts)
				if keyed {
					want = "playouts = " + strconv.Itoa(c.playouts)
				}
				switch {
				case c.ok && err != nil:
					t.Errorf("%s(%d): got %v, want no error", what, c.playouts, err)
				case !c.ok && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "from 1 to 16777216")):
					t.Errorf("%s(%d): got %v, want an error naming %q and the range", what, c.playouts, err, want)
				}
			}
			check("CheckPlayouts", CheckPlayouts(c.playouts), false)
			cfg := DefaultConfig()
			cfg.Playouts, cfg.CheapPlayouts = c.playouts, 1
			check("Validate", cfg.Validate(), true)
			if c.ok && c.playouts > 1000 {
				return // not searched: the valid end of the range takes long
			}
			cfg = DefaultConfig()
			r := NewRunner(NewHeuristic())
			s := NewSearch(&cfg, rules.NewGame(v), 1)
			check("Runner.Search", r.Search(s, c.playouts), false)
			s = NewSearch(&cfg, rules.NewGame(v), 1)
			s.Start(c.playouts, false)
			if s.Done() {
				t.Errorf("Done after Start(%d): got true, want false (nothing searched yet)", c.playouts)
			}
			var err error
			for i := 0; i < 100 && !s.Done() && err == nil; i++ {
				err = r.Step([]*Search{s})
			}
			check("Start, Step", err, false)
		})
	}
}

// TestPlayoutRangeGameOver: a refused count is an error from Step even on
// a finished game, which Step otherwise skips (so that a caller stepping
// until Done does not loop for ever).
func TestPlayoutRangeGameOver(t *testing.T) {
	g := mustGame(t, "copenhagen", "5a5/11/11/11/11/11/11/11/11/k10/11 d")
	m, _, err := rules.ParseMove("a2-a1")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Play(m); err != nil || !g.Outcome().Over() {
		t.Fatalf("a2-a1: got %v, %v; want the king escaped", err, g.Outcome())
	}
	cfg := DefaultConfig()
	s := NewSearch(&cfg, g, 1)
	s.Start(0, false)
	err = NewRunner(NewHeuristic()).Step([]*Search{s})
	if err == nil || !strings.Contains(err.Error(), "playouts 0: want from 1 to 16777216") || s.Done() {
		t.Errorf("Start(0) on a finished game: got %v (done %v), want CheckPlayouts' error and not done", err, s.Done())
	}
}

// TestNoMoveRoot: a search of a position where the side to move has no
// legal move though the game goes on (a start NewGameFrom takes unjudged)
// is an error, not a panic; self-play refuses such a start.
func TestNoMoveRoot(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	boxed := "11/11/11/11/11/5k5/11/11/d10/ad9/11 a" // the attacker on a2 cannot move
	cfg := DefaultConfig()
	s := NewSearch(&cfg, mustGame(t, "copenhagen", boxed), 1)
	err := NewRunner(NewHeuristic()).Search(s, 10)
	if err == nil || !strings.Contains(err.Error(), "the attackers have no legal move") || !strings.HasPrefix(err.Error(), "mcts: position ") {
		t.Errorf("Search: got %v, want an error naming the position and the missing move", err)
	}
	p, perr := rules.ParsePosition(boxed)
	if perr != nil {
		t.Fatal(perr)
	}
	sp, err := NewSelfPlayer(cfg, v, NewHeuristic(), 1)
	if err != nil {
		t.Fatal(err)
	}
	given := false
	err = sp.Play(context.Background(), func() (GameSpec, bool) {
		if given {
			return GameSpec{}, false
		}
		given = true
		return GameSpec{Seed: 1, Start: p}, true
	}, func(*GameRecord) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "the attackers have no legal move") {
		t.Errorf("self-play: got %v, want CheckStart's error", err)
	}
}

// TestArenaChunkEnds: every chunk before the current one has its end
// recorded, whether its tail was skipped or it filled exactly, so that
// compact knows which nodes of a reused arena are stale. A chunk that
// filled exactly once went unrecorded, and the next skipped tail's end was
// taken for its own.
func TestArenaChunkEnds(t *testing.T) {
	const limit = 1 << 30
	var a arena
	a.alloc(chunkNodes/2, limit)
	a.alloc(chunkNodes/2, limit) // chunk 0 is full to its last node
	a.alloc(100, limit)          // chunk 1 begins
	for a.len()&chunkMask+rules.MaxMoves <= chunkNodes {
		a.alloc(rules.MaxMoves, limit)
	}
	skipAt := int32(a.len())
	a.alloc(rules.MaxMoves, limit) // does not fit in chunk 1's tail: chunk 2 begins
	want := []int32{chunkNodes, skipAt}
	if fmt.Sprint(a.ends) != fmt.Sprint(want) {
		t.Fatalf("got ends %v, want %v", a.ends, want)
	}
	// A tree laid out the same way: its breadth-first order asks for a
	// block of children that fills chunk 0 to its last node, then blocks
	// until one skips chunk 1's tail. Compacted twice into one arena, the
	// second time with stale nodes in that tail (as a reused arena has),
	// it must copy the tree and nothing else.
	var blocks []int
	for used := 1; used < chunkNodes; used += blocks[len(blocks)-1] {
		blocks = append(blocks, min(rules.MaxMoves, chunkNodes-used))
	}
	for used := 0; used+rules.MaxMoves <= chunkNodes; used += rules.MaxMoves {
		blocks = append(blocks, rules.MaxMoves)
	}
	blocks = append(blocks, rules.MaxMoves, rules.MaxMoves)
	var src arena
	parent := src.alloc(1, limit)
	for _, k := range blocks {
		first := src.alloc(int32(k), limit)
		for i := first; i < first+int32(k); i++ {
			*src.at(i) = node{firstChild: noChildren}
		}
		p := src.at(parent)
		p.firstChild, p.numChildren = first, uint16(k)
		parent = first // the block's first child has the next block
	}
	var dst arena
	compact(&dst, &src, 0, limit)
	if dst.len() != src.len() {
		t.Fatalf("first compact: got %d nodes, want %d", dst.len(), src.len())
	}
	tail := int32(chunkNodes + chunkNodes/rules.MaxMoves*rules.MaxMoves) // chunk 1's skipped tail
	for i := tail; i < 2*chunkNodes; i++ {
		*dst.at(i) = node{firstChild: 1 << 30, numChildren: 7} // stale: leads out of any arena
	}
	compact(&dst, &src, 0, limit)
	if dst.len() != src.len() {
		t.Errorf("second compact: got %d nodes, want %d", dst.len(), src.len())
	}
}

// TestSearchContext: a search stops with ctx's error when ctx is done, and
// runs to its playouts otherwise.
func TestSearchContext(t *testing.T) {
	g := mustGame(t, "copenhagen", midGame)
	cfg := DefaultConfig()
	r := NewRunner(NewHeuristic())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.SearchContext(ctx, NewSearch(&cfg, g, 1), 1000); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	s := NewSearch(&cfg, g, 1)
	if err := r.SearchContext(context.Background(), s, 300); err != nil || s.Playouts() != 300 {
		t.Errorf("got %d playouts, %v; want 300, no error", s.Playouts(), err)
	}
}

// TestSharedBudget: workers whose games share a Budget (ShareBudget) hold
// their trees and positions within it, however many playouts they ask for:
// the searches that find it full end early (GameRecord.CutShort), their
// games are whole and legal, and once play ends every byte is given back
// (the games' records by their reader). With a budget that never fills,
// the games are those played without one.
func TestSharedBudget(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cfg := DefaultConfig()
	cfg.Playouts, cfg.CheapPlayouts = 200_000, 200_000 // some 600 MB a tree: far past the budget
	const limit = 8 << 20
	const games, parallel = 6, 3
	// What may pass the limit: each arena's first chunk (always granted)
	// and the positions recorded, which are charged as they come.
	const firstChunks = games * 2 * 1024 * 28
	b := NewBudget(limit)
	players, err := NewPlayers(cfg, v, 2, parallel, func() (Evaluator, error) { return NewHeuristic(), nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range players {
		p.ShareBudget(b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var peakTrees int64
	records, wait := PlayAll(ctx, players, sequentialSource(games, 9), games)
	done := make(chan struct{})
	go func() { // the budget's use while the games are played
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			default:
			}
			peakTrees = max(peakTrees, b.Used())
			runtime.Gosched()
		}
	}()
	var recorded int64
	cut := 0
	for r := range records {
		g := rules.NewGame(v)
		for i, m := range r.Moves {
			if err := g.Play(m); err != nil {
				t.Fatalf("game %d, ply %d: %v", r.Index, i+1, err)
			}
		}
		cut += r.CutShort
		recorded += r.Bytes()
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	if cut == 0 {
		t.Errorf("got no move cut short, want the budget to end searches of %d playouts", cfg.Playouts)
	}
	if peakTrees > limit+firstChunks+recorded {
		t.Errorf("the budget's use reached %d bytes, want at most %d (the limit, first chunks and the positions recorded)", peakTrees, limit+firstChunks+recorded)
	}
	if got := b.Used(); got != recorded {
		t.Errorf("after play: the budget holds %d bytes, want the %d of the records, until their reader releases them", got, recorded)
	}

	// A budget that never fills changes nothing.
	small := DefaultConfig()
	small.Playouts, small.CheapPlayouts = 32, 8
	play := func(b *Budget) [][]rules.Move {
		p, err := NewSelfPlayer(small, v, NewHeuristic(), 2)
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			p.ShareBudget(b)
		}
		var moves [][]rules.Move
		if err := p.Play(context.Background(), sequentialSource(3, 4), func(r *GameRecord) error {
			moves = append(moves, r.Moves)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return moves
	}
	if without, with := play(nil), play(NewBudget(1<<30)); fmt.Sprint(without) != fmt.Sprint(with) {
		t.Errorf("a budget that never fills changed the games")
	}
}

// TestSharedBudgetAfterError: a worker that stops at a game it cannot
// start gives back what it holds of the budget, but not the bytes of the
// games it handed on, which their reader releases.
func TestSharedBudgetAfterError(t *testing.T) {
	v := variants.MustLoad("copenhagen")
	cfg := DefaultConfig()
	cfg.Playouts, cfg.CheapPlayouts = 16, 4
	p, err := NewSelfPlayer(cfg, v, NewHeuristic(), 1)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBudget(1 << 30)
	p.ShareBudget(b)
	n := 0
	source := func() (GameSpec, bool) {
		n++
		if n == 1 {
			return GameSpec{Index: 0, Seed: 1}, true
		}
		return GameSpec{Index: 1, Seed: 2, Start: rules.Position{Size: 9}}, true // not a position of the rule set
	}
	var handed int64
	err = p.Play(context.Background(), source, func(r *GameRecord) error {
		handed += r.Bytes()
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "game 1") {
		t.Fatalf("got %v, want an error naming game 1", err)
	}
	if got := b.Used(); handed == 0 || got != handed {
		t.Errorf("after play: the budget holds %d bytes, want the %d of the game handed on", got, handed)
	}
}
