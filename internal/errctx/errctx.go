// Package errctx puts another package's error under a key of the
// caller's input (a config key, a source of data), so that the message
// names one package and the key is there to read as a value:
//
//	return errctx.Key("loop", "gate.openings", err) // "loop: gate.openings: MESSAGE"
//	...
//	var ke *errctx.KeyError
//	if errors.As(err, &ke) { fmt.Println(ke.Key) } // gate.openings
//
// MESSAGE is err's text without the package prefix it starts with: the
// errors of this module start with their package's name (Packages).
// errors.Is and errors.As still see the wrapped error.
package errctx

import "strings"

// Packages are the names of this module's packages, whose errors start
// with "NAME: ". A test of the module keeps the list to the packages
// there are; it is read only.
var Packages = []string{
	"adapt", "analysis", "archive", "balance", "chart", "configs", "cputime", "datasets", "deploy", "engine", "errctx",
	"fileio", "fit", "kernels", "loop", "match", "mcts", "net", "openings", "player",
	"progress", "protocol", "ratings", "rules", "selfplay", "stats", "strict", "tomlbound", "training",
	"variants", "web",
}

// KeyError is an error of one key of a package's input: Pkg is the
// package that reports it ("loop"), Key the key ("gate.openings", or a
// source such as "records"), Err what is wrong, in its own package's
// words.
type KeyError struct {
	Pkg, Key string
	Err      error
}

// Key returns err under key of package pkg's input (a *KeyError). err must
// not be nil.
func Key(pkg, key string, err error) error { return &KeyError{Pkg: pkg, Key: key, Err: err} }

// Error is "PKG: KEY: MESSAGE", MESSAGE being Err's text without its
// package prefix (Message).
func (e *KeyError) Error() string { return e.Pkg + ": " + e.Key + ": " + Message(e.Err) }

func (e *KeyError) Unwrap() error { return e.Err }

// Message returns err's text without the prefix of the package of this
// module that it starts with, if any: "configs: games = 0: want at least
// 1" is "games = 0: want at least 1". Only the first prefix is cut.
func Message(err error) string {
	msg := err.Error()
	name, rest, ok := strings.Cut(msg, ": ")
	if !ok {
		return msg
	}
	for _, p := range Packages {
		if p == name {
			return rest
		}
	}
	return msg
}
