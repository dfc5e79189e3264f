package chart

import (
	"fmt"
	"image/color"
)

// Palette is Okabe and Ito's colour-blind-safe palette without its yellow,
// which is too pale on white, as "#RRGGBB": vermillion, blue, bluish green,
// reddish purple, orange, sky blue, black. It is the one list of the
// project's colours: the PNG charts take them in this order (Color), and
// the web page takes the same list from the server (package web), so that
// a series has one colour in both. The first is the attackers', the second
// the defenders'. Read it; do not change it.
var Palette = [...]string{"#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

// Yellow is Okabe and Ito's eighth colour, which Palette leaves out: too
// pale for a line or a point on white. The web page crowns its king with
// it, on the defenders' blue.
const Yellow = "#F0E442"

// Color returns the i-th colour of Palette (i ≥ 0), cycling.
func Color(i int) color.Color { return Hex(Palette[i%len(Palette)]) }

// Hex parses a colour written "#RRGGBB" (as in Palette), opaque. It
// panics on another form: its arguments are the package's constants.
// Exported for the web page's browser test, which checks the page's
// computed colours against Palette.
func Hex(s string) color.RGBA {
	var c color.RGBA
	if n, err := fmt.Sscanf(s, "#%02x%02x%02x", &c.R, &c.G, &c.B); err != nil || n != 3 || len(s) != 7 {
		panic(fmt.Sprintf("chart: colour %q: want #RRGGBB", s))
	}
	c.A = 255
	return c
}
