package cluster

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// FrameworkTable holds the frameworks by id.
type FrameworkTable = tables.Table[Framework, byFrameworkID]

// byFrameworkID keys a framework by its id.
type byFrameworkID struct{}

func (byFrameworkID) Of(fw *Framework) string { return fw.ID }

// Framework is the allocator's record of one framework: what it said of
// itself, its roles and their marks, its refusal filters, its tasks, its
// stated demand and its counts of the latest run's pass-overs.
type Framework struct {
	ID     string
	Info   FrameworkInfo
	Active bool
	// Roles are the framework's roles: subscribed, tracked in the sorters
	// (subscribed, or still holding resources allocated to the role),
	// suppressed (roletable.go).
	Roles   tables.RoleTable
	Filters refusals.Filters
	// Whole holds, compactly, the refusal filters that refused all of
	// their agent's reference (wholerefusals.go); a role and agent have
	// filters in filters or in whole, never in both.
	Whole refusals.WholeRefusals
	// InverseFilters: agent -> the filter.
	InverseFilters map[string]refusals.InverseFilter
	// Tasks is the ledger of launched tasks that have not ended, by id.
	Tasks map[string]*Task

	// Skips counts, by reason, the agents the framework was passed over
	// on in run skipsRun (at most one an agent and role), so int32 is
	// ample and keeps the record in a smaller size class.
	Skips    [NumReasons]int32
	SkipsRun uint64
	// Joined is the number of runs made before the framework was added.
	Joined uint64
	// Num is the framework's number in the agents' filtered sets and
	// rounds of declines, once it refused or declined something
	// (filterNum); 0 before.
	Num int
	// Demand is, by role, what the framework stated it waits for and has
	// not been offered yet (demand.go); a role it never stated demand in
	// has no entry.
	Demand map[string][]Pending
}

// PendingIn returns fw's statement of demand in role, and whether it made
// one.
func (fw *Framework) PendingIn(role string) ([]Pending, bool) {
	if fw.Demand == nil {
		return nil, false
	}
	list, ok := fw.Demand[role]
	return list, ok
}

// WaitsForNothing reports whether fw stated demand in role and nothing of
// it is left: it is kept out of the role's sorter, as if suppressed.
func (fw *Framework) WaitsForNothing(role string) bool {
	list, ok := fw.PendingIn(role)
	return ok && !slices.ContainsFunc(list, func(p Pending) bool { return p.Count > 0 })
}

// SharedHeir returns another live task of fw on ended's agent that uses the
// shared resource r, the first by id, or nil.
func (fw *Framework) SharedHeir(ended *Task, r resources.Resource) *Task {
	var heir *Task
	for _, t := range fw.Tasks {
		if t != ended && t.Agent == ended.Agent && t.Uses.Copies(r) > 0 && (heir == nil || t.ID < heir.ID) {
			heir = t
		}
	}
	return heir
}
