package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
	"time"
)

// The chart: one panel per simulation, stacked, each with time on the x
// axis, the dominant share on the y axis, one line per framework, a dotted
// mark where a framework joins, and a legend with each framework's task
// size and mean share over the last minute.
const (
	chartWidth  = 1000
	chartTop    = 56  // room for the chart title
	panelHeight = 270 // one panel, title and axis labels included
	plotLeft    = 70
	plotRight   = 720
	plotTop     = 40 // within a panel, below its title
	plotBottom  = 220
	legendLeft  = 745
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
	fmt.Fprintf(bw, `<text x="%d" y="28" font-size="18" font-weight="bold">%s</text>`+"\n", plotLeft,
		esc("Dominant shares over time: 6 CPUs and 6.6 GB on two agents, tasks of 20 to 40 s"))
	for i, r := range results {
		panel(bw, r, chartTop+i*panelHeight)
	}
	fmt.Fprintln(bw, `</svg>`)
	return bw.Flush()
}

// panel draws one simulation with its top edge at y0.
func panel(w io.Writer, r simResult, y0 int) {
	sc := r.Scenario
	end := sc.Duration.Seconds()
	x := func(t time.Duration) float64 {
		return plotLeft + (plotRight-plotLeft)*t.Seconds()/end
	}
	y := func(share float64) float64 {
		return float64(y0+plotBottom) - (plotBottom-plotTop)*share
	}

	fmt.Fprintf(w, `<g id="%s">`+"\n", esc(sc.Name))
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", plotLeft, y0+22, esc(sc.Title))

	// Grid and y axis: shares 0 to 1 by quarters.
	for i := 0; i <= 4; i++ {
		share := float64(i) / 4
		fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e0e0e0"/>`+"\n", plotLeft, y(share), plotRight, y(share))
		fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%.2f</text>`+"\n", plotLeft-6, y(share)+4, share)
	}
	// x axis: a tick every 30 s.
	for t := time.Duration(0); t <= sc.Duration; t += 30 * time.Second {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e0e0e0"/>`+"\n", x(t), y0+plotTop, x(t), y0+plotBottom)
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(t), y0+plotBottom+16, int(t.Seconds()))
	}
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n",
		plotLeft, y0+plotTop, plotRight-plotLeft, plotBottom-plotTop)
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle">time (s)</text>`+"\n", (plotLeft+plotRight)/2, y0+plotBottom+34)
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">dominant share</text>`+"\n",
		plotLeft-44, y0+(plotTop+plotBottom)/2, plotLeft-44, y0+(plotTop+plotBottom)/2)

	mean := r.MeanShares(sc.Duration - time.Minute)
	for i, f := range sc.Frameworks {
		color := palette[i%len(palette)]
		if f.Join > 0 {
			fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="2,3"/>`+"\n",
				x(f.Join), y0+plotTop, x(f.Join), y0+plotBottom, color)
			fmt.Fprintf(w, `<text x="%.1f" y="%d" fill="%s">%s joins</text>`+"\n", x(f.Join)+4, y0+plotTop+14, color, esc(f.ID))
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

		ly := y0 + plotTop + 10 + i*56
		fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", legendLeft, ly, legendLeft+24, ly, color)
		label := fmt.Sprintf("%s (role %s", f.ID, f.Role)
		if wt, ok := sc.Weights[f.Role]; ok {
			label += fmt.Sprintf(", weight %g", wt)
		}
		label += ")"
		fmt.Fprintf(w, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", legendLeft+30, ly+4, esc(label))
		fmt.Fprintf(w, `<text x="%d" y="%d">tasks of %s</text>`+"\n", legendLeft+30, ly+20,
			esc(fmt.Sprintf("<%g CPU, %g MB>", f.Task.Get("cpus"), f.Task.Get("mem"))))
		fmt.Fprintf(w, `<text x="%d" y="%d">mean of the last 60 s: %.3f</text>`+"\n", legendLeft+30, ly+36, mean[f.ID])
	}
	fmt.Fprintln(w, `</g>`)
}

// esc escapes text for SVG.
func esc(s string) string { return html.EscapeString(s) }
