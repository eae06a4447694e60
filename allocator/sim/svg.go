package sim

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"
)

// The chart: three sections stacked, each a row of small plots on the
// same scales. Utilisation over time: a plot per resource, a line per
// configuration. Weighted shares over time: a plot per configuration, a
// line per role. Wait-time distribution: a plot per role, the fraction of
// its launched tasks (y) that waited at most x seconds, a line per
// configuration. Time series are drawn as means over at most
// maxPoints buckets of intervals.
const (
	svgWidth      = 1000
	svgLeft       = 60
	svgRight      = 980
	svgGap        = 50  // between two plots of a row
	sectionHeight = 290 // title, legend, plot and axis labels
	plotTop       = 62  // within a section
	plotHeight    = 180
	maxPoints     = 400
	cdfPoints     = 200
)

// palette is the Okabe-Ito palette, readable with colour blindness.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

func colour(i int) string { return palette[i%len(palette)] }

// WriteSVG draws the comparison as an SVG chart: utilisation over time,
// weighted shares over time and the wait-time distribution.
func (c *Comparison) WriteSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	height := 40 + 3*sectionHeight
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgWidth, height)
	fmt.Fprintf(bw, `<text x="%d" y="24" font-size="13" font-weight="bold">%s</text>`+"\n", svgLeft, esc(c.Workload))
	if len(c.Results) > 0 {
		c.utilisationSection(bw, 40)
		c.shareSection(bw, 40+sectionHeight)
		c.waitSection(bw, 40+2*sectionHeight)
	}
	fmt.Fprintln(bw, `</svg>`)
	return bw.Flush()
}

func esc(s string) string { return html.EscapeString(s) }

// series is a line to draw: points in data units.
type series struct {
	colour string
	points [][2]float64
}

// plotBox is a plot's place on the page and its scales.
type plotBox struct {
	left, top, width, height float64
	xMax, yMax               float64
}

func (p plotBox) x(v float64) float64 { return p.left + p.width*v/p.xMax }
func (p plotBox) y(v float64) float64 { return p.top + p.height - p.height*v/p.yMax }

// plotRow returns n plot boxes side by side in the section at y0.
func plotRow(n int, y0 int, xMax, yMax float64) []plotBox {
	width := (float64(svgRight-svgLeft) - float64(svgGap*(n-1))) / float64(n)
	boxes := make([]plotBox, n)
	for i := range boxes {
		boxes[i] = plotBox{left: svgLeft + float64(i)*(width+svgGap), top: float64(y0 + plotTop), width: width, height: plotHeight, xMax: xMax, yMax: yMax}
	}
	return boxes
}

// draw draws the plot's frame, ticks, title and lines.
func (p plotBox) draw(w io.Writer, title string, xLabel func(float64) string, lines []series) {
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" font-weight="bold">%s</text>`+"\n", p.left, p.top-8, esc(title))
	fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888"/>`+"\n", p.left, p.top, p.width, p.height)
	for k := 0; k <= 4; k++ {
		v := p.yMax * float64(k) / 4
		y := p.y(v)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", p.left, y, p.left+p.width, y)
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", p.left-4, y+4, trimFloat(v))
	}
	step := niceStep(p.xMax / 5)
	for v := 0.0; v <= p.xMax; v += step {
		x := p.x(v)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`+"\n", x, p.top+p.height, x, p.top+p.height+3)
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, p.top+p.height+15, esc(xLabel(v)))
	}
	for _, s := range lines {
		var b strings.Builder
		for i, pt := range s.points {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.1f,%.1f", p.x(pt[0]), p.y(pt[1]))
		}
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", s.colour, b.String())
	}
}

// legend writes names with their colours in a line at y.
func legend(w io.Writer, y int, names []string) {
	x := float64(svgLeft)
	for i, name := range names {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", x, y-4, x+18, y-4, colour(i))
		fmt.Fprintf(w, `<text x="%.1f" y="%d">%s</text>`+"\n", x+22, y, esc(name))
		x += 30 + 7*float64(len(name))
	}
}

func trimFloat(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.2f", v), "0") }

// timeLabel writes a whole number of seconds as the largest unit that
// divides it: "90s", "10m", "2h".
func timeLabel(secs float64) string {
	n := int64(math.Round(secs))
	switch {
	case n != 0 && n%3600 == 0:
		return fmt.Sprintf("%dh", n/3600)
	case n != 0 && n%60 == 0:
		return fmt.Sprintf("%dm", n/60)
	}
	return fmt.Sprintf("%ds", n)
}

// niceSteps are the tick steps of the time axes, in seconds.
var niceSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400}

// niceStep returns the least tick step of at least d seconds (whole days
// beyond the list).
func niceStep(d float64) float64 {
	for _, s := range niceSteps {
		if s >= d {
			return s
		}
	}
	return math.Ceil(d/86400) * 86400
}

func (c *Comparison) configNames() []string {
	names := make([]string, len(c.Results))
	for i, r := range c.Results {
		names[i] = r.Config
	}
	return names
}

// span is the time the runs cover, in seconds.
func (c *Comparison) span() float64 {
	var end float64
	for _, r := range c.Results {
		if n := len(r.Samples); n > 0 {
			end = math.Max(end, r.Samples[n-1].At.Seconds())
		}
	}
	return math.Max(end, 1)
}

func (c *Comparison) utilisationSection(w io.Writer, y0 int) {
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="12" font-weight="bold">Utilisation over time</text>`+"\n", svgLeft, y0+20)
	legend(w, y0+38, c.configNames())
	names := c.Results[0].Resources
	for i, box := range plotRow(len(names), y0, c.span(), 1) {
		var lines []series
		for k, r := range c.Results {
			lines = append(lines, series{colour(k), bucketed(r.Samples, func(s Sample) float64 { return s.Utilisation[i] })})
		}
		box.draw(w, names[i], timeLabel, lines)
	}
}

func (c *Comparison) shareSection(w io.Writer, y0 int) {
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="12" font-weight="bold">Weighted dominant shares over time</text>`+"\n", svgLeft, y0+20)
	roles := c.Results[0].Roles
	legend(w, y0+38, roles)
	top := 1.0
	for _, r := range c.Results {
		for _, s := range r.Samples {
			for _, v := range s.WeightedShare {
				top = math.Max(top, v)
			}
		}
	}
	for k, box := range plotRow(len(c.Results), y0, c.span(), math.Ceil(top*4)/4) {
		r := c.Results[k]
		var lines []series
		for i := range roles {
			lines = append(lines, series{colour(i), bucketed(r.Samples, func(s Sample) float64 { return s.WeightedShare[i] })})
		}
		box.draw(w, r.Config, timeLabel, lines)
	}
}

func (c *Comparison) waitSection(w io.Writer, y0 int) {
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="12" font-weight="bold">Wait-time distribution: share of launched tasks that waited at most x</text>`+"\n", svgLeft, y0+20)
	legend(w, y0+38, c.configNames())
	roles := c.Results[0].Roles
	longest := 1.0
	for _, r := range c.Results {
		for _, waits := range r.Waits {
			if n := len(waits); n > 0 {
				longest = math.Max(longest, waits[n-1].Seconds())
			}
		}
	}
	for i, box := range plotRow(len(roles), y0, longest, 1) {
		var lines []series
		for k, r := range c.Results {
			lines = append(lines, series{colour(k), cdf(r.Waits[i])})
		}
		box.draw(w, "role "+roles[i], timeLabel, lines)
	}
}

// bucketed returns the mean of get over at most maxPoints buckets of
// samples, each at its bucket's first time.
func bucketed(samples []Sample, get func(Sample) float64) [][2]float64 {
	size := (len(samples) + maxPoints - 1) / maxPoints
	var pts [][2]float64
	for start := 0; start < len(samples); start += size {
		end := min(start+size, len(samples))
		var sum float64
		for _, s := range samples[start:end] {
			sum += get(s)
		}
		pts = append(pts, [2]float64{samples[start].At.Seconds(), sum / float64(end-start)})
	}
	return pts
}

// cdf returns the distribution of sorted waits as a step line of at most
// cdfPoints+1 points.
func cdf(waits []time.Duration) [][2]float64 {
	if len(waits) == 0 {
		return nil
	}
	pts := [][2]float64{{0, 0}}
	for k := 1; k <= cdfPoints; k++ {
		q := float64(k) / cdfPoints
		i := max(int(math.Ceil(q*float64(len(waits))))-1, 0)
		pts = append(pts, [2]float64{waits[i].Seconds(), q})
	}
	return pts
}
