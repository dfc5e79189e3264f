// Package cli holds what the commands in cmd/ share: reading the flags that
// name rule sets and files.
package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"taflab/configs/variants"
	"taflab/rules"
)

// LoadVariant returns the rule set a -variant flag names: an embedded rule
// set by name (configs.VariantNames), or else a rule-set file, when arg ends
// in .toml or names an existing file. Errors name arg.
func LoadVariant(arg string) (*rules.Variant, error) {
	if slices.Contains(variants.Names(), arg) {
		return variants.Load(arg)
	}
	info, statErr := os.Stat(arg)
	if !strings.HasSuffix(arg, ".toml") && (statErr != nil || info.IsDir()) {
		return nil, fmt.Errorf("cli: unknown rule set %q: not an embedded one (%s) and not a .toml file",
			arg, strings.Join(variants.Names(), ", "))
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("cli: rule-set file %q: %w", arg, err)
	}
	return variants.Parse(arg, data)
}
