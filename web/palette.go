package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"taflab/chart"
)

// The page's colours are chart.Palette's, served as a JavaScript module
// (/static/palette.js, which the charts' module imports) and as CSS
// variables (/static/palette.css, --palette-0 and on, which style.css
// names the pieces' and marks' colours by), so that the page and the PNG
// charts draw a series alike and no second list of colours is kept.
var paletteJS, paletteCSS = paletteFiles()

// paletteFiles writes chart.Palette and chart.Yellow as the page's two
// palette files.
func paletteFiles() (js, css []byte) {
	list, err := json.Marshal(chart.Palette)
	if err != nil {
		panic(err) // strings always marshal
	}
	const from = "chart.Palette (chart/palette.go), served by package web (web/palette.go)"
	js = fmt.Appendf(nil, "// %s: the PNG charts' colours, in their order.\nexport const palette = Object.freeze(%s);\nexport const yellow = %q;\n", from, list, chart.Yellow)
	var b strings.Builder
	fmt.Fprintf(&b, "/* %s. */\n:root {\n", from)
	for i, c := range chart.Palette {
		fmt.Fprintf(&b, "  --palette-%d: %s;\n", i, c)
	}
	fmt.Fprintf(&b, "  --palette-yellow: %s;\n}\n", chart.Yellow)
	return js, []byte(b.String())
}

// servePalette answers one of the palette files.
func servePalette(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}
}
