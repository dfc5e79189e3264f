// Package hugepage makes the large number slices of the network's hot
// loops (a training batch's activations, gradients and grids, megabytes
// each) in memory the kernel may back with transparent huge pages.
//
// A training step streams tens of such buffers through the cores; on 4 KiB
// pages that walk misses the TLB at every few rows, and on a 2-core Xeon
// with AMX the bfloat16 training step ran 11-14% faster when the buffers
// sat on 2 MiB pages (docs/network.md). Go's heap leaves the choice
// to the system's default, which on most distributions is "madvise": huge
// pages only for memory that asks for them. Make asks.
//
//	acts := hugepage.Make[float32](rows * channels)
//
// The memory is ordinary Go heap memory, owned and freed by the garbage
// collector; only its alignment and its kernel advice differ. Where the
// system has no transparent huge pages, or they are off ("never"), the
// advice does nothing and the slices are ordinary memory.
package hugepage

// Size is the huge page size Make aligns to: 2 MiB, the transparent huge
// page of x86-64 and of arm64 with 4 KiB base pages.
const Size = 2 << 20

// Number is the element types Make takes: numbers, which hold no pointers
// (so that the memory's alignment is all that matters to the collector).
type Number interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}
