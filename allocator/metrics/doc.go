// Package metrics names the figures of an allocator.Report as Mesos's
// allocator names its metrics (allocator/mesos/allocation_runs,
// allocator/mesos/roles/<role>/shares/dominant, ...), for a host to hand to
// whatever metrics library it uses; it imports none itself.
//
// # Usage
//
// Register an allocator.Observer and turn each report into metrics. A
// report carries only what changed, so a host replaces every metric of a
// role or framework the report names, and drops those of the roles and
// frameworks it lists as removed:
//
//	obs := allocator.ObserverFunc(func(r allocator.Report) {
//		for _, m := range metrics.FromReport(r) {
//			switch m.Kind {
//			case metrics.Timer:
//				runTimes.Observe(m.Value)
//			default:
//				store(m.Path(), m.Value) // or m.Name with m.Labels as labels
//			}
//		}
//	})
//	a, _ := allocator.New(allocator.Options{Observer: obs, Stopwatch: watch})
//
// examples/metrics exports them to Prometheus.
package metrics
