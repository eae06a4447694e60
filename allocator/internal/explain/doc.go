// Package explain keeps the record of what the latest allocation run did
// and answers, from it, why a framework got nothing on an agent: the part
// of Explain that is not presentation. Package allocator builds its public
// Explanation from the answers (Explainer.Why) and adds the figures the
// state holds (limits, unmet guarantees, shares).
//
// A run appends to two logs (Log), reused from run to run so that steady
// runs allocate nothing for them: one record per (agent, role) pair whose
// frameworks it walked or skipped as unchanged (a visit), and one per
// framework it passed over (a pass), with the reason the run found; the run
// makes its offers in the log too (Log.Offers). Figures that the state
// still holds when Explain is asked (refusal filters and their expiries,
// quota limits and consumption, unmet guarantees, shares, capabilities)
// are not recorded: they are worked out on demand. Only the quantities
// behind a quota, headroom, minimum-allocatable or no-fit pass are kept,
// as they were at the pass.
//
// A pair skipped as unchanged keeps the passes of the walk that found
// nobody could take anything there (in its nobody entry, Log.Since), so it
// keeps its reasons across runs. Frameworks stepped over through the
// refusal index are not logged one by one: a visit says the index was
// used, and the explainer finds their filters. Roles capped in a run, or
// parked across runs, carry why on their role node (roles.Node.CappedBy);
// on one agent the cap is the reason only where it keeps something the
// agent has from the role (only ports left there: the minimum allocatable
// resources; every resource there at a limit: the limit; none: the
// headroom).
//
// The invariants it owns: a pass's detail names quantities the log (or
// the nobody entry that keeps it) holds; records name agents, frameworks
// and roles by id, so that a record made before an object was removed and
// made again is found as it would be in an allocator restored from a
// snapshot; the snapshot walk (Walker) writes and reads the log in one
// form, and a reader checks what it read (Walker.Check) before the state
// is used. The reasons' codes are package allocator's Reason values in
// order of precedence; that package checks it when it compiles.
package explain
