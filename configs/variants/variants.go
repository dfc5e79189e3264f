// Package variants holds the rule sets that ship inside every binary, and
// reads rule-set files in the same format, so that every command can name a
// rule set and a user can copy a file, change it and point a command at the
// copy.
//
//	v, err := variants.Load("copenhagen")       // an embedded rule set
//	v, err := variants.Parse("mine.toml", data) // a user's file
//
// Rule-set files are TOML, one key per field of rules.Definition (the
// embedded files document every key). Every key is required (but referee,
// added later, which defaults to "taflab") and an unknown key is refused,
// so that a typo never silently leaves a default. The package imports only
// rules, so that any package's tests may use it.
package variants

import (
	"embed"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"taflab/configs/internal/strict"
	"taflab/rules"
)

//go:embed *.toml
var files embed.FS

// Names returns the names of the embedded rule sets, sorted.
func Names() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Strings(names)
	return names
}

// File returns the embedded file of a rule set, for users to copy.
func File(name string) ([]byte, error) {
	data, err := files.ReadFile(path.Clean(name) + ".toml")
	if err != nil || strings.Contains(name, "/") {
		return nil, fmt.Errorf("variants: unknown rule set %q (embedded: %s; or give a .toml file)", name, strings.Join(Names(), ", "))
	}
	return data, nil
}

// Load compiles the embedded rule set with the given name.
func Load(name string) (*rules.Variant, error) {
	data, err := File(name)
	if err != nil {
		return nil, err
	}
	return Parse(name+".toml", data)
}

// MustLoad is Load for names known to be embedded; it panics on an error (a
// programmer error: the embedded files are tested).
func MustLoad(name string) *rules.Variant {
	v, err := Load(name)
	if err != nil {
		panic(err)
	}
	return v
}

// optionalKeys may be left out of a rule-set file: keys added after files
// were written, whose zero value is what those files meant.
var optionalKeys = map[string]bool{
	"referee": true, // "taflab"; "opentafl" judges as OpenTafl does
}

// Parse reads and compiles a rule-set file; file names the file in errors.
// It refuses unknown keys, missing keys, values of the wrong type and
// impossible combinations, naming the key and the file.
func Parse(file string, data []byte) (*rules.Variant, error) {
	var def rules.Definition
	md, err := strict.Decode("variants: ", file, data, &def)
	if err != nil {
		return nil, err
	}
	for _, key := range strict.Keys(reflect.TypeFor[rules.Definition](), "") {
		if !md.IsDefined(key) && !optionalKeys[key] {
			return nil, fmt.Errorf("variants: %s: missing key %q: every key of a rule set must be given", file, key)
		}
	}
	v, err := rules.Compile(def)
	if err != nil {
		return nil, fmt.Errorf("variants: %s: %s", file, strict.TrimPrefix(err.Error()))
	}
	return v, nil
}
