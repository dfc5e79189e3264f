package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"taflab/configs/variants"
	"taflab/net"
)

// sameTensors fails unless the safetensors files a and b hold the same
// tensors, names, shapes and every bit of their data.
func sameTensors(t *testing.T, a, b string) {
	t.Helper()
	ta, _, err := net.ReadSafetensors(a)
	if err != nil {
		t.Fatal(err)
	}
	tb, _, err := net.ReadSafetensors(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(ta) != len(tb) {
		t.Fatalf("got %d tensors in %s, want %s's %d", len(tb), b, a, len(ta))
	}
	for i := range ta {
		if ta[i].Name != tb[i].Name || !slices.Equal(ta[i].Shape, tb[i].Shape) || len(ta[i].Data) != len(tb[i].Data) {
			t.Fatalf("tensor %d: got %s %v, want %s %v", i, tb[i].Name, tb[i].Shape, ta[i].Name, ta[i].Shape)
		}
		for j := range ta[i].Data {
			if math.Float32bits(ta[i].Data[j]) != math.Float32bits(tb[i].Data[j]) {
				t.Fatalf("tensor %s element %d: got %v, want %v bit for bit", ta[i].Name, j, tb[i].Data[j], ta[i].Data[j])
			}
		}
	}
}

// TestExportPlanes: export -planes records the rule set whose planes the
// network is shown (an embedded one by name, or a rule-set file), keeps
// the weights bit for bit and the source's training step, and replaces
// the source's record; without -planes the source's is kept. A name that
// is no rule set, or a rule set of another board size, is refused with a
// message naming it, and nothing is written.
func TestExportPlanes(t *testing.T) {
	dir := t.TempDir()
	n, err := net.New(net.Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// As a generation of the strong run: it reads both rule sets' planes.
	if err := n.AdoptPlanes(variants.MustLoad("copenhagen-classic"), variants.MustLoad("copenhagen")); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src.safetensors")
	if err := n.Save(src, map[string]string{"taflab.step": "1000"}); err != nil {
		t.Fatal(err)
	}
	classic := filepath.Join(dir, "classic.safetensors")
	n.SetPlanesOf(variants.MustLoad("copenhagen-classic"))
	if err := n.Save(classic, nil); err != nil {
		t.Fatal(err)
	}
	ruleFile := filepath.Join(dir, "mine.toml")
	data, err := variants.File("copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ruleFile, []byte(strings.Replace(string(data), `name = "copenhagen"`, `name = "mine"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, src, planes, want string // want: the planes the copy names, "" for none
	}{
		{"embedded name", src, "copenhagen", "copenhagen"},
		{"rule-set file", src, ruleFile, "mine"},
		{"replaces the source's", classic, "copenhagen", "copenhagen"},
		{"keeps the source's", classic, "", "copenhagen-classic"},
		{"keeps none", src, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out.safetensors")
			args := []string{"export", "-net", c.src, "-format", "safetensors", "-out", dst}
			if c.planes != "" {
				args = append(args, "-planes", c.planes)
			}
			code, out := runTrainCmd(t, args...)
			if code != 0 {
				t.Fatalf("got exit %d, want 0\n%s", code, out)
			}
			got, meta, err := net.Load(dst)
			if err != nil {
				t.Fatal(err)
			}
			name := ""
			if got.PlanesOf() != nil {
				name = got.PlanesOf().Name()
			}
			if name != c.want {
				t.Errorf("planes of: got %q, want %q", name, c.want)
			}
			if c.want != "" && !strings.Contains(out, "shown the planes of "+c.want) {
				t.Errorf("got %q, want it to say the planes of %s", out, c.want)
			}
			sameTensors(t, c.src, dst)
			if c.src == src && meta["taflab.step"] != "1000" {
				t.Errorf("taflab.step: got %q, want the source's 1000", meta["taflab.step"])
			}
		})
	}

	t.Run("onnx", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "out.onnx")
		if code, out := runTrainCmd(t, "export", "-net", src, "-format", "onnx", "-planes", "fetlar", "-out", dst); code != 0 {
			t.Fatalf("got exit %d, want 0\n%s", code, out)
		}
		data, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), net.MetaPlanesOf) || !strings.Contains(string(data), `"Name":"fetlar"`) {
			t.Errorf("got an ONNX file without %s naming fetlar", net.MetaPlanesOf)
		}
	})

	for _, c := range []struct{ name, planes, want string }{
		{"not a rule set", "nope", `"nope"`},
		{"a missing file", filepath.Join(dir, "none.toml"), "none.toml"},
		{"another board size", "otr:dim:7 tfr:w start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", "7x7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out.safetensors")
			code, out := runTrainCmd(t, "export", "-net", src, "-format", "safetensors", "-planes", c.planes, "-out", dst)
			if code != 2 || !strings.Contains(out, "-planes") || !strings.Contains(out, c.want) {
				t.Errorf("got exit %d and %q, want 2 and a message naming -planes and %s", code, out, c.want)
			}
			if _, err := os.Stat(dst); !os.IsNotExist(err) {
				t.Errorf("got %v, want no output file", err)
			}
		})
	}
}
