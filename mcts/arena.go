package mcts

// This file is on the hot path with tree.go: every node access of a
// playout goes through arena.at or arena.span.

// A tree's nodes live in an arena of chunks of chunkNodes nodes each: node
// i is node i&chunkMask of chunk i>>chunkBits, and the children of a node
// are contiguous in one chunk (a node has at most rules.MaxMoves children,
// far fewer than a chunk holds). The first chunk grows by doubling from
// 1024 nodes, so that a small search holds a small tree; the others are
// allocated whole, so that a large tree grows without copying what it has
// and without the unused half of a doubled slice. A chunk's tail too short
// for a node's children is skipped: at most rules.MaxMoves nodes of
// chunkNodes.
const (
	chunkBits  = 16
	chunkNodes = 1 << chunkBits // 65,536 nodes, 1.5 MiB
	chunkMask  = chunkNodes - 1
)

// arena holds the nodes of one tree.
type arena struct {
	chunks [][]node // chunk c holds nodes c<<chunkBits on, its whole length usable
	ends   []int32  // ends[c]: where the use of chunk c ended when chunk c+1 began (below its end: a skipped tail); one for every chunk before the current one
	n      int32    // the index the next node gets: the nodes below are in use (but skipped tails)
	room   int32    // the end of the current chunk's length: alloc's fast path fits below it
	// budget is the memory budget the arena's chunks are charged to, shared
	// with other searches' arenas (Budget); nil for none. An arena's first
	// chunk of 1,024 nodes is always granted; after it, a chunk the budget
	// has no room for is not allocated (alloc returns noNode).
	budget *Budget
}

// noNode is alloc's answer when the budget has no room.
const noNode int32 = -1

// at returns node i.
func (a *arena) at(i int32) *node { return &a.chunks[i>>chunkBits][i&chunkMask] }

// children returns the children of p, which is expanded.
func (a *arena) children(p *node) []node {
	c := a.chunks[p.firstChild>>chunkBits]
	o := p.firstChild & chunkMask
	return c[o : o+int32(p.numChildren)]
}

// len returns the nodes in use, skipped tails included.
func (a *arena) len() int { return int(a.n) }

// bytes returns the memory the arena's chunks hold.
func (a *arena) bytes() int64 {
	n := 0
	for _, c := range a.chunks {
		n += cap(c)
	}
	return int64(n) * int64(nodeBytes)
}

// reset empties the arena, keeping its chunks for the next tree.
func (a *arena) reset() {
	a.n, a.room, a.ends = 0, 0, a.ends[:0]
	if len(a.chunks) > 0 {
		a.room = int32(len(a.chunks[0]))
	}
}

// alloc returns the index of the first of k new contiguous nodes (their
// contents are the caller's to set). limit is the most nodes the arena
// should hold (the memory budget's and one round's leaves): a growing chunk
// is not given room past it. It returns noNode, and allocates nothing, when
// a new chunk is needed and the shared budget has no room for it.
func (a *arena) alloc(k int32, limit int) int32 {
	if a.n+k <= a.room {
		a.n += k
		return a.n - k
	}
	first, ok := a.prepare(k, limit)
	if !ok {
		return noNode
	}
	a.n = first + k
	return first
}

// ensure makes room for k contiguous nodes in the current chunk, so that
// the allocations of up to k nodes in all that follow need no new chunk; it
// reports false, and changes nothing, when the budget has no room for one.
func (a *arena) ensure(k int32, limit int) bool {
	if a.n+k <= a.room {
		return true
	}
	_, ok := a.prepare(k, limit)
	return ok
}

// prepare is alloc's slow path: the next chunk, or a longer first chunk,
// with room for k nodes from the returned index, which a.n moves to (past
// a skipped tail). Nothing changes when the budget refuses the chunk.
func (a *arena) prepare(k int32, limit int) (int32, bool) {
	first := a.n
	c := first >> chunkBits
	if first&chunkMask+k > chunkNodes {
		c++ // the children do not fit in chunk c's tail: skip it
		first = c << chunkBits
	}
	used := int(first&chunkMask + k) // chunk c's part in use after this
	var ch []node
	if int(c) < len(a.chunks) {
		ch = a.chunks[c]
	}
	if used > len(ch) {
		size := max(min(2*len(ch), limit-int(c)<<chunkBits), used, 1024)
		if c > 0 && len(ch) == 0 {
			size = max(limit-int(c)<<chunkBits, used)
		}
		size = min(size, chunkNodes)
		if !a.charge(int64(size-len(ch)) * int64(nodeBytes)) {
			return 0, false
		}
		grown := make([]node, size)
		copy(grown, ch[:first&chunkMask])
		ch = grown
	}
	for len(a.ends) < int(c) {
		// Chunk c is new: the one before ended at a.n, at a skipped tail
		// or exactly at its end (a.n is then c's first node).
		a.ends = append(a.ends, a.n)
	}
	if int(c) == len(a.chunks) {
		a.chunks = append(a.chunks, nil)
	}
	a.chunks[c] = ch
	a.n = first
	a.room = c<<chunkBits + int32(len(ch))
	return first, true
}

// charge takes bytes of a new chunk from the budget: always for the
// arena's first chunk, else only if the budget has room.
func (a *arena) charge(bytes int64) bool {
	switch {
	case a.budget == nil:
		return true
	case len(a.chunks) == 0:
		a.budget.Charge(bytes)
		return true
	}
	return a.budget.take(bytes)
}

// compact copies the subtree of src rooted at root into dst, emptied first,
// breadth first, so that children stay contiguous; root becomes node 0. It
// reports false when dst's budget has no room for the subtree: dst is then
// left holding a part of it, which the caller replaces.
func compact(dst, src *arena, root int32, limit int) bool {
	dst.reset()
	i0 := dst.alloc(1, limit)
	if i0 == noNode {
		return false
	}
	*dst.at(i0) = *src.at(root)
	for i := int32(0); i < dst.n; i++ {
		if c := int(i >> chunkBits); c < len(dst.ends) && i >= dst.ends[c] {
			i = int32(c+1)<<chunkBits - 1 // past chunk c's skipped tail
			continue
		}
		n := dst.at(i)
		if !n.expanded() {
			continue
		}
		kids := src.children(n)
		first := dst.alloc(int32(len(kids)), limit) // may move the first chunk
		if first == noNode {
			return false
		}
		n = dst.at(i)
		n.firstChild = first
		copy(dst.children(n), kids)
	}
	return true
}
