// Package configs holds the run configurations that ship inside every
// binary (embedded TOML files such as selfplay.toml), so that every command
// runs with no arguments, and reads a user's copies of them. The rule sets
// are in the subpackage variants.
//
//	cfg := configs.DefaultSelfPlay()                   // the embedded run
//	cfg, err := configs.ParseSelfPlay("my.toml", data) // a user's copy
//
// Reading files from disk is the commands' job; this package parses bytes.
package configs

import (
	"fmt"

	"taflab/configs/internal/strict"
)

// parseOver reads a config file over c (the embedded values: keys the file
// leaves out keep them) strictly and validates the result; errors name the
// file.
func parseOver[T any, P interface {
	*T
	Validate() error
}](file string, data []byte, c T) (T, error) {
	var none T
	if _, err := strict.Decode("configs: ", file, data, &c); err != nil {
		return none, err
	}
	if err := P(&c).Validate(); err != nil {
		return none, fmt.Errorf("configs: %s: %w", file, err)
	}
	return c, nil
}
