package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"taflab/internal/nettest"
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
	if sum := rep.Value.Win + rep.Value.Draw + rep.Value.Loss; sum < 0.999 || sum > 1.001 {
		t.Errorf("got win+draw+loss = %v, want 1", sum)
	}
	if len(rep.Top) != 3 || rep.Top[0].Prior < rep.Top[2].Prior {
		t.Errorf("got top moves %v, want 3 in falling order", rep.Top)
	}
	// The king on a3 walks to a1: the search must find it whatever the
	// untrained network says.
	if rep.Search == nil || rep.Search.BestMove != "a3-a1" || rep.Search.Value != 1 {
		t.Errorf("got search %+v, want a3-a1 with value 1", rep.Search)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"analyze"}, "-net"},
		{[]string{"analyze", "-net", filepath.Join(t.TempDir(), "none.safetensors")}, "none.safetensors"},
		{[]string{"analyze", "-net", file, "-position", "11/11 a"}, "-position"},
		{[]string{"analyze", "-net", file, "-position", "k10/11/11/11/11/11/11/11/11/5a5/3aaaaa3 a"}, "-position: rules:"}, // the king on a corner: over
		{[]string{"analyze", "-net", file, "-variant", "chess"}, "chess"},
	}
	for _, c := range bad {
		var out, errs bytes.Buffer
		if code := run(c.args, nil, &out, &errs); code != 2 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: got exit %d and %q, want 2 and a message naming %q", c.args, code, errs.String(), c.want)
		}
	}
}
