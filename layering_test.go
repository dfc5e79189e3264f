package taflab

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "taflab"

// allowedImports lists, for each package of the module, the packages of the
// module it may import (non-test files). The order is the design's: rules
// imports nothing of ours; mcts imports rules and declares the Evaluator it
// needs instead of importing net; net and datasets build on rules; configs
// turns files into the other packages' values; only cmd/ puts it all
// together, parses flags and touches files.
var allowedImports = map[string][]string{
	"rules":            {},
	"archive":          {"internal/fileio"},
	"configs/variants": {"rules", "configs/internal/strict", "internal/tomlbound"},
	"configs":          {"rules", "mcts", "net", "datasets", "stats", "protocol", "internal/fileio", "internal/tomlbound"},
	"mcts":             {"rules"},
	"net":              {"rules", "mcts", "configs/variants", "internal/fileio"},
	"datasets":         {"rules", "archive", "internal/fileio", "internal/tomlbound"},
	"stats":            {},
	"match":            {"rules", "mcts", "stats", "configs/variants", "internal/fileio"},
	"fit":              {"rules", "mcts", "net", "datasets"},
	// What a player makes of a position and a game: analysis and review.
	"analysis": {"rules", "mcts", "chart"},
	// Every games file taflab reads, as games; OpenTafl records written.
	"gamefile": {"rules", "archive", "datasets", "protocol", "match", "configs", "configs/variants"},
	// The web page's server: games, replays, analysis and run charts.
	"web": {"rules", "mcts", "net", "datasets", "configs/variants", "chart", "analysis", "internal/fileio"},
	// Wire formats shared with other tafl programs (OpenTafl, TaflZero).
	"protocol": {"rules"},
	// Engine protocols, both sides: Serve (taflab as an engine) and
	// External (other engines as match players).
	"engine": {"rules", "mcts", "protocol", "match"},
	// Players of match play from their specs, and networks as evaluators.
	"player": {"rules", "mcts", "net", "engine", "match", "configs/variants"},
	// Where games start: opening suites and random openings.
	"openings": {"rules", "mcts", "datasets", "match", "configs", "configs/variants", "internal/fileio", "internal/errctx"},
	// Charts: one palette, axis ticks and PNG files.
	"chart": {"internal/fileio"},
	// Ratings: Bradley-Terry fits over match files, their report and chart.
	"ratings": {"stats", "match", "chart", "internal/fileio"},
	// Balance studies: rule sets' win rates in self-play and game records.
	"balance": {"rules", "mcts", "stats", "match", "player", "openings", "configs/variants", "chart", "internal/errctx"},
	// Self-play runs: games into dataset shards.
	"selfplay": {"rules", "mcts", "datasets", "match", "configs", "openings", "player", "internal/fileio"},
	// Training runs: samples from shards and records into a network.
	"training": {"rules", "net", "datasets", "archive", "configs", "chart", "internal/fileio"},
	// The self-play loop: generations of self-play, training and gating.
	"loop": {"rules", "mcts", "net", "datasets", "archive", "stats", "match", "configs", "openings", "player", "selfplay", "training", "chart", "ratings", "internal/fileio", "internal/progress", "internal/errctx", "internal/tomlbound"},
	// Files written whole or not at all, and read within a limit.
	"internal/fileio": {},
	// TOML decoded within bounds checked before the decoder allocates.
	"internal/tomlbound": {},
	// Progress bars and lines for long runs.
	"internal/progress": {},
	// Other packages' errors in a context of the caller's.
	"internal/errctx": {},
	// Support for tests only: finding Node.js and its packages.
	"internal/nodetest": {},
	// Support for tests only: small network files.
	"internal/nettest": {"net"},
	// Support for tests only: rule sets with changes, small files.
	"internal/varianttest": {"rules", "configs/variants"},
	// Support for tests only: measuring other processes.
	"internal/proctest": {},
	// The container image and Kubernetes manifests; Go for their test only.
	"deploy": {},
}

// TestLayering parses every package's imports and fails on an import against
// the order, or on a package the table does not place.
func TestLayering(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "data" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." || pkg == "cmd" || strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "bench/") {
			return nil // the commands and benchmark programs may import anything
		}
		// The most specific entry that holds the package places it.
		top := pkg
		allowed, known := allowedImports[top]
		for !known && strings.Contains(top, "/") {
			top = top[:strings.LastIndex(top, "/")]
			allowed, known = allowedImports[top]
		}
		if !known {
			t.Errorf("%s: package %s has no place in allowedImports: add it with the imports it may have", path, pkg)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(p, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(p, module+"/")
			if !strings.HasPrefix(dep, top) && !slices.ContainsFunc(allowed, func(a string) bool { return dep == a || strings.HasPrefix(dep, a+"/") }) {
				t.Errorf("%s imports %s: package %s may import only %v of this module", path, p, top, allowed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("rules"); err != nil {
		t.Fatalf("run from the module root: %v", err)
	}
}
