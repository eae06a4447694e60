// Package examples holds runnable programs, one per scenario a user of a
// Mesos-like allocator recognises; each lives in its own directory, runs
// with go run ./examples/NAME, and has a test that checks its outcome:
//
//   - drf: Dominant Resource Fairness step by step (the DRF paper's
//     example, a blog's offer trace) and over time on a virtual clock,
//     with an SVG chart of the shares (-svg file).
//   - tenants: reservation refinement on a cluster shared by two tenants.
//   - stateful: a database on reserved disk with a persistent volume.
//   - quota: guarantees and limits set once for the cluster; headroom.
//   - customsorter: a sorter of one's own on sorter.Accounting (the role
//     holding the fewest GPUs first, then DRF), run through sortertest and
//     plugged into the allocator.
//   - resources: parsing, adding, reserving and printing resources.
//   - placement: a service spread over zones and a batch framework
//     bin-packing, each placing its tasks on its offers.
//   - lab: the policy laboratory of allocator/sim as a command: a
//     workload or a trace run with several sorters and options side by
//     side, as a table, CSV and SVG charts.
//   - pool: pool reservations as quota guarantees, a limit as maximum
//     share, ChargeBeyondAllowance, ReservedFirst and PreemptTask, the
//     same events on two allocators, with the options off and on.
//   - replicated: three replicas that agree on the allocator's journal
//     through etcd's raft; the leader fails mid-stream and a follower goes
//     on with its offers. A module of its own (go run . in its directory),
//     so that the library does not depend on raft.
//   - reclaim: Options.Reclaim ends other roles' tasks to make room for
//     the pending tasks (UpdateDemand) of a role below its guarantee or
//     its fair share.
//   - fairness: offer starvation behind declines and the rotation that
//     ends it; greedy frameworks on blind offers and with demand
//     (UpdateDemand), against DRF's progressive filling.
//
// The host loop of the README is Example_hostLoop in this package.
package examples
