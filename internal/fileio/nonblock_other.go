//go:build !unix

package fileio

// nonBlock is 0 where opening never waits for a pipe's other end.
const nonBlock = 0
