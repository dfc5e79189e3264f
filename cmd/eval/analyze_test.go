package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"taflab/internal/nettest"
	"taflab/net"
)

func TestAnalyze(t *testing.T) {
	file := nettest.TinyFile(t, 1)
	var out, errs bytes.Buffer
	code := run([]string{"analyze", "-net", file, "-variant", "fetlar", "-playouts", "50", "-top", "3",
		"-position", "11/11/11/11/11/11/11/a10/k10/2a8/11 d"}, nil, &out, &errs)
	if code != 0 {
		t.Fatalf("got exit %d, want 0: %s", code, errs.String())
	}
	var rep analyzeReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("got %q, want one JSON object: %v", out.String(), err)
	}
	if rep.WDL == nil {
		t.Fatalf("got no win/draw/loss from a network")
	}
	if sum := rep.WDL.Win + rep.WDL.Draw + rep.WDL.Loss; sum < 0.999 || sum > 1.001 {
		t.Errorf("got win+draw+loss = %v, want 1", sum)
	}
	if len(rep.Policy) != 3 || rep.Policy[0].Prior < rep.Policy[2].Prior {
		t.Errorf("got top moves %v, want 3 in falling order", rep.Policy)
	}
	// The king on a3 walks to a1: the search must find it whatever the
	// untrained network says.
	if rep.Search == nil || rep.Search.BestMove != "a3-a1" || rep.Search.Value != 1 || len(rep.Search.PV) != 1 || rep.Search.WDL.Win != 1 {
		t.Errorf("got search %+v, want a3-a1, a proven win", rep.Search)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "-net", filepath.Join(t.TempDir(), "none.safetensors")}, "none.safetensors"},
		{[]string{"analyze", "-net", file, "-position", "11/11 a"}, "-position"},
		{[]string{"analyze", "-net", file, "-position", "k10/11/11/11/11/11/11/11/11/5a5/3aaaaa3 a"}, "-position: rules:"}, // the king on a corner: over
		{[]string{"analyze", "-net", file, "-variant", "chess"}, "chess"},
		{[]string{"analyze", "-net", file, "-moves", "d1-d3 x"}, "-moves"},
	}
	for _, c := range bad {
		var out, errs bytes.Buffer
		if code := run(c.args, nil, &out, &errs); code != 2 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: got exit %d and %q, want 2 and a message naming %q", c.args, code, errs.String(), c.want)
		}
	}
	// A move the rules refuse is the analysis's failure, naming its ply.
	out.Reset()
	errs.Reset()
	if code := run([]string{"analyze", "-net", "builtin", "-moves", "d1-d3 d3-d1"}, nil, &out, &errs); code != 1 || !strings.Contains(errs.String(), "ply 2") {
		t.Errorf("an illegal second move: got exit %d and %q, want 1 and a message naming ply 2", code, errs.String())
	}
}

// TestAnalyzeDefaults: without -net, eval analyze uses the shipped network
// from the working folder, and says what to do when there is none.
func TestAnalyzeDefaults(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	var out, errs bytes.Buffer
	if code := run([]string{"analyze", "-moves", "d1-d3"}, nil, &out, &errs); code != 0 {
		t.Fatalf("got exit %d, want 0: %s", code, errs.String())
	}
	var rep analyzeReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	shipped, _, err := net.Load(filepath.Join("networks", "copenhagen.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strings.CutPrefix(rep.Evaluator, "net-")
	if rep.WDL == nil || rep.PlanesOf != "copenhagen" || id == "" || !strings.HasPrefix(shipped.Hash(), id) {
		t.Errorf("got evaluator %q, planes of %q, WDL %v; want the shipped network, net-%s (whose file names copenhagen's planes)", rep.Evaluator, rep.PlanesOf, rep.WDL, shipped.Hash()[:16])
	}
	t.Chdir(t.TempDir())
	out.Reset()
	errs.Reset()
	if code := run([]string{"analyze"}, nil, &out, &errs); code != 2 || !strings.Contains(errs.String(), "-net builtin") {
		t.Errorf("no network anywhere: got exit %d and %q, want 2 and a message saying what to give", code, errs.String())
	}
}
