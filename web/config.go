package web

import (
	"fmt"
	"os"
)

// Config is what the server serves and its limits.
type Config struct {
	// DataDir is a folder of games to replay: self-play datasets
	// (*.games.arrow), game records and match games (*.csv), at any depth.
	// "" serves none.
	DataDir string
	// RunDir is a run folder of the training loop, or a folder of run
	// folders; its match games can be replayed too. "" serves none.
	RunDir string
	// NetFile is a network file to play against and to analyse with; the
	// networks of RunDir's generations are offered too. "" for none.
	NetFile string
	// MaxGames bounds the games kept in memory; the one played least
	// recently is dropped for a new one (default 64).
	MaxGames int
	// MaxPlayouts bounds the playouts a request may ask of a search
	// (default 20000).
	MaxPlayouts int
	// MaxBody bounds a request body in bytes (default 1 MiB: a rule-set
	// file and a game's moves fit many times over).
	MaxBody int64
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
	return Config{MaxGames: 64, MaxPlayouts: 20000, MaxBody: 1 << 20}
}

// Validate reports the first problem with c: a limit below one, or a
// folder or file that cannot be used.
func (c *Config) Validate() error {
	switch {
	case c.MaxGames < 1:
		return fmt.Errorf("web: MaxGames %d: want at least 1", c.MaxGames)
	case c.MaxPlayouts < 1:
		return fmt.Errorf("web: MaxPlayouts %d: want at least 1", c.MaxPlayouts)
	case c.MaxBody < 1024:
		return fmt.Errorf("web: MaxBody %d: want at least 1024 bytes", c.MaxBody)
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
	return nil
}
