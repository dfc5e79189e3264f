package errctx

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestKey(t *testing.T) {
	for _, tc := range []struct {
		name, pkg, key string
		err            error
		want           string
	}{
		{"a package's prefix cut", "loop", "gate.openings", errors.New("configs: games = 0: must be positive"), "loop: gate.openings: games = 0: must be positive"},
		{"one prefix only", "loop", "gate", errors.New("match: configs: twice"), "loop: gate: configs: twice"},
		{"the caller's own", "loop", "follow", errors.New("loop: a run's error"), "loop: follow: a run's error"},
		{"another prefix kept", "loop", "train", errors.New("json: bad input"), "loop: train: json: bad input"},
		{"no prefix", "balance", "x", errors.New("plain"), "balance: x: plain"},
		{"prefix not at the start", "loop", "x", errors.New("see configs: here"), "loop: x: see configs: here"},
		{"a path, not a package", "loop", "x", errors.New("open /tmp/a: no such file"), "loop: x: open /tmp/a: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Key(tc.pkg, tc.key, tc.err).Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKeyUnwraps(t *testing.T) {
	inner := fmt.Errorf("player: %w", fs.ErrNotExist)
	err := Key("balance", "networks", inner)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist): got false, want true", err)
	}
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "networks" || ke.Pkg != "balance" || errors.Unwrap(err) != inner {
		t.Errorf("got %#v, want a *KeyError of balance's key networks wrapping %v", err, inner)
	}
}
