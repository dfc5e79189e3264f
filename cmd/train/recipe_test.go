package main

import (
	"os"
	"strconv"
	"testing"

	"taflab/configs"
	"taflab/net"
)

// TestShippedNetworkRecipe: networks/copenhagen-classic-train.toml, the
// config the network trained on people's games was trained with
// (networks/README.md), is a valid training config whose architecture is
// that network's, trained on the human archive alone for the steps its
// metadata records, and the network's file names the archive's rule set's
// planes.
func TestShippedNetworkRecipe(t *testing.T) {
	const recipe, shipped = "../../networks/copenhagen-classic-train.toml", "../../networks/copenhagen-classic.safetensors"
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
	if p := n.PlanesOf(); p == nil || p.Name() != cfg.Records.Variant {
		t.Errorf("planes of: got %v, want the records' rule set %s", p, cfg.Records.Variant)
	}
	if got, want := meta["taflab.step"], strconv.Itoa(cfg.Steps); got != want {
		t.Errorf("steps: got %s in the network, want the recipe's %s", got, want)
	}
}

// TestAdaptRecipe: networks/adapt.toml, the loop train adapt adapted the
// human-trained network to fetlar and to hnefatafl11 with
// (networks/README.md), is a valid loop config that starts from that
// network, keeps people's games in its batches, and trains candidates of
// the shipped networks' architecture for the steps their files record;
// each adapted network's file names its rule set's planes.
func TestAdaptRecipe(t *testing.T) {
	const recipe, human = "../../networks/adapt.toml", "networks/copenhagen-classic.safetensors"
	data, err := os.ReadFile(recipe)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.ParseLoop(recipe, data)
	if err != nil {
		t.Fatalf("got %v, want a valid loop config", err)
	}
	if cfg.Train.Init != human {
		t.Errorf("train.init: got %q, want the human-trained network %s", cfg.Train.Init, human)
	}
	if cfg.Train.Records.Variant != "copenhagen-classic" || cfg.Train.Records.Share <= 0 || cfg.Train.Records.Only() {
		t.Errorf("records: got %+v, want people's games (copenhagen-classic) beside self-play", cfg.Train.Records)
	}
	for _, name := range []string{"fetlar", "hnefatafl11"} {
		n, meta, err := net.Load("../../networks/" + name + ".safetensors")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Train.Network, n.Config(); got != want {
			t.Errorf("%s: architecture: got %+v in the recipe, want the network's %+v", name, got, want)
		}
		if got, want := meta["taflab.step"], strconv.Itoa(cfg.Train.Steps); got != want {
			t.Errorf("%s: steps: got %s in the network, want the recipe's %s a generation", name, got, want)
		}
		if p := n.PlanesOf(); p == nil || p.Name() != name {
			t.Errorf("%s: planes of: got %v, want %s's", name, p, name)
		}
	}
}
