package configs_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"taflab/configs"
)

func TestSelfPlayConfig(t *testing.T) {
	def := configs.DefaultSelfPlay()
	if def.Variant != "copenhagen" || def.Games < 1 || def.Search.Playouts != 200 {
		t.Errorf("got %+v, want the embedded selfplay.toml", def)
	}
	got, err := configs.ParseSelfPlay("mine.toml", []byte("games = 5\n[search]\nplayouts = 64\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := def
	want.Games, want.Search.Playouts = 5, 64
	if got != want {
		t.Errorf("got %+v, want the embedded values but games and playouts", got)
	}
	bad := []struct{ name, text, want string }{
		{"unknown key", "gamez = 5\n", `unknown key "gamez"`},
		{"unknown search key", "[search]\nplayout = 5\n", `unknown key "search.playout"`},
		{"out of range", "games = 0\n", "games = 0"},
		{"search out of range", "[search]\ncpuct = -1\n", "cpuct"},
		{"cheap above full", "[search]\nplayouts = 10\ncheap_playouts = 20\n", "cheap_playouts"},
		{"odds that do not divide the playouts", "[search]\nplayouts = 30\n[mix]\nodds_share = 0.5\nodds = 4\n", "mix.odds = 4"},
		{"wrong type", "seed = \"x\"\n", "seed"},
		{"playouts past mcts.MaxPlayouts", "[search]\nplayouts = 1000000000000\n", "[search]: playouts = 1000000000000: want from 1 to 16777216"},
		{"playouts that wrapped to 1", "[search]\nplayouts = 4294967297\n", "playouts = 4294967297: want from 1 to 16777216"},
		{"tree bytes below the least", "[search]\ntree_bytes = 1000\n", "tree_bytes = 1000"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := configs.ParseSelfPlay("mine.toml", []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "mine.toml") {
				t.Errorf("got %v, want an error naming mine.toml and %q", err, c.want)
			} else if onePrefix(err) != nil {
				t.Error(onePrefix(err))
			}
		})
	}
}

func TestTrainConfig(t *testing.T) {
	def := configs.DefaultTrain()
	if def.BatchSize != 256 || def.Network.Blocks != 6 || def.Optimizer.Optimizer != "adam" || def.Optimizer.LearningRate != 0.002 {
		t.Errorf("got %+v, want the embedded train.toml", def)
	}
	got, err := configs.ParseTrain("mine.toml", []byte("steps = 5\n[network]\nblocks = 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Steps != 5 || got.Network.Blocks != 2 || got.Network.Channels != 64 || got.BatchSize != 256 {
		t.Errorf("got %+v, want the embedded values but steps and blocks", got)
	}
	bad := []struct{ name, text, want string }{
		{"unknown key", "stepz = 5\n", `unknown key "stepz"`},
		{"unknown network key", "[network]\nlayers = 5\n", `unknown key "network.layers"`},
		{"bad optimizer", "[optimizer]\noptimizer = \"rmsprop\"\n", "optimizer"},
		{"bad batch", "batch_size = 0\n", "batch_size"},
		{"bad channels", "[network]\nchannels = 0\n", "channels"},
		{"search value weight above 1", "search_value_weight = 1.5\n", "search_value_weight = 1.5"},
		{"search value weight below 0", "search_value_weight = -0.1\n", "search_value_weight = -0.1"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := configs.ParseTrain("mine.toml", []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "mine.toml") {
				t.Errorf("got %v, want an error naming mine.toml and %q", err, c.want)
			} else if onePrefix(err) != nil {
				t.Error(onePrefix(err))
			}
		})
	}
}

func TestLoopConfigs(t *testing.T) {
	def := configs.DefaultLoop()
	if def.Generations != 3 || def.SelfPlay.Games != 48 || def.Train.Network.Blocks != 2 || def.Train.PretrainSteps != 1500 ||
		def.Train.Records.Variant != "copenhagen-classic" || def.Gate.Openings != "suite" || len(def.Baseline.Odds) != 3 {
		t.Errorf("got %+v, want the embedded loop.toml", def)
	}
	tiny, err := configs.ParseLoop("tiny.toml", configs.TinyLoopFile())
	if err != nil {
		t.Fatalf("the embedded tiny.toml: %v", err)
	}
	if tiny.Generations != 2 || tiny.Train.Network.Channels != 8 {
		t.Errorf("got %+v, want the tiny loop", tiny)
	}
	adapt, err := configs.ParseLoop("adapt.toml", configs.AdaptLoopFile())
	if err != nil {
		t.Fatalf("the embedded adapt.toml: %v", err)
	}
	if adapt.Train.Init == "" || !adapt.Train.FromLast || adapt.SelfPlay.Mix.SuiteShare != 0 || adapt.Gate.Openings != "random" || adapt.Baseline.Opponent != configs.BaselineStart {
		t.Errorf("got %+v, want train adapt's loop: from a network, on from the last candidate, no suite, random gate openings, rated against the start", adapt)
	}
	if def.SelfPlay.External || tiny.SelfPlay.External {
		t.Errorf("selfplay.external: got %v and %v, want in-process self-play by default", def.SelfPlay.External, tiny.SelfPlay.External)
	}
	if ext, err := configs.ParseLoop("mine.toml", []byte("[selfplay]\nexternal = true\n")); err != nil || !ext.SelfPlay.External {
		t.Errorf("selfplay.external = true: got %v, %v; want external self-play", ext.SelfPlay.External, err)
	}
	for _, c := range []struct{ text, want string }{
		{"[gate]\nalpha = 0.9\n", "alpha"},
		{"[train]\nsteps = 0\n", "train.steps"},
		{"[selfplay]\ngamez = 1\n", `unknown key "selfplay.gamez"`},
		{"[selfplay]\nexternal = 1\n", "external"},
		{"generations = 0\n", "generations"},
		{"[train]\nsearch_value_weight = 2\n", "search_value_weight = 2"},
		{"[train]\npretrain_steps = -1\n", "train.pretrain_steps"},
		{"[train]\npretrain_steps = 10\n[train.records]\nfile = \"\"\n", "train.pretrain_steps"},
		{"[train.records]\nshare = 2\n", "records.share = 2"},
		{"[train.records]\nholdout_every = 1\n", "records.holdout_every = 1"},
		{"[selfplay.mix]\nfavoured = \"king\"\n", "mix.favoured"},
		{"[selfplay.mix]\nodds = 1\n", "mix.odds = 1"},
		{"[selfplay.search]\nroot_search = \"alphabeta\"\n", "root_search"},
		{"[gate]\nopenings = \"\"\n", "gate.openings"},
		{"[baseline]\nodds = [1]\n", "baseline.odds"},
		{"[selfplay.search]\nplayouts = 1000000000000\n", "[selfplay.search]: playouts = 1000000000000: want from 1 to 16777216"},
		{"[gate]\nplayouts = 3000000000\n", "gate.playouts = 3000000000: want from 1 to 16777216"},
		{"[gate]\nplayouts = 0\n", "gate.playouts = 0: want from 1 to 16777216"},
		{"[gate]\nopening_plies = 5000\n", "gate.opening_plies = 5000: want from 0 to 100"},
		{"[baseline]\nplayouts = 2147483648\n", "baseline.playouts = 2147483648: want from 1 to 16777216"},
		{"[baseline]\nplayouts = 100\nodds = [2, 200000]\n", "baseline.odds[1] = 200000: want multipliers that keep baseline.playouts (100) times each within 16777216 playouts"},
		// Issue 36: 200,000 entries made a 400 KB error; past the TOML
		// bound now, and past the rungs' bound below it.
		{"[baseline]\nodds = [" + strings.Repeat("2,", 200000) + "]\n", "more than 10000 keys, tables and array elements"},
		{"[baseline]\nodds = [" + strings.Repeat("2,", 33) + "]\n", "baseline.odds = [33 multipliers]: want at most 32 rungs"},
		{"[[baseline.outside]]\nplayer = \" \"\ngames = 4\n", `baseline.outside[0].player = " "`},
		{"[[baseline.outside]]\nplayer = \"builtin:playouts=50\"\ngames = 1\n", "baseline.outside[0].games = 1: want an even number"},
		{"[[baseline.outside]]\nplayer = \"builtin:playouts=50\"\ngames = 5\n", "baseline.outside[0].games = 5: want an even number"},
		{"[baseline]\ngames = 0\n[[baseline.outside]]\nplayer = \"builtin:playouts=50\"\ngames = 2\n", "baseline.games = 0: want at least 2 with baseline.outside"},
		{"[[baseline.outside]]\nplayer = \"builtin:playouts=50\"\ngames = 2\ndepth = 3\n", `unknown key "baseline.outside.depth"`},
	} {
		if _, err := configs.ParseLoop("mine.toml", []byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error naming %q", c.text, err, c.want)
		} else if onePrefix(err) != nil {
			t.Error(onePrefix(err))
		}
	}
	outside, err := configs.ParseLoop("mine.toml", []byte("[[baseline.outside]]\nplayer = 'otep:cmd=ot,name=ot-3'\ngames = 6\nvariant = 'otr:dim:11'\n[[baseline.outside]]\nplayer = 'builtin:playouts=9'\ngames = 2\n"))
	want := []configs.LoopOutside{{Player: "otep:cmd=ot,name=ot-3", Games: 6, Variant: "otr:dim:11"}, {Player: "builtin:playouts=9", Games: 2}}
	if err != nil || !slices.Equal(outside.Baseline.Outside, want) {
		t.Errorf("baseline.outside: got %+v, %v; want %+v", outside.Baseline.Outside, err, want)
	}
}

// TestSharedSections: the keys a self-play run and the loop's [selfplay]
// share, and those a training run and the loop's [train] share, are read
// alike into the same types; an unknown key's error lists them.
func TestSharedSections(t *testing.T) {
	set := func(g configs.SelfPlayGames) configs.SelfPlayGames {
		g.Games, g.Workers, g.GamesPerWorker, g.Mix.OddsShare, g.Mix.Odds, g.Search.Playouts, g.Search.CheapPlayouts = 7, 2, 3, 0.5, 4, 64, 16
		return g
	}
	games := "games = 7\nworkers = 2\ngames_per_worker = 3\n[mix]\nodds_share = 0.5\nodds = 4\n[search]\nplayouts = 64\ncheap_playouts = 16\n"
	sp, err := configs.ParseSelfPlay("sp.toml", []byte(games))
	if want := set(configs.DefaultSelfPlay().SelfPlayGames); err != nil || sp.SelfPlayGames != want {
		t.Errorf("self-play run: got %+v, %v; want %+v", sp.SelfPlayGames, err, want)
	}
	loopText := strings.NewReplacer("[mix]", "[selfplay.mix]", "[search]", "[selfplay.search]").Replace("[selfplay]\n" + games)
	lp, err := configs.ParseLoop("loop.toml", []byte(loopText))
	if want := set(configs.DefaultLoop().SelfPlay.SelfPlayGames); err != nil || lp.SelfPlay.SelfPlayGames != want {
		t.Errorf("the loop's self-play: got %+v, %v; want %+v", lp.SelfPlay.SelfPlayGames, err, want)
	}

	setTrain := func(tr configs.Training) configs.Training {
		tr.Steps, tr.BatchSize, tr.Window, tr.CheckpointEvery, tr.SearchValueWeight, tr.Network.Blocks, tr.Optimizer.WarmupSteps = 9, 32, 1000, 3, 0.25, 1, 2
		return tr
	}
	train := "steps = 9\nbatch_size = 32\nwindow = 1000\ncheckpoint_every = 3\nsearch_value_weight = 0.25\n[network]\nblocks = 1\n[optimizer]\nwarmup_steps = 2\n"
	tr, err := configs.ParseTrain("train.toml", []byte(train))
	if want := setTrain(configs.DefaultTrain().Training); err != nil || tr.Training != want {
		t.Errorf("training run: got %+v, %v; want %+v", tr.Training, err, want)
	}
	loopText = strings.NewReplacer("[network]", "[train.network]", "[optimizer]", "[train.optimizer]").Replace("[train]\n" + train)
	lp, err = configs.ParseLoop("loop.toml", []byte(loopText))
	if want := setTrain(configs.DefaultLoop().Train.Training); err != nil || lp.Train.Training != want {
		t.Errorf("the loop's training: got %+v, %v; want %+v", lp.Train.Training, err, want)
	}

	_, err = configs.ParseSelfPlay("sp.toml", []byte("gamez = 1\n"))
	for _, key := range []string{"variant", "games", "games_per_worker", "mix.odds", "search.playouts", "net_planes"} {
		if err == nil || !strings.Contains(err.Error(), " "+key+",") && !strings.HasSuffix(err.Error(), " "+key+")") {
			t.Errorf("unknown key: got %v, want the known keys to list %s", err, key)
		}
	}
}

// onePrefix says what is wrong with err if it does not start with the
// package prefix or names a package twice, as "configs: f.toml: configs:
// ..." or "[search]: mcts: ..." would.
func onePrefix(err error) error {
	msg := err.Error()
	if !strings.HasPrefix(msg, "configs: ") {
		return fmt.Errorf("got %q, want it to start with the package prefix", msg)
	}
	if strings.Count(msg, "configs: ") > 1 {
		return fmt.Errorf("got %q, want the package prefix once", msg)
	}
	for _, p := range []string{"mcts: ", "net: ", "stats: "} {
		if strings.Contains(msg, p) {
			return fmt.Errorf("got %q, want one package prefix, not another %q", msg, p)
		}
	}
	return nil
}
