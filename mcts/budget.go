package mcts

import "sync/atomic"

// Budget is a memory budget, in bytes, that several searches' trees share:
// self-play's games in play, whose trees would otherwise each take up to
// Config.TreeBytes. Every chunk of a sharing search's arenas is charged to
// it before it is allocated (but an arena's first, of 1,024 nodes, which is
// always granted), and a search whose next round of playouts finds no room
// ends early with the playouts it has, as a search that fills its own
// TreeBytes does (Search.Full). A caller may charge other memory of the
// searches' games to it (their recorded positions: Charge and Release),
// which leaves the trees less. A Budget is safe for concurrent use.
//
// While the budget has room, searches play exactly as without it; once it
// is full, which searches end early depends on the order in which the
// workers reach it.
type Budget struct {
	limit int64        // immutable
	used  atomic.Int64 // bytes charged and not released
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Limit returns the budget's bytes.
func (b *Budget) Limit() int64 { return b.limit }

// Used returns the bytes charged to it and not released.
func (b *Budget) Used() int64 { return b.used.Load() }

// Charge charges bytes to the budget whether it has room or not.
func (b *Budget) Charge(bytes int64) { b.used.Add(bytes) }

// Release gives back bytes charged before.
func (b *Budget) Release(bytes int64) { b.used.Add(-bytes) }

// take charges bytes if the budget has room for them, and reports whether
// it did.
func (b *Budget) take(bytes int64) bool {
	for {
		u := b.used.Load()
		if u+bytes > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+bytes) {
			return true
		}
	}
}
