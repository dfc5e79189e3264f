package cli

import (
	"flag"
	"fmt"

	"taflab/net"
)

// precisionFlag is -precision: setting it sets the process's network
// precision (net.SetDefaultPrecision), checked against the CPU.
type precisionFlag struct{ p net.Precision }

func (f *precisionFlag) String() string { return f.p.String() }

func (f *precisionFlag) Set(s string) error {
	p, err := net.ParsePrecision(s)
	if err != nil {
		return err
	}
	if err := p.Check(); err != nil {
		return err
	}
	f.p = p
	net.SetDefaultPrecision(p)
	return nil
}

// Precision declares -precision on a command that evaluates networks: the
// arithmetic of their inference (self-play, matches, the engine, analysis;
// training's is its config's optimizer precision, net.TrainConfig). Its default, auto, is set at once as the
// process's (net.SetDefaultPrecision); a precision the CPU does not run is
// refused when the flags are parsed. The usage says what auto is on this
// CPU.
func Precision(fs *flag.FlagSet) {
	f := &precisionFlag{p: net.Auto}
	net.SetDefaultPrecision(net.Auto)
	auto := net.Auto.Resolve()
	fs.Var(f, "precision", fmt.Sprintf("the network's arithmetic `P`: auto (on this CPU %s, on %s), float32, bf16 or int8 (bf16 and int8 need AMX; of inference: training's is its config's [optimizer] precision)",
		auto, auto.Kernel()))
}
