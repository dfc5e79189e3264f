package main

import (
	"fmt"
	"io"

	"taflab/cmd/internal/cli"
	"taflab/net"
)

const exportUsage = `usage: train export -net FILE -format onnx|safetensors -out FILE

Writes a network file (network.safetensors of a run folder) in another
format: onnx for other engines and tools (input "planes" [N,15,11,11],
outputs "policy" [N,4840] logits and "wdl" [N,3] probabilities, batch norm
folded), or safetensors (a clean copy). The output is written whole or not
at all.

Flags:
`

func runExport(args []string, stdout, stderr io.Writer) int {
	fs := cli.NewFlags("train export", exportUsage, stderr)
	netFile := fs.String("net", "", "the network `file` to export")
	format := fs.String("format", "", "`onnx` or safetensors")
	out := fs.String("out", "", "the output `file`")
	if code, done := fs.Parse(args, nil, nil, stdout, stderr); done {
		return code
	}
	switch {
	case *netFile == "" || *out == "":
		fmt.Fprintln(stderr, "train export: -net and -out are required")
		return 2
	case *format != "onnx" && *format != "safetensors":
		fmt.Fprintf(stderr, "train export: -format %q: want onnx or safetensors\n", *format)
		return 2
	}
	n, _, err := net.Load(*netFile)
	if err != nil {
		fmt.Fprintln(stderr, "train export:", err)
		return 1
	}
	if *format == "onnx" {
		err = n.ExportONNX(*out)
	} else {
		err = n.Save(*out, nil)
	}
	if err != nil {
		fmt.Fprintln(stderr, "train export:", err)
		return 1
	}
	fmt.Fprintf(stdout, "train export: %s (%d blocks x %d channels) -> %s (%s)\n", *netFile, n.Config().Blocks, n.Config().Channels, *out, *format)
	return 0
}
