package player

import (
	"fmt"
	"os"
	"path/filepath"

	"taflab/configs/variants"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

// ShippedNetworkFile is where the network that ships with taflab for
// copenhagen, the main job's rule set, lies in the project, and beside an
// installed executable: the network commands play and analyse with when
// given none. Its file names copenhagen's planes (net.Network.PlanesOf).
// The network trained on people's games of the archive's rule set lies
// beside it under that rule set's name (networks/copenhagen-classic.safetensors;
// ShippedNetworks).
var ShippedNetworkFile = filepath.Join("networks", "copenhagen.safetensors")

// BuiltinName is the value of a -net flag that names the network-free
// searcher (mcts.NewHeuristic).
const BuiltinName = "builtin"

// ShippedNetwork returns the shipped network's path if it is found in the
// working folder or beside the executable (OpenTafl runs engines in their
// own folder), else "".
func ShippedNetwork() string {
	candidates := []string{ShippedNetworkFile}
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		candidates = append(candidates, filepath.Join(dir, ShippedNetworkFile), filepath.Join(dir, filepath.Base(ShippedNetworkFile)))
	}
	for _, c := range candidates {
		if info, err := os.Stat(c); err == nil && info.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// NetworkOrShipped returns the network file a -net flag names: the flag's
// value, or when it is "" the network that ships for rule set v
// (ShippedNetworks), or the shipped network (ShippedNetwork) when none
// ships for v or v is nil; an error when none is found. "builtin" is
// returned as it is.
func NetworkOrShipped(flagValue string, v *rules.Variant) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if v != nil {
		if p := ShippedNetworks()[v.Name()]; p != "" && variants.IsShipped(v) {
			return p, nil
		}
	}
	if p := ShippedNetwork(); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("no network given, and the shipped one (%s) is not in the working folder or beside the executable: give -net FILE, or -net %s for the network-free searcher", ShippedNetworkFile, BuiltinName)
}

// AnalysisEvaluator returns the evaluator a -net flag names
// (NetworkOrShipped, for games of rule set v; nil when they are of
// several): the built-in searcher's for "builtin", else the network's on
// threads threads (0: one per core), with random board symmetries drawn
// from the analysis's seed, and the file it read ("builtin" for none).
func AnalysisEvaluator(flagValue string, v *rules.Variant, threads int) (mcts.Evaluator, string, error) {
	path, err := NetworkOrShipped(flagValue, v)
	if err != nil {
		return nil, "", err
	}
	if path == BuiltinName {
		return mcts.NewHeuristic(), BuiltinName, nil
	}
	factory, _, err := NetworkEvaluators(path, threads, nil)
	if err != nil {
		return nil, "", err
	}
	e, err := factory()
	if err != nil {
		return nil, "", err
	}
	return e, path, nil
}

// ShippedNetworks returns the networks that ship for the embedded rule
// sets, by name, where found (ShippedNetwork's places): rule set NAME's is
// networks/NAME.safetensors, or else a network there whose file says it
// learnt NAME's planes alone (net.Network.PlanesOf). A file that does not
// load is left out.
func ShippedNetworks() map[string]string {
	dirs := []string{filepath.Dir(ShippedNetworkFile)}
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		dirs = append(dirs, filepath.Join(dir, filepath.Dir(ShippedNetworkFile)), dir)
	}
	out := map[string]string{}
	var files []string
	for _, d := range dirs {
		found, _ := filepath.Glob(filepath.Join(d, "*.safetensors"))
		files = append(files, found...)
	}
	for _, name := range variants.Names() {
		for _, f := range files {
			if filepath.Base(f) == name+".safetensors" && isRegular(f) {
				out[name] = f
				break
			}
		}
	}
	if len(out) == len(variants.Names()) {
		return out // every one by its name: no file need be loaded
	}
	for _, f := range files {
		if !isRegular(f) {
			continue
		}
		n, _, err := net.Load(f)
		if err != nil || n.PlanesOf() == nil {
			continue
		}
		if name := n.PlanesOf().Name(); out[name] == "" && variants.IsShipped(n.PlanesOf()) {
			out[name] = f
		}
	}
	return out
}

// isRegular reports whether path is a regular file.
func isRegular(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
