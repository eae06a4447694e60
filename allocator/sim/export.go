package sim

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
)

// WriteSamplesCSV writes every kept Sample of every configuration as CSV,
// one line per configuration and sample, after a header:
//
//	config,time_s,util_<resource>...,share_<role>...,weighted_<role>...,
//	pending_<role>...,contended,jain,running,finished,offers,declined,run_time_s
//
// with a column per resource and per role of the results, in their order.
// RunOptions.SamplesCSV writes the same lines as the run goes, for every
// interval whichever are kept.
func (c *Comparison) WriteSamplesCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if len(c.Results) == 0 {
		cw.Flush()
		return cw.Error()
	}
	first := c.Results[0]
	head := samplesHeader(first.Resources, first.Roles)
	if err := cw.Write(head); err != nil {
		return err
	}
	rec := make([]string, 0, len(head))
	for _, r := range c.Results {
		for i := range r.Samples {
			rec = appendSampleRecord(rec[:0], r.Config, &r.Samples[i])
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// samplesHeader is the header line of the samples' CSV.
func samplesHeader(resources, roles []string) []string {
	head := []string{"config", "time_s"}
	for _, name := range resources {
		head = append(head, "util_"+name)
	}
	for _, prefix := range []string{"share_", "weighted_", "pending_"} {
		for _, role := range roles {
			head = append(head, prefix+role)
		}
	}
	return append(head, "contended", "jain", "running", "finished", "offers", "declined", "run_time_s")
}

// appendSampleRecord appends the CSV fields of a sample to rec.
func appendSampleRecord(rec []string, config string, s *Sample) []string {
	rec = append(rec, config, formatSeconds(s.At))
	rec = appendFloats(rec, s.Utilisation)
	rec = appendFloats(rec, s.Share)
	rec = appendFloats(rec, s.WeightedShare)
	for _, p := range s.Pending {
		rec = append(rec, strconv.Itoa(p))
	}
	return append(rec, strconv.Itoa(s.Contended), formatFloat(s.Jain), strconv.Itoa(s.Running),
		strconv.Itoa(s.Finished), strconv.Itoa(s.Offers), strconv.Itoa(s.Declined), formatSeconds(s.RunTime))
}

// WriteSummaryCSV writes the summaries as CSV, one figure a line:
//
//	config,figure,subject,value
//	drf,utilisation,cpus,0.92
//	drf,wait_p90_s,bursty,283
//
// The subject is the resource or role the figure is of, empty for the
// cluster's figures. Figures: utilisation (per resource), jain,
// contended, submitted, launched, finished, lost, unfinished, offers,
// declined, run_time_mean_s and run_time_max_s, then per role share,
// weighted_share, launched, wait_mean_s, wait_p50_s, wait_p90_s, wait_p99_s
// and wait_max_s, and last preempted (Summary.Preempted), after the
// figures of earlier versions so that readers of those keep their lines.
func (c *Comparison) WriteSummaryCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"config", "figure", "subject", "value"}); err != nil {
		return err
	}
	for _, r := range c.Results {
		for _, line := range summaryLines(r) {
			if err := cw.Write(append([]string{r.Config}, line[:]...)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// summaryLines are r's figures as (figure, subject, value).
func summaryLines(r *Result) [][3]string {
	s := r.Summary
	var out [][3]string
	for i, name := range r.Resources {
		out = append(out, [3]string{"utilisation", name, formatFloat(s.Utilisation[i])})
	}
	counts := []struct {
		name string
		v    int
	}{
		{"contended", s.Contended}, {"submitted", s.Submitted}, {"launched", s.Launched},
		{"finished", s.Finished}, {"lost", s.Lost}, {"unfinished", s.Unfinished},
		{"offers", s.Offers}, {"declined", s.Declined},
	}
	out = append(out, [3]string{"jain", "", formatFloat(s.Jain)})
	for _, c := range counts {
		out = append(out, [3]string{c.name, "", strconv.Itoa(c.v)})
	}
	out = append(out,
		[3]string{"run_time_mean_s", "", formatSeconds(s.RunTime.Mean)},
		[3]string{"run_time_max_s", "", formatSeconds(s.RunTime.Max)})
	for i, role := range r.Roles {
		ws := s.Waits[i]
		out = append(out,
			[3]string{"share", role, formatFloat(s.Share[i])},
			[3]string{"weighted_share", role, formatFloat(s.WeightedShare[i])},
			[3]string{"launched", role, strconv.Itoa(ws.Tasks)})
		for _, wv := range []struct {
			name string
			d    time.Duration
		}{{"mean", ws.Mean}, {"p50", ws.P50}, {"p90", ws.P90}, {"p99", ws.P99}, {"max", ws.Max}} {
			out = append(out, [3]string{"wait_" + wv.name + "_s", role, formatSeconds(wv.d)})
		}
	}
	return append(out, [3]string{"preempted", "", strconv.Itoa(s.Preempted)})
}

func appendFloats(rec []string, vs []float64) []string {
	for _, v := range vs {
		rec = append(rec, formatFloat(v))
	}
	return rec
}

// formatFloat writes v with six significant digits, enough for figures
// between 0 and 1, short enough for files of many intervals.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
