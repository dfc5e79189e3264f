// Package cli is what the commands share: their flag sets (Flags), in
// which each flag is declared once with its range (a number's help and
// checks derive from it) and, for a flag that overrides a config key, the
// field it sets (Bind); -config and -print-config; whole-number lists.
//
//	fs := cli.NewFlags("train", usage, stderr)
//	bind := cli.Bind[configs.Train](fs)
//	bind.Int("steps", 0, cli.IntRange(0, 1e9, ""), "optimizer `steps`", func(c *configs.Train, n int) { c.Steps = n })
//	if code, done := fs.Parse(args, nil, nil, stdout, stderr); done {
//		return code // -h, or a flag out of its range (exit 2, naming it)
//	}
//	cfg := configs.DefaultTrain()
//	bind.Apply(&cfg) // the flags given override the config's keys
package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"taflab/internal/fileio"
	"taflab/internal/tomlbound"
)

// NewFlagSet returns a command's flag set: errors and help go to stderr,
// help as the command's usage text followed by its flags.
func NewFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	return fs
}

// ParseFlags parses the flags of a command that takes no other arguments,
// and answers -print-config (printConfig, which may be nil) by writing the
// embedded config file to stdout. done reports that the command has
// nothing more to do, and code is then its exit status: 0 after -h or
// -print-config, 2 after a bad flag or a stray argument (named on stderr
// with the flag set's name).
func ParseFlags(fs *flag.FlagSet, args []string, printConfig *bool, embedded []byte, stdout, stderr io.Writer) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0, true
		}
		return 2, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q (flags only)\n", fs.Name(), fs.Arg(0))
		return 2, true
	}
	if printConfig != nil && *printConfig {
		stdout.Write(embedded)
		return 0, true
	}
	return 0, false
}

// SetFlags returns the names of the flags given on the command line, which
// override the config file's keys.
func SetFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// ReadConfig parses a config file with parse, or returns the embedded
// default when file is "". Errors are prefixed with the command's name and
// say which flag named the file.
func ReadConfig[C any](cmd, file string, def C, parse func(file string, data []byte) (C, error)) (C, error) {
	if file == "" {
		return def, nil
	}
	data, err := fileio.ReadFileLimit(file, tomlbound.MaxBytes, "a TOML config file")
	if err != nil {
		return def, fmt.Errorf("%s: -config: %w", cmd, err)
	}
	c, err := parse(file, data)
	if err != nil {
		return def, fmt.Errorf("%s: %w", cmd, err)
	}
	return c, nil
}

// ParseInts reads a comma-separated list of whole numbers of at least min,
// each once, such as a -odds flag's "2,4,8"; "" is an empty list.
func ParseInts(text string, min int) ([]int, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	for i, part := range strings.Split(text, ",") {
		// The entry is named, not the whole text, which may be long.
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < min {
			return nil, fmt.Errorf("entry %d, %q: not a whole number of at least %d", i+1, clip(part), min)
		}
		if seen[n] {
			return nil, fmt.Errorf("entry %d, %d: given twice", i+1, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// clip shortens a piece of a flag's text for an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// CommandLine is the command as a shell runs it: "go run ./cmd/" and the
// command's words, then its arguments, each quoted with ' when a shell
// would split or change it, so that a report can name the command that
// made it.
func CommandLine(command string, args []string) string {
	words := []string{"go run ./cmd/" + command}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// List is a flag that may be given several times, its values in order;
// with Split, each value may also be a comma-separated list.
type List struct {
	Values []string
	Split  bool
}

func (l *List) String() string { return strings.Join(l.Values, ",") }

// Set adds a value (with Split, each of its comma-separated parts).
func (l *List) Set(s string) error {
	if !l.Split {
		l.Values = append(l.Values, s)
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			l.Values = append(l.Values, part)
		}
	}
	return nil
}
