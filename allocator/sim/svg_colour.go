package sim

import (
	"fmt"
	"math"
)

// style is how a series is drawn: its colour and dash pattern (empty for
// a solid line).
type style struct {
	colour, dash string
}

// okabeIto is the Okabe-Ito palette, readable with colour blindness: the
// first eight series' colours.
var okabeIto = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

// othersStyle draws the mean of the roles the share plots do not draw
// one by one: grey, which no series colour is, and dashed.
var othersStyle = style{colour: "#8C8C8C", dash: "6 3"}

// extraDashes are the dash patterns of the series past the palette, in
// turn, so that two of the generated colours that look alike are still
// told apart by their lines.
var extraDashes = []string{"7 3", "2 2", "9 3 2 3"}

// seriesStyles returns n styles of distinct colours: the Okabe-Ito
// palette, then colours spread around the hue circle by the golden angle,
// at three lightnesses, dashed.
func seriesStyles(n int) []style {
	out := make([]style, 0, n)
	used := map[string]bool{othersStyle.colour: true}
	for i := range n {
		if i < len(okabeIto) {
			out = append(out, style{colour: okabeIto[i]})
			used[okabeIto[i]] = true
			continue
		}
		j := i - len(okabeIto)
		hue := math.Mod(20+float64(j)*137.50776405, 360)
		light := []float64{0.40, 0.55, 0.30}[j%3]
		colour := hsl(hue, 0.75, light)
		for used[colour] { // two hues that round to one colour: turn on
			hue = math.Mod(hue+3, 360)
			colour = hsl(hue, 0.75, light)
		}
		used[colour] = true
		out = append(out, style{colour: colour, dash: extraDashes[j%len(extraDashes)]})
	}
	return out
}

// hsl returns the colour of hue (degrees), saturation and lightness (0 to
// 1) as #RRGGBB.
func hsl(h, s, l float64) string {
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := l - c/2
	var rgb [3]float64
	switch {
	case h < 60:
		rgb = [3]float64{c, x, 0}
	case h < 120:
		rgb = [3]float64{x, c, 0}
	case h < 180:
		rgb = [3]float64{0, c, x}
	case h < 240:
		rgb = [3]float64{0, x, c}
	case h < 300:
		rgb = [3]float64{x, 0, c}
	default:
		rgb = [3]float64{c, 0, x}
	}
	b := make([]byte, 0, 3)
	for _, v := range rgb {
		b = append(b, byte(math.Round(255*min(max(v+m, 0), 1))))
	}
	return fmt.Sprintf("#%02X%02X%02X", b[0], b[1], b[2])
}
