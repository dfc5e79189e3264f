//go:build !linux

package hugepage

const onLinux = false
