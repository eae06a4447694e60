package sim

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// row is a line of the table: a label, and a figure of each result.
type row struct {
	label string
	value func(*Result) string
}

// WriteTable writes the comparison as a text table, a column per
// configuration: the workload, then the cluster's figures, then each
// role's. Shares and utilisation are means over the intervals; waits are in
// seconds, by nearest rank; run times appear only when a stopwatch was
// given.
func (c *Comparison) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, c.Workload)
	fmt.Fprintln(bw)
	rows := c.rows()
	labelWidth := 0
	for _, r := range rows {
		labelWidth = max(labelWidth, len(r.label))
	}
	widths := make([]int, len(c.Results))
	cells := make([][]string, len(rows))
	for i, r := range rows {
		for j, res := range c.Results {
			if r.value == nil {
				cells[i] = append(cells[i], "")
				continue
			}
			cells[i] = append(cells[i], r.value(res))
			widths[j] = max(widths[j], len(cells[i][j]), len(res.Config))
		}
	}
	fmt.Fprintf(bw, "%-*s", labelWidth, "")
	for j, res := range c.Results {
		fmt.Fprintf(bw, "  %*s", widths[j], res.Config)
	}
	fmt.Fprintln(bw)
	for i, r := range rows {
		line := fmt.Sprintf("%-*s", labelWidth, r.label)
		for j := range c.Results {
			line += fmt.Sprintf("  %*s", widths[j], cells[i][j])
		}
		fmt.Fprintln(bw, strings.TrimRight(line, " "))
	}
	return bw.Flush()
}

// rows lists the table's lines.
func (c *Comparison) rows() []row {
	rows := []row{
		{"intervals", func(r *Result) string { return fmt.Sprintf("%d (%s)", r.Summary.Intervals, r.Stopped) }},
	}
	if len(c.Results) == 0 {
		return rows
	}
	first := c.Results[0]
	for i, name := range first.Resources {
		rows = append(rows, row{"utilisation " + name, func(r *Result) string { return ratio(r.Summary.Utilisation[i]) }})
	}
	rows = append(rows,
		row{"jain index (contended)", func(r *Result) string { return ratio(r.Summary.Jain) }},
		row{"contended intervals", func(r *Result) string { return fmt.Sprint(r.Summary.Contended) }},
		row{"tasks submitted", func(r *Result) string { return fmt.Sprint(r.Summary.Submitted) }},
		row{"tasks launched", func(r *Result) string { return fmt.Sprint(r.Summary.Launched) }},
		row{"tasks finished", func(r *Result) string { return fmt.Sprint(r.Summary.Finished) }},
		row{"tasks lost", func(r *Result) string { return fmt.Sprint(r.Summary.Lost) }},
	)
	if c.preempted() {
		rows = append(rows, row{"tasks preempted", func(r *Result) string { return fmt.Sprint(r.Summary.Preempted) }})
	}
	rows = append(rows,
		row{"tasks unfinished", func(r *Result) string { return fmt.Sprint(r.Summary.Unfinished) }},
		row{"offers", func(r *Result) string { return fmt.Sprint(r.Summary.Offers) }},
		row{"offers declined", func(r *Result) string { return fmt.Sprint(r.Summary.Declined) }},
	)
	if c.timed {
		rows = append(rows,
			row{"allocation run mean", func(r *Result) string { return r.Summary.RunTime.Mean.Round(time.Microsecond).String() }},
			row{"allocation run max", func(r *Result) string { return r.Summary.RunTime.Max.Round(time.Microsecond).String() }},
		)
	}
	for i, role := range first.Roles {
		rows = append(rows, row{label: "role " + role})
		rows = append(rows, roleRows(i)...)
	}
	return rows
}

// roleRows are the lines of role i.
func roleRows(i int) []row {
	wait := func(label string, get func(WaitStats) time.Duration) row {
		return row{"  wait " + label + " (s)", func(r *Result) string { return seconds(get(r.Summary.Waits[i])) }}
	}
	return []row{
		{"  share", func(r *Result) string { return ratio(r.Summary.Share[i]) }},
		{"  weighted share", func(r *Result) string { return ratio(r.Summary.WeightedShare[i]) }},
		{"  tasks launched", func(r *Result) string { return fmt.Sprint(r.Summary.Waits[i].Tasks) }},
		wait("mean", func(w WaitStats) time.Duration { return w.Mean }),
		wait("p50", func(w WaitStats) time.Duration { return w.P50 }),
		wait("p90", func(w WaitStats) time.Duration { return w.P90 }),
		wait("p99", func(w WaitStats) time.Duration { return w.P99 }),
		wait("max", func(w WaitStats) time.Duration { return w.Max }),
	}
}

func ratio(v float64) string { return fmt.Sprintf("%.3f", v) }

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()) }

// preempted reports whether a run of the comparison ended tasks it chose:
// the table has a line for them then only, so that tables of runs without
// reclaim stay as they were.
func (c *Comparison) preempted() bool {
	for _, r := range c.Results {
		if r.Summary.Preempted > 0 {
			return true
		}
	}
	return false
}
