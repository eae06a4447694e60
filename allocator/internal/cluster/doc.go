// Package cluster holds the allocator's records of the cluster: agents
// (Agent, with what each framework was offered and uses there, what is
// available, the agent's share of the free headroom, its refusal indexes,
// outstanding offers, holds and inverse offers), frameworks (Framework,
// with its roles, refusal filters, tasks and stated demand) and tasks
// (Task), keyed by id in tables (AgentTable, FrameworkTable).
//
// The records speak the package's own vocabulary (FrameworkInfo,
// AgentInfo, Constraints, Pending, reasons and inverse-offer answers by
// value), which package allocator converts from and to its public types,
// so that the parts of the state machine below the facade need not import
// it.
//
// The invariant the package owns is each record's own: an agent's offered
// and allocated resources are kept per framework with no empty entry, its
// rarely used parts (AgentRare) are made only once one is set, an offer
// outstanding on an agent holds what is still offered of it, a hold
// expires at its instant, and a framework's pending tasks of a role are
// the statement it made less what was offered since. Which records change
// when, and the sums over them (totals, free headroom, the role tree's
// figures), are package allocator's, and its invariant checks recompute
// them from the records. The files the comments name (filters.go,
// holds.go, outstanding.go and the others) are package allocator's.
package cluster
