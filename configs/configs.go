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
