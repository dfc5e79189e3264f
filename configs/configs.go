// Package configs holds the rule sets and run configurations that ship
// inside every binary, and reads rule-set files in the same format, so that
// every command runs with no arguments and a user can copy a file, change it
// and point a command at the copy.
//
//	v, err := configs.Variant("copenhagen") // an embedded rule set
//	v, err := configs.ParseVariant("mine.toml", data) // a user's file
//
// Rule-set files are TOML, one key per field of rules.Definition (the
// embedded files in variants/ document every key). Every key is required and
// an unknown key is refused, so that a typo never silently leaves a default.
// Reading files from disk is the commands' job; this package parses bytes.
package configs

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"taflab/rules"
)

//go:embed variants/*.toml
var variantFiles embed.FS

// VariantNames returns the names of the embedded rule sets, sorted.
func VariantNames() []string {
	entries, err := variantFiles.ReadDir("variants")
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

// VariantFile returns the embedded file of a rule set, for users to copy.
func VariantFile(name string) ([]byte, error) {
	data, err := variantFiles.ReadFile(path.Join("variants", name+".toml"))
	if err != nil {
		return nil, fmt.Errorf("configs: unknown rule set %q (embedded: %s; or give a .toml file)", name, strings.Join(VariantNames(), ", "))
	}
	return data, nil
}

// Variant compiles the embedded rule set with the given name.
func Variant(name string) (*rules.Variant, error) {
	data, err := VariantFile(name)
	if err != nil {
		return nil, err
	}
	return ParseVariant(name+".toml", data)
}

// MustVariant is Variant for names known to be embedded; it panics on an
// error (a programmer error: the embedded files are tested).
func MustVariant(name string) *rules.Variant {
	v, err := Variant(name)
	if err != nil {
		panic(err)
	}
	return v
}

// ParseVariant reads and compiles a rule-set file; file names the file in
// errors. It refuses unknown keys, missing keys, values of the wrong type and
// impossible combinations, naming the key and the file.
func ParseVariant(file string, data []byte) (*rules.Variant, error) {
	var def rules.Definition
	md, err := decodeStrict(file, data, &def)
	if err != nil {
		return nil, err
	}
	for _, key := range definitionKeys() {
		if !md.IsDefined(key) {
			return nil, fmt.Errorf("configs: %s: missing key %q: every key of a rule set must be given", file, key)
		}
	}
	v, err := rules.Compile(def)
	if err != nil {
		return nil, fmt.Errorf("configs: %s: %s", file, trimPrefix(err.Error()))
	}
	return v, nil
}

// decodeStrict decodes TOML data into dst and refuses what a typo would
// produce: a syntax error or a value of the wrong type (with its line and
// key), and any key dst has no field for.
func decodeStrict(file string, data []byte, dst any) (toml.MetaData, error) {
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(dst)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			key := ""
			if len(perr.LastKey) > 0 {
				key = ", key " + perr.LastKey
			}
			return md, fmt.Errorf("configs: %s: line %d%s: %s", file, perr.Position.Line, key, trimPrefix(perr.Message))
		}
		return md, fmt.Errorf("configs: %s: %s", file, trimPrefix(err.Error()))
	}
	if unknown := md.Undecoded(); len(unknown) > 0 {
		return md, fmt.Errorf("configs: %s: unknown key %q (known keys: %s)", file, unknown[0].String(), strings.Join(tomlKeys(reflect.TypeOf(dst).Elem(), ""), ", "))
	}
	return md, nil
}

// definitionKeys lists the file keys of rules.Definition, in field order.
func definitionKeys() []string { return tomlKeys(reflect.TypeFor[rules.Definition](), "") }

// tomlKeys lists the toml keys of a struct type in field order, with the
// keys of nested tables as "table.key".
func tomlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		key := f.Tag.Get("toml")
		if key == "" || key == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			keys = append(keys, tomlKeys(f.Type, prefix+key+".")...)
			continue
		}
		keys = append(keys, prefix+key)
	}
	return keys
}

func trimPrefix(s string) string {
	s = strings.TrimPrefix(s, "toml: ")
	return strings.TrimPrefix(s, "rules: ")
}
