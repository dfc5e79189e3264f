package errctx

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// prefixed is an error type of a package that cannot import errctx (as
// rules.RecordError): it gives its Message itself.
type prefixed struct{ msg string }

func (e *prefixed) Error() string   { return "rules: " + e.msg }
func (e *prefixed) Message() string { return e.msg }

func TestKey(t *testing.T) {
	for _, tc := range []struct {
		name, pkg, key string
		err            error
		want           string
	}{
		{"an error of this module's", "loop", "gate.openings", Errorf("configs", "games = %d: must be positive", 0), "loop: gate.openings: games = 0: must be positive"},
		{"its own name only", "loop", "gate", Errorf("match", "%w", Errorf("configs", "twice")), "loop: gate: configs: twice"},
		{"the caller's own", "loop", "follow", Errorf("loop", "a run's error"), "loop: follow: a run's error"},
		{"a type's own Message", "datasets", "g.csv", &prefixed{"line 2: bad move"}, "datasets: g.csv: line 2: bad move"},
		{"a key under a key", "loop", "gate", Key("openings", "records", Errorf("datasets", "x.csv: empty")), "loop: gate: records: x.csv: empty"},
		{"another's text kept whole", "loop", "train", errors.New("json: bad input"), "loop: train: json: bad input"},
		{"a text that looks prefixed kept whole", "loop", "x", errors.New("configs: not made by Errorf"), "loop: x: configs: not made by Errorf"},
		{"a path, not a package", "loop", "x", errors.New("open /tmp/a: no such file"), "loop: x: open /tmp/a: no such file"},
		{"joined errors, each without its name", "configs", "[search]", errors.Join(Errorf("mcts", "a = 1"), Errorf("mcts", "b = 2")), "configs: [search]: a = 1\nb = 2"},
		{"several %w are not joined", "loop", "x", fmt.Errorf("%w and %w", Errorf("net", "a"), Errorf("net", "b")), "loop: x: net: a and net: b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Key(tc.pkg, tc.key, tc.err).Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestErrorf(t *testing.T) {
	err := Errorf("datasets", "x.csv: %w", fs.ErrNotExist)
	var e *Error
	if !errors.As(err, &e) || e.Pkg != "datasets" || err.Error() != "datasets: x.csv: file does not exist" || Message(err) != "x.csv: file does not exist" {
		t.Errorf("got %#v (%q, message %q), want datasets' error x.csv: file does not exist", err, err, Message(err))
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist): got false, want true", err)
	}
}

func TestKeyUnwraps(t *testing.T) {
	inner := Errorf("player", "%w", fs.ErrNotExist)
	err := Key("balance", "networks", inner)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist): got false, want true", err)
	}
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "networks" || ke.Pkg != "balance" || errors.Unwrap(err) != inner {
		t.Errorf("got %#v, want a *KeyError of balance's key networks wrapping %v", err, inner)
	}
}

func TestMessageOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"the package's own", Errorf("ratings", "no games"), "no games"},
		{"its key", Key("ratings", "anchor", errors.New("unknown")), "anchor: unknown"},
		{"another's kept whole", Errorf("match", "match file x: bad"), "match: match file x: bad"},
		{"a type of another package", &prefixed{"line 2"}, "rules: line 2"},
		{"a plain error", errors.New("plain"), "plain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MessageOf("ratings", tc.err); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
