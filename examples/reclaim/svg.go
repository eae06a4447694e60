package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
)

// The chart: a plot per act, side by side, of the roles' weighted
// dominant shares (y, 0 to 1) after every run (x; run 0 is before the
// first), a line per role. The first act's runs without reclaim are the
// dashed lines: they show what reclaim changes.
const (
	chartWidth  = 1000
	chartHeight = 390
	plotsLeft   = 60
	plotsRight  = 980
	plotGap     = 70 // between the plots: room for the y axis labels
	titleTop    = 70 // a plot's title
	legendTop   = 92 // its legend
	plotTop     = 115
	plotBottom  = 335
)

// palette is the Okabe-Ito palette, readable with colour blindness.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7"}

// chartLine is one role's shares in one plot, from run 0.
type chartLine struct {
	name   string
	colour string
	dashed bool
	shares []float64
}

// chartPlot is one act.
type chartPlot struct {
	id, title string
	lines     []chartLine
}

// charts returns the plots of both acts.
func charts(s story) []chartPlot {
	g, f := s.Guarantee, s.Fair
	return []chartPlot{
		{"act1", "Act 1: web's guarantee (reclaim: guarantees)", []chartLine{
			{"batch", palette[0], false, series(g.Start, g.Runs, 0)},
			{"web", palette[1], false, series(g.Start, g.Runs, 1)},
			{"batch, off", palette[0], true, series(g.Start, g.Off, 0)},
			{"web, off", palette[1], true, series(g.Start, g.Off, 1)},
		}},
		{"act2", "Act 2: equal roles (reclaim: fair-share)", []chartLine{
			{"a", palette[2], false, series(f.Start, f.Runs, 0)},
			{"b", palette[3], false, series(f.Start, f.Runs, 1)},
		}},
	}
}

// writeSVG draws the plots side by side.
func writeSVG(w io.Writer, plots []chartPlot) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, chartHeight, chartWidth, chartHeight)
	fmt.Fprintf(bw, `<rect x="0" y="0" width="%d" height="%d" fill="white"/>`+"\n", chartWidth, chartHeight)
	fmt.Fprintf(bw, `<text x="%d" y="30" font-size="16" font-weight="bold">%s</text>`+"\n", plotsLeft,
		esc("Reclaim across roles: weighted dominant shares after each run"))
	width := float64(plotsRight-plotsLeft-plotGap*(len(plots)-1)) / float64(len(plots))
	for i, p := range plots {
		left := float64(plotsLeft) + float64(i)*(width+plotGap)
		p.draw(bw, left, left+width)
	}
	fmt.Fprintln(bw, `</svg>`)
	return bw.Flush()
}

// draw draws the plot between x = left and right: title, legend, grid,
// axes and lines.
func (p chartPlot) draw(w io.Writer, left, right float64) {
	runs := 0
	for _, l := range p.lines {
		runs = max(runs, len(l.shares)-1)
	}
	x := func(run int) float64 { return left + (right-left)*float64(run)/float64(max(runs, 1)) }
	y := func(share float64) float64 { return plotBottom - (plotBottom-plotTop)*share }
	fmt.Fprintf(w, `<g id="%s">`+"\n", esc(p.id))
	fmt.Fprintf(w, `<text x="%.1f" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", left, titleTop, esc(p.title))
	p.legend(w, left)
	for k := 0; k <= 4; k++ {
		share := float64(k) / 4
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", left, y(share), right, y(share))
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="end">%.2f</text>`+"\n", left-6, y(share)+4, share)
	}
	for run := 0; run <= runs; run++ {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888"/>`+"\n", x(run), plotBottom, x(run), plotBottom+4)
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(run), plotBottom+18, run)
	}
	fmt.Fprintf(w, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="none" stroke="#444"/>`+"\n", left, plotTop, right-left, plotBottom-plotTop)
	fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">run</text>`+"\n", (left+right)/2, plotBottom+36)
	for _, l := range p.lines {
		var pts []string
		for run, share := range l.shares {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(run), y(share)))
		}
		dash := ""
		if l.dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`+"\n",
			l.colour, dash, strings.Join(pts, " "), esc(l.name))
	}
	fmt.Fprintln(w, `</g>`)
}

// legend writes the lines' names with their colours and dashes in a row.
func (p chartPlot) legend(w io.Writer, left float64) {
	lx := left
	for _, l := range p.lines {
		dash := ""
		if l.dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="3"%s/>`+"\n", lx, legendTop-4, lx+24, legendTop-4, l.colour, dash)
		fmt.Fprintf(w, `<text x="%.1f" y="%d">%s</text>`+"\n", lx+30, legendTop, esc(l.name))
		lx += 44 + 7*float64(len(l.name))
	}
}

// esc escapes text for SVG.
func esc(s string) string { return html.EscapeString(s) }
