package chart

import (
	"fmt"
	"image/color"
	"testing"
)

func TestColor(t *testing.T) {
	cases := []struct {
		i    int
		want color.RGBA
	}{
		{0, color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 255}}, // vermillion: the attackers
		{1, color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 255}}, // blue: the defenders
		{2, color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 255}},
		{3, color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 255}},
		{4, color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 255}},
		{5, color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 255}},
		{6, color.RGBA{A: 255}},
		{7, color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 255}}, // it cycles
		{15, color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 255}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.i), func(t *testing.T) {
			if got := Color(c.i); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	seen := map[color.Color]bool{}
	for i := range len(Palette) {
		seen[Color(i)] = true
	}
	if got, want := len(seen), len(Palette); got != want {
		t.Errorf("got %d distinct colours, want %d", got, want)
	}
}

func TestHex(t *testing.T) {
	cases := []struct {
		in    string
		want  color.RGBA
		panic bool
	}{
		{"#000000", color.RGBA{A: 255}, false},
		{"#F0E442", color.RGBA{R: 0xf0, G: 0xe4, B: 0x42, A: 255}, false},
		{"#f0e442", color.RGBA{R: 0xf0, G: 0xe4, B: 0x42, A: 255}, false},
		{"F0E442", color.RGBA{}, true},
		{"#F0E44", color.RGBA{}, true},
		{"#F0E4420", color.RGBA{}, true},
		{"#GGGGGG", color.RGBA{}, true},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			defer func() {
				if p := recover(); (p != nil) != c.panic {
					t.Errorf("got panic %v, want a panic %v", p, c.panic)
				}
			}()
			if got := Hex(c.in); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
