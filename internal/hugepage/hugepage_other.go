//go:build !linux

package hugepage

// Make returns make([]T, n): huge pages are asked for on Linux only.
func Make[T Number](n int) []T { return make([]T, n) }
