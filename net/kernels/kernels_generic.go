//go:build !amd64

package kernels

// platformImpls returns the assembly implementations of this platform:
// none outside amd64, where the portable Go path is used.
func platformImpls() []*impl { return nil }
