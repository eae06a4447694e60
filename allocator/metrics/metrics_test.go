package metrics_test

import (
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/metrics"
	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
)

func find(t *testing.T, ms []metrics.Metric, path string) metrics.Metric {
	t.Helper()
	for _, m := range ms {
		if m.Path() == path {
			return m
		}
	}
	t.Fatalf("no metric %s", path)
	return metrics.Metric{}
}

func has(ms []metrics.Metric, name string) bool {
	for _, m := range ms {
		if m.Name == name {
			return true
		}
	}
	return false
}

// A run's report names the run, the cluster, each role and each framework,
// with Mesos's names, the labels in the order of the placeholders, and the
// kind a host keeps each as.
func TestFromReportRun(t *testing.T) {
	stats := allocator.RunStats{Run: 7, Agents: 3, Offers: 2}
	stats.Skips[allocator.ReasonFiltered] = 4
	r := allocator.Report{
		Run: &allocator.RunReport{Stats: stats, Preemptions: 1, Duration: 1500 * time.Microsecond},
		Cluster: allocator.ClusterMetrics{
			Total:     resources.MustParseQuantities("cpus:8;mem:1024"),
			Offered:   resources.MustParseQuantities("cpus:2"),
			Allocated: resources.MustParseQuantities("cpus:1;mem:256"),
		},
		Roles: []allocator.RoleMetrics{
			{Role: "web", Weight: 2, Share: 0.25, Guarantee: resources.MustParseQuantities("cpus:4"),
				Consumed: resources.MustParseQuantities("cpus:3"), PreemptedFor: 2},
			{Role: "batch", Weight: 1, Share: -1, Filters: 3},
		},
		Frameworks: []allocator.FrameworkMetrics{{Framework: "spark", Active: true, Offers: 5,
			Roles: []allocator.FrameworkRoleMetrics{{Role: "batch", Share: 0.5, Suppressed: true,
				Allocated: resources.MustParseQuantities("mem:256")}}}},
	}
	ms := metrics.FromReport(r)

	runs := find(t, ms, "allocator/mesos/allocation_runs")
	require.Equal(t, metrics.Counter, runs.Kind)
	require.Equal(t, 7.0, runs.Value)
	ms0 := find(t, ms, "allocator/mesos/allocation_run_ms")
	require.Equal(t, metrics.Timer, ms0.Kind)
	require.Equal(t, 1.5, ms0.Value)
	require.Equal(t, 1.0, find(t, ms, "allocator/mesos/allocation_run/preemptions").Value)
	filtered := find(t, ms, "allocator/mesos/allocation_run/passed_over/filtered")
	require.Equal(t, 4.0, filtered.Value)
	require.Equal(t, []metrics.Label{{Name: "reason", Value: "filtered"}}, filtered.Labels)
	passed := 0
	for reason := range stats.PassedOver() {
		find(t, ms, "allocator/mesos/allocation_run/passed_over/"+reason.String())
		passed++
	}
	require.Equal(t, 10, passed, "a metric for each reason a run passes a framework over for")

	require.Equal(t, 3.0, find(t, ms, "allocator/mesos/resources/cpus/offered_or_allocated").Value)
	require.Equal(t, 256.0, find(t, ms, "allocator/mesos/resources/mem/offered_or_allocated").Value)

	require.Equal(t, 0.25, find(t, ms, "allocator/mesos/roles/web/shares/dominant").Value)
	require.Equal(t, 4.0, find(t, ms, "allocator/mesos/quota/roles/web/resources/cpus/guarantee").Value)
	require.Equal(t, 3.0, find(t, ms, "allocator/mesos/quota/roles/web/resources/cpus/consumed").Value)
	pf := find(t, ms, "allocator/mesos/roles/web/preemptions/for")
	require.Equal(t, metrics.Counter, pf.Kind)
	require.Equal(t, 2.0, pf.Value)
	require.Equal(t, 3.0, find(t, ms, "allocator/mesos/offer_filters/roles/batch/active").Value)
	for _, m := range ms {
		if len(m.Labels) > 0 && m.Labels[0] == (metrics.Label{Name: "role", Value: "batch"}) {
			require.NotContains(t, m.Name, "quota/", "quota metrics only for roles with quota, as Mesos")
			require.NotContains(t, m.Name, "shares/", "no share when the sorter reports none")
			require.NotContains(t, m.Name, "preemptions/", "no preemption counters before the role has any")
		}
	}

	sp := find(t, ms, "allocator/mesos/frameworks/spark/roles/batch/resources/mem/allocated")
	require.Equal(t, "allocator/mesos/frameworks/<framework>/roles/<role>/resources/<resource>/allocated", sp.Name)
	require.Equal(t, []metrics.Label{{Name: "framework", Value: "spark"}, {Name: "role", Value: "batch"}, {Name: "resource", Value: "mem"}}, sp.Labels)
	require.Equal(t, 1.0, find(t, ms, "allocator/mesos/frameworks/spark/roles/batch/suppressed").Value)
	require.Equal(t, 1.0, find(t, ms, "allocator/mesos/frameworks/spark/active").Value)
	require.Equal(t, "allocator/mesos/frameworks/spark/offers/sent 5", find(t, ms, "allocator/mesos/frameworks/spark/offers/sent").String())
}

// An event's report has no run: no run metric, and the order is stable.
func TestFromReportEvent(t *testing.T) {
	r := allocator.Report{
		Cluster: allocator.ClusterMetrics{Total: resources.MustParseQuantities("cpus:1")},
		Roles:   []allocator.RoleMetrics{{Role: "a", Share: 0}, {Role: "b", Share: 0}},
	}
	ms := metrics.FromReport(r)
	require.False(t, has(ms, "allocator/mesos/allocation_runs"))
	require.Equal(t, ms, metrics.FromReport(r))
	var roles []string
	for _, m := range ms {
		if m.Name == "allocator/mesos/roles/<role>/weight" {
			roles = append(roles, m.Labels[0].Value)
		}
	}
	require.Equal(t, []string{"a", "b"}, roles)
}

func TestKindString(t *testing.T) {
	require.Equal(t, "gauge", metrics.Gauge.String())
	require.Equal(t, "counter", metrics.Counter.String())
	require.Equal(t, "timer", metrics.Timer.String())
}
