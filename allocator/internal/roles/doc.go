// Package roles is the role tree and the quota arithmetic over it.
//
// The tree (Tree, Node) holds every role that has frameworks,
// reservations, allocations, quota or a weight, and their ancestors. Each
// node keeps its subtree's figures: reservations (Reserved), reservations
// offered or allocated (AllocatedReserved), and unreserved non-revocable
// scalars offered or allocated (AllocatedUnreserved). The invariant the
// package owns: a node's figures are the sums of its own and its
// descendants', so a child's consumption counts against every ancestor; a
// node goes (Prune) only when its subtree holds nothing.
//
// The quota arithmetic (quota.go) reads those figures: a role's unmet
// guarantees, the need of a subtree (the larger of its own unmet guarantee
// and the sum of its children's needs), the headroom the run must hold
// back for guarantees (RequiredHeadroom), what a role may still receive as
// guarantee (UnsatisfiedGuarantees) and what its and its ancestors' limits
// leave it (LimitHeadroom). A node also carries its framework sorter
// (TrackedSorter) and the record of the run that found it capped.
//
// Package allocator keeps the tree up to date as resources are offered,
// used and given back; the checks (package allocator's invariants and
// cache-free twin) recompute the figures from the agents.
package roles
