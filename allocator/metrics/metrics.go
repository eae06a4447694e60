package metrics

import (
	"strconv"
	"strings"

	"github.com/allot-go/allot/allocator"
)

// Kind says how a host should keep a metric.
type Kind uint8

const (
	// Gauge: a value that goes up and down; the latest one holds.
	Gauge Kind = iota
	// Counter: a total that only grows; the latest one holds.
	Counter
	// Timer: one observation (of a run's duration) to add to a
	// distribution, as Mesos's timers keep percentiles.
	Timer
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Counter:
		return "counter"
	case Timer:
		return "timer"
	}
	return "gauge"
}

// Label is the value of one placeholder of a metric's name.
type Label struct{ Name, Value string }

// Metric is one figure of an allocator.Report, named as Mesos's allocator names it.
// Name keeps the placeholders (<role>, <framework>, <resource>, <reason>),
// Labels give their values in order, and Path puts them in:
//
//	allocator/mesos/roles/<role>/shares/dominant       {role: web}
//	allocator/mesos/roles/web/shares/dominant          (Path)
//
// A host with labelled metrics (Prometheus) keeps Name without the
// placeholders as the metric's name and the labels as labels; a host with
// flat names (Mesos's /metrics/snapshot) uses Path.
//
// The names are Mesos's where Mesos has the figure: allocation_runs,
// allocation_run_ms, resources/<resource>/total and offered_or_allocated,
// roles/<role>/shares/dominant, quota/roles/<role>/resources/<resource>/
// guarantee, limit, consumed and offered_or_allocated, and
// offer_filters/roles/<role>/active. Mesos's per-framework metrics live
// under master/frameworks/<name>/<id>/; the allocator has no framework
// names, so its per-framework figures are under
// allocator/mesos/frameworks/<framework>/ with Mesos's suffixes
// (offers/sent, roles/<role>/suppressed) and the role's suffixes for the
// rest. The figures Mesos does not have (offered and allocated apart, a
// run's statistics) follow the same pattern; see FromReport for the
// list.
type Metric struct {
	Name   string
	Labels []Label
	Kind   Kind
	Value  float64
}

// Path returns the name with the placeholders replaced by the labels'
// values: Mesos's flat metric name.
func (m Metric) Path() string {
	p := m.Name
	for _, l := range m.Labels {
		p = strings.Replace(p, "<"+l.Name+">", l.Value, 1)
	}
	return p
}

// FromReport lists the report's figures as metrics, in a stable order: the
// run's (when the report is a run's), the cluster's, each role's and each
// framework's. A quantity is one metric per resource name it holds, so a
// resource that drops to nothing disappears: a host replaces every metric
// of a role or framework it is given (and drops those of the removed
// ones). The names:
//
//	allocator/mesos/allocation_runs                          counter
//	allocator/mesos/allocation_run_ms                        timer (with a Stopwatch)
//	allocator/mesos/allocation_run/{agents,skipped_agents,offers,inverse_offers,unchanged,refused,capped_roles}
//	allocator/mesos/allocation_run/passed_over/<reason>      (Reason names)
//	allocator/mesos/allocation_run/preemptions               (runs that chose any)
//	allocator/mesos/resources/<resource>/{total,offered_or_allocated,offered,allocated}
//	allocator/mesos/roles/<role>/shares/dominant
//	allocator/mesos/roles/<role>/weight
//	allocator/mesos/roles/<role>/resources/<resource>/{offered,allocated}
//	allocator/mesos/roles/<role>/frameworks/{count,suppressed}
//	allocator/mesos/quota/roles/<role>/resources/<resource>/{guarantee,limit,consumed,offered_or_allocated}
//	allocator/mesos/offer_filters/roles/<role>/active
//	allocator/mesos/roles/<role>/preemptions/{from,for}          counter (once the role has any)
//	allocator/mesos/frameworks/<framework>/active
//	allocator/mesos/frameworks/<framework>/offers/sent                counter
//	allocator/mesos/frameworks/<framework>/inverse_offers/sent        counter
//	allocator/mesos/frameworks/<framework>/roles/<role>/suppressed
//	allocator/mesos/frameworks/<framework>/roles/<role>/shares/dominant
//	allocator/mesos/frameworks/<framework>/roles/<role>/resources/<resource>/{offered,allocated}
//	allocator/mesos/frameworks/<framework>/offer_filters/roles/<role>/active
//
// Quota metrics are listed for roles with quota only, as Mesos does;
// shares only when the sorter reports them.
func FromReport(r allocator.Report) []Metric {
	var out []Metric
	add := func(name string, kind Kind, v float64, labels ...Label) {
		out = append(out, Metric{Name: name, Labels: labels, Kind: kind, Value: v})
	}
	if run := r.Run; run != nil {
		s := run.Stats
		add("allocator/mesos/allocation_runs", Counter, float64(s.Run))
		if run.Duration > 0 {
			add("allocator/mesos/allocation_run_ms", Timer, float64(run.Duration.Nanoseconds())/1e6)
		}
		const p = "allocator/mesos/allocation_run/"
		add(p+"agents", Gauge, float64(s.Agents))
		add(p+"skipped_agents", Gauge, float64(s.SkippedAgents))
		add(p+"offers", Gauge, float64(s.Offers))
		add(p+"inverse_offers", Gauge, float64(s.InverseOffers))
		add(p+"unchanged", Gauge, float64(s.Unchanged))
		add(p+"refused", Gauge, float64(s.Refused))
		add(p+"capped_roles", Gauge, float64(s.Capped))
		if run.Preemptions > 0 {
			add(p+"preemptions", Gauge, float64(run.Preemptions))
		}
		for reason, n := range s.PassedOver() {
			add(p+"passed_over/<reason>", Gauge, float64(n), Label{"reason", reason.String()})
		}
	}
	c := r.Cluster
	for name, v := range c.Total.All() {
		res := Label{"resource", name}
		add("allocator/mesos/resources/<resource>/total", Gauge, v.Float64(), res)
		add("allocator/mesos/resources/<resource>/offered_or_allocated", Gauge, c.Offered.Float64(name)+c.Allocated.Float64(name), res)
		add("allocator/mesos/resources/<resource>/offered", Gauge, c.Offered.Float64(name), res)
		add("allocator/mesos/resources/<resource>/allocated", Gauge, c.Allocated.Float64(name), res)
	}
	for _, m := range r.Roles {
		role := Label{"role", m.Role}
		if m.Share >= 0 {
			add("allocator/mesos/roles/<role>/shares/dominant", Gauge, m.Share, role)
		}
		add("allocator/mesos/roles/<role>/weight", Gauge, m.Weight, role)
		for name, v := range m.Offered.All() {
			add("allocator/mesos/roles/<role>/resources/<resource>/offered", Gauge, v.Float64(), role, Label{"resource", name})
		}
		for name, v := range m.Allocated.All() {
			add("allocator/mesos/roles/<role>/resources/<resource>/allocated", Gauge, v.Float64(), role, Label{"resource", name})
		}
		add("allocator/mesos/roles/<role>/frameworks/count", Gauge, float64(m.Frameworks), role)
		add("allocator/mesos/roles/<role>/frameworks/suppressed", Gauge, float64(m.Suppressed), role)
		if !m.Guarantee.IsEmpty() || !m.Limit.IsEmpty() {
			const q = "allocator/mesos/quota/roles/<role>/resources/<resource>/"
			for name, v := range m.Guarantee.All() {
				add(q+"guarantee", Gauge, v.Float64(), role, Label{"resource", name})
			}
			for _, name := range m.Limit.Names() {
				v, _ := m.Limit.Get(name)
				add(q+"limit", Gauge, v.Float64(), role, Label{"resource", name})
			}
			for name, v := range m.Consumed.All() {
				add(q+"consumed", Gauge, v.Float64(), role, Label{"resource", name})
			}
			for name, v := range m.OfferedOrAllocated.All() {
				add(q+"offered_or_allocated", Gauge, v.Float64(), role, Label{"resource", name})
			}
		}
		add("allocator/mesos/offer_filters/roles/<role>/active", Gauge, float64(m.Filters), role)
		if m.PreemptedFrom > 0 || m.PreemptedFor > 0 {
			add("allocator/mesos/roles/<role>/preemptions/from", Counter, float64(m.PreemptedFrom), role)
			add("allocator/mesos/roles/<role>/preemptions/for", Counter, float64(m.PreemptedFor), role)
		}
	}
	for _, m := range r.Frameworks {
		fw := Label{"framework", m.Framework}
		add("allocator/mesos/frameworks/<framework>/active", Gauge, boolValue(m.Active), fw)
		add("allocator/mesos/frameworks/<framework>/offers/sent", Counter, float64(m.Offers), fw)
		add("allocator/mesos/frameworks/<framework>/inverse_offers/sent", Counter, float64(m.InverseOffers), fw)
		for _, rm := range m.Roles {
			role := Label{"role", rm.Role}
			add("allocator/mesos/frameworks/<framework>/roles/<role>/suppressed", Gauge, boolValue(rm.Suppressed), fw, role)
			if rm.Share >= 0 {
				add("allocator/mesos/frameworks/<framework>/roles/<role>/shares/dominant", Gauge, rm.Share, fw, role)
			}
			for name, v := range rm.Offered.All() {
				add("allocator/mesos/frameworks/<framework>/roles/<role>/resources/<resource>/offered", Gauge, v.Float64(), fw, role, Label{"resource", name})
			}
			for name, v := range rm.Allocated.All() {
				add("allocator/mesos/frameworks/<framework>/roles/<role>/resources/<resource>/allocated", Gauge, v.Float64(), fw, role, Label{"resource", name})
			}
			add("allocator/mesos/frameworks/<framework>/offer_filters/roles/<role>/active", Gauge, float64(rm.Filters), fw, role)
		}
	}
	return out
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// String renders the metric as "path value".
func (m Metric) String() string {
	return m.Path() + " " + strconv.FormatFloat(m.Value, 'g', -1, 64)
}
