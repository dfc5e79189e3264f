// Package nettest writes small network files for tests of the commands
// that read them. It is for tests only:
//
//	file := nettest.TinyFile(t, 1) // an untrained 1-block, 8-channel network
package nettest

import (
	"path/filepath"
	"testing"

	"taflab/net"
)

// TinyFile saves an untrained network of one block of 8 channels, its
// weights drawn from seed, into the test's temporary folder and returns the
// file's path.
func TinyFile(t testing.TB, seed uint64) string {
	t.Helper()
	n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.safetensors")
	if err := n.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	return path
}
