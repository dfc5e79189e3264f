package net

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"taflab/configs/variants"
	"taflab/internal/nodetest"
	"taflab/rules"
)

// onnxNetwork is the network the ONNX tests export: 2 blocks of 8
// channels, 2 value channels (so that the value head's flattening order
// matters), batch norms with running statistics to fold.
func onnxNetwork(t testing.TB) *Network {
	return testNetwork(t, Config{Blocks: 2, Channels: 8, ValueChannels: 2, ValueHidden: 6}, 31)
}

func exportONNX(t *testing.T, n *Network) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "net.onnx")
	if err := n.ExportONNX(path); err != nil {
		t.Fatal(err)
	}
	noTemps(t, dir, "net.onnx")
	return path
}

// protoFields splits a protobuf message into its fields: number → the raw
// values (varints as their value, bytes as their contents).
func protoFields(t *testing.T, b []byte) map[protowire.Number][]any {
	t.Helper()
	out := map[protowire.Number][]any{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				t.Fatalf("field %d: %v", num, protowire.ParseError(n))
			}
			out[num] = append(out[num], v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				t.Fatalf("field %d: %v", num, protowire.ParseError(n))
			}
			out[num] = append(out[num], v)
			b = b[n:]
		default:
			t.Fatalf("field %d: unexpected wire type %d", num, typ)
		}
	}
	return out
}

func protoStrings(vs []any) []string {
	var out []string
	for _, v := range vs {
		out = append(out, string(v.([]byte)))
	}
	return out
}

// TestExportONNXStructure decodes the exported model with protowire: the
// IR version, the opset, the graph's inputs and outputs, and that every
// node's inputs are defined before it (the graph is in topological order).
func TestExportONNXStructure(t *testing.T) {
	n := onnxNetwork(t)
	b, err := os.ReadFile(exportONNX(t, n))
	if err != nil {
		t.Fatal(err)
	}
	model := protoFields(t, b)
	if got := model[modelIRVersion]; len(got) != 1 || got[0] != uint64(8) {
		t.Errorf("ir_version: got %v, want [8]", got)
	}
	opset := protoFields(t, model[modelOpsetImport][0].([]byte))
	if got := opset[opsetVersion]; len(got) != 1 || got[0] != uint64(13) {
		t.Errorf("opset version: got %v, want [13]", got)
	}
	graph := protoFields(t, model[modelGraph][0].([]byte))
	names := func(field protowire.Number) []string {
		var out []string
		for _, v := range graph[field] {
			out = append(out, protoStrings(protoFields(t, v.([]byte))[valueInfoName])...)
		}
		return out
	}
	if got := names(graphInput); !slices.Equal(got, []string{"planes"}) {
		t.Errorf("inputs: got %v, want [planes]", got)
	}
	if got := names(graphOutput); !slices.Equal(got, []string{"policy", "wdl"}) {
		t.Errorf("outputs: got %v, want [policy wdl]", got)
	}
	defined := map[string]bool{"planes": true}
	inits := 0
	for _, v := range graph[graphInitializer] {
		name := protoStrings(protoFields(t, v.([]byte))[tensorName])[0]
		if defined[name] {
			t.Errorf("initializer %q defined twice", name)
		}
		defined[name] = true
		inits++
	}
	ops := map[string]int{}
	for _, v := range graph[graphNode] {
		node := protoFields(t, v.([]byte))
		op := protoStrings(node[nodeOpType])[0]
		ops[op]++
		for _, in := range protoStrings(node[nodeInput]) {
			if !defined[in] {
				t.Errorf("%s node: input %q is not defined before it", op, in)
			}
		}
		for _, out := range protoStrings(node[nodeOutput]) {
			if defined[out] {
				t.Errorf("%s node: output %q defined twice", op, out)
			}
			defined[out] = true
		}
	}
	for _, out := range []string{"policy", "wdl"} {
		if !defined[out] {
			t.Errorf("output %q: no node computes it", out)
		}
	}
	convs := 1 + 2*n.cfg.Blocks + 3 // stem, blocks, policy conv and its 1x1, value conv
	want := map[string]int{"Conv": convs, "Add": n.cfg.Blocks, "Gemm": 2, "Softmax": 1, "Transpose": 2, "Reshape": 2}
	for op, w := range want {
		if ops[op] != w {
			t.Errorf("%s nodes: got %d, want %d", op, ops[op], w)
		}
	}
	if want := 2*convs + 4 + 2; inits != want { // weights and biases, the two Reshapes' shapes
		t.Errorf("initializers: got %d, want %d", inits, want)
	}
}

// TestExportONNXMetadata: the model's metadata_props name the format, the
// configuration, the hash and, only for a network that has one, the rule set
// whose planes it learnt, which reads back as that rule set.
func TestExportONNXMetadata(t *testing.T) {
	classic := variants.MustLoad("copenhagen-classic")
	for _, tc := range []struct {
		name   string
		planes *rules.Variant
	}{{"no planes_of", nil}, {"copenhagen-classic", classic}} {
		t.Run(tc.name, func(t *testing.T) {
			n := onnxNetwork(t)
			if tc.planes != nil {
				n.SetPlanesOf(tc.planes)
			}
			b, err := os.ReadFile(exportONNX(t, n))
			if err != nil {
				t.Fatal(err)
			}
			meta := map[string]string{}
			for _, e := range protoFields(t, b)[modelMetadataProps] {
				kv := protoFields(t, e.([]byte))
				meta[protoStrings(kv[entryKey])[0]] = protoStrings(kv[entryValue])[0]
			}
			if got, want := meta[MetaFormat], "taflab-onnx"; got != want {
				t.Errorf("%s: got %q, want %q", MetaFormat, got, want)
			}
			if got, want := meta["taflab.hash"], n.Hash(); got != want {
				t.Errorf("taflab.hash: got %q, want %q", got, want)
			}
			text, ok := meta[MetaPlanesOf]
			if tc.planes == nil {
				if ok {
					t.Errorf("got %s %q, want none", MetaPlanesOf, text)
				}
				return
			}
			v, err := parsePlanesOf(text)
			if err != nil {
				t.Fatalf("%s %q: %v", MetaPlanesOf, text, err)
			}
			if got, want := v.Definition(), tc.planes.Definition(); got != want {
				t.Errorf("%s: got %+v, want %+v", MetaPlanesOf, got, want)
			}
		})
	}
}

// ortOutput is what testdata/run_onnx.mjs prints.
type ortOutput struct {
	Policy struct {
		Dims []int     `json:"dims"`
		Data []float64 `json:"data"`
	} `json:"policy"`
	WDL struct {
		Dims []int     `json:"dims"`
		Data []float64 `json:"data"`
	} `json:"wdl"`
}

// TestONNXRuntimeMatchesInference runs the exported model with ONNX
// Runtime (onnxruntime-node under Node.js) on random positions and compares
// its outputs with the Go inference's.
func TestONNXRuntimeMatchesInference(t *testing.T) {
	node, modules := nodetest.Require(t, "onnxruntime-node", "--ignore-scripts onnxruntime-node@1")
	n := onnxNetwork(t)
	model := exportONNX(t, n)
	samples := randomSamples(t, 7, 41)
	for _, b := range []int{len(samples), 1} { // the batch dimension is dynamic
		in := n.NewInference(1, "go")
		x := in.Input(b)
		encodeAll(t, samples[:b], x)
		// The network's input is square-major (NHWC); ONNX's is NCHW.
		var raw []byte
		for i := range b {
			for p := range InputPlanes {
				for s := range Squares {
					raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x[(i*Squares+s)*InputPlanes+p]))
				}
			}
		}
		input := filepath.Join(t.TempDir(), "planes.f32")
		if err := os.WriteFile(input, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		logits, wdl := in.Forward(b)

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "run_onnx.mjs"), modules, model, input, strconv.Itoa(b))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("node run_onnx.mjs: %v\n%s", err, stderr.String())
		}
		var got ortOutput
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("decoding the script's output: %v\n%.2000s", err, out)
		}
		if !slices.Equal(got.Policy.Dims, []int{b, PolicySize}) || !slices.Equal(got.WDL.Dims, []int{b, 3}) {
			t.Fatalf("batch %d: got dims %v and %v, want [%d %d] and [%d 3]", b, got.Policy.Dims, got.WDL.Dims, b, PolicySize, b)
		}
		var maxPolicy, maxWDL float64
		for i, want := range logits {
			d := math.Abs(got.Policy.Data[i] - float64(want))
			maxPolicy = max(maxPolicy, d)
			if d > 1e-4 {
				t.Errorf("batch %d: logit %d (position %d, index %d): got %v, want %v", b, i, i/PolicySize, i%PolicySize, got.Policy.Data[i], want)
			}
		}
		for i, want := range wdl {
			d := math.Abs(got.WDL.Data[i] - float64(want))
			maxWDL = max(maxWDL, d)
			if d > 1e-4 {
				t.Errorf("batch %d: wdl %d: got %v, want %v", b, i, got.WDL.Data[i], want)
			}
		}
		t.Logf("batch %d: ONNX Runtime vs Go inference: max |difference| %.3g (policy logits), %.3g (wdl)", b, maxPolicy, maxWDL)
	}
}

// TestONNXChecker runs ONNX's own checker (with shape inference) on the
// exported model.
func TestONNXChecker(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import onnx").Run(); err != nil {
		t.Skipf("%s -c 'import onnx' failed (%v): install python3-onnx (apt-get install python3-onnx, as .ci/run does) to check the exported model with ONNX's checker", python, err)
	}
	model := exportONNX(t, onnxNetwork(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-c",
		"import sys, onnx; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)", model).CombinedOutput()
	if err != nil {
		t.Fatalf("onnx.checker.check_model: %v\n%s", err, out)
	}
}

func TestExportONNXAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "net.onnx")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := onnxNetwork(t).ExportONNX(path)
	if err == nil || !strings.HasPrefix(err.Error(), "net: "+path+": ") {
		t.Errorf("got %v, want an error naming %s", err, path)
	}
	noTemps(t, dir, "net.onnx")
}
