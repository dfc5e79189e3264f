package web

import (
	"fmt"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"taflab/configs/variants"
	"taflab/mcts"
)

// PlayoutsLimit is the most playouts Config.MaxPlayouts may allow (below
// mcts.MaxPlayouts). A playout keeps a node of the search tree for each
// move of the position it expands, about 3 KB (2.7 KB of heap a playout
// measured at 20,000 playouts of copenhagen), so a million would be some
// 3 GB; Config.TreeBytes ends a search long before.
const PlayoutsLimit = 1_000_000

// Config is what the server serves and its limits.
type Config struct {
	// DataDir is a folder of games to replay: self-play datasets
	// (*.games.arrow), game records and match games (*.csv), at any depth.
	// "" serves none.
	DataDir string
	// RunDir is a run folder of the training loop, or a folder of run
	// folders; its match games can be replayed too. "" serves none.
	RunDir string
	// NetFile is a network file to play against and to analyse with, for
	// every rule set (player id "net"); the networks of RunDir's
	// generations are offered too. "" for none.
	NetFile string
	// OwnNetworks maps an embedded rule set's name (configs/variants) to
	// the network file that ships for it: player id "own" plays and
	// analyses a game of an embedded rule set with that rule set's own
	// network, one that learnt its input planes, and is refused (422) for
	// a rule set absent here. cmd/eval fills it from
	// player.ShippedNetworks(): the server itself searches no folder for
	// networks. nil or empty offers no "own" player.
	OwnNetworks map[string]string
	// MaxGames bounds the games kept in memory; the one played least
	// recently is dropped for a new one (default 64).
	MaxGames int
	// MaxPlayouts bounds the playouts a request may ask of a search
	// (default 20000, at most PlayoutsLimit). A search takes about 3 KB a
	// playout: some 60 MB at 20000.
	MaxPlayouts int
	// TreeBytes is the memory budget of one search's tree
	// (mcts.Config.TreeBytes; default 128 MiB, some 40,000 playouts, from
	// mcts.MinTreeBytes to mcts.MaxTreeBytes): a search that reaches it
	// ends early with the playouts it has, which its answer gives.
	TreeBytes int64
	// MaxSearches bounds the searches that run at once (an engine's move or
	// an analysis; default 2, at most 256): beyond it a request waits in a
	// queue of at most MaxQueue for at most QueueWait, then is answered 503
	// with a message that the server is busy. The searches' memory is at
	// most MaxSearches times TreeBytes.
	MaxSearches int
	// MaxReads bounds the requests that read files at once (a games file
	// to list or replay, a run's reports; default 1, at most 256), queued
	// the same way. A listing holds a page of GamesPage games, reading game
	// records a line at a time; a dataset's games file is decoded whole.
	MaxReads int
	// MaxQueue bounds the requests waiting for a search or a read (default
	// 32, 0 to 10000); QueueWait bounds how long each waits (default 10 s,
	// 0 to 1 hour).
	MaxQueue  int
	QueueWait time.Duration
	// MaxBody bounds a request body in bytes (default 1 MiB: a rule-set
	// file and a game's moves fit many times over).
	MaxBody int64
	// MaxFileBytes bounds one file the server reads whole (a dataset, a
	// record file, a report, a network; default 16 MiB, some 20,000 games
	// of game records, 1024 to 1 TiB); MaxRunBytes bounds all the files one
	// /api/run request reads together (default 16 MiB, where a run's
	// reports are kilobytes; 1024 to 1 TiB): past it the remaining reports
	// are skipped, each with an error in the answer that says so.
	MaxFileBytes int64
	MaxRunBytes  int64
	// MemoryLimit is the Go runtime's soft memory limit that
	// SetMemoryLimit sets (default 448 MiB; 0 leaves the runtime's; at
	// most 1 TiB): near it the garbage collector runs more often rather
	// than let the heap grow to twice what is live. With the default
	// limits what is live stays under some 300 MB (2 searches of 20,000
	// playouts, about 60 MB each, and one read of a 16 MiB file), so the
	// process stays under 512 MiB
	// (TestMemoryUnderLoad); with -max-playouts raised, each search is
	// still at most TreeBytes.
	MemoryLimit int64
	// The http.Server's timeouts (HTTPServer). ReadHeaderTimeout bounds the
	// reading of a request's headers (default 10 s) and ReadTimeout the
	// whole request with its body (default 30 s): a client that trickles
	// its request is cut off. WriteTimeout bounds the writing of an answer
	// (default 60 s); a search lifts it while it runs (it ends when its
	// client goes away) and sets it again when its answer is ready.
	// IdleTimeout bounds how long a kept-alive connection waits for its
	// next request (default 60 s). Each from 1 ms to 1 hour.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	// AnyHost answers requests whatever their Host header. False (the
	// default, for a server on the loopback address) refuses a Host that is
	// not a loopback name or address: a web page elsewhere could otherwise
	// point a name of its own at 127.0.0.1 (DNS rebinding) and read the
	// served folders through its visitor's browser. Set it when the server
	// listens on another address.
	AnyHost bool
}

// DefaultConfig returns a Config that serves no folders, with the default
// limits.
func DefaultConfig() Config {
	return Config{MaxGames: 64, MaxPlayouts: 20000, TreeBytes: 128 << 20, MaxSearches: 2, MaxReads: 1, MaxQueue: 32, QueueWait: 10 * time.Second,
		MaxBody: 1 << 20, MaxFileBytes: 16 << 20, MaxRunBytes: 16 << 20, MemoryLimit: 448 << 20,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 60 * time.Second}
}

// SetMemoryLimit sets the Go runtime's soft memory limit to MemoryLimit
// (runtime/debug.SetMemoryLimit) for a process that serves c, unless
// MemoryLimit is 0 or the GOMEMLIMIT environment variable sets one; it
// returns the limit in force.
func (c *Config) SetMemoryLimit() int64 {
	if c.MemoryLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(c.MemoryLimit)
	}
	return debug.SetMemoryLimit(-1)
}

// Validate reports the first problem with c: a limit out of its range, or
// a folder or file that cannot be used.
func (c *Config) Validate() error {
	type bound struct {
		name      string
		v, lo, hi int64
		unit      string
	}
	for _, b := range []bound{
		{"MaxGames", int64(c.MaxGames), 1, 100_000, ""},
		{"MaxPlayouts", int64(c.MaxPlayouts), 1, PlayoutsLimit, ""},
		{"MaxSearches", int64(c.MaxSearches), 1, 256, ""},
		{"MaxReads", int64(c.MaxReads), 1, 256, ""},
		{"MaxQueue", int64(c.MaxQueue), 0, 10_000, ""},
		{"MaxBody", c.MaxBody, 1024, 1 << 30, " bytes"},
		{"MaxFileBytes", c.MaxFileBytes, 1024, 1 << 40, " bytes"},
		{"MaxRunBytes", c.MaxRunBytes, 1024, 1 << 40, " bytes"},
		{"MemoryLimit", c.MemoryLimit, 0, 1 << 40, " bytes"},
		{"TreeBytes", c.TreeBytes, mcts.MinTreeBytes, mcts.MaxTreeBytes, " bytes"},
	} {
		if b.v < b.lo || b.v > b.hi {
			return fmt.Errorf("web: %s %d: want %d to %d%s", b.name, b.v, b.lo, b.hi, b.unit)
		}
	}
	for _, d := range []struct {
		name   string
		v, min time.Duration
	}{
		{"QueueWait", c.QueueWait, 0},
		{"ReadHeaderTimeout", c.ReadHeaderTimeout, time.Millisecond},
		{"ReadTimeout", c.ReadTimeout, time.Millisecond},
		{"WriteTimeout", c.WriteTimeout, time.Millisecond},
		{"IdleTimeout", c.IdleTimeout, time.Millisecond},
	} {
		if d.v < d.min || d.v > time.Hour {
			return fmt.Errorf("web: %s %v: want %v to 1h0m0s", d.name, d.v, d.min)
		}
	}
	for _, d := range []struct{ name, path string }{{"data folder", c.DataDir}, {"run folder", c.RunDir}} {
		if d.path == "" {
			continue
		}
		st, err := os.Stat(d.path)
		if err != nil {
			return fmt.Errorf("web: %s: %w", d.name, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("web: %s %s is not a folder", d.name, d.path)
		}
	}
	if c.NetFile != "" {
		if st, err := os.Stat(c.NetFile); err != nil {
			return fmt.Errorf("web: network: %w", err)
		} else if st.IsDir() {
			return fmt.Errorf("web: network %s is a folder, not a file", c.NetFile)
		}
	}
	return c.validateOwnNetworks()
}

// validateOwnNetworks checks OwnNetworks, in the order of the rule sets'
// names so that the first problem reported is always the same one.
func (c *Config) validateOwnNetworks() error {
	names := slices.Sorted(maps.Keys(c.OwnNetworks))
	for _, name := range names {
		file := c.OwnNetworks[name]
		if !slices.Contains(variants.Names(), name) {
			return fmt.Errorf("web: own network %s: %q is not an embedded rule set (have %s)", file, name, strings.Join(variants.Names(), ", "))
		}
		if file == "" {
			return fmt.Errorf("web: own network of %s: no file given", name)
		}
		if st, err := os.Stat(file); err != nil {
			return fmt.Errorf("web: own network of %s: %w", name, err)
		} else if st.IsDir() {
			return fmt.Errorf("web: own network of %s: %s is a folder, not a file", name, file)
		}
	}
	return nil
}
