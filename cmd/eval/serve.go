package main

import (
	"flag"
	"io"

	"taflab/cmd/eval/internal/servecmd"
	"taflab/web"
)

// serveRanges are eval serve's numeric flags' documented ranges.
var serveRanges = servecmd.Ranges

// serveFlags defines eval serve's flags into cfg and addr.
func serveFlags(cfg *web.Config, addr *string, stderr io.Writer) *flag.FlagSet {
	return servecmd.Flags(cfg, addr, stderr).FlagSet
}

// isLoopback reports whether a listening address stays on this machine.
func isLoopback(addr string) (bool, error) { return servecmd.IsLoopback(addr) }

// runServe is the serve subcommand.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return servecmd.Run(args, stdout, stderr)
}
