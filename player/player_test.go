package player

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"taflab/configs/variants"
	"taflab/internal/nettest"
	"taflab/internal/varianttest"
	"taflab/mcts"
	"taflab/net"
	"taflab/rules"
)

func TestParsePlayerRoot(t *testing.T) {
	netFile := nettest.TinyFile(t, 1)
	tests := []struct {
		name     string
		spec     string
		gumbel   bool
		playouts int
		suffix   string // of the name
		network  string
	}{
		{"builtin gumbel", "builtin:playouts=4,root=gumbel", true, 4, "builtin-4-gumbel", ""},
		{"builtin gumbel first", "builtin:root=gumbel,playouts=6", true, 6, "builtin-6-gumbel", ""},
		{"builtin puct", "builtin:playouts=4,root=puct", false, 4, "builtin-4", ""},
		{"builtin", "builtin:playouts=4", false, 4, "builtin-4", ""},
		{"net gumbel", "net=" + netFile + ",playouts=3,root=gumbel", true, 3, "-3-gumbel", netFile},
		{"net puct", "net=" + netFile + ",root=puct,playouts=3", false, 3, "-3", netFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.spec)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if !strings.HasSuffix(p.Name, tt.suffix) {
				t.Errorf("got name %q, want one ending in %q", p.Name, tt.suffix)
			}
			if p.Playouts != tt.playouts || p.Network != tt.network {
				t.Errorf("got %d playouts, network %q, want %d and %q", p.Playouts, p.Network, tt.playouts, tt.network)
			}
			if p.NewEvaluator == nil {
				t.Fatalf("got no evaluator, want one")
			}
			if !tt.gumbel {
				if p.Search != nil {
					t.Errorf("got search %+v, want nil (the match's own settings)", *p.Search)
				}
				if strings.Contains(p.Name, "gumbel") {
					t.Errorf("got name %q, want no gumbel in it", p.Name)
				}
				return
			}
			if p.Search == nil {
				t.Fatalf("got no search settings, want Gumbel root search")
			}
			if p.Search.RootSearch != mcts.RootGumbel {
				t.Errorf("got root search %q, want %q", p.Search.RootSearch, mcts.RootGumbel)
			}
			if err := p.Search.Validate(); err != nil {
				t.Errorf("got search settings that do not validate: %v", err)
			}
			if want := mcts.DefaultConfig(); want.RootSearch == mcts.RootGumbel {
				t.Errorf("the default root search is already %q: the test proves nothing", want.RootSearch)
			}
		})
	}
	bad := []struct {
		name, spec string
		wants      []string
	}{
		{"unknown root", "builtin:playouts=4,root=x", []string{"root=x", "builtin:playouts=4,root=x"}},
		{"empty root", "builtin:root=", []string{"root="}},
		{"net unknown root", "net=" + netFile + ",root=mcts", []string{"root=mcts"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.spec)
			if err == nil {
				t.Fatalf("got no error, want one naming %q", tt.wants)
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("got error %q, want one naming %q", err, want)
				}
			}
		})
	}
}

// TestNetworkEvaluators: a network's evaluators carry the network's hash
// as their ID, and with another rule set's planes say so and borrow them;
// a 7x7 rule set's planes are refused, naming the sizes.
func TestNetworkEvaluators(t *testing.T) {
	file := nettest.TinyFile(t, 1)
	classic := variants.MustLoad("copenhagen-classic")
	tests := []struct {
		name     string
		planesOf *rules.Variant
		wantID   string // after "net-HASH"
	}{
		{"own planes", nil, ""},
		{"classic's planes", classic, "-as-copenhagen-classic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			factory, n, err := NetworkEvaluators(file, 1, tt.planesOf)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			for range 2 {
				e, err := factory()
				if err != nil {
					t.Fatal(err)
				}
				if want := "net-" + n.Hash() + tt.wantID; e.ID() != want {
					t.Errorf("got ID %q, want %q", e.ID(), want)
				}
				in, ok := e.(*net.Inference)
				if !ok {
					t.Fatalf("got evaluator %T, want *net.Inference", e)
				}
				if in.PlanesOf != tt.planesOf || !in.RandomSymmetry {
					t.Errorf("got planes of %v, random symmetry %v, want %v and true", in.PlanesOf, in.RandomSymmetry, tt.planesOf)
				}
			}
		})
	}
	t.Run("7x7 planes", func(t *testing.T) {
		factory, n, err := NetworkEvaluators(file, 1, varianttest.Small(t))
		if err == nil || factory != nil || n != nil {
			t.Fatalf("got %v, want an error and nothing else", err)
		}
		for _, want := range []string{"small", "7x7", "11x11"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("got error %q, want one naming %q", err, want)
			}
		}
	})
	t.Run("missing network", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "none.safetensors")
		if _, _, err := NetworkEvaluators(missing, 1, nil); err == nil || !strings.Contains(err.Error(), "none.safetensors") {
			t.Errorf("got error %v, want one naming none.safetensors", err)
		}
	})
}

func TestParsePlayerPlayoutRange(t *testing.T) {
	cases := []struct {
		spec string
		want string // "" for none
	}{
		{"builtin:playouts=16777216", ""},
		{"builtin:playouts=16777217", "playouts=16777217: want a whole number from 1 to 16777216"},
		{"builtin:playouts=3000000000", "playouts=3000000000: want a whole number from 1 to 16777216"},
		{"builtin:playouts=4294967297", "playouts=4294967297"},
		{"net=x.safetensors,playouts=3000000000", "playouts=3000000000"},
		{"builtin:playouts=0", "playouts=0"},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			_, err := Parse(c.spec)
			if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestSpec: a spec is parsed once and changed as a value; its text reads
// back to the same spec, and a Loader loads a network file once.
func TestSpec(t *testing.T) {
	netFile := nettest.TinyFile(t, 1)
	tests := []struct {
		text string
		want Spec
	}{
		{"builtin:playouts=16", BuiltinSpec(16)},
		{"net=" + netFile + ",playouts=32", NetworkSpec(netFile, 32)},
		{"net=" + netFile + ",playouts=8,root=gumbel", Spec{Kind: Network, Net: netFile, Playouts: 8, Root: mcts.RootGumbel}},
		{"net=" + netFile + ",playouts=8,root=puct", NetworkSpec(netFile, 8)},
		{"net=" + netFile + ",playouts=8,planes=copenhagen-classic", Spec{Kind: Network, Net: netFile, Playouts: 8, Planes: "copenhagen-classic"}},
		{"net=" + netFile + ",playouts=8,tactics=0.5,root=gumbel", Spec{Kind: Network, Net: netFile, Playouts: 8, Tactics: 0.5, Root: mcts.RootGumbel}},
		{"builtin:playouts=8,tactics=0.25", Spec{Kind: Builtin, Playouts: 8, Tactics: 0.25}},
		{"net=" + netFile + ",playouts=8,precision=float32", Spec{Kind: Network, Net: netFile, Playouts: 8, Precision: "float32"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := ParseSpec(tt.text)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, %v, want %+v", got, err, tt.want)
			}
			again, err := ParseSpec(got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Errorf("ParseSpec(%q): got %+v, %v, want %+v", got.String(), again, err, got)
			}
			if more := got.WithPlayouts(400); more.Playouts != 400 || more.Net != got.Net || got.Playouts == 400 {
				t.Errorf("WithPlayouts(400): got %+v from %+v", more, got)
			}
		})
	}
	t.Run("engine", func(t *testing.T) {
		s, err := ParseSpec(`otep:cmd="/bin/engine --silent",movetime=500,name=ot`)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind != Program || s.Name != "ot" || s.Program.MoveTime != 500*time.Millisecond || s.MoveLimit != 1500*time.Millisecond {
			t.Errorf("got %+v, want an OTEP engine named ot with 500 ms a move and 1.5 s allowed", s)
		}
		if again, err := ParseSpec(s.String()); err != nil || again.String() != s.String() {
			t.Errorf("ParseSpec(%q): got %+v, %v, want the same spec", s.String(), again, err)
		}
		if s.WithPlayouts(9).Playouts != 0 {
			t.Errorf("WithPlayouts changed an engine's spec")
		}
	})
	t.Run("precision", func(t *testing.T) {
		var l Loader
		p, err := l.Load(Spec{Kind: Network, Net: netFile, Playouts: 8, Precision: "float32"})
		if err != nil {
			t.Fatal(err)
		}
		e, err := p.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		if got := e.(*net.Inference).Precision(); got != net.Float32 || !strings.HasSuffix(p.Name, "-8-float32") {
			t.Errorf("got precision %v, name %s, want float32, a name ending -8-float32", got, p.Name)
		}
		bad := []string{"net=" + netFile + ",precision=fp16", "builtin:playouts=8,precision=bf16"}
		for _, q := range []string{"bf16", "int8"} {
			if pr, _ := net.ParsePrecision(q); !pr.Native() {
				bad = append(bad, "net="+netFile+",precision="+q) // refused on a CPU without AMX
			}
		}
		for _, text := range bad {
			if _, err := ParseSpec(text); err == nil || !strings.Contains(err.Error(), "precision") {
				t.Errorf("ParseSpec(%q): got %v, want an error about the precision", text, err)
			}
		}
	})
	t.Run("loader loads a network once", func(t *testing.T) {
		var l Loader
		a, err := l.Load(NetworkSpec(netFile, 10))
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.Load(NetworkSpec(netFile, 20))
		if err != nil {
			t.Fatal(err)
		}
		n1, _ := l.Network(netFile)
		n2, _ := l.Network(netFile)
		if n1 != n2 || len(l.nets) != 1 {
			t.Errorf("got %d networks loaded, want 1", len(l.nets))
		}
		if a.Playouts != 10 || b.Playouts != 20 || a.Network != netFile {
			t.Errorf("got players %+v and %+v, want 10 and 20 playouts of %s", a, b, netFile)
		}
	})
}

// TestPlanes: planes=NAME shows the network the planes of the rule set it
// names: the player's evaluator gives another value than the played rule
// set's planes give, the same as a player of the named rule set, and a
// name that is no embedded rule set is refused before any network is read.
func TestPlanes(t *testing.T) {
	netFile := nettest.TinyFile(t, 1)
	played, classic := variants.MustLoad("copenhagen"), variants.MustLoad("copenhagen-classic")
	value := func(spec string, v *rules.Variant) float32 {
		t.Helper()
		p, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		e, err := p.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		g := rules.NewGame(v)
		moves := g.GenerateMoves(nil)
		b := &mcts.Batch{Variants: []*rules.Variant{v}, Positions: []rules.Position{g.Position()},
			Moves: [][]rules.Move{moves}, Priors: [][]float32{make([]float32, len(moves))}, Values: []float32{0}}
		if err := e.Evaluate(b); err != nil {
			t.Fatal(err)
		}
		return b.Values[0]
	}
	own := value("net="+netFile+",playouts=8", played)
	shown := value("net="+netFile+",playouts=8,planes=copenhagen-classic", played)
	asClassic := value("net="+netFile+",playouts=8", classic)
	if shown == own || shown != asClassic {
		t.Errorf("got value %v with classic's planes, want %v (classic played) and not %v (copenhagen's planes)", shown, asClassic, own)
	}
	for _, spec := range []string{"net=" + netFile + ",planes=nope", "builtin:planes=copenhagen"} {
		if _, err := ParseSpec(spec); err == nil || !strings.Contains(err.Error(), "planes") {
			t.Errorf("ParseSpec(%q): got %v, want an error naming planes", spec, err)
		}
	}
}

// TestTactics: tactics=W reaches the player's search settings, beside
// root=gumbel, and a weight out of [0, 1] is refused.
func TestTactics(t *testing.T) {
	netFile := nettest.TinyFile(t, 1)
	for _, tt := range []struct {
		spec       string
		weight     float64
		root, name string
	}{
		{"builtin:playouts=8,tactics=0.3", 0.3, mcts.RootPUCT, "builtin-8-tactics0.3"},
		{"net=" + netFile + ",playouts=8,root=gumbel,tactics=1", 1, mcts.RootGumbel, "-8-gumbel-tactics1"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			p, err := Parse(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if p.Search == nil || p.Search.TacticalWeight != tt.weight || p.Search.RootSearch != tt.root || !strings.HasSuffix(p.Name, tt.name) {
				t.Errorf("got %s with %+v, want weight %v, root %s, a name ending %s", p.Name, p.Search, tt.weight, tt.root, tt.name)
			}
		})
	}
	if p, err := Parse("builtin:playouts=8"); err != nil || p.Search != nil {
		t.Errorf("got %+v, %v, want the default search settings (nil) without tactics", p.Search, err)
	}
	for _, spec := range []string{"builtin:tactics=1.5", "builtin:tactics=-0.1", "builtin:tactics=x", "builtin:tactics=NaN"} {
		if _, err := ParseSpec(spec); err == nil || !strings.Contains(err.Error(), "tactics") {
			t.Errorf("ParseSpec(%q): got %v, want an error naming tactics", spec, err)
		}
	}
}

// TestParseMissingNetwork: a missing network file is net's error, naming
// the file, with one package prefix and the file system's error kept.
func TestParseMissingNetwork(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.safetensors")
	_, err := Parse("net=" + missing + ",playouts=4")
	if err == nil {
		t.Fatal("got no error, want one naming the file")
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "net: ") || strings.Contains(msg, "player") || !strings.Contains(msg, "none.safetensors") {
		t.Errorf("got %q, want net's error naming none.safetensors and no second package name", msg)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want one that is os.ErrNotExist", err)
	}
}

// TestLoaderEngineStderr: an engine program's standard error goes where
// the Loader says.
func TestLoaderEngineStderr(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	s, err := ParseSpec(`otep:cmd="sh -c 'echo from-the-engine >&2'",movetime=100`)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	l := Loader{EngineStderr: &buf}
	p, err := l.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := p.NewProgram(); err == nil {
		e.Close()
		t.Fatal("got an engine, want the start to fail: the program says no hello")
	}
	if !strings.Contains(buf.String(), "from-the-engine") {
		t.Errorf("got standard error %q, want the program's line", buf.String())
	}
}

// TestShippedNetworks: rule set NAME's shipped network is
// networks/NAME.safetensors, or else one whose file says it learnt NAME's
// planes alone.
func TestShippedNetworks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "networks"), 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(name string, planesOf string) {
		n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if planesOf != "" {
			n.SetPlanesOf(variants.MustLoad(planesOf))
		}
		if err := n.Save(filepath.Join(dir, "networks", name), nil); err != nil {
			t.Fatal(err)
		}
	}
	save("fetlar.safetensors", "")
	save("copenhagen.safetensors", "copenhagen")
	save("copenhagen-classic.safetensors", "copenhagen-classic")
	save("a-human.safetensors", "copenhagen-classic") // the file name goes first
	save("x-eleven.safetensors", "hnefatafl11")
	save("y-eleven.safetensors", "hnefatafl11")
	os.WriteFile(filepath.Join(dir, "networks", "broken.safetensors"), []byte("not a network"), 0o644)
	t.Chdir(dir)
	got := ShippedNetworks()
	want := map[string]string{
		"fetlar":             filepath.Join("networks", "fetlar.safetensors"),
		"copenhagen":         filepath.Join("networks", "copenhagen.safetensors"),
		"copenhagen-classic": filepath.Join("networks", "copenhagen-classic.safetensors"),
		"hnefatafl11":        filepath.Join("networks", "x-eleven.safetensors"), // the first, in name order, whose file says so
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestShippedNetworksOfTheProject: the networks in the project's networks/
// are copenhagen's (the self-play network, ShippedNetworkFile),
// copenhagen-classic's (the one trained on people's games), and fetlar's
// and hnefatafl11's (each adapted from it by self-play), and each file
// names its own rule set's planes, which every command then shows it.
func TestShippedNetworksOfTheProject(t *testing.T) {
	t.Chdir("..")
	got := ShippedNetworks()
	for _, name := range []string{"copenhagen", "copenhagen-classic", "fetlar", "hnefatafl11"} {
		want := filepath.Join("networks", name+".safetensors")
		if got[name] != want {
			t.Errorf("%s: got %q, want %q", name, got[name], want)
			continue
		}
		n, _, err := net.Load(want)
		if err != nil {
			t.Fatal(err)
		}
		if p := n.PlanesOf(); p == nil || p.Name() != name {
			t.Errorf("%s: got planes of %v, want %s's", want, p, name)
		}
	}
	if got["copenhagen"] != ShippedNetworkFile || ShippedNetwork() != ShippedNetworkFile {
		t.Errorf("got %q for copenhagen and %q as the shipped network, want both %q", got["copenhagen"], ShippedNetwork(), ShippedNetworkFile)
	}
}

// TestNetworkOrShipped: with no -net, a rule set's own shipped network is
// taken where one ships, else the shipped network; a -net is taken as it is.
func TestNetworkOrShipped(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "networks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"copenhagen", "copenhagen-classic"} {
		n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 1)
		if err != nil {
			t.Fatal(err)
		}
		n.SetPlanesOf(variants.MustLoad(name))
		if err := n.Save(filepath.Join(dir, "networks", name+".safetensors"), nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	tests := []struct {
		name    string
		flag    string
		variant string
		want    string
	}{
		{"the archive's rule set", "", "copenhagen-classic", filepath.Join("networks", "copenhagen-classic.safetensors")},
		{"copenhagen", "", "copenhagen", ShippedNetworkFile},
		{"a rule set with no network of its own", "", "fetlar", ShippedNetworkFile},
		{"several rule sets", "", "", ShippedNetworkFile},
		{"a -net", "mine.safetensors", "copenhagen-classic", "mine.safetensors"},
		{"builtin", BuiltinName, "copenhagen-classic", BuiltinName},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v *rules.Variant
			if tc.variant != "" {
				v = variants.MustLoad(tc.variant)
			}
			got, err := NetworkOrShipped(tc.flag, v)
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v, want %q", got, err, tc.want)
			}
		})
	}
	if err := os.Rename(filepath.Join("networks", "copenhagen.safetensors"), "elsewhere.safetensors"); err != nil {
		t.Fatal(err)
	}
	if got, err := NetworkOrShipped("", variants.MustLoad("fetlar")); err == nil || !strings.Contains(err.Error(), "give -net FILE") {
		t.Errorf("got %q, %v, want an error saying to give -net", got, err)
	}
}
