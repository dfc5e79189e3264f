package configs

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/protocol"
	"taflab/rules"
)

// LoadVariant returns the rule set a -variant flag names: an embedded rule
// set by name (configs.VariantNames); an OpenTafl rules string after
// "otr:" ("otr:dim:11 name:Copenhagen atkf:y ... start:/3ttttt3/.../"),
// compiled by protocol.CompileRules and refereed as OpenTafl referees
// (rules.RefereeOpenTafl) unless the string says x-referee:taflab; or else a
// rule-set file, when arg ends in .toml or names an existing file: TOML, or
// a file holding one OpenTafl rules string (with or without "otr:"). Errors
// name arg.
//
// A shipped rule set's name stands for its rules alone, so that match
// files, datasets and reports never mix them with others: a rule-set file
// that takes a shipped name with other rules is refused (variants.Parse),
// and an OpenTafl string whose name is a shipped rule set's but whose
// rules are not (OpenTafl's "Copenhagen") is given the name with
// variants.OpenTaflPrefix before it ("opentafl-copenhagen").
func LoadVariant(arg string) (*rules.Variant, error) {
	if slices.Contains(variants.Names(), arg) {
		return variants.Load(arg)
	}
	if otr, ok := strings.CutPrefix(arg, OTRPrefix); ok {
		return compileOTR(fmt.Sprintf("-variant %q", clipArg(arg)), otr)
	}
	info, statErr := os.Stat(arg)
	if !strings.HasSuffix(arg, ".toml") && (statErr != nil || info.IsDir()) {
		hint := ""
		if strings.HasPrefix(arg, variants.OpenTaflPrefix) {
			hint = "; " + variants.OpenTaflPrefix + "NAME is an OpenTafl rules string's name: give the string as otr:RULES"
		}
		return nil, errctx.Errorf("configs", "unknown rule set %q: not an embedded one (%s), not otr:RULES and not a rule-set file%s",
			clipArg(arg), strings.Join(variants.Names(), ", "), hint)
	}
	data, err := fileio.ReadFileLimit(arg, maxRuleSetBytes, "a rule-set file") // a device (/dev/zero) has no size to check beforehand
	if err != nil {
		return nil, errctx.Errorf("configs", "rule-set file %q: %w", arg, err)
	}
	if text, ok := otrText(data); ok {
		return compileOTR(fmt.Sprintf("rule-set file %q", arg), text)
	}
	return variants.Parse(arg, data)
}

// OTRPrefix marks an OpenTafl rules string where a rule set is named.
const OTRPrefix = "otr:"

// maxRuleSetBytes bounds a rule-set file: the largest real one is a few KB.
const maxRuleSetBytes = 1 << 20

// otrText returns a file's OpenTafl rules string, if that is what it holds:
// one line (blank lines and #-comments aside) of key:value words with a
// start: and no '=', which TOML would need.
func otrText(data []byte) (string, bool) {
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || strings.Contains(lines[0], "=") {
		return "", false
	}
	text := strings.TrimPrefix(lines[0], OTRPrefix)
	return text, strings.Contains(text, "start:")
}

// compileOTR compiles an OpenTafl rules string from where.
func compileOTR(where, otr string) (*rules.Variant, error) {
	def, err := protocol.CompileRules(otr)
	if err != nil {
		return nil, errctx.Errorf("configs", "%w", &wrapped{where, err})
	}
	v, err := variants.FromOpenTafl(def)
	if err != nil {
		return nil, errctx.Errorf("configs", "%w", &wrapped{where, err})
	}
	return v, nil
}

// clipArg shortens an argument quoted in an error.
func clipArg(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
