package allocator

import (
	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
)

// Reason says why a framework (or a role) got nothing on an agent in the
// latest allocation run, as Explain reports it. The constants are in order
// of precedence, the most actionable first: what the framework can change
// itself (subscribe or activate, revive, declare a capability, loosen its
// constraints, refuse for less long), then what an operator can change
// (quota limits, other roles' guarantees, the minimum allocatable
// resources), then what only time changes (fairness, a full agent), and
// last what has nothing to do with the framework (the agent was left out of
// the run). Explain reports, per role, every reason met with its agents, and
// as the role's Reason the one of highest precedence.
type Reason uint8

const (
	// ReasonNone: nothing was passed over.
	ReasonNone Reason = iota
	// ReasonInactive: the framework is inactive, was removed, or joined
	// after the run (ReasonGroup.State says which); for a role, it has no
	// framework.
	ReasonInactive
	// ReasonSuppressed: the framework suppressed offers in the role.
	ReasonSuppressed
	// ReasonIncapable: the framework lacks a capability the agent or its
	// resources need (AgentReason.Missing says which).
	ReasonIncapable
	// ReasonConstraints: the framework's offer constraints exclude the
	// agent.
	ReasonConstraints
	// ReasonNoFit: the framework stated what it waits for in the role
	// (UpdateDemand), and none of its pending tasks fit what the agent
	// had left for it (ReasonGroup.Unfit names the shapes that fit none
	// of the agents).
	ReasonNoFit
	// ReasonFiltered: a refusal filter of the framework covered what the
	// agent had (AgentReason.Until says until when).
	ReasonFiltered
	// ReasonQuotaLimit: the role, or an ancestor, is at its quota limit.
	ReasonQuotaLimit
	// ReasonHeadroom: what was left was held back for other roles' unmet
	// quota guarantees.
	ReasonHeadroom
	// ReasonMinAllocatable: what was left was below the minimum
	// allocatable resources.
	ReasonMinAllocatable
	// ReasonFairness: another framework of the role, or another role, came
	// first in DRF order and was offered the agent.
	ReasonFairness
	// ReasonDeclined: the framework declined what the agent has, unchanged
	// since, and the frameworks that have not declined it are offered it
	// first (the rotation after declines; see Options.MesosOfferOrder).
	ReasonDeclined
	// ReasonNothingLeft: nothing on the agent was left for the role (in
	// use, or reserved for other roles).
	ReasonNothingLeft
	// ReasonAgentInactive: the run left the agent out (deactivated, not on
	// the whitelist, or over-allocated).
	ReasonAgentInactive
	numReasons
)

var reasonNames = [...]string{"none", "inactive", "suppressed", "incapable", "constraints", "no-fit", "filtered", "quota-limit", "headroom", "min-allocatable", "fairness", "declined", "nothing-left", "agent-inactive"}

// String names the reason.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown"
}

// skipReasons are the reasons a run passes a framework over for (and
// counts in RunStats.Skips); the others are what Explain finds besides.
var skipReasons = [...]Reason{ReasonFiltered, ReasonSuppressed, ReasonQuotaLimit, ReasonHeadroom,
	ReasonMinAllocatable, ReasonIncapable, ReasonConstraints, ReasonAgentInactive, ReasonNoFit, ReasonDeclined}

// SkipReason is Reason: the reasons a run passes a framework over for are
// among those Explain gives.
//
// Deprecated: use Reason.
type SkipReason = Reason

// The reasons a run passes a framework over for, under their former names.
//
// Deprecated: use the Reason constants of the same names.
const (
	SkipFiltered       = ReasonFiltered
	SkipSuppressed     = ReasonSuppressed
	SkipQuotaLimit     = ReasonQuotaLimit
	SkipHeadroom       = ReasonHeadroom
	SkipMinAllocatable = ReasonMinAllocatable
	SkipIncapable      = ReasonIncapable
	SkipConstraints    = ReasonConstraints
	SkipAgentInactive  = ReasonAgentInactive
)

// The framework records count pass-overs by reason in arrays of
// cluster.NumReasons, and package explain works with the reasons' codes:
// a Reason added, removed or moved must change them too.
const (
	_ = uint(cluster.NumReasons - numReasons)
	_ = uint(numReasons - cluster.NumReasons)
)

// The Reasons are package explain's codes: the function does not compile
// if one differs (an index out of range, or a negative constant).
func _() {
	var x [1]struct{}
	_ = x[uint8(ReasonNone)-explain.None]
	_ = x[uint8(ReasonInactive)-explain.Inactive]
	_ = x[uint8(ReasonSuppressed)-explain.Suppressed]
	_ = x[uint8(ReasonIncapable)-explain.Incapable]
	_ = x[uint8(ReasonConstraints)-explain.Constraints]
	_ = x[uint8(ReasonNoFit)-explain.NoFit]
	_ = x[uint8(ReasonFiltered)-explain.Filtered]
	_ = x[uint8(ReasonQuotaLimit)-explain.QuotaLimit]
	_ = x[uint8(ReasonHeadroom)-explain.Headroom]
	_ = x[uint8(ReasonMinAllocatable)-explain.MinAllocatable]
	_ = x[uint8(ReasonFairness)-explain.Fairness]
	_ = x[uint8(ReasonDeclined)-explain.Declined]
	_ = x[uint8(ReasonNothingLeft)-explain.NothingLeft]
	_ = x[uint8(ReasonAgentInactive)-explain.AgentInactive]
	_ = x[uint8(numReasons)-explain.NumReasons]
}
