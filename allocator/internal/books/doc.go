// Package books keeps the books of what frameworks hold, in every place
// the allocator records it: each agent's records (available, offered,
// allocated per framework), the role sorter's and the framework sorters'
// charges, the role tree's sums (reserved, allocated reserved, allocated
// unreserved), the cluster's totals, headroom and excess, the refusal
// index's notion of an agent that grew, and the Observer's ledgers. One
// call (TrackAllocation, UntrackAllocation, AddTotal...) changes them all
// together, so that no event can update one and forget another.
//
// It also keeps which frameworks each role's framework sorter holds and
// whether each is active there (TrackUnderRole, SyncActivation), and the
// sorters' view of the cluster's totals (RefreshSorterTotals): the
// sorters see one pool agent (PoolAgent) holding the cluster's scalar
// totals.
//
// The invariant it owns: what an agent's records say a framework holds is
// what the sorters charge the framework and its role, what the role tree
// counts for the role and its ancestors, and what the Observer's ledgers
// hold; an agent's available resources are its total less what is held
// there (measured again when the agent is over-allocated). Package
// allocator's CheckInvariants (package audit) recomputes every one of
// these from the agents' records after each event in the tests and the
// long run.
//
// The sorters are told an allocation as quantities (sorter.Charger, as the
// library's own sorters are) when they can take it so; shared resources,
// and sorters that cannot, go through Allocated, Unallocated and Update.
package books
