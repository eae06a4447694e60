// Package sortertest is a conformance kit for sorter.Sorter implementations.
//
// Run checks the behaviours every sorter must have, whatever order it
// chooses. Each is a subtest, named below, grouped by the property it
// checks:
//
//   - clients: the bookkeeping of Add, Remove, Activate and Deactivate
//     (Empty, AddIsInactive, ActivateDeactivate, Remove);
//   - refusals: malformed paths and clients not present are refused with
//     the error that says so, and a call which fails changes nothing
//     (InvalidPaths, UnknownClient, FailedCallsChangeNothing);
//   - accounting: allocations per agent and in all, through Allocated,
//     Unallocated and Update (Allocation, AllocationWhileInactive,
//     NotAllocated, Update, RemoveDropsAllocation);
//   - shared volumes: counted once per client per agent
//     (SharedCountedOncePerAgent);
//   - agents: agent totals (Agents);
//   - hierarchy: clients at every depth, and virtual leaves that appear and
//     disappear with their children (Hierarchy, SplitAndJoinKeepState,
//     InternalNodeIsNotAClient);
//   - weights: the weights UpdateWeight accepts (Weights);
//   - order: Sort returns each active client once, a sorter.Stable
//     sorter sorts the same while nothing changes, and a sorter.Indexed
//     one numbers its clients apart and walks past the numbers it is told
//     to skip (SortIsEachActiveClientOnce, StableSortsTheSameTwice,
//     IndexedWalksAgree).
//
// RunFair adds the ordering behaviours of a dominant resource fairness
// sorter, the sorter package's DRF among them:
//
//   - shares: ascending dominant share, following allocations
//     (DominantShare, DominantResource, Unallocated);
//   - ties: by allocation count, then by path (TieBreakByAllocationCount,
//     EqualAllocationsTie);
//   - weights: a share divided by its weight, set before or after the
//     client comes, on a client or a subtree (Weights, WeightBeforeAdd,
//     SubtreeWeight);
//   - exclusions: Config.FairnessExcluded (FairnessExcluded,
//     NotExcludedByDefault);
//   - agents: shares are fractions of the pool the agents' totals make
//     (PoolTotals, ResourcesOutsideThePoolIgnored);
//   - shared volumes: once per agent in a share, once per subtree
//     (SharedVolumeOncePerAgent, SharedVolumeOncePerSubtree);
//   - hierarchy: each level ordered by the share of each subtree, with
//     every subtree's clients together (Hierarchy,
//     InactiveClientsCountInTheirSubtree, VirtualLeaf, SubtreesTogether).
//
// The checks of each property are in the kit's file of that name
// (clients.go, refusals.go, accounting.go, shared.go, agents.go,
// hierarchy.go, weights.go, order.go, shares.go, ties.go, exclusions.go).
//
// Use it from a test of your own:
//
//	func TestMySorter(t *testing.T) {
//		newSorter := func(cfg sorter.Config) sorter.Sorter { return New(cfg) }
//		sortertest.Run(t, newSorter)
//		t.Run("Fair", func(t *testing.T) { sortertest.RunFair(t, newSorter) })
//	}
//
// Each behaviour is a subtest, so -run selects them
// (-run 'MySorter/Fair/TieBreak'). RunFair runs in a subtest of its own
// because some of its subtests share a name with Run's (Weights,
// Hierarchy).
//
// A sorter that embeds sorter.Accounting gets the bookkeeping Run checks
// from it; Run then checks that its Sort returns each active client once.
package sortertest
