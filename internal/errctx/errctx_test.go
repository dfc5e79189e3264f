package errctx

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestWithin(t *testing.T) {
	w := Wrapper{Prefix: "loop: ", Strip: []string{"match: ", "configs: "}}
	for _, tc := range []struct {
		name, context string
		err           error
		want          string
	}{
		{"stripped", "gate.openings", errors.New("configs: games = 0: must be positive"), "loop: gate.openings: games = 0: must be positive"},
		{"one prefix only", "gate", errors.New("match: configs: twice"), "loop: gate: configs: twice"},
		{"unknown prefix kept", "train", errors.New("net: bad shape"), "loop: train: net: bad shape"},
		{"no prefix", "x", errors.New("plain"), "loop: x: plain"},
		{"prefix not at the start", "x", errors.New("see configs: here"), "loop: x: see configs: here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := w.Within(tc.context, tc.err).Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWithinUnwraps(t *testing.T) {
	w := Wrapper{Prefix: "balance: ", Strip: []string{"player: "}}
	inner := fmt.Errorf("player: %w", fs.ErrNotExist)
	err := w.Within("networks", inner)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist): got false, want true", err)
	}
	if got := errors.Unwrap(err); got != inner {
		t.Errorf("Unwrap: got %v, want %v", got, inner)
	}
}
