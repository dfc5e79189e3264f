package adapt

import (
	"fmt"
	"regexp"
	"strings"
)

// tableLine is a TOML table header, [name] or [[name]], with an optional
// comment.
var tableLine = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)

// setKey sets key of table ("" the top level) to a string value in a TOML
// text, keeping every other line and comment: the key's line is replaced
// if the table has it, else one is added at the top of the table (the
// table itself at the end if the text has none). The value is written as
// a literal string; one holding a ' or a control character cannot be.
func setKey(text []byte, table, key, value string) ([]byte, error) {
	if strings.ContainsAny(value, "'\n\r\t\x00") {
		return nil, fmt.Errorf("%s: %q cannot be written as a TOML literal string", key, value)
	}
	line := key + " = '" + value + "'"
	keyLine := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	lines := strings.SplitAfter(string(text), "\n")
	current, insertAt := "", -1
	if table == "" {
		insertAt = 0
	}
	for i, l := range lines {
		if m := tableLine.FindStringSubmatch(l); m != nil {
			if current == table && table == "" {
				break // the top level ends at the first table
			}
			current = m[1]
			if current == table {
				insertAt = i + 1
			}
			continue
		}
		if current == table && keyLine.MatchString(l) {
			lines[i] = line + "\n"
			return []byte(strings.Join(lines, "")), nil
		}
	}
	if insertAt < 0 {
		out := strings.Join(lines, "")
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		return []byte(out + "\n[" + table + "]\n" + line + "\n"), nil
	}
	lines = append(lines[:insertAt], append([]string{line + "\n"}, lines[insertAt:]...)...)
	return []byte(strings.Join(lines, "")), nil
}
