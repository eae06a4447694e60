package allocator

import "github.com/allot-go/allot/allocator/internal/audit"

// CheckInvariants recomputes the allocator's bookkeeping from scratch and
// reports every place where it disagrees with what is kept incrementally:
//
//   - for every agent that is not over-allocated, available + offered +
//     allocated + held + unclaimed == total (shared volumes counted in
//     available only), and unclaimed usage belongs to frameworks not
//     added;
//   - held resources carry an allocation role the framework is tracked
//     under, and reserved ones are held only by their role's subtree;
//   - each role sorter client and each framework sorter client holds
//     exactly the scalar quantities recorded on the agents, and on each
//     agent the shared volumes the agents' records say it holds, no
//     other (quantities alone would not tell one volume from another of
//     the same size);
//   - the role tree's reservation and allocation aggregates, and the
//     cluster's totals and free headroom, match a recomputation;
//   - refusal filters name only known frameworks and agents;
//   - outstanding offers hold no more than their frameworks are offered;
//   - roles kept out of the role sorter across runs can still take nothing.
//
// It costs O(everything) and is meant for tests; the error joins every
// violation found.
func (a *Allocator) CheckInvariants() error {
	a.ready()
	return audit.Check(audit.Parts{
		Cluster: &a.cs, Roles: a.roles, RoleSorter: a.roleSorter, SorterRoles: a.books.SorterRoles,
		Pending: &a.engine.Pending, Declines: &a.dec, Parking: &a.parking,
		MinAllocatable: a.opts.MinAllocatable, CacheFree: a.opts.CacheFree,
	})
}
