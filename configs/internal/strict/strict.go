// Package strict decodes the project's TOML files strictly: a syntax error
// or a value of the wrong type is reported with its line and key, and a key
// the destination has no field for is refused, so that a typo never silently
// leaves a default.
package strict

import (
	"errors"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"taflab/internal/errctx"
	"taflab/internal/tomlbound"
)

// Decode decodes TOML data into dst (a pointer to a struct with toml tags);
// file names the file in errors, which are package pkg's (such as
// "configs"; errctx.Error). A file past tomlbound's bounds (size, nesting, key length,
// values) is refused before it is decoded, naming the line.
func Decode(pkg, file string, data []byte, dst any) (toml.MetaData, error) {
	md, err := tomlbound.Decode(data, dst)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			key := ""
			if len(perr.LastKey) > 0 {
				key = ", key " + perr.LastKey
			}
			return md, errctx.Errorf(pkg, "%s: line %d%s: %s", file, perr.Position.Line, key, perr.Message)
		}
		return md, errctx.Errorf(pkg, "%s: %s", file, tomlMessage(err))
	}
	if unknown := md.Undecoded(); len(unknown) > 0 {
		return md, errctx.Errorf(pkg, "%s: unknown key %q (known keys: %s)", file, unknown[0].String(), strings.Join(Keys(reflect.TypeOf(dst).Elem(), ""), ", "))
	}
	return md, nil
}

// Keys lists the toml keys of a struct type in field order, with the keys of
// nested tables as "table.key" and those of an embedded struct as the
// outer struct's.
func Keys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		key := f.Tag.Get("toml")
		if key == "" && f.Anonymous && f.Type.Kind() == reflect.Struct {
			keys = append(keys, Keys(f.Type, prefix)...) // an embedded struct's keys are its outer table's
			continue
		}
		if key == "" || key == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			keys = append(keys, Keys(f.Type, prefix+key+".")...)
			continue
		}
		keys = append(keys, prefix+key)
	}
	return keys
}

// tomlMessage is the TOML decoder's message without its "toml: ", so that
// the outer error names one package: the decoder gives its errors as text
// alone (a ParseError's Message holds no prefix; its other errors start
// with it), so this is the one message read as text.
func tomlMessage(err error) string { return strings.TrimPrefix(err.Error(), "toml: ") }
