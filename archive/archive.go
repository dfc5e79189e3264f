// Package archive holds the game records that ship inside taflab: people's
// games, embedded in every binary, so that training, fits, suites and tests
// have them on any clone with nothing beside it.
//
// A setting or flag that takes a game-record file (records.file, -records)
// takes an embedded archive's name as well, such as Copenhagen
// ("archive:copenhagen"); Open and ReadFile read either.
//
//	f, err := archive.Open(archive.Copenhagen) // or a file of the user's own
//	if err != nil { ... }
//	defer f.Close()
//	recs, err := datasets.ReadRecords(ctx, archive.Copenhagen, f)
//
// The archives, their licences and sources are listed in README.md beside
// this file.
package archive

import (
	"bytes"
	_ "embed"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"taflab/internal/fileio"
)

// Prefix begins the name of every embedded archive: a records setting that
// starts with it names an archive of this package, never a file.
const Prefix = "archive:"

// Copenhagen names the human archive: 876 games of Copenhagen hnefatafl
// that people played on the aagenielsen.dk server (every second game of
// its public archive), under the rules of copenhagen-classic (its
// Variant), CC0-1.0. One game a line, `moves,attacker_captures,
// defender_captures,result`, as datasets.ReadRecords reads.
const Copenhagen = Prefix + "copenhagen"

//go:embed copenhagen-games.csv
var copenhagenGames []byte

// Archive is one embedded archive: what it is, and its games.
type Archive struct {
	Name    string // its name in settings and flags, Prefix first
	Variant string // the rule set its games were played under
	Games   int    // its records (non-blank lines)
	License string // an SPDX identifier
	Source  string // where it comes from
	data    []byte
}

// Data returns the archive's bytes, the records file as it ships. The
// caller must not change them.
func (a Archive) Data() []byte { return a.data }

var archives = []Archive{{
	Name:    Copenhagen,
	Variant: "copenhagen-classic",
	Games:   876,
	License: "CC0-1.0",
	Source:  "dcampbell24/hnefatafl tests/copenhagen.csv: every second game of the aagenielsen.dk archive",
	data:    copenhagenGames,
}}

// All returns the embedded archives, by name.
func All() []Archive { return slices.Clone(archives) }

// Lookup returns the embedded archive of that name, and whether there is
// one.
func Lookup(name string) (Archive, bool) {
	for _, a := range archives {
		if a.Name == name {
			return a, true
		}
	}
	return Archive{}, false
}

// IsName reports whether name is in the archives' namespace (it starts
// with Prefix), whether or not an archive has it.
func IsName(name string) bool { return strings.HasPrefix(name, Prefix) }

// ErrUnknown is the error of a name with Prefix that no embedded archive
// has; errors.Is(err, fs.ErrNotExist) holds for it too.
var ErrUnknown = errors.New("no such embedded archive")

// unknownError names the archive asked for and the ones there are.
type unknownError struct{ name string }

func (e *unknownError) Error() string {
	names := make([]string, len(archives))
	for i, a := range archives {
		names[i] = a.Name
	}
	return e.name + ": " + ErrUnknown.Error() + " (there is " + strings.Join(names, ", ") + ")"
}

func (e *unknownError) Is(target error) bool { return target == ErrUnknown || target == fs.ErrNotExist }

// Open opens name: an embedded archive (a name with Prefix) or a regular
// file (fileio.Open: a named pipe or a device is refused). A missing file
// gets os.Open's error, and an unknown archive name an error
// that is both ErrUnknown and fs.ErrNotExist.
func Open(name string) (io.ReadCloser, error) {
	if !IsName(name) {
		return fileio.Open(name) // a regular file: a FIFO or a device is refused
	}
	a, ok := Lookup(name)
	if !ok {
		return nil, &unknownError{name}
	}
	return io.NopCloser(bytes.NewReader(a.data)), nil
}

// Stat reports whether name can be opened: nil for an embedded archive,
// else os.Stat's error for the file (fs.ErrNotExist for a missing one), or
// the error of an unknown archive name.
func Stat(name string) error {
	if !IsName(name) {
		_, err := os.Stat(name)
		return err
	}
	if _, ok := Lookup(name); !ok {
		return &unknownError{name}
	}
	return nil
}
