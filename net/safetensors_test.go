package net

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// sameTensors reports how two tensor lists differ (names, shapes, the bits
// of the data), or "" if they do not.
func sameTensors(got, want []Tensor) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d tensors, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Name != w.Name {
			return fmt.Sprintf("tensor %d: got name %q, want %q", i, g.Name, w.Name)
		}
		if !slices.Equal(g.Shape, w.Shape) && !(len(g.Shape) == 0 && len(w.Shape) == 0) {
			return fmt.Sprintf("tensor %q: got shape %v, want %v", g.Name, g.Shape, w.Shape)
		}
		if len(g.Data) != len(w.Data) {
			return fmt.Sprintf("tensor %q: got %d values, want %d", g.Name, len(g.Data), len(w.Data))
		}
		for j := range g.Data {
			if math.Float32bits(g.Data[j]) != math.Float32bits(w.Data[j]) {
				return fmt.Sprintf("tensor %q: value %d: got %v, want %v", g.Name, j, g.Data[j], w.Data[j])
			}
		}
	}
	return ""
}

// noTemps fails the test if dir holds anything but the files named.
func noTemps(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q", got, want)
	}
}

func TestSafetensorsRoundTrip(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name    string
		tensors []Tensor
		meta    map[string]string
	}{
		{"empty", nil, nil},
		{"metadata only", nil, map[string]string{"a": "b", "ü \"quoted\"\n": "<&>"}},
		{"one", []Tensor{{Name: "w", Shape: []int{2, 3}, Data: []float32{1, -2, 3.5, 0, float32(math.Inf(1)), nan}}}, nil},
		{"scalar and empty", []Tensor{
			{Name: "s", Shape: []int{}, Data: []float32{7}},
			{Name: "z", Shape: []int{0, 4}, Data: []float32{}},
			{Name: "v", Shape: []int{3}, Data: []float32{1, 2, 3}},
			{Name: "z2", Shape: []int{2, 0}, Data: []float32{}},
		}, map[string]string{"k": "v"}},
		{"order kept", []Tensor{
			{Name: "zeta", Shape: []int{1}, Data: []float32{1}},
			{Name: "alpha", Shape: []int{2}, Data: []float32{2, 3}},
		}, map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.safetensors")
			if err := WriteSafetensors(path, tc.tensors, tc.meta); err != nil {
				t.Fatal(err)
			}
			got, meta, err := ReadSafetensors(path)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameTensors(got, tc.tensors); d != "" {
				t.Error(d)
			}
			if len(meta) != len(tc.meta) {
				t.Errorf("got metadata %v, want %v", meta, tc.meta)
			}
			for k, v := range tc.meta {
				if meta[k] != v {
					t.Errorf("metadata %q: got %q, want %q", k, meta[k], v)
				}
			}
		})
	}
}

// TestSafetensorsLayout checks the bytes against the format: the header
// length, a JSON header of the expected entries, data at a multiple of 8,
// the tensors' bytes in order.
func TestSafetensorsLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.safetensors")
	tensors := []Tensor{
		{Name: "b", Shape: []int{2}, Data: []float32{1, 2}},
		{Name: "a", Shape: []int{1, 1}, Data: []float32{-1}},
	}
	if err := WriteSafetensors(path, tensors, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(b)
	if (8+n)%8 != 0 {
		t.Errorf("got data at byte %d, want a multiple of 8", 8+n)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	wantHeader := map[string]string{
		"__metadata__": `{"k":"v"}`,
		"b":            `{"dtype":"F32","shape":[2],"data_offsets":[0,8]}`,
		"a":            `{"dtype":"F32","shape":[1,1],"data_offsets":[8,12]}`,
	}
	if len(header) != len(wantHeader) {
		t.Errorf("got %d header entries, want %d", len(header), len(wantHeader))
	}
	for k, want := range wantHeader {
		if got := string(header[k]); got != want {
			t.Errorf("header %q: got %s, want %s", k, got, want)
		}
	}
	if i := bytes.Index(b, []byte(`"b"`)); i > bytes.Index(b, []byte(`"a"`)) {
		t.Error("got tensor a before b in the header, want the given order")
	}
	data := b[8+n:]
	want := []float32{1, 2, -1}
	if len(data) != 4*len(want) {
		t.Fatalf("got %d data bytes, want %d", len(data), 4*len(want))
	}
	for i, w := range want {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])); got != w {
			t.Errorf("value %d: got %v, want %v", i, got, w)
		}
	}
}

// rawSafetensors assembles a file from a header's text and data bytes.
func rawSafetensors(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

func f32bytes(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// TestReadSafetensorsOtherWriters reads files laid out as other writers
// lay them out: keys sorted, data in another order than the header, no
// metadata, header padding.
func TestReadSafetensorsOtherWriters(t *testing.T) {
	b := rawSafetensors(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]},"b":{"data_offsets":[0,4],"shape":[],"dtype":"F32"}}    `,
		f32bytes(5, 1, 2))
	got, meta, err := ReadSafetensorsBytes("other", b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Tensor{{Name: "a", Shape: []int{2}, Data: []float32{1, 2}}, {Name: "b", Shape: []int{}, Data: []float32{5}}}
	if d := sameTensors(got, want); d != "" {
		t.Error(d)
	}
	if len(meta) != 0 {
		t.Errorf("got metadata %v, want none", meta)
	}
}

// validFile returns the bytes of a small valid safetensors file.
func validFile(t testing.TB) []byte {
	t.Helper()
	b, err := encodeSafetensors([]Tensor{
		{Name: "conv.weight", Shape: []int{2, 3}, Data: []float32{1, 2, 3, 4, 5, 6}},
		{Name: "bias", Shape: []int{3}, Data: []float32{-1, 0, 1}},
	}, map[string]string{"taflab.format": "x"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadSafetensorsRefuses(t *testing.T) {
	valid := validFile(t)
	hlen := int(binary.LittleEndian.Uint64(valid))
	withLength := func(n uint64) []byte {
		b := slices.Clone(valid)
		binary.LittleEndian.PutUint64(b, n)
		return b
	}
	entry := func(s string) []byte { return rawSafetensors(`{"t":`+s+`}`, f32bytes(1, 2)) }
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty file", nil, "less than the 8"},
		{"truncated in the length", valid[:5], "less than the 8"},
		{"truncated after the length", valid[:8], "truncated"},
		{"truncated in the header", valid[:8+hlen/2], "truncated"},
		{"truncated before the data", valid[:8+hlen], "beyond"},
		{"truncated in the data", valid[:8+hlen+10], "beyond"},
		{"truncated by one byte", valid[:len(valid)-1], "beyond"},
		{"trailing garbage", append(slices.Clone(valid), 0, 0, 0, 0), "trailing garbage"},
		{"header length 0", withLength(0), "too short"},
		{"header length huge", withLength(1 << 62), "more than"},
		{"header length past the end", withLength(uint64(len(valid))), "truncated"},
		{"header not an object", rawSafetensors(`[1,2]`, nil), "not a JSON object"},
		{"header not JSON", rawSafetensors(`{"t":}`, nil), "invalid"},
		{"header cut", rawSafetensors(`{"t":{"dtype":"F32"`, nil), "tensor"},
		{"header with more JSON after it", rawSafetensors(`{}{}`, nil), "after the JSON object"},
		{"header not UTF-8", rawSafetensors("{\"\xff\":1}", nil), "UTF-8"},
		{"header length shorter than the header", withLength(uint64(hlen - 3)), "trailing garbage"},
		{"header length cuts the JSON", withLength(uint64(hlen - 12)), "invalid"},
		{"header length longer than the header", withLength(uint64(hlen + 4)), "header"},
		{"dtype F16", entry(`{"dtype":"F16","shape":[2],"data_offsets":[0,8]}`), `dtype "F16"`},
		{"dtype F64", entry(`{"dtype":"F64","shape":[1],"data_offsets":[0,8]}`), `dtype "F64"`},
		{"no dtype", entry(`{"shape":[2],"data_offsets":[0,8]}`), "no dtype"},
		{"no shape", entry(`{"dtype":"F32","data_offsets":[0,8]}`), "no shape"},
		{"null shape", entry(`{"dtype":"F32","shape":null,"data_offsets":[0,8]}`), "no shape"},
		{"no offsets", entry(`{"dtype":"F32","shape":[2]}`), "no data_offsets"},
		{"three offsets", entry(`{"dtype":"F32","shape":[2],"data_offsets":[0,4,8]}`), "want [begin, end]"},
		{"negative offset", entry(`{"dtype":"F32","shape":[2],"data_offsets":[-1,8]}`), "tensor"},
		{"begin after end", entry(`{"dtype":"F32","shape":[2],"data_offsets":[8,0]}`), "begin after end"},
		{"offsets beyond the data", entry(`{"dtype":"F32","shape":[4],"data_offsets":[0,16]}`), "beyond"},
		{"shape does not match the offsets", entry(`{"dtype":"F32","shape":[3],"data_offsets":[0,8]}`), "needs 12 bytes"},
		{"negative dimension", entry(`{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}`), "negative"},
		{"fractional dimension", entry(`{"dtype":"F32","shape":[1.5],"data_offsets":[0,8]}`), "tensor"},
		// Issue 36: an overflowing shape's bytes were misreported.
		{"huge dimensions", entry(`{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,8]}`), "shape [4294967296 4294967296 4294967296] of F32 needs 316912650057057350374175801344 bytes, data_offsets [0 8] span 8"},
		{"huge dimensions and a zero", entry(`{"dtype":"F32","shape":[4294967296,4294967296,0],"data_offsets":[0,8]}`), "shape [4294967296 4294967296 0] of F32 needs 0 bytes, data_offsets [0 8] span 8"},
		{"unknown field", entry(`{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}`), "unknown field"},
		{"tensor not an object", entry(`3`), "tensor"},
		{"empty name", rawSafetensors(`{"":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, f32bytes(1, 2)), "empty name"},
		{"gap", rawSafetensors(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, f32bytes(1, 2)), "gap"},
		{"overlap", rawSafetensors(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`,
			f32bytes(1, 2)), "overlap"},
		{"same range twice", rawSafetensors(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`,
			f32bytes(1, 2)), "overlap"},
		{"data without tensors", rawSafetensors(`{}`, f32bytes(1)), "trailing garbage"},
		{"name twice", rawSafetensors(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`,
			f32bytes(1, 2)), "appears twice"},
		{"metadata not strings", rawSafetensors(`{"__metadata__":{"a":1}}`, nil), "not an object of strings"},
		{"metadata not an object", rawSafetensors(`{"__metadata__":"x"}`, nil), "not an object of strings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadSafetensorsBytes("f.safetensors", tc.file)
			if err == nil {
				t.Fatalf("got no error, want one containing %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), "net: f.safetensors: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error \"net: f.safetensors: ...%s...\"", err, tc.want)
			}
		})
	}
}

// TestReadSafetensorsTruncatedEverywhere: every proper prefix of a valid
// file is refused.
func TestReadSafetensorsTruncatedEverywhere(t *testing.T) {
	valid := validFile(t)
	for n := range len(valid) {
		if _, _, err := ReadSafetensorsBytes("f", valid[:n]); err == nil {
			t.Errorf("truncated to %d of %d bytes: got no error, want one", n, len(valid))
		}
	}
}

func TestWriteSafetensorsRefuses(t *testing.T) {
	tests := []struct {
		name    string
		tensors []Tensor
		want    string
	}{
		{"no name", []Tensor{{Shape: []int{1}, Data: []float32{1}}}, "no name"},
		{"reserved name", []Tensor{{Name: "__metadata__", Shape: []int{1}, Data: []float32{1}}}, "reserved"},
		{"same name twice", []Tensor{{Name: "a", Shape: []int{1}, Data: []float32{1}}, {Name: "a", Shape: []int{1}, Data: []float32{1}}}, "two tensors"},
		{"shape does not match", []Tensor{{Name: "a", Shape: []int{2, 2}, Data: []float32{1}}}, "holds 4 values, the data 1"},
		{"negative dimension", []Tensor{{Name: "a", Shape: []int{-1}, Data: nil}}, "negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "x.safetensors")
			err := WriteSafetensors(path, tc.tensors, nil)
			if err == nil || !strings.HasPrefix(err.Error(), "net: "+path+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error naming %s containing %q", err, path, tc.want)
			}
			noTemps(t, dir)
		})
	}
}

// TestWriteSafetensorsAtomic: a write that fails leaves no temporary file
// and the old file, if any, as it was.
func TestWriteSafetensorsAtomic(t *testing.T) {
	good := []Tensor{{Name: "a", Shape: []int{2}, Data: []float32{1, 2}}}
	bad := []Tensor{{Name: "a", Shape: []int{3}, Data: []float32{1, 2}}}
	t.Run("rename fails", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.safetensors")
		if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
			t.Fatal(err)
		}
		err := WriteSafetensors(path, good, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "net: "+path+": ") {
			t.Errorf("got %v, want an error naming %s", err, path)
		}
		noTemps(t, dir, "x.safetensors")
	})
	t.Run("bad tensors keep the old file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.safetensors")
		if err := WriteSafetensors(path, good, map[string]string{"v": "1"}); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(path)
		if err := WriteSafetensors(path, bad, nil); err == nil {
			t.Fatal("got no error for bad tensors, want one")
		}
		after, _ := os.ReadFile(path)
		if !bytes.Equal(before, after) {
			t.Error("got the old file changed, want it as it was")
		}
		noTemps(t, dir, "x.safetensors")
	})
	t.Run("no directory", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "missing", "x.safetensors")
		err := WriteSafetensors(path, good, nil)
		if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "net: "+path+": ") {
			t.Errorf("got %v, want a not-exist error naming %s", err, path)
		}
		noTemps(t, dir)
	})
	t.Run("overwrite", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.safetensors")
		for i := range 3 {
			good[0].Data[0] = float32(i)
			if err := WriteSafetensors(path, good, nil); err != nil {
				t.Fatal(err)
			}
		}
		got, _, err := ReadSafetensors(path)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Data[0] != 2 {
			t.Errorf("got %v, want the last write's 2", got[0].Data[0])
		}
		noTemps(t, dir, "x.safetensors")
	})
}

func testNetwork(t testing.TB, cfg Config, seed uint64) *Network {
	t.Helper()
	n, err := New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	randomizeStats(n, seed+1)
	return n
}

// TestSaveLoadRoundTrip: Load gives the saved network back bit for bit,
// with its metadata, and the same inference outputs.
func TestSaveLoadRoundTrip(t *testing.T) {
	for _, cfg := range []Config{tinyConfig(), {Blocks: 2, Channels: 8, ValueChannels: 2, ValueHidden: 6}, {Blocks: 0, Channels: 3, ValueChannels: 1, ValueHidden: 1}} {
		t.Run(fmt.Sprintf("%d blocks of %d", cfg.Blocks, cfg.Channels), func(t *testing.T) {
			n := testNetwork(t, cfg, 11)
			path := filepath.Join(t.TempDir(), "net.safetensors")
			if err := n.Save(path, map[string]string{"taflab.step": "1200", "note": "x"}); err != nil {
				t.Fatal(err)
			}
			m, meta, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if m.Config() != cfg {
				t.Errorf("got config %+v, want %+v", m.Config(), cfg)
			}
			if d := sameTensors(m.Tensors(), n.Tensors()); d != "" {
				t.Error(d)
			}
			for i, tn := range m.Tensors() {
				if tn.Trained != n.Tensors()[i].Trained {
					t.Errorf("tensor %q: got Trained %v, want %v", tn.Name, tn.Trained, n.Tensors()[i].Trained)
				}
			}
			wantMeta := map[string]string{
				"taflab.step": "1200", "note": "x",
				MetaFormat: "taflab-network", MetaFormatVersion: "1", MetaInputEncoding: InputEncoding, MetaPolicySize: "4840",
				MetaConfig: fmt.Sprintf(`{"blocks":%d,"channels":%d,"value_channels":%d,"value_hidden":%d}`, cfg.Blocks, cfg.Channels, cfg.ValueChannels, cfg.ValueHidden),
			}
			if len(meta) != len(wantMeta) {
				t.Errorf("got metadata %v, want %v", meta, wantMeta)
			}
			for k, v := range wantMeta {
				if meta[k] != v {
					t.Errorf("metadata %q: got %q, want %q", k, meta[k], v)
				}
			}
			if m.Hash() != n.Hash() {
				t.Errorf("got hash %s, want %s", m.Hash(), n.Hash())
			}
			samples := randomSamples(t, 3, 5)
			a, b := n.NewInference(1, "a"), m.NewInference(1, "b")
			encodeAll(t, samples, a.Input(len(samples)))
			copy(b.Input(len(samples)), a.Input(len(samples)))
			la, wa := a.Forward(len(samples))
			lb, wb := b.Forward(len(samples))
			if !slices.Equal(la, lb) || !slices.Equal(wa, wb) {
				t.Error("got other inference outputs from the loaded network, want the same")
			}
		})
	}
}

func TestSaveRefusesReservedKeys(t *testing.T) {
	n := testNetwork(t, tinyConfig(), 1)
	for _, key := range []string{MetaFormat, MetaFormatVersion, MetaConfig, MetaInputEncoding, MetaPolicySize, MetaPlanesOf} {
		t.Run(key, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "n.safetensors")
			err := n.Save(path, map[string]string{key: "x"})
			if err == nil || !strings.HasPrefix(err.Error(), "net: "+path+": ") || !strings.Contains(err.Error(), key) {
				t.Errorf("got %v, want an error naming %s and %s", err, path, key)
			}
			noTemps(t, dir)
		})
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "saved.safetensors")
	if err := testNetwork(t, Config{Blocks: 2, Channels: 4, ValueChannels: 2, ValueHidden: 5}, 3).Save(saved, nil); err != nil {
		t.Fatal(err)
	}
	// variant rewrites the saved file with its tensors and metadata changed.
	variant := func(t *testing.T, change func(ts []Tensor, meta map[string]string) []Tensor) string {
		ts, meta, err := ReadSafetensors(saved)
		if err != nil {
			t.Fatal(err)
		}
		ts = change(ts, meta)
		path := filepath.Join(t.TempDir(), "n.safetensors")
		if err := WriteSafetensors(path, ts, meta); err != nil {
			t.Fatal(err)
		}
		return path
	}
	setMeta := func(k, v string) func([]Tensor, map[string]string) []Tensor {
		return func(ts []Tensor, meta map[string]string) []Tensor {
			if v == "" {
				delete(meta, k)
			} else {
				meta[k] = v
			}
			return ts
		}
	}
	setData := func(name string, i int, x float32) func([]Tensor, map[string]string) []Tensor {
		return func(ts []Tensor, _ map[string]string) []Tensor {
			for j := range ts {
				if ts[j].Name == name {
					ts[j].Data = slices.Clone(ts[j].Data)
					ts[j].Data[i] = x
				}
			}
			return ts
		}
	}
	tests := []struct {
		name   string
		change func([]Tensor, map[string]string) []Tensor
		want   string
	}{
		{"config says 1 block", setMeta(MetaConfig, `{"blocks":1,"channels":4,"value_channels":2,"value_hidden":5}`),
			`another architecture: tensor "blocks.1.a.conv.weight" is not part of the config's architecture`},
		{"config says 3 blocks", setMeta(MetaConfig, `{"blocks":3,"channels":4,"value_channels":2,"value_hidden":5}`),
			`another architecture: tensor "blocks.2.a.conv.weight" is missing`},
		{"config says 8 channels", setMeta(MetaConfig, `{"blocks":2,"channels":8,"value_channels":2,"value_hidden":5}`),
			`another architecture: tensor "stem.conv.weight" has shape [3 3 15 4], the config's architecture`},
		{"tensor shape changed", func(ts []Tensor, _ map[string]string) []Tensor {
			for i := range ts {
				if ts[i].Name == "value.fc1.weight" {
					ts[i].Shape = []int{ts[i].Shape[1], ts[i].Shape[0]}
				}
			}
			return ts
		}, `another architecture: tensor "value.fc1.weight" has shape [5 242]`},
		{"tensor missing", func(ts []Tensor, _ map[string]string) []Tensor {
			return slices.DeleteFunc(ts, func(t Tensor) bool { return t.Name == "policy.bn.running_var" })
		}, `tensor "policy.bn.running_var" is missing`},
		{"extra tensor", func(ts []Tensor, _ map[string]string) []Tensor {
			return append(ts, Tensor{Name: "extra", Shape: []int{1}, Data: []float32{1}})
		}, `tensor "extra" is not part`},
		{"NaN weight", setData("blocks.1.b.conv.weight", 5, float32(math.NaN())), `tensor "blocks.1.b.conv.weight": element 5 is NaN`},
		{"infinite weight", setData("value.fc2.bias", 1, float32(math.Inf(-1))), `tensor "value.fc2.bias": element 1 is -Inf`},
		{"negative variance", setData("stem.bn.running_var", 2, -0.5), `tensor "stem.bn.running_var": element 2 is -0.5: a variance cannot be negative`},
		{"another input encoding", setMeta(MetaInputEncoding, "taflab-planes-v0"), "input encoding taflab-planes-v0, this build reads taflab-planes-v1"},
		{"no input encoding", setMeta(MetaInputEncoding, ""), "no taflab.input_encoding"},
		{"not a network", setMeta(MetaFormat, ""), "not a taflab network file"},
		{"another format", setMeta(MetaFormat, "gguf"), "not a taflab network file"},
		{"format version 2", setMeta(MetaFormatVersion, "2"), `format version "2", this build reads version 1`},
		{"no format version", setMeta(MetaFormatVersion, ""), "no taflab.format_version"},
		{"another policy size", setMeta(MetaPolicySize, "1000"), `policy size "1000"`},
		{"no config", setMeta(MetaConfig, ""), "taflab.config: missing"},
		{"config not JSON", setMeta(MetaConfig, "{blocks"), "taflab.config"},
		{"config with an unknown key", setMeta(MetaConfig, `{"blocks":2,"channels":4,"value_channels":2,"value_hidden":5,"x":1}`), "unknown field"},
		{"config without a key", setMeta(MetaConfig, `{"blocks":2,"channels":4,"value_channels":2}`), "no value_hidden"},
		{"config out of range", setMeta(MetaConfig, `{"blocks":2,"channels":0,"value_channels":2,"value_hidden":5}`), "channels = 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := variant(t, tc.change)
			n, _, err := Load(path)
			if err == nil {
				t.Fatalf("got a network, want an error containing %q", tc.want)
			}
			if n != nil || !strings.HasPrefix(err.Error(), "net: "+path+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error \"net: %s: ...%s...\"", err, path, tc.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(dir, "missing.safetensors")
		_, _, err := Load(path)
		if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "net: "+path+": ") {
			t.Errorf("got %v, want a not-exist error naming %s", err, path)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		b, err := os.ReadFile(saved)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 7, 8, 100, len(b) / 2, len(b) - 4, len(b) - 1} {
			path := filepath.Join(t.TempDir(), "n.safetensors")
			if err := os.WriteFile(path, b[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := Load(path); err == nil || !strings.HasPrefix(err.Error(), "net: "+path+": ") {
				t.Errorf("truncated to %d bytes: got %v, want an error naming the file", n, err)
			}
		}
	})
}

func TestHash(t *testing.T) {
	n := testNetwork(t, tinyConfig(), 1)
	h := n.Hash()
	if len(h) != 16 || strings.Trim(h, "0123456789abcdef") != "" {
		t.Errorf("got hash %q, want 16 hex digits", h)
	}
	tests := []struct {
		name string
		net  func() *Network
		same bool
	}{
		{"clone", n.Clone, true},
		{"same seed", func() *Network { return testNetwork(t, tinyConfig(), 1) }, true},
		{"one weight changed", func() *Network {
			c := n.Clone()
			c.Params()[0] += 1e-7
			return c
		}, false},
		{"one running statistic changed", func() *Network {
			c := n.Clone()
			for _, tn := range c.Tensors() {
				if !tn.Trained {
					tn.Data[0] += 0.5
					break
				}
			}
			return c
		}, false},
		{"another seed", func() *Network { return testNetwork(t, tinyConfig(), 2) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.net().Hash() == h; got != tc.same {
				t.Errorf("got same hash %v, want %v", got, tc.same)
			}
		})
	}
}

// FuzzReadSafetensors: reading never panics, and what it reads writes and
// reads back the same.
func FuzzReadSafetensors(f *testing.F) {
	valid := validFile(f)
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(append(slices.Clone(valid), 1, 2, 3, 4))
	f.Add([]byte{})
	f.Add(rawSafetensors(`{}`, nil))
	f.Add(rawSafetensors(`{"__metadata__":{"a":"b"},"x":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}`, f32bytes(1)))
	f.Add(rawSafetensors(`{"x":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]},"y":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, f32bytes(1)))
	f.Add(rawSafetensors(`{"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}}`, f32bytes(1)))
	f.Add(rawSafetensors(`{"x":{"dtype":"F32","shape":[1],"data_offsets":[18446744073709551615,4]}}`, f32bytes(1)))
	n := testNetwork(f, tinyConfig(), 1)
	path := filepath.Join(f.TempDir(), "n.safetensors")
	if err := n.Save(path, nil); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		tensors, meta, err := ReadSafetensorsBytes("fuzz", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "net: fuzz: ") {
				t.Errorf("got %v, want an error starting \"net: fuzz: \"", err)
			}
			return
		}
		again, err := encodeSafetensors(tensors, meta)
		if err != nil {
			t.Fatalf("writing what was read: %v", err)
		}
		tensors2, meta2, err := ReadSafetensorsBytes("again", again)
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		if d := sameTensors(tensors2, tensors); d != "" {
			t.Error(d)
		}
		if len(meta2) != len(meta) {
			t.Errorf("got metadata %v, want %v", meta2, meta)
		}
		// And as a network file: Load's checks never panic either.
		if _, err := networkFrom(tensors, meta); err == nil && meta[MetaFormat] != networkFormat {
			t.Error("got a network from a file that is not a network file")
		}
	})
}

// TestLoadHugeConfig: a config of the largest architecture with the
// tensors of a small one is refused before the network is built.
func TestLoadHugeConfig(t *testing.T) {
	n := testNetwork(t, tinyConfig(), 1)
	meta := map[string]string{MetaFormat: networkFormat, MetaFormatVersion: "1", MetaInputEncoding: InputEncoding, MetaPolicySize: "4840",
		MetaConfig: `{"blocks":64,"channels":1024,"value_channels":64,"value_hidden":4096}`}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := networkFrom(n.Tensors(), meta)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "another architecture") {
		t.Errorf("got %v, want an error about another architecture", err)
	}
	// The architecture asked for holds over a gigabyte of weights: building
	// any of it would allocate far more than the refusal needs.
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("got %d bytes allocated, want under 16 MiB (nothing built)", got)
	}
}

// TestReadSafetensorsBounded: a file past MaxSafetensorsBytes (a sparse
// one, which takes no disk) is refused after that many bytes, not read
// until the memory runs out; a file without end (/dev/zero) is not a
// regular file and is refused before a byte is read.
func TestReadSafetensorsBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.safetensors")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSafetensorsBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cases := []struct{ path, want string }{
		{big, fmt.Sprintf("net: %s: more than %d bytes", big, MaxSafetensorsBytes)},
		{"/dev/zero", "net: /dev/zero: a device, not a regular file"},
	}
	for _, c := range cases {
		if _, err := os.Stat(c.path); err != nil {
			t.Logf("no %s here: skipped", c.path)
			continue
		}
		_, _, err := ReadSafetensors(c.path)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
