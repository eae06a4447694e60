package main

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/metrics"
)

// Exporter is an allocator.Observer that keeps the figures it is told and
// hands them to Prometheus when scraped (a prometheus.Collector). Each
// figure keeps Mesos's name without its placeholders, which become labels:
// allocator/mesos/roles/<role>/shares/dominant is
// allocator_mesos_roles_shares_dominant{role="web"}. A run's duration goes
// to the histogram allocator_mesos_allocation_run_ms.
//
// A report replaces every figure of the roles and frameworks it names, of
// the cluster and, for a run, of the run: a resource a role no longer
// holds disappears, as do removed roles and frameworks.
type Exporter struct {
	mu      sync.Mutex
	descs   map[string]*prometheus.Desc
	series  map[string]map[string]series // by owner ("run", "cluster", "role/web", "framework/f1"), then by key
	runTime prometheus.Histogram
}

type series struct {
	desc   *prometheus.Desc
	kind   prometheus.ValueType
	value  float64
	labels []string
}

// NewExporter returns an empty Exporter.
func NewExporter() *Exporter {
	return &Exporter{
		descs:  map[string]*prometheus.Desc{},
		series: map[string]map[string]series{},
		runTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "allocator_mesos_allocation_run_ms",
			Help:    "allocator/mesos/allocation_run_ms: the duration of allocation runs, in milliseconds.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 20),
		}),
	}
}

// PromName turns a Mesos metric name with placeholders into a Prometheus
// name: the placeholders dropped, the rest joined by underscores.
func PromName(mesos string) string {
	var parts []string
	for p := range strings.SplitSeq(mesos, "/") {
		if !strings.HasPrefix(p, "<") {
			parts = append(parts, strings.ReplaceAll(p, "-", "_"))
		}
	}
	return strings.Join(parts, "_")
}

// Observe takes a report (allocator.Observer).
func (e *Exporter) Observe(r allocator.Report) {
	e.mu.Lock()
	defer e.mu.Unlock()
	// The owners the report speaks for lose what they had.
	delete(e.series, "cluster")
	if r.Run != nil {
		delete(e.series, "run")
	}
	for _, m := range r.Roles {
		delete(e.series, "role/"+m.Role)
	}
	for _, role := range r.RemovedRoles {
		delete(e.series, "role/"+role)
	}
	for _, m := range r.Frameworks {
		delete(e.series, "framework/"+m.Framework)
	}
	for _, id := range r.RemovedFrameworks {
		delete(e.series, "framework/"+id)
	}
	for _, m := range metrics.FromReport(r) {
		if m.Kind == metrics.Timer {
			e.runTime.Observe(m.Value)
			continue
		}
		names := make([]string, len(m.Labels))
		values := make([]string, len(m.Labels))
		for i, l := range m.Labels {
			names[i], values[i] = l.Name, l.Value
		}
		desc := e.descs[m.Name]
		if desc == nil {
			desc = prometheus.NewDesc(PromName(m.Name), m.Name, names, nil)
			e.descs[m.Name] = desc
		}
		kind := prometheus.GaugeValue
		if m.Kind == metrics.Counter {
			kind = prometheus.CounterValue
		}
		owner := ownerOf(m)
		if e.series[owner] == nil {
			e.series[owner] = map[string]series{}
		}
		e.series[owner][m.Path()] = series{desc: desc, kind: kind, value: m.Value, labels: values}
	}
}

// ownerOf says which part of a report a metric belongs to.
func ownerOf(m metrics.Metric) string {
	switch {
	case strings.HasPrefix(m.Name, "allocator/mesos/frameworks/"):
		return "framework/" + m.Labels[0].Value
	case strings.HasPrefix(m.Name, "allocator/mesos/resources/"):
		return "cluster"
	case len(m.Labels) > 0 && m.Labels[0].Name == "role":
		return "role/" + m.Labels[0].Value
	}
	return "run"
}

// Describe sends nothing: the figures come and go with the cluster, so
// the Exporter is an unchecked collector (prometheus.Collector).
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {}

// Collect sends every figure kept, and the run-time histogram
// (prometheus.Collector).
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, owned := range e.series {
		for _, s := range owned {
			ch <- prometheus.MustNewConstMetric(s.desc, s.kind, s.value, s.labels...)
		}
	}
	ch <- e.runTime
}
