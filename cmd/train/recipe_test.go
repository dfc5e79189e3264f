package main

import (
	"os"
	"strconv"
	"testing"

	"taflab/configs"
	"taflab/net"
)

// TestShippedNetworkRecipe: networks/copenhagen-train.toml, the config the
// shipped network was trained with (networks/README.md), is a valid
// training config whose architecture is the shipped network's, trained on
// the human archive alone for the steps its metadata records.
func TestShippedNetworkRecipe(t *testing.T) {
	const recipe, shipped = "../../networks/copenhagen-train.toml", "../../networks/copenhagen.safetensors"
	data, err := os.ReadFile(recipe)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.ParseTrain(recipe, data)
	if err != nil {
		t.Fatalf("got %v, want a valid training config", err)
	}
	n, meta, err := net.Load(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Network, n.Config(); got != want {
		t.Errorf("architecture: got %+v, want the shipped network's %+v", got, want)
	}
	if !cfg.Records.Only() || cfg.Records.Variant != "copenhagen-classic" {
		t.Errorf("records: got %+v, want the archive (copenhagen-classic) alone", cfg.Records)
	}
	if got, want := meta["taflab.step"], strconv.Itoa(cfg.Steps); got != want {
		t.Errorf("steps: got %s in the network, want the recipe's %s", got, want)
	}
}
