package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
	"time"
)

// The chart: one panel per simulation, stacked, and in each panel one small
// plot per framework, side by side on the same scales, so that frameworks
// with equal shares do not hide each other. Each plot has time on the x
// axis and the framework's dominant share on the y axis, a dotted mark
// where the framework joins, and above it the legend: the framework's
// colour, role, weight, task size and mean share over the last minute.
const (
	chartWidth  = 1000
	chartTop    = 56  // room for the chart title
	panelHeight = 306 // one panel, titles, legends and axis labels included
	plotsLeft   = 60  // left edge of the first plot
	plotsRight  = 980 // right edge of the last plot
	plotGap     = 56  // between two plots: room for the y axis labels
	legendTop   = 44  // within a panel, first legend line
	plotTop     = 100 // within a panel, top of the plots
	plotBottom  = 256 // within a panel, bottom of the plots
)

// palette is the Okabe-Ito palette, readable with colour blindness.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"}

// writeSVG draws the dominant shares of every simulation over time.
func writeSVG(w io.Writer, results []simResult) error {
	bw := bufio.NewWriter(w)
	height := chartTop + panelHeight*len(results) + 10
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, height, chartWidth, height)
	fmt.Fprintf(bw, `<rect x="0" y="0" width="%d" height="%d" fill="white"/>`+"\n", chartWidth, height)
	fmt.Fprintf(bw, `<text x="%d" y="28" font-size="18" font-weight="bold">%s</text>`+"\n", plotsLeft,
		esc("Dominant shares over time: 6 CPUs and 6.6 GB on two agents, tasks of 20 to 40 s"))
	for i, r := range results {
		panel(bw, r, chartTop+i*panelHeight)
	}
	fmt.Fprintln(bw, `</svg>`)
	return bw.Flush()
}

// panel draws one simulation with its top edge at y0: its title, then one
// plot per framework.
func panel(w io.Writer, r simResult, y0 int) {
	sc := r.Scenario
	fmt.Fprintf(w, `<g id="%s">`+"\n", esc(sc.Name))
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", plotsLeft, y0+22, esc(sc.Title))
	n := len(sc.Frameworks)
	width := float64(plotsRight-plotsLeft-plotGap*(n-1)) / float64(n)
	mean := r.MeanShares(sc.Duration - time.Minute)
	for i, f := range sc.Frameworks {
		left := float64(plotsLeft) + float64(i)*(width+plotGap)
		plot(w, r, f, palette[i%len(palette)], mean[f.ID], left, left+width, y0, i == 0)
	}
	fmt.Fprintln(w, `</g>`)
}

// plot draws framework f's share over time between x = left and right in
// the panel whose top edge is at y0, with its legend above it.
func plot(w io.Writer, r simResult, f simFramework, color string, mean, left, right float64, y0 int, first bool) {
	sc := r.Scenario
	end := sc.Duration.Seconds()
	x := func(t time.Duration) float64 { return left + (right-left)*t.Seconds()/end }
	top, bottom := float64(y0+plotTop), float64(y0+plotBottom)
	y := func(share float64) float64 { return bottom - (bottom-top)*share }

	// Legend.
	ly := float64(y0 + legendTop)
	fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n", left, ly-4, left+20, ly-4, color)
	label := fmt.Sprintf("%s (role %s", f.ID, f.Role)
	if wt, ok := sc.Weights[f.Role]; ok {
		label += fmt.Sprintf(", weight %g", wt)
	}
	label += ")"
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" font-weight="bold">%s</text>`+"\n", left+26, ly, esc(label))
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f">%s</text>`+"\n", left, ly+16,
		esc(fmt.Sprintf("tasks of <%g CPU, %g MB>", f.Task.Float64("cpus"), f.Task.Float64("mem"))))
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f">mean share over the last 60 s: %.3f</text>`+"\n", left, ly+32, mean)

	// Grid and y axis: shares 0 to 1 by quarters.
	for i := 0; i <= 4; i++ {
		share := float64(i) / 4
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", left, y(share), right, y(share))
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="end">%.2f</text>`+"\n", left-6, y(share)+4, share)
	}
	// x axis: a tick every 30 s, labelled every 30 s where there is room,
	// else every minute.
	label30 := (right-left)*30/end >= 36
	for t := time.Duration(0); t <= sc.Duration; t += 30 * time.Second {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", x(t), top, x(t), bottom)
		if label30 || t%time.Minute == 0 {
			fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x(t), bottom+16, int(t.Seconds()))
		}
	}
	fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#444"/>`+"\n", left, top, right-left, bottom-top)
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle">time (s)</text>`+"\n", (left+right)/2, bottom+32)
	if first {
		mid := (top + bottom) / 2
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">dominant share</text>`+"\n",
			left-40, mid, left-40, mid)
	}

	if f.Join > 0 {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="2,3"/>`+"\n", x(f.Join), top, x(f.Join), bottom, color)
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" fill="%s">joins</text>`+"\n", x(f.Join)+4, top+14, color)
	}
	var pts strings.Builder
	for _, s := range r.Samples {
		share, ok := s.Shares[f.ID]
		if !ok {
			continue
		}
		fmt.Fprintf(&pts, "%.1f,%.1f ", x(s.T), y(share))
	}
	fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-linejoin="round" points="%s"><title>%s</title></polyline>`+"\n",
		color, strings.TrimSpace(pts.String()), esc(f.ID))
}

// esc escapes text for SVG.
func esc(s string) string { return html.EscapeString(s) }
