// Package errctx gives this module's errors their package and their
// context as values, so that a caller that puts another package's error
// under a context of its own (a config key, a flag, a file) names one
// package, and no caller edits another package's message text:
//
//	return errctx.Errorf("datasets", "%s: no game records in it", name) // "datasets: NAME: no game records in it"
//	...
//	return errctx.Key("loop", "gate.openings", err) // "loop: gate.openings: MESSAGE"
//	...
//	var ke *errctx.KeyError
//	if errors.As(err, &ke) { fmt.Println(ke.Key) } // gate.openings
//
// MESSAGE is err's Message: its text without its package's name, which an
// error of this module gives as a value (an *Error, a *KeyError, or an
// error type of its own with a Message method, as rules.RecordError). An
// error that does not (a standard library's) is kept whole. errors.Is and
// errors.As still see the wrapped error.
package errctx

import (
	"fmt"
	"strings"
)

// Error is an error of a package of this module, the package's name held
// apart from what is wrong: its text is "PKG: MESSAGE".
type Error struct {
	Pkg string // the package's name, such as "datasets"
	Err error  // what is wrong, in the package's words, without its name
}

// Errorf returns an *Error of package pkg, its message formatted as
// fmt.Errorf formats it (%w wraps).
func Errorf(pkg, format string, a ...any) error {
	return &Error{Pkg: pkg, Err: fmt.Errorf(format, a...)}
}

// Error is "PKG: MESSAGE".
func (e *Error) Error() string { return e.Pkg + ": " + e.Err.Error() }

// Message is the error's text without its package's name.
func (e *Error) Message() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

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

// Error is "PKG: KEY: MESSAGE", MESSAGE being Err's Message.
func (e *KeyError) Error() string { return e.Pkg + ": " + e.Message() }

// Message is "KEY: MESSAGE": the error's text without its package's name.
func (e *KeyError) Message() string { return e.Key + ": " + Message(e.Err) }

func (e *KeyError) Unwrap() error { return e.Err }

// Message returns err's text without the name of its package, for a
// caller that puts it under a name of its own: the Message of an error
// that gives one (a Message() string method: *Error, *KeyError and the
// error types of packages that cannot import this one, such as
// rules.RecordError), each joined error's so for errors.Join's, else err's
// whole text. Only err itself is asked, not the errors it wraps: their
// text is inside its own.
func Message(err error) string {
	switch e := err.(type) {
	case interface{ Message() string }:
		return e.Message()
	case interface{ Unwrap() []error }:
		if joined(err, e.Unwrap()) { // each without its name
			msgs := make([]string, len(e.Unwrap()))
			for i, inner := range e.Unwrap() {
				msgs[i] = Message(inner)
			}
			return strings.Join(msgs, "\n")
		}
	}
	return err.Error()
}

// MessageOf is Message for an error of package pkg (an *Error or a
// *KeyError of pkg's, or an error type of pkg's that says so with a
// Package() string method), and err's whole text for another package's:
// what a command that names pkg's work shows, naming another's.
func MessageOf(pkg string, err error) string {
	switch e := err.(type) {
	case *Error:
		if e.Pkg == pkg {
			return e.Message()
		}
	case *KeyError:
		if e.Pkg == pkg {
			return e.Message()
		}
	case interface {
		Package() string
		Message() string
	}:
		if e.Package() == pkg {
			return e.Message()
		}
	}
	return err.Error()
}

// joined reports whether err is errors.Join's of errs: its text is
// theirs, a line each (fmt.Errorf's of several %w is not).
func joined(err error, errs []error) bool {
	texts := make([]string, len(errs))
	for i, e := range errs {
		texts[i] = e.Error()
	}
	return err.Error() == strings.Join(texts, "\n")
}
