// Package machine applies the allocator's events, other than allocation
// runs, to its parts: one exported method per event (AddAgent,
// RecoverResources as Decline, Accept, EndTask, UpdateQuota, ...), each
// the handler package allocator's event table calls once the entry is
// journalled. It is the package to open for "what does this event do to
// the state".
//
// Each handler checks all of its input against the state before it
// changes anything, so that an event that returns an error leaves the
// allocator as it was (the checks of package allocatortest replay every
// refused event against a copy to hold it to that). What it changes it
// changes through the parts that own each invariant: the cluster's tables
// and sums (cluster.State, with the bounds that keep every sum exact,
// overflow.go), what frameworks hold and the sorters (books), refusal
// filters and rounds of declines (declines), operations on offers
// (operations), quota and parked roles (quota, roles), the task ledger
// and reclaim's choices, and the agents that wait for the next run
// (run.Engine.WantsRun).
//
// Package allocator converts its public types to the records' (AgentInfo
// to cluster.AgentInfo, FrameworkInfo to cluster.FrameworkInfo, Quota to
// roles.Quota, a Filter to its duration) before it calls a handler.
package machine
