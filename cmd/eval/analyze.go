package main

import (
	"io"

	"taflab/analysis"
	"taflab/cmd/eval/internal/analyzecmd"
)

// analyzeReport is the JSON object eval analyze prints.
type analyzeReport = analysis.Position

// runAnalyze is the analyze subcommand.
func runAnalyze(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return analyzecmd.Run(args, stdout, stderr)
}
