// Package configs holds the run configurations that ship inside every
// binary (embedded TOML files such as selfplay.toml), so that every command
// runs with no arguments, and reads a user's copies of them. The rule sets
// are in the subpackage variants.
//
//	cfg := configs.DefaultSelfPlay()                   // the embedded run
//	cfg, err := configs.ParseSelfPlay("my.toml", data) // a user's copy
//
// A run configuration comes as bytes (its caller reads the file); a rule
// set as -variant names it, which may be a file, is read by LoadVariant.
package configs

import (
	"taflab/configs/internal/strict"
	"taflab/internal/errctx"
	"taflab/protocol"
)

// parseOver reads a config file over c (the embedded values: keys the file
// leaves out keep them) strictly and validates the result; errors name the
// file.
func parseOver[T any, P interface {
	*T
	check() error
}](file string, data []byte, c T) (T, error) {
	var none T
	if _, err := strict.Decode("configs", file, data, &c); err != nil {
		return none, err
	}
	if err := P(&c).check(); err != nil {
		return none, errctx.Errorf("configs", "%s: %w", file, err)
	}
	return c, nil
}

// prefixed is a check's error (nil for none) with the package prefix, as
// the Validate methods return it.
func prefixed(err error) error {
	if err == nil {
		return nil
	}
	return errctx.Errorf("configs", "%w", err)
}

// wrapped is another package's error in a context of this one ("[search]",
// "rule-set file x.txt"): "CONTEXT: MESSAGE", the message without that
// package's prefix, so that the outer error names one package; errors.Is
// and As still see Err.
type wrapped struct {
	context string
	Err     error
}

func (e *wrapped) Error() string {
	if re, ok := e.Err.(*protocol.RulesError); ok { // "key sw: ...": the context names the rules string
		return e.context + ": " + re.Problem()
	}
	return e.context + ": " + errctx.Message(e.Err)
}

func (e *wrapped) Unwrap() error { return e.Err }

// inTable returns the errors of another package's Validate (one, or each
// one errors.Join joined) as errors of a table of the file: "[search]:
// playouts = 0: ...".
func inTable(table string, err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, inTable(table, e)...)
		}
		return errs
	}
	return []error{&wrapped{"[" + table + "]", err}}
}
