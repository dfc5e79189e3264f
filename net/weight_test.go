package net

import (
	"math"
	"testing"
)

// TestSampleWeight: a sample of Weight w adds w times its policy and value
// loss and gradients to a batch, the others' unchanged; a Weight of 0 is
// read as 1.
func TestSampleWeight(t *testing.T) {
	n, err := New(Config{Blocks: 1, Channels: 8, ValueChannels: 2, ValueHidden: 8}, 4)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(n, DefaultTrainConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	batch := randomSamples(t, 2, 8) // both with a policy target
	if batch[0].Policy == nil || batch[1].Policy == nil {
		t.Fatal("want two samples with policy targets")
	}
	gradients := func(w0, w1 float32) (Losses, []float32, []float32) {
		t.Helper()
		b := append([]Sample(nil), batch...)
		b[0].Weight, b[1].Weight = w0, w1
		losses, err := tr.Gradients(b)
		if err != nil {
			t.Fatal(err)
		}
		return losses, append([]float32(nil), tr.dlogits[:2*PolicySize]...), append([]float32(nil), tr.dwdl[:6]...)
	}
	one, dl1, dv1 := gradients(1, 1)
	zero, dl0, dv0 := gradients(0, 0)
	if one != zero || !equal(dl1, dl0) || !equal(dv1, dv0) {
		t.Errorf("Weight 0: got losses %+v, want Weight 1's %+v", zero, one)
	}
	two, _, _ := gradients(2, 1)
	three, dl3, dv3 := gradients(3, 1)
	// The forward pass is the same each time, so the first sample's loss
	// a adds linearly: (w a + b) / 2 at weight w.
	for _, c := range []struct {
		name       string
		w1, w2, w3 float64
	}{{"policy", one.Policy, two.Policy, three.Policy}, {"value", one.Value, two.Value, three.Value}} {
		if a := 2 * (c.w2 - c.w1); !(a > 0) || math.Abs((c.w3-c.w1)-a) > 1e-6 {
			t.Errorf("%s loss at weights 1, 2, 3 of the first sample: got %v, %v, %v, want steps of the same size", c.name, c.w1, c.w2, c.w3)
		}
	}
	for i := range PolicySize {
		if d := dl3[i] - 3*dl1[i]; math.Abs(float64(d)) > 1e-6 {
			t.Fatalf("policy gradient %d of the first sample: got %v, want 3 times %v", i, dl3[i], dl1[i])
		}
		if dl3[PolicySize+i] != dl1[PolicySize+i] {
			t.Fatalf("policy gradient %d of the second sample: got %v, want %v unchanged", i, dl3[PolicySize+i], dl1[PolicySize+i])
		}
	}
	for j := range 3 {
		if d := dv3[j] - 3*dv1[j]; math.Abs(float64(d)) > 1e-6 || dv3[3+j] != dv1[3+j] {
			t.Errorf("value gradient %d: got %v and %v, want 3 times %v and %v", j, dv3[j], dv3[3+j], dv1[j], dv1[3+j])
		}
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
