// Package operations validates the operations frameworks send back on
// what they were offered (launch, reserve, unreserve, create, destroy,
// grow, shrink) and those operators send on an agent's unallocated
// resources, with package offer's rules, and applies them to the books:
// the framework's holdings, the agent's total where a conversion changes
// it, the role tree's reservations, the sorters and the task ledger.
//
// The invariant it owns: operations apply all or nothing. Update works out
// what the whole list would do (every operation validated against the
// agent's total as the ones before it leave it, task ids new, the
// conversions contained in the total) before it changes anything; an error
// leaves the state as it was. Conversions keep every quantity, so the
// cluster's totals stay and only reservations move in the role tree.
// CheckEach answers, without changing anything, whether Mesos's
// one-by-one form (AcceptEach in package allocator) would apply each
// operation, which a replayed journal entry must pass.
//
// With ReservedFirst, a launch's unreserved scalars are moved onto the
// reservations the offer still has free before validation (ReservedFirst).
package operations
