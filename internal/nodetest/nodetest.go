// Package nodetest finds Node.js and the npm packages that tests use to
// check this project's files with another implementation (apache-arrow for
// the datasets, onnxruntime-node for exported networks). It is for tests
// only:
//
//	node, modules := nodetest.Require(t, "apache-arrow", "apache-arrow@21")
//
// skips the test, saying how to install what is missing, when either is
// absent.
package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Modules returns the node_modules directory the tests read packages from:
// $TAFLAB_NODE_MODULES, or $HOME/.cache/taflab-node/node_modules (where
// .ci/run installs them).
func Modules() string {
	if dir := os.Getenv("TAFLAB_NODE_MODULES"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "taflab-node", "node_modules")
}

// Require returns the node executable and the node_modules directory that
// holds pkg, or skips t with the install command: spec is what npm installs
// (pkg with its version, and flags it needs).
func Require(t testing.TB, pkg, spec string) (node, modules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not on PATH: install Node.js (and %s) to run this check with another implementation", pkg)
	}
	modules = Modules()
	if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
		t.Skipf("%s not found in %s: run `npm install --prefix \"$HOME/.cache/taflab-node\" %s` (as .ci/run does), or set TAFLAB_NODE_MODULES to a node_modules directory that holds it", pkg, modules, spec)
	}
	return node, modules
}
