package cli

import (
	"fmt"
	"os"

	"taflab/configs"
	"taflab/match"
	"taflab/rules"
)

// LoadSuite reads an opening suite for v: the file's, or v's own embedded
// suite (configs/openings/NAME.txt) when file is "". Errors name the file
// and line.
func LoadSuite(file string, v *rules.Variant) ([]match.SuiteEntry, error) {
	if file == "" {
		data, ok := configs.OpeningSuite(v.Name())
		if !ok {
			return nil, fmt.Errorf("cli: rule set %s has no opening suite of its own: name a suite file (eval suite builds one)", v.Name())
		}
		return match.ParseSuite("configs/openings/"+v.Name()+".txt (embedded)", data, v)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("cli: opening suite: %w", err)
	}
	return match.ParseSuite(file, data, v)
}
