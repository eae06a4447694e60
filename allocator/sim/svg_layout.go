package sim

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// The page: a fixed width, and a height that grows with what is drawn.
// Sections stack from the top; a section's plots go in rows of at most
// as many as keep them minPanelWidth wide.
const (
	svgWidth      = 1000
	marginLeft    = 72 // the y-axis title and the first plot's tick labels
	marginRight   = 28 // half the last tick label
	contentWidth  = svgWidth - marginLeft - marginRight
	panelGap      = 48 // between two plots of a row: the next one's tick labels
	minPanelWidth = 180
	plotHeight    = 160
	panelTitle    = 20 // from a row's top to its plots' top
	axisSpace     = 40 // below a plot: tick labels and the x-axis title
	rowGap        = 12
	lineHeight    = 16 // of legends and wrapped headings
	yTitleX       = 20 // the rotated y-axis title's baseline
	fontSize      = 11
)

// canvas is the chart as it is drawn, top to bottom: y is where the next
// thing goes.
type canvas struct {
	b strings.Builder
	y float64
}

// section is a heading, a legend and a grid of plots on the same scales.
type section struct {
	heading        string
	yTitle, xTitle string
	xLabel         func(float64) string
	legend         []legendItem
	panels         []panel
	xMax, yMax     float64
}

// panel is one plot: a title and its lines.
type panel struct {
	title string
	lines []series
}

// legendItem is a name and how its series are drawn.
type legendItem struct {
	name  string
	style style
}

// series is a line to draw: points in data units, named and drawn as its
// legend item.
type series struct {
	legendItem
	points [][2]float64
}

// writeTo writes the chart, now that its height is known.
func (cv *canvas) writeTo(w io.Writer) error {
	bw := bufio.NewWriter(w)
	height := int(math.Ceil(cv.y + 10))
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="%d">`+"\n",
		svgWidth, height, svgWidth, height, fontSize)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgWidth, height)
	bw.WriteString(cv.b.String())
	fmt.Fprintln(bw, `</svg>`)
	return bw.Flush()
}

// title writes the workload's description, wrapped to the page.
func (cv *canvas) title(text string) {
	cv.y = 8
	for _, line := range wrap(text, contentWidth, 13, true) {
		cv.y += 17
		fmt.Fprintf(&cv.b, `<text x="%d" y="%.1f" font-size="13" font-weight="bold">%s</text>`+"\n", marginLeft, cv.y, esc(line))
	}
	cv.y += 8
}

// section draws a section below what is drawn.
func (cv *canvas) section(s section) {
	cv.b.WriteString(`<g class="section">` + "\n")
	cv.y += 12
	for _, line := range wrap(s.heading, contentWidth, 12, true) {
		cv.y += lineHeight
		fmt.Fprintf(&cv.b, `<text x="%d" y="%.1f" font-size="12" font-weight="bold">%s</text>`+"\n", marginLeft, cv.y, esc(line))
	}
	cv.legend(s.legend)
	cv.y += 10
	cols, width := grid(len(s.panels))
	for start := 0; start < len(s.panels); start += cols {
		top := cv.y + panelTitle
		fmt.Fprintf(&cv.b, `<text x="%d" y="%.1f" text-anchor="middle" transform="rotate(-90 %d %.1f)">%s</text>`+"\n",
			yTitleX, top+plotHeight/2, yTitleX, top+plotHeight/2, esc(truncate(s.yTitle, plotHeight, fontSize, false)))
		for k, p := range s.panels[start:min(start+cols, len(s.panels))] {
			box := plotBox{left: marginLeft + float64(k)*(width+panelGap), top: top, width: width, height: plotHeight, xMax: s.xMax, yMax: s.yMax}
			box.draw(&cv.b, p, s)
		}
		cv.y = top + plotHeight + axisSpace + rowGap
	}
	cv.b.WriteString("</g>\n")
}

// grid returns how many plots go in a row and how wide they are: as many
// as there are, or as many as keep them minPanelWidth wide.
func grid(n int) (cols int, width float64) {
	cols = max(min(n, (contentWidth+panelGap)/(minPanelWidth+panelGap)), 1)
	return cols, float64(contentWidth-panelGap*(cols-1)) / float64(cols)
}

// legend writes the items in lines that wrap at the page's width.
func (cv *canvas) legend(items []legendItem) {
	if len(items) == 0 {
		return
	}
	cv.b.WriteString(`<g class="legend">` + "\n")
	cv.y += lineHeight + 2
	x := float64(marginLeft)
	for _, it := range items {
		name := truncate(it.name, contentWidth-22, fontSize, false)
		w := 22 + textWidth(name, fontSize, false) + 16
		if x > marginLeft && x+w-16 > marginLeft+contentWidth {
			x = marginLeft
			cv.y += lineHeight
		}
		cv.b.WriteString(`<g class="legend-item">`)
		if name != it.name { // the whole name where the pointer rests
			fmt.Fprintf(&cv.b, `<title>%s</title>`, esc(it.name))
		}
		fmt.Fprintf(&cv.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"%s stroke-width="3"/><text x="%.1f" y="%.1f">%s</text></g>`+"\n",
			x, cv.y-4, x+18, cv.y-4, it.style.colour, dashAttr(it.style.dash), x+22, cv.y, esc(name))
		x += w
	}
	cv.b.WriteString("</g>\n")
}

func dashAttr(dash string) string {
	if dash == "" {
		return ""
	}
	return ` stroke-dasharray="` + dash + `"`
}

// plotBox is a plot's place on the page and its scales.
type plotBox struct {
	left, top, width, height float64
	xMax, yMax               float64
}

// x and y place a value on the page, within the plot whatever the value.
func (p plotBox) x(v float64) float64 { return p.left + p.width*clamp(v/p.xMax) }
func (p plotBox) y(v float64) float64 { return p.top + p.height - p.height*clamp(v/p.yMax) }

// clamp returns v within 0 and 1, and 0 for NaN.
func clamp(v float64) float64 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}

// draw draws the plot's title, frame, ticks, x-axis title and lines.
func (p plotBox) draw(w *strings.Builder, pn panel, s section) {
	title := truncate(pn.title, p.width, fontSize, true)
	if title != pn.title {
		fmt.Fprintf(w, `<g><title>%s</title>`, esc(pn.title))
	}
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" font-weight="bold">%s</text>`, p.left, p.top-7, esc(title))
	if title != pn.title {
		w.WriteString(`</g>`)
	}
	w.WriteString("\n")
	fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888"/>`+"\n", p.left, p.top, p.width, p.height)
	for k := 0; k <= 4; k++ {
		v := p.yMax * float64(k) / 4
		y := p.y(v)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", p.left, y, p.left+p.width, y)
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", p.left-4, y+4, trimFloat(v))
	}
	step := niceStep(p.xMax / 5)
	for k := 0; float64(k)*step <= p.xMax; k++ {
		v := float64(k) * step
		x := p.x(v)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`+"\n", x, p.top+p.height, x, p.top+p.height+3)
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, p.top+p.height+15, esc(s.xLabel(v)))
	}
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#444">%s</text>`+"\n",
		p.left+p.width/2, p.top+p.height+31, esc(truncate(s.xTitle, p.width, fontSize, false)))
	for _, l := range pn.lines {
		if len(l.points) == 0 {
			continue
		}
		var b strings.Builder
		for i, pt := range l.points {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.1f,%.1f", p.x(pt[0]), p.y(pt[1]))
		}
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s"%s stroke-width="1.5" points="%s"><title>%s</title></polyline>`+"\n",
			l.style.colour, dashAttr(l.style.dash), b.String(), esc(l.name))
	}
}

func esc(s string) string { return html.EscapeString(s) }

// trimFloat writes a tick's value with up to four decimals and at least
// one: "0.0", "0.25", "0.005".
func trimFloat(v float64) string {
	s := strings.TrimRight(fmt.Sprintf("%.4f", v), "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

// textWidth estimates the width of text in a sans-serif font of the given
// size, erring wide, since the chart is drawn without measuring fonts: by
// the widths of DejaVu Sans, among the widest, rounded up, and at least
// 0.58 em a character (0.64 in bold) whatever they are.
func textWidth(text string, size float64, bold bool) float64 {
	em, n := 0.0, 0
	for _, r := range text {
		n++
		switch {
		case strings.ContainsRune("ijl.,:;'!| ", r):
			em += 0.34
		case strings.ContainsRune("frtI()[]-", r):
			em += 0.44
		case strings.ContainsRune("mwMW@%", r) || r > 0x2E7F: // wide letters, CJK
			em += 1.0
		case r >= 'A' && r <= 'Z':
			em += 0.78
		default:
			em += 0.66
		}
	}
	floor := 0.58
	if bold {
		em *= 1.12
		floor = 0.64
	}
	return math.Max(em, floor*float64(n)) * size
}

// truncate shortens text to fit width, ending it with an ellipsis.
func truncate(text string, width, size float64, bold bool) string {
	if textWidth(text, size, bold) <= width {
		return text
	}
	runes := []rune(text)
	if n := fit(runes, "…", width, size, bold); n > 0 {
		return string(runes[:n]) + "…"
	}
	return ""
}

// fit returns the most runes of text that fit width followed by suffix:
// a binary search, since a prefix is never wider than a longer one, among
// the prefixes no longer than textWidth's floor lets fit, so that a name
// of any length costs a few passes over what fits.
func fit(runes []rune, suffix string, width, size float64, bold bool) int {
	floor := 0.58
	if bold {
		floor = 0.64
	}
	lo, hi := 0, min(len(runes), int(width/(floor*size))) // runes[:lo] fits; runes[:hi+1] does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if textWidth(string(runes[:mid])+suffix, size, bold) <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// wrap breaks text into lines that fit width, at spaces where it can and
// within words too long for a line.
func wrap(text string, width, size float64, bold bool) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		next := word
		if line != "" {
			next = line + " " + word
		}
		if textWidth(next, size, bold) <= width {
			line = next
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		runes := []rune(word)
		for { // a word longer than a line is cut where it fills one
			n := max(fit(runes, "", width, size, bold), 1)
			if n == len(runes) {
				break
			}
			lines = append(lines, string(runes[:n]))
			runes = runes[n:]
		}
		line = string(runes)
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
