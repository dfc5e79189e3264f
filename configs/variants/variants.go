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
// rules (and internal/errctx), so that any package's tests may use it.
package variants

import (
	"embed"
	"fmt"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"

	"taflab/configs/internal/strict"
	"taflab/internal/errctx"
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
		return nil, errctx.Errorf("variants", "unknown rule set %q (embedded: %s; or give a .toml file)", name, strings.Join(Names(), ", "))
	}
	return data, nil
}

// Load compiles the embedded rule set with the given name.
func Load(name string) (*rules.Variant, error) {
	data, err := File(name)
	if err != nil {
		return nil, err
	}
	return parse(name+".toml", data)
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
// impossible combinations, naming the key and the file; and a file that
// keeps a shipped rule set's name with other rules, naming the keys that
// differ: a shipped name stands for the shipped rules alone, in match
// files, datasets and reports.
func Parse(file string, data []byte) (*rules.Variant, error) {
	v, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	if keys := Differences(v.Definition()); keys != nil {
		hint := ""
		if v.Definition().Referee == rules.RefereeOpenTafl {
			hint = fmt.Sprintf(" (OpenTafl's reading of it is %s%s)", OpenTaflPrefix, v.Name())
		}
		return nil, errctx.Errorf("variants", "%s: name %q is a shipped rule set's, but the rules differ from it in %s: give the changed rule set a name of its own%s",
			file, v.Name(), strings.Join(keys, ", "), hint)
	}
	return v, nil
}

// OpenTaflPrefix starts the name of a rule set read from an OpenTafl rules
// string that bears a shipped rule set's name but not its rules
// (OpenTafl's Copenhagen is "opentafl-copenhagen").
const OpenTaflPrefix = "opentafl-"

// FromOpenTafl compiles a rule set read from an OpenTafl rules string
// (protocol.CompileRules): under its own name, unless that name is a
// shipped rule set's and the rules are not, when OpenTaflPrefix goes before
// it ("opentafl-copenhagen"), so that a shipped name stands for the shipped
// rules alone. Its errors are rules.Compile's.
func FromOpenTafl(def rules.Definition) (*rules.Variant, error) {
	v, err := rules.Compile(def)
	if err != nil || Differences(v.Definition()) == nil {
		return v, err
	}
	def = v.Definition() // validated: only the name changes
	def.Name = OpenTaflPrefix + def.Name
	return rules.Compile(def)
}

// Differences returns the rule-set file keys in which def differs from the
// shipped rule set of its name; nil when none ships under its name, or def
// is that rule set.
func Differences(def rules.Definition) []string {
	shipped, err := Load(def.Name)
	if err != nil {
		return nil
	}
	return KeysDiffering(def, shipped.Definition())
}

// KeysDiffering returns the rule-set file keys, in the files' order, in
// which a and b differ (the name among them); nil when they are the same.
func KeysDiffering(a, b rules.Definition) []string {
	var keys []string
	have, want := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range have.NumField() {
		if !have.Field(i).Equal(want.Field(i)) {
			keys = append(keys, strings.Split(have.Type().Field(i).Tag.Get("toml"), ",")[0])
		}
	}
	return keys
}

// IsShipped reports whether v is a shipped rule set, rules and name.
func IsShipped(v *rules.Variant) bool {
	return slices.Contains(Names(), v.Name()) && Differences(v.Definition()) == nil
}

// parse is Parse without the check of shipped names, which reads the
// shipped files themselves.
func parse(file string, data []byte) (*rules.Variant, error) {
	var def rules.Definition
	md, err := strict.Decode("variants", file, data, &def)
	if err != nil {
		return nil, err
	}
	for _, key := range strict.Keys(reflect.TypeFor[rules.Definition](), "") {
		if !md.IsDefined(key) && !optionalKeys[key] {
			return nil, errctx.Errorf("variants", "%s: missing key %q: every key of a rule set must be given", file, key)
		}
	}
	v, err := rules.Compile(def)
	if err != nil {
		return nil, errctx.Key("variants", file, err)
	}
	return v, nil
}
