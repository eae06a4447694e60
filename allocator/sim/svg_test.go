package sim_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

// chart is what a test reads of an SVG chart.
type chart struct {
	width, height float64
	sections      []chartSection
}

// chartSection is a section of the chart: its legend and its lines.
type chartSection struct {
	legend []chartSeries
	lines  []chartSeries
}

// chartSeries is a legend item or a polyline: its name and colour.
type chartSeries struct {
	name, colour string
}

// readChart parses an SVG chart and checks that everything drawn is on
// the canvas: every coordinate, every box, every point of every line,
// and every text by a generous estimate of its width from its anchor.
func readChart(t *testing.T, data []byte) chart {
	t.Helper()
	var c chart
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []xml.StartElement
	var text strings.Builder
	var sec *chartSection
	var legendTitle string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			attrs := map[string]string{}
			for _, a := range tok.Attr {
				attrs[a.Name.Local] = a.Value
			}
			num := func(name string) (float64, bool) {
				s, ok := attrs[name]
				if !ok {
					return 0, false
				}
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s=%q: %v", name, s, err)
				}
				return v, true
			}
			name := tok.Name.Local
			if name == "svg" {
				require.Empty(t, stack, "svg is the root")
				c.width, _ = num("width")
				c.height, _ = num("height")
				require.Equal(t, fmt.Sprintf("0 0 %g %g", c.width, c.height), attrs["viewBox"])
			}
			// Plain comparisons: a chart of 50 configurations has
			// a million points.
			inX := func(v float64, what string) {
				if !(v >= 0 && v <= c.width) {
					t.Fatalf("<%s> %s %.1f outside 0..%g", name, what, v, c.width)
				}
			}
			inY := func(v float64, what string) {
				if !(v >= 0 && v <= c.height) {
					t.Fatalf("<%s> %s %.1f outside 0..%g", name, what, v, c.height)
				}
			}
			for _, a := range []string{"x", "x1", "x2", "cx"} {
				if v, ok := num(a); ok {
					inX(v, a)
				}
			}
			for _, a := range []string{"y", "y1", "y2", "cy"} {
				if v, ok := num(a); ok {
					inY(v, a)
				}
			}
			if w, ok := num("width"); ok && name != "svg" {
				x, _ := num("x")
				require.GreaterOrEqual(t, w, 0.0, "<%s> width", name)
				inX(x+w, "x+width")
			}
			if h, ok := num("height"); ok && name != "svg" {
				y, _ := num("y")
				require.GreaterOrEqual(t, h, 0.0, "<%s> height", name)
				inY(y+h, "y+height")
			}
			if pts, ok := attrs["points"]; ok {
				require.NotEmpty(t, pts, "a polyline without points")
				for _, pt := range strings.Fields(pts) {
					xs, ys, _ := strings.Cut(pt, ",")
					x, errX := strconv.ParseFloat(xs, 64)
					y, errY := strconv.ParseFloat(ys, 64)
					if errX != nil || errY != nil {
						t.Fatalf("point %q", pt)
					}
					inX(x, "point")
					inY(y, "point")
				}
			}
			switch {
			case name == "g" && attrs["class"] == "section":
				c.sections = append(c.sections, chartSection{})
				sec = &c.sections[len(c.sections)-1]
			case name == "line" && len(stack) > 0 && hasClass(stack[len(stack)-1], "legend-item"):
				sec.legend = append(sec.legend, chartSeries{name: legendTitle, colour: attrs["stroke"]})
				legendTitle = ""
			case name == "polyline":
				sec.lines = append(sec.lines, chartSeries{colour: attrs["stroke"]})
			}
			stack = append(stack, tok)
			text.Reset()
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			el := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1].Name.Local
				if hasClass(stack[len(stack)-1], "legend-item") {
					parent = "legend-item"
				}
			}
			switch {
			case el.Name.Local == "text":
				checkText(t, el, text.String(), c.width)
				if parent == "legend-item" && sec.legend[len(sec.legend)-1].name == "" {
					sec.legend[len(sec.legend)-1].name = text.String()
				}
			case el.Name.Local == "title" && parent == "legend-item": // a name cut short: the whole
				legendTitle = text.String()
			case el.Name.Local == "title" && parent == "polyline":
				sec.lines[len(sec.lines)-1].name = text.String()
			case el.Name.Local == "g" && hasClass(el, "section"):
				sec = nil
			}
			text.Reset()
		}
	}
	return c
}

func hasClass(el xml.StartElement, class string) bool {
	for _, a := range el.Attr {
		if a.Name.Local == "class" && a.Value == class {
			return true
		}
	}
	return false
}

// checkText checks that a text, by an estimate of its width of 0.58 em
// a character (0.64 in bold, as in DejaVu Sans for lower-case text with
// its spaces, rounded up), lies within the canvas's width from its anchor.
// Rotated text is checked by its anchor only, above.
func checkText(t *testing.T, el xml.StartElement, text string, width float64) {
	t.Helper()
	attrs := map[string]string{"font-size": "11", "text-anchor": "start"}
	for _, a := range el.Attr {
		attrs[a.Name.Local] = a.Value
	}
	if attrs["transform"] != "" {
		return
	}
	size, err := strconv.ParseFloat(attrs["font-size"], 64)
	require.NoError(t, err)
	em := 0.58
	if attrs["font-weight"] == "bold" {
		em = 0.64
	}
	w := em * size * float64(len([]rune(text)))
	x, _ := strconv.ParseFloat(attrs["x"], 64)
	left := map[string]float64{"start": x, "middle": x - w/2, "end": x - w}[attrs["text-anchor"]]
	require.True(t, left >= 0 && left+w <= width, "text %q (%s at %.1f) runs from %.1f to %.1f, outside 0..%g", text, attrs["text-anchor"], x, left, left+w, width)
}

// check checks a chart of c: on the canvas, a section per measure, every
// line's name and colour in its section's legend, and no two names of a
// legend of one colour.
func (c chart) check(t *testing.T, cmp *sim.Comparison) {
	t.Helper()
	require.Len(t, c.sections, 3)
	for k, sec := range c.sections {
		colours := map[string]string{}
		for _, it := range sec.legend {
			require.NotEmpty(t, it.name)
			other, seen := colours[it.colour]
			require.False(t, seen, "section %d: %q and %q both %s", k, other, it.name, it.colour)
			colours[it.colour] = it.name
		}
		for _, l := range sec.lines {
			require.Equal(t, l.name, colours[l.colour], "section %d: the line %q in %s, not as in the legend", k, l.name, l.colour)
		}
	}
	var configs []string
	for _, r := range cmp.Results {
		configs = append(configs, r.Config)
	}
	for _, k := range []int{0, 2} { // utilisation and waits: a line per configuration
		require.Equal(t, configs, legendNames(c.sections[k].legend))
	}
	require.Len(t, c.sections[0].lines, len(configs)*len(cmp.Results[0].Resources))
	roles := cmp.Results[0].Roles
	shareLegend := legendNames(c.sections[1].legend)
	if len(roles) <= 9 {
		require.Equal(t, roles, shareLegend)
	} else {
		require.Len(t, shareLegend, 9)
		require.Equal(t, fmt.Sprintf("others: mean of %d roles", len(roles)-8), shareLegend[8])
		for _, name := range shareLegend[:8] {
			require.Contains(t, roles, name)
		}
	}
	require.Len(t, c.sections[1].lines, len(configs)*len(shareLegend))
}

func legendNames(items []chartSeries) []string {
	var names []string
	for _, it := range items {
		names = append(names, it.name)
	}
	return names
}

// svgOf writes c's chart.
func svgOf(t *testing.T, c *sim.Comparison) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, c.WriteSVG(&b))
	return b.Bytes()
}

// Charts of real runs of 1, 2, 8, 20 and 50 roles and as many
// configurations or a few: everything on the canvas, plots at least 180
// pixels wide, every line in its legend, no colour twice in a legend.
func TestChartOfManyRoles(t *testing.T) {
	for _, tc := range []struct{ roles, configs int }{{1, 1}, {2, 2}, {8, 8}, {20, 3}, {50, 2}} {
		t.Run(fmt.Sprintf("roles=%d/configs=%d", tc.roles, tc.configs), func(t *testing.T) {
			var configs []sim.Config
			for k := range tc.configs {
				c := sim.Config{Name: fmt.Sprintf("drf-%d", k)}
				if k%2 == 1 {
					c = sim.Config{Name: fmt.Sprintf("usage-%dm", k), RoleSorterWithClock: sim.Usage(time.Duration(k) * time.Minute)}
				}
				configs = append(configs, c)
			}
			cmp, err := sim.Compare(rolesWorkload(tc.roles, 3, 90), configs, sim.RunOptions{Seed: 1, Intervals: 90})
			require.NoError(t, err)
			data := svgOf(t, cmp)
			c := readChart(t, data)
			c.check(t, cmp)
			require.Equal(t, 1000.0, c.width)
			minPlotWidth(t, data, 180)
			// Each role's waits in a plot of its own.
			require.Equal(t, tc.roles, strings.Count(string(data), ">role role"))
		})
	}
}

// minPlotWidth checks that every plot frame is at least min wide.
func minPlotWidth(t *testing.T, data []byte, min float64) {
	t.Helper()
	frames := 0
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "rect" && slices.ContainsFunc(el.Attr, func(a xml.Attr) bool { return a.Name.Local == "stroke" }) {
			for _, a := range el.Attr {
				if a.Name.Local == "width" {
					w, err := strconv.ParseFloat(a.Value, 64)
					require.NoError(t, err)
					require.GreaterOrEqual(t, w, min)
					frames++
				}
			}
		}
	}
	require.Positive(t, frames)
}

// synthetic is a comparison put together by hand: configs results of
// roles roles and three resources, with samples and waits drawn from
// seed, and names as long as a user may give.
func synthetic(roles, configs int, seed uint64) *sim.Comparison {
	rng := rand.New(rand.NewPCG(seed, 0))
	c := &sim.Comparison{Workload: strings.Repeat("a workload described at length, ", 3*roles) + "end", Seed: seed}
	names := make([]string, roles)
	for i := range names {
		names[i] = fmt.Sprintf("role-%02d", i)
	}
	if roles > 2 {
		names[1] = "a-role-with-a-name-much-too-long-for-a-plot-title-or-a-legend-line-" + strings.Repeat("x", 120)
	}
	for k := range configs {
		r := &sim.Result{
			Config: fmt.Sprintf("configuration-%02d", k), Interval: time.Second,
			Resources: []string{"cpus", "mem", "gpus"}, Roles: names, Weights: make([]float64, roles),
		}
		if k == 1 {
			r.Config = "a configuration whose name goes on " + strings.Repeat("and on ", 30)
		}
		for n := range 100 {
			s := sim.Sample{At: time.Duration(n) * time.Second, Utilisation: []float64{rng.Float64(), rng.Float64(), 1.2}}
			for range roles {
				v := rng.Float64() / float64(roles) * 2
				s.Share, s.WeightedShare = append(s.Share, v), append(s.WeightedShare, v)
			}
			r.Samples = append(r.Samples, s)
		}
		r.Summary.Intervals = 100
		r.Summary.WeightedShare = make([]float64, roles)
		for i := range roles {
			r.Summary.WeightedShare[i] = float64((i*7)%roles) / float64(roles)
			var waits []time.Duration
			for range rng.IntN(40) {
				waits = append(waits, time.Duration(rng.IntN(600))*time.Second)
			}
			slices.Sort(waits)
			r.Waits = append(r.Waits, waits)
		}
		c.Results = append(c.Results, r)
	}
	return c
}

// Charts of many configurations and roles put together by hand, with
// names too long for a line and values off the scales: on the canvas,
// in the legends, the roles of the largest shares drawn.
func TestChartOfManyConfigurations(t *testing.T) {
	for _, tc := range []struct{ roles, configs int }{{1, 20}, {3, 20}, {2, 50}, {20, 20}, {50, 50}, {9, 1}, {10, 2}} {
		t.Run(fmt.Sprintf("roles=%d/configs=%d", tc.roles, tc.configs), func(t *testing.T) {
			cmp := synthetic(tc.roles, tc.configs, uint64(tc.roles*100+tc.configs))
			data := svgOf(t, cmp)
			c := readChart(t, data)
			c.check(t, cmp)
			minPlotWidth(t, data, 180)
			if tc.roles > 9 { // the mean shares are (7i mod n)/n: the largest are those of 7i mod n from n-8 to n-1
				var want []string
				for i, name := range cmp.Results[0].Roles {
					if (i*7)%tc.roles >= tc.roles-8 {
						want = append(want, name)
					}
				}
				require.Equal(t, want, legendNames(c.sections[1].legend)[:8])
			}
		})
	}
}

// What a Comparison put together by hand may hold does not make the
// chart fail or leave the canvas: no results, results without samples,
// results of fewer roles and resources than the first, NaN and infinite
// values.
func TestChartOfOddComparisons(t *testing.T) {
	empty := svgOf(t, &sim.Comparison{Workload: "nothing"})
	c := readChart(t, empty)
	require.Empty(t, c.sections)

	odd := synthetic(4, 3, 1)
	odd.Results[1].Samples = nil
	odd.Results[1].Waits = nil
	odd.Results[2].Roles = odd.Results[2].Roles[:1]
	for i := range odd.Results[2].Samples {
		s := &odd.Results[2].Samples[i]
		s.Utilisation = []float64{math.NaN()}
		s.WeightedShare = []float64{math.Inf(1), math.Inf(-1)}
	}
	odd.Results[0].Summary.WeightedShare = []float64{math.NaN()}
	readChart(t, svgOf(t, odd))
}
