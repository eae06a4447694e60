// Package quota keeps what quota does to the role sorter between runs:
// which roles can take nothing more (a cap), the capped roles kept out of
// the role sorter across runs (parking), and the allowances the role
// sorter charges a role beyond (Options.ChargeBeyondAllowance in package
// allocator).
//
// The allocator holds a Parking and an Allowances, and calls them from its
// events (Uncapped after anything that could let a capped role take more:
// resources given back, totals, reservations, quota, a role's frameworks;
// Allowances.Sync after an event that changes a guarantee or a
// reservation) and from its runs (Park at the start of a run, Reconsider
// after the offers that meet guarantees, Add for the roles capped during
// the run). CappedNow is the test itself, a pure function of the cluster,
// the role tree and the run's required headroom. BindingLimit says, for
// Explain, which role's limit binds where a run passed a framework over
// for the limits.
//
// The invariants it owns:
//
//   - A parked role can take nothing more while ParkedEpoch equals
//     CapEpoch: every event that could change that moves CapEpoch, and the
//     next run looks at every parked role again. A parked role is one the
//     role sorter holds, deactivated, with no unmet guarantee in its
//     ancestry (guaranteed resources are never held back as headroom).
//   - At the start of every run, a parked role's cause (CappedBy on its
//     node) is its cause now: a run whose free or required headroom
//     differs from the one the causes were found at asks them again
//     (ReasonsHold), and parks anew if one moved.
//   - Between events, the role sorter has been told, for every role, the
//     allowance the state gives it: the larger of its guarantee and its
//     subtree's reservations, name by name.
//
// Package allocator's CheckInvariants checks the first (a parked role is
// still capped) and a cache-free allocator parks nothing, which the oracle
// compares with parking.
package quota
