package player

import (
	"fmt"
	"os"
	"path/filepath"

	"taflab/mcts"
)

// ShippedNetworkFile is where the network that ships with taflab lies in
// the project, and beside an installed executable.
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
// value, or the shipped network's path when it is "" (an error when that
// is not found). "builtin" is returned as it is.
func NetworkOrShipped(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if p := ShippedNetwork(); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("no network given, and the shipped one (%s) is not in the working folder or beside the executable: give -net FILE, or -net %s for the network-free searcher", ShippedNetworkFile, BuiltinName)
}

// AnalysisEvaluator returns the evaluator a -net flag names (NetworkOrShipped): the
// built-in searcher's for "builtin", else the network's on threads
// threads (0: one per core), with random board symmetries drawn from the
// analysis's seed, and the file it read ("builtin" for none).
func AnalysisEvaluator(flagValue string, threads int) (mcts.Evaluator, string, error) {
	path, err := NetworkOrShipped(flagValue)
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
