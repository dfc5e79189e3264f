// Package errctx puts another package's error in a context of the caller's
// package, so that the message names one package:
//
//	var errs = errctx.Wrapper{Prefix: "loop: ", Strip: []string{"configs: ", "match: "}}
//	...
//	return errs.Within("gate.openings", err) // "loop: gate.openings: MESSAGE"
//
// errors.Is and errors.As still see the wrapped error.
package errctx

import "strings"

// Wrapper wraps errors for one package. Its fields are set once and only
// read after (immutable), so one Wrapper serves any number of goroutines.
type Wrapper struct {
	// Prefix is the package's own prefix, "loop: ".
	Prefix string
	// Strip lists the prefixes of the packages whose errors it wraps; the
	// first one a message starts with is cut off.
	Strip []string
}

// Within returns err in context: "PREFIX CONTEXT: MESSAGE", MESSAGE being
// err's text without the first of Strip that it starts with. err must not
// be nil.
func (w Wrapper) Within(context string, err error) error {
	return &wrapped{w: w, context: context, err: err}
}

// wrapped is an error in context (Wrapper.Within).
type wrapped struct {
	w       Wrapper
	context string
	err     error
}

func (e *wrapped) Error() string {
	return e.w.Prefix + e.context + ": " + Strip(e.err.Error(), e.w.Strip)
}

// Strip returns msg without the first of prefixes that it starts with.
func Strip(msg string, prefixes []string) string {
	for _, p := range prefixes {
		if m, ok := strings.CutPrefix(msg, p); ok {
			return m
		}
	}
	return msg
}

func (e *wrapped) Unwrap() error { return e.err }
