package sim

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// The chart: three sections stacked, each a grid of small plots on the
// same scales. Utilisation over time: a plot per resource, a line per
// configuration. Weighted shares over time: a plot per configuration, a
// line per role (the maxRoleLines roles of the largest mean weighted share
// and a line for the mean of the others, when there are two others or
// more). Wait-time
// distribution: a plot per role, the fraction of its launched tasks (y)
// that waited at most x seconds, a line per configuration. Time series are
// drawn as means over at most maxPoints buckets of the kept samples.
const (
	maxPoints = 400
	cdfPoints = 200
	// maxRoleLines is how many roles the share plots draw each in its
	// own colour: past eight, lines of one plot are no longer told apart
	// by colour, so the rest are drawn as their mean.
	maxRoleLines = 8
)

// WriteSVG draws the comparison as an SVG chart: utilisation over time,
// weighted shares over time and the wait-time distribution. The chart is
// 1000 pixels wide and as tall as its plots need: a plot is never
// narrower than 180 pixels, a row holds as many as fit, and titles and
// legends wrap. The package documentation (Charts) says what it draws of
// many roles and configurations.
func (c *Comparison) WriteSVG(w io.Writer) error {
	cv := &canvas{}
	cv.title(c.Workload)
	if len(c.Results) > 0 {
		cv.section(c.utilisationSection())
		cv.section(c.shareSection())
		cv.section(c.waitSection())
	}
	return cv.writeTo(w)
}

// configLegend is the configurations with their colours.
func (c *Comparison) configLegend() []legendItem {
	styles := seriesStyles(len(c.Results))
	items := make([]legendItem, len(c.Results))
	for k, r := range c.Results {
		items[k] = legendItem{name: r.Config, style: styles[k]}
	}
	return items
}

// span is the time the runs cover, in seconds: to the last interval,
// whether its sample was kept or not.
func (c *Comparison) span() float64 {
	var end float64
	for _, r := range c.Results {
		if n := len(r.Samples); n > 0 {
			end = math.Max(end, r.Samples[n-1].At.Seconds())
		}
		if r.Summary.Intervals > 0 {
			end = math.Max(end, (time.Duration(r.Summary.Intervals-1) * r.Interval).Seconds())
		}
	}
	return math.Max(end, 1)
}

func (c *Comparison) utilisationSection() section {
	legend := c.configLegend()
	s := section{
		heading: "Utilisation over time: a plot per resource, a line per configuration",
		yTitle:  "utilisation", xTitle: "simulated time", xLabel: timeLabel,
		legend: legend, xMax: c.span(), yMax: 1,
	}
	for i, name := range c.Results[0].Resources {
		p := panel{title: name}
		for k, r := range c.Results {
			p.lines = append(p.lines, series{legend[k], bucketed(r.Samples, func(x Sample) float64 { return at(x.Utilisation, i) })})
		}
		s.panels = append(s.panels, p)
	}
	return s
}

func (c *Comparison) shareSection() section {
	roles := c.Results[0].Roles
	drawn, others := c.topRoles(roles)
	styles := seriesStyles(len(drawn))
	var legend []legendItem
	for k, i := range drawn {
		legend = append(legend, legendItem{name: roles[i], style: styles[k]})
	}
	if len(others) > 0 {
		legend = append(legend, legendItem{name: fmt.Sprintf("others: mean of %d roles", len(others)), style: othersStyle})
	}
	s := section{
		heading: "Weighted dominant shares over time: a plot per configuration, a line per role",
		yTitle:  "weighted share", xTitle: "simulated time", xLabel: timeLabel,
		legend: legend, xMax: c.span(),
	}
	top := 0.0
	for _, r := range c.Results {
		p := panel{title: r.Config}
		for k, i := range drawn {
			p.lines = append(p.lines, series{legend[k], bucketed(r.Samples, func(x Sample) float64 { return at(x.WeightedShare, i) })})
		}
		if len(others) > 0 {
			mean := func(x Sample) float64 {
				var sum float64
				for _, i := range others {
					sum += at(x.WeightedShare, i)
				}
				return sum / float64(len(others))
			}
			p.lines = append(p.lines, series{legend[len(legend)-1], bucketed(r.Samples, mean)})
		}
		for _, l := range p.lines {
			for _, pt := range l.points {
				top = math.Max(top, finite(pt[1]))
			}
		}
		s.panels = append(s.panels, p)
	}
	s.yMax = shareScale(top)
	return s
}

// shareScales are the tops of the share plots' scales below 1, each with
// quarters of few digits: many roles have small shares, which a scale to 1
// would flatten.
var shareScales = []float64{0.02, 0.04, 0.08, 0.1, 0.2, 0.4, 0.5, 0.8, 1}

// shareScale returns the top of the share plots' scale for the largest
// share drawn: the least of shareScales above it, or the next quarter
// past 1 (a role beyond its fair share by weight).
func shareScale(top float64) float64 {
	for _, s := range shareScales {
		if top <= s {
			return s
		}
	}
	return math.Ceil(top*4) / 4
}

// topRoles returns the indexes of the roles the share plots draw, in the
// roles' order, and of the others: every role when there are at most
// maxRoleLines+1, else the maxRoleLines of the largest weighted share
// (the mean of the configurations' Summary, exact whatever samples were
// kept; the first role first on a tie).
func (c *Comparison) topRoles(roles []string) (drawn, others []int) {
	order := make([]int, len(roles))
	mean := make([]float64, len(roles))
	for i := range roles {
		order[i] = i
		for _, r := range c.Results {
			mean[i] += finite(at(r.Summary.WeightedShare, i))
		}
	}
	if len(roles) <= maxRoleLines+1 { // the mean of one role is that role: draw it
		return order, nil
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(mean[b], mean[a]) })
	drawn, others = order[:maxRoleLines], order[maxRoleLines:]
	slices.Sort(drawn)
	slices.Sort(others)
	return drawn, others
}

func (c *Comparison) waitSection() section {
	legend := c.configLegend()
	s := section{
		heading: "Wait-time distribution: a plot per role, the share of its tasks launched within x, a line per configuration",
		yTitle:  "share of tasks", xTitle: "wait before launch", xLabel: timeLabel,
		legend: legend, yMax: 1,
	}
	longest := 1.0
	for _, r := range c.Results {
		for i := range r.Waits {
			if n, byRank := roleWaits(r, i); n > 0 {
				longest = math.Max(longest, byRank(n).Seconds())
			}
		}
	}
	s.xMax = longest
	for i, role := range c.Results[0].Roles {
		p := panel{title: "role " + role}
		for k, r := range c.Results {
			p.lines = append(p.lines, series{legend[k], cdf(roleWaits(r, i))})
		}
		s.panels = append(s.panels, p)
	}
	return s
}

// roleWaits returns how many waits role i of r has and the wait of a rank
// (from 1, ascending): from Result.Waits, or from its WaitHistogram for a
// role of more waits than it keeps exactly.
func roleWaits(r *Result, i int) (int, func(rank int) time.Duration) {
	if i < len(r.WaitHistograms) && r.WaitHistograms[i] != nil {
		h := r.WaitHistograms[i]
		return h.Count(), h.rank
	}
	var waits []time.Duration
	if i < len(r.Waits) {
		waits = r.Waits[i]
	}
	return len(waits), func(rank int) time.Duration { return waits[rank-1] }
}

// at returns xs[i], or 0 when xs is too short: a Comparison put together
// by hand may hold results of other roles or resources.
func at(xs []float64, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// finite returns v, or 0 for NaN and infinities.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
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

// cdf returns the distribution of n waits, given the wait of each rank,
// as a step line of at most cdfPoints+1 points.
func cdf(n int, byRank func(rank int) time.Duration) [][2]float64 {
	if n == 0 {
		return nil
	}
	pts := [][2]float64{{0, 0}}
	for k := 1; k <= cdfPoints; k++ {
		q := float64(k) / cdfPoints
		i := max(int(math.Ceil(q*float64(n)))-1, 0)
		pts = append(pts, [2]float64{byRank(i + 1).Seconds(), q})
	}
	return pts
}

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
