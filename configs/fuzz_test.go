package configs_test

import (
	"strings"
	"testing"

	"taflab/configs"
	"taflab/mcts"
)

// FuzzParseConfigs feeds run-config files to ParseSelfPlay, ParseTrain and
// ParseLoop: none may panic, an error carries the package prefix and the
// file, and a config one accepts validates again with every playout count
// within [1, mcts.MaxPlayouts]. Run with
//
//	go test ./configs -run '^$' -fuzz '^FuzzParseConfigs$' -fuzztime 2m -parallel 1
func FuzzParseConfigs(f *testing.F) {
	f.Add(configs.SelfPlayFile())
	f.Add(configs.TrainFile())
	f.Add(configs.LoopFile())
	f.Add(configs.TinyLoopFile())
	for _, s := range []string{
		"games = 5\n[search]\nplayouts = 64\n",
		"[search]\nplayouts = 1000000000000\n",
		"[search]\nplayouts = 4294967297\ncheap_playouts = 1\n",
		"[search]\ntree_bytes = 65536\n",
		"[gate]\nplayouts = 3000000000\n",
		"[baseline]\nplayouts = 100\nodds = [2, 200000]\n",
		"[selfplay.mix]\nodds_share = 0.5\nodds = 3\n",
		"steps = 5\n[network]\nblocks = 2\n",
		"[train.records]\nshare = 2\n",
		"seed = \"x\"\n",
		"=",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(kind string, err error, revalidate func() error, playouts ...int) {
			t.Helper()
			if err != nil {
				if !strings.HasPrefix(err.Error(), "configs: ") || !strings.Contains(err.Error(), "fuzz.toml") {
					t.Errorf("%s: got %q, want an error with the package prefix and the file", kind, err)
				}
				return
			}
			if err := revalidate(); err != nil {
				t.Errorf("%s: accepted, then Validate: got %v, want no error", kind, err)
			}
			for _, n := range playouts {
				if err := mcts.CheckPlayouts(n); err != nil {
					t.Errorf("%s: accepted playouts %d: %v", kind, n, err)
				}
			}
		}
		sp, err := configs.ParseSelfPlay("fuzz.toml", data)
		check("selfplay", err, sp.Validate, sp.Search.Playouts, sp.Search.CheapPlayouts)
		tr, err := configs.ParseTrain("fuzz.toml", data)
		check("train", err, tr.Validate)
		lp, err := configs.ParseLoop("fuzz.toml", data)
		check("loop", err, lp.Validate, lp.SelfPlay.Search.Playouts, lp.Gate.Playouts, lp.Baseline.Playouts)
		if err == nil {
			for _, k := range lp.Baseline.Odds {
				if err := mcts.CheckPlayouts(k * lp.Baseline.Playouts); err != nil {
					t.Errorf("loop: accepted baseline rung %d x %d: %v", k, lp.Baseline.Playouts, err)
				}
			}
		}
	})
}
