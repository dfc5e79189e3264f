package cli

import (
	"flag"
	"fmt"
	"io"
	"time"
)

// Flags is a command's flag set in which each flag is declared once: its
// name, default and help, a number's range (help and checks derive from
// it), and, for a flag that overrides a key of a config read after the
// flags are parsed, the field it sets (Bind). Its numeric flags can only
// be declared with a range.
//
//	fs := cli.NewFlags("selfplay", usage, stderr)
//	cfgFile := fs.String("config", "", "a config `file`")
//	bind := cli.Bind[configs.SelfPlay](fs)
//	bind.Int("games", 0, cli.IntRange(1, 1e8, ""), "`number` of games", func(c *configs.SelfPlay, n int) { c.Games = n })
//	if code, done := fs.Parse(args, nil, nil, stdout, stderr); done { return code }
//	cfg, err := cli.ReadConfig("selfplay", *cfgFile, configs.DefaultSelfPlay(), configs.ParseSelfPlay)
//	bind.Apply(&cfg) // the flags given override the config's keys
type Flags struct {
	*flag.FlagSet
	ranges     Ranges // by flag name, as declared
	documented bool   // the ranges are in the help
}

// NewFlags returns a command's flags (NewFlagSet: errors and help to
// stderr, help as usage followed by the flags).
func NewFlags(name, usage string, stderr io.Writer) *Flags {
	return &Flags{FlagSet: NewFlagSet(name, usage, stderr), ranges: Ranges{}}
}

// Ranges returns the ranges of the flags declared so far, by name.
func (f *Flags) Ranges() Ranges { return f.ranges }

// Int declares a whole-number flag with its range.
func (f *Flags) Int(name string, value int, r Range, usage string) *int {
	p := new(int)
	f.IntVar(p, name, value, r, usage)
	return p
}

// IntVar declares a whole-number flag with its range, stored in p.
func (f *Flags) IntVar(p *int, name string, value int, r Range, usage string) {
	f.ranges[name] = r
	f.FlagSet.IntVar(p, name, value, usage)
}

// Int64Var declares a 64-bit whole-number flag with its range, stored in p.
func (f *Flags) Int64Var(p *int64, name string, value int64, r Range, usage string) {
	f.ranges[name] = r
	f.FlagSet.Int64Var(p, name, value, usage)
}

// Float64 declares a number flag with its range.
func (f *Flags) Float64(name string, value float64, r Range, usage string) *float64 {
	p := new(float64)
	f.Float64Var(p, name, value, r, usage)
	return p
}

// Float64Var declares a number flag with its range, stored in p.
func (f *Flags) Float64Var(p *float64, name string, value float64, r Range, usage string) {
	f.ranges[name] = r
	f.FlagSet.Float64Var(p, name, value, usage)
}

// Uint64 declares an unsigned flag with its range (FullUint64 for a seed).
func (f *Flags) Uint64(name string, value uint64, r Range, usage string) *uint64 {
	p := new(uint64)
	f.Uint64Var(p, name, value, r, usage)
	return p
}

// Uint64Var declares an unsigned flag with its range, stored in p.
func (f *Flags) Uint64Var(p *uint64, name string, value uint64, r Range, usage string) {
	f.ranges[name] = r
	f.FlagSet.Uint64Var(p, name, value, usage)
}

// Duration declares a duration flag with its range in seconds.
func (f *Flags) Duration(name string, value time.Duration, r Range, usage string) *time.Duration {
	f.ranges[name] = r
	return f.FlagSet.Duration(name, value, usage)
}

// Parse parses the command's flags (ParseFlags: -h, -print-config, stray
// arguments) with each number's range in its help, and checks the ranges
// (CheckRanges): a value out of its range is named on stderr, prefixed with
// the command's name, and the command stops with exit status 2.
func (f *Flags) Parse(args []string, printConfig *bool, embedded []byte, stdout, stderr io.Writer) (code int, done bool) {
	if code, done := f.ParseUnchecked(args, printConfig, embedded, stdout, stderr); done {
		return code, done
	}
	if err := f.CheckRanges(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", f.Name(), err)
		return 2, true
	}
	return 0, false
}

// ParseUnchecked is Parse without the check of the ranges, for a command
// whose own checks, with messages that say more, come first; it calls
// CheckRanges after them.
func (f *Flags) ParseUnchecked(args []string, printConfig *bool, embedded []byte, stdout, stderr io.Writer) (code int, done bool) {
	f.Document()
	return ParseFlags(f.FlagSet, args, printConfig, embedded, stdout, stderr)
}

// Document adds each number's range to its help (DocumentRanges), once,
// for a command that parses flags and arguments itself (f.FlagSet.Parse,
// then CheckRanges).
func (f *Flags) Document() {
	if !f.documented {
		DocumentRanges(f.FlagSet, f.ranges)
		f.documented = true
	}
}

// CheckRanges checks the numeric flags given against their ranges
// (CheckRanges of the package).
func (f *Flags) CheckRanges() error { return CheckRanges(f.FlagSet, f.ranges) }

// Given returns the names of the flags given on the command line.
func (f *Flags) Given() map[string]bool { return SetFlags(f.FlagSet) }

// Binding binds flags to the fields of a config of type C that is read
// after the flags are parsed (from -config, say): Apply sets the field of
// each flag given on the command line, so that the flags override the
// config's keys and the config keeps the rest.
type Binding[C any] struct {
	f     *Flags
	names []string            // in the order declared
	set   map[string]func(*C) // by name: sets the field from the flag's value
}

// Bind returns a binding of f's flags to the fields of a C.
func Bind[C any](f *Flags) *Binding[C] {
	return &Binding[C]{f: f, set: map[string]func(*C){}}
}

func (b *Binding[C]) add(name string, set func(*C)) {
	b.names = append(b.names, name)
	b.set[name] = set
}

// Int declares a whole-number flag with its range that sets a field
// (set); it returns the flag's value for other uses.
func (b *Binding[C]) Int(name string, value int, r Range, usage string, set func(*C, int)) *int {
	p := b.f.Int(name, value, r, usage)
	b.add(name, func(c *C) { set(c, *p) })
	return p
}

// Float64 declares a number flag with its range that sets a field.
func (b *Binding[C]) Float64(name string, value float64, r Range, usage string, set func(*C, float64)) *float64 {
	p := b.f.Float64(name, value, r, usage)
	b.add(name, func(c *C) { set(c, *p) })
	return p
}

// Uint64 declares an unsigned flag with its range that sets a field.
func (b *Binding[C]) Uint64(name string, value uint64, r Range, usage string, set func(*C, uint64)) *uint64 {
	p := b.f.Uint64(name, value, r, usage)
	b.add(name, func(c *C) { set(c, *p) })
	return p
}

// String declares a string flag that sets a field.
func (b *Binding[C]) String(name, value, usage string, set func(*C, string)) *string {
	p := b.f.String(name, value, usage)
	b.add(name, func(c *C) { set(c, *p) })
	return p
}

// Bool declares a boolean flag that sets a field.
func (b *Binding[C]) Bool(name string, value bool, usage string, set func(*C, bool)) *bool {
	p := b.f.Bool(name, value, usage)
	b.add(name, func(c *C) { set(c, *p) })
	return p
}

// Apply sets c's field of every bound flag given on the command line, in
// the order they were declared.
func (b *Binding[C]) Apply(c *C) {
	given := b.f.Given()
	for _, name := range b.names {
		if given[name] {
			b.set[name](c)
		}
	}
}
