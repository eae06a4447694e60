package allocator

// UpdateWeights sets role weights (default 1). A role with weight 2 is
// entitled to twice the share of a role with weight 1. Weights apply to the
// role's node in the role tree; the default role "*" is a top-level role
// like any other. No allocation is triggered.
func (a *Allocator) UpdateWeights(weights map[string]float64) error {
	return a.stepErr(Entry{Event: EventUpdateWeights, Weights: weights})
}

// UpdateQuota sets a role's quota; the zero Quota removes it. Quota may be
// set on nested roles: a child's consumption counts against every ancestor's
// guarantee and limit. The default role "*" takes quota like any top-level
// role, as in Mesos: a limit on it caps the frameworks that run in "*". Guarantees above the role's own limits or an
// ancestor's, and limits below a descendant's guarantees, are rejected. No
// allocation is triggered.
func (a *Allocator) UpdateQuota(role string, q Quota) error {
	return a.stepErr(Entry{Event: EventUpdateQuota, Role: role, Quota: q})
}
