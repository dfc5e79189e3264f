package main

import (
	"fmt"
	"io"

	"taflab/cmd/internal/cli"
	"taflab/configs"
	"taflab/net"
)

const exportUsage = `usage: train export -net FILE -format onnx|safetensors [-planes NAME|FILE] -out FILE

Writes a network file (network.safetensors of a run folder) in another
format: onnx for other engines and tools (input "planes" [N,15,11,11],
outputs "policy" [N,4840] logits and "wdl" [N,3] probabilities, batch norm
folded), or safetensors (a copy, with the source's metadata such as its
training step). The output is written whole or not at all.

-planes records in the output the rule set whose input planes the network
is to be shown (metadata taflab.planes_of, net.Network.PlanesOf): an
embedded rule set's name or a rule-set file of 11x11. Every command then
shows the network that rule set's planes whatever rule set is played,
unless told otherwise (a match player's ,planes=NAME, engine -planes), as
it does a network trained on one rule set's game records alone. Without
-planes the source's record is kept, or its absence. The weights are
copied bit for bit either way.

Flags:
`

func runExport(args []string, stdout, stderr io.Writer) int {
	fs := cli.NewFlags("train export", exportUsage, stderr)
	netFile := fs.String("net", "", "the network `file` to export")
	format := fs.String("format", "", "`onnx` or safetensors")
	out := fs.String("out", "", "the output `file`")
	planes := fs.String("planes", "", "record the rule set (an embedded `name` or a rule-set file) whose planes the network is shown (default: the source's)")
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
	n, meta, err := net.Load(*netFile)
	if err != nil {
		fmt.Fprintln(stderr, "train export:", err)
		return 1
	}
	if *planes != "" {
		v, err := configs.LoadVariant(*planes)
		if err != nil {
			fmt.Fprintf(stderr, "train export: -planes: %v\n", err)
			return 2
		}
		if v.Size() != net.BoardSize {
			fmt.Fprintf(stderr, "train export: -planes %s: a %dx%d rule set, and the network plays %dx%d\n", *planes, v.Size(), v.Size(), net.BoardSize, net.BoardSize)
			return 2
		}
		n.SetPlanesOf(v)
	}
	if *format == "onnx" {
		err = n.ExportONNX(*out)
	} else {
		err = n.Save(*out, net.ExtraMeta(meta))
	}
	if err != nil {
		fmt.Fprintln(stderr, "train export:", err)
		return 1
	}
	fmt.Fprintf(stdout, "train export: %s (%d blocks x %d channels) -> %s (%s)", *netFile, n.Config().Blocks, n.Config().Channels, *out, *format)
	if p := n.PlanesOf(); p != nil {
		fmt.Fprintf(stdout, ", shown the planes of %s", p.Name())
	}
	fmt.Fprintln(stdout)
	return 0
}
