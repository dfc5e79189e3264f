package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Make returns a zeroed slice of n elements, its length and capacity n. A
// slice of Size bytes or more starts on a Size boundary, and its memory, to
// the end of its last huge page, is advised MADV_HUGEPAGE and then
// MADV_COLLAPSE (Linux 6.1 on), which puts it on huge pages at once where
// the kernel has them free; a smaller slice is make's. The cost is up to
// 2 Size bytes of address space past n's (Size of them resident at most)
// and, once, the kernel's zeroing or copying of the pages. The advice is
// best effort: a kernel that refuses it (no transparent huge pages, or
// too old for MADV_COLLAPSE) leaves the memory as make's, or on huge
// pages only as it first touches them.
func Make[T Number](n int) []T {
	var zero T
	elem := int(unsafe.Sizeof(zero))
	bytes := n * elem
	if bytes < Size {
		return make([]T, n)
	}
	span := (bytes + Size - 1) &^ (Size - 1)
	raw := make([]T, (span+Size)/elem)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	off := int((base+Size-1)&^(Size-1)-base) / elem
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&raw[off])), span)
	if unix.Madvise(mem, unix.MADV_HUGEPAGE) == nil {
		// Memory the heap reuses is already on 4 KiB pages, which the
		// advice alone leaves until khugepaged's slow scan.
		_ = unix.Madvise(mem, unix.MADV_COLLAPSE)
	}
	return raw[off : off+n : off+n]
}
