package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// State is the cluster as the allocator knows it: the agents and the
// frameworks by id (and the agents in the order of their ids), with the
// sums kept over them. It owns one invariant: each sum is the sum over
// the agents of what it counts, changed with every change to an agent
// (package allocator's CheckInvariants recomputes each from the agents).
type State struct {
	Frameworks FrameworkTable
	Agents     AgentTable
	// AgentList holds the agents in the order of their ids, so that a run
	// over every agent looks none up by id (see AgentPlace).
	AgentList []*Agent
	// shapes hands agents with the same total one storage of it: most
	// clusters have a few machine shapes, and a total is 128 bytes or more.
	shapes resources.Interner

	// Totals is the sum of every agent's scalar totals; TotalsVersion
	// changes with it so sorters learn the new pool lazily.
	Totals        resources.Quantities
	TotalsVersion uint64
	// FreeHeadroom is the sum over agents of the unreserved, non-revocable
	// scalars that are neither offered nor allocated: what quota headroom
	// can be drawn from.
	FreeHeadroom resources.Quantities
	// Excess is the sum over agents of what frameworks hold there beyond
	// the agent's total (see MeasureUse and CheckSums).
	Excess resources.Quantities

	// agentNums numbers the agents on entry (NumberAgent), AgentsByNum
	// says which holds a number.
	agentNums   tables.Numbering
	AgentsByNum tables.Numbered[Agent]

	// RevocableOrSharedAgents counts agents whose total has revocable or
	// shared resources, which quota neither limits nor holds back.
	RevocableOrSharedAgents int
	// OverAllocatedAgents counts the agents that hold more than their
	// total (Agent.OverAllocated): while there are any, sums over the
	// agents (a role's allocated reservations) can hide what one of them
	// has free.
	OverAllocatedAgents int
}

// countOverAllocated keeps OverAllocatedAgents as an agent's flag goes
// from before to after.
func (s *State) countOverAllocated(before, after bool) {
	switch {
	case after && !before:
		s.OverAllocatedAgents++
	case before && !after:
		s.OverAllocatedAgents--
	}
}

// Forget takes a removed agent out of the counts its flags are in.
func (s *State) Forget(ag *Agent) {
	s.countOverAllocated(ag.OverAllocated, false)
}

// ActivateAgent lets the agent of id be offered again.
func (s *State) ActivateAgent(id string) error {
	ag, err := s.Agent(id)
	if err != nil {
		return err
	}
	ag.Active = true
	return nil
}

// Agent returns the agent of id, or ErrUnknownAgent.
func (s *State) Agent(id string) (*Agent, error) {
	ag, ok := s.Agents.Lookup(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownAgent, id)
	}
	return ag, nil
}

// AgentPlace finds where the agent of id is, or would be, in AgentList.
func (s *State) AgentPlace(id string) (int, bool) {
	return slices.BinarySearchFunc(s.AgentList, id, func(ag *Agent, id string) int { return strings.Compare(ag.ID, id) })
}

// CheckReportedUse validates what an agent reports in use, per framework:
// for a known framework, resources allocated to roles it subscribes to; for
// one not added yet, resources with allocation roles they may be
// allocated to.
func (s *State) CheckReportedUse(agentID string, used map[string]resources.Resources) error {
	for _, fwID := range slices.Sorted(maps.Keys(used)) {
		if fw, ok := s.Frameworks.Lookup(fwID); ok {
			if err := CheckUsed(used[fwID], fw.Info.Roles); err != nil {
				return fmt.Errorf("agent %q, framework %q: %w", agentID, fwID, err)
			}
			continue
		}
		if err := ValidID("framework", fwID); err != nil {
			return fmt.Errorf("agent %q: %w", agentID, err)
		}
		if err := CheckUsed(used[fwID], used[fwID].AllocationRoles()); err != nil {
			return fmt.Errorf("agent %q, framework %q not added yet: %w", agentID, fwID, err)
		}
	}
	return nil
}

// CheckSums reports ErrOverflow if the changes would take the cluster's
// totals plus the held excess past resources.MaxTotal for some name.
func (s *State) CheckSums(changes ...AgentChange) error {
	totals, excess := s.Totals.Clone(), s.Excess.Clone()
	for _, c := range changes {
		held := c.Held
		if c.Ag != nil {
			totals.Subtract(c.Ag.Total.Quantities())
			excess.Subtract(c.Ag.Excess())
			held = held.Plus(c.Ag.HeldQuantities())
		}
		totals.Add(c.Total)
		excess.Add(held.Minus(c.Total))
		if !totals.Within(resources.MaxTotal) || !excess.Within(resources.MaxTotal) {
			break // stop before sums of sums could grow further
		}
	}
	sum := totals.Plus(excess)
	for name, v := range sum.All() {
		if v > resources.MaxTotal {
			return fmt.Errorf("%w: the cluster would hold %s of %s (with what frameworks hold beyond agent totals), more than %s", ErrOverflow, v, name, resources.MaxTotal)
		}
	}
	return nil
}

// Claims returns the agents where framework id, about to be added with
// roles, has usage to claim, after checking it: the usage's roles must be
// among the framework's, and what used says for such an agent, if
// anything, must be that usage.
func (s *State) Claims(id string, roles []string, used map[string]resources.Resources) (map[string]bool, error) {
	var out map[string]bool
	for _, ag := range s.AgentList {
		agentID := ag.ID
		res, ok := ag.Unclaimed()[id]
		if !ok {
			continue
		}
		if err := CheckUsed(res, roles); err != nil {
			return nil, fmt.Errorf("framework %q: agent %q reported it uses %s: %w", id, agentID, res, err)
		}
		if u, ok := used[agentID]; ok && !u.Equal(res) {
			return nil, fmt.Errorf("%w: framework %q on agent %q: used %s, the agent reported %s", ErrInvalidResources, id, agentID, u, res)
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[agentID] = true
	}
	return out, nil
}

// DeactivateAgent keeps the agent of id out of offers until it is
// activated; what is allocated there stays.
func (s *State) DeactivateAgent(id string) error {
	ag, err := s.Agent(id)
	if err != nil {
		return err
	}
	ag.Active = false
	return nil
}

// Framework returns the framework of id, or ErrUnknownFramework.
func (s *State) Framework(id string) (*Framework, error) {
	fw, ok := s.Frameworks.Lookup(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownFramework, id)
	}
	return fw, nil
}

// FrameworkOn returns a framework and an agent of an event about the
// framework on the agent, or the error that names the unknown one (the
// framework first).
func (s *State) FrameworkOn(fwID, agentID string) (*Framework, *Agent, error) {
	fw, err := s.Framework(fwID)
	if err != nil {
		return nil, nil, err
	}
	ag, err := s.Agent(agentID)
	if err != nil {
		return nil, nil, err
	}
	return fw, ag, nil
}

// FrameworkRoles looks up a framework and the roles an event names: all its
// roles when none are named; a role it is not subscribed to is an error.
func (s *State) FrameworkRoles(id string, roles []string) (*Framework, []string, error) {
	fw, err := s.Framework(id)
	if err != nil {
		return nil, nil, err
	}
	roles, err = pickRoles(fw, roles)
	return fw, roles, err
}

// HeldInRole returns what a framework holds in a role over all agents.
func (s *State) HeldInRole(fwID, role string) resources.Resources {
	var out resources.Resources
	fw := s.Frameworks.Get(fwID)
	if fw == nil {
		return out
	}
	for _, ag := range s.AgentList {
		if ag.Offered.Has(fwID) || ag.Allocated.Has(fwID) || ag.Holds().Has(fwID) {
			out.Add(ag.Held(fwID).AllocatedTo(role))
		}
	}
	return out
}

// MeasureUse returns what is offered, allocated, held and in use by
// frameworks not added yet on ag (shared volumes aside, without allocation
// roles), and sets ag.OverAllocated and its excess from it, keeping
// State.Excess their sum.
func (s *State) MeasureUse(ag *Agent) resources.Resources {
	var used, shared resources.Resources
	add := func(res resources.Resources) {
		used.AddUnallocated(res, false)
		if res.HasShared() {
			shared.AddUnallocated(res.Shared(), true)
		}
	}
	for _, held := range []*tables.PerFramework{&ag.Offered, &ag.Allocated} {
		for _, fwID := range held.IDs() {
			add(held.Get(fwID))
		}
	}
	for _, h := range ag.Holds() {
		used.AddUnallocated(h.Res, false)
	}
	for _, fwID := range slices.Sorted(maps.Keys(ag.Unclaimed())) {
		add(ag.Unclaimed()[fwID])
	}
	before := ag.OverAllocated
	ag.OverAllocated = !ag.Total.Contains(used)
	if ag.Rare != nil {
		ag.Rare.Excess = resources.Quantities{}
	}
	if ag.OverAllocated {
		rare := ag.More()
		rare.Excess = used.Quantities().Minus(ag.Total.Quantities())
		s.Excess.Add(rare.Excess)
	}
	// A shared volume held by anyone must still be part of the total (one
	// copy of it, however many hold it).
	for r := range shared.All() {
		ag.OverAllocated = ag.OverAllocated || !ag.Total.ContainsResource(r)
	}
	s.countOverAllocated(before, ag.OverAllocated)
	return used
}

// NumberAgent gives ag its number on entry.
func (s *State) NumberAgent(ag *Agent) {
	ag.Num = int32(s.agentNums.Take())
	s.AgentsByNum.Set(int(ag.Num), ag)
}

// RefreshHeadroom recomputes the agent's share of the free headroom in
// place.
func (s *State) RefreshHeadroom(ag *Agent) {
	s.FreeHeadroom.Subtract(ag.Headroom)
	ag.Headroom.Reset()
	if !ag.HasReserved && !ag.HasRevocable {
		ag.Available.AddQuantitiesTo(&ag.Headroom)
	} else {
		ag.Headroom.Add(HeadroomOf(ag.Available))
	}
	s.FreeHeadroom.Add(ag.Headroom)
}

// SetFlags records what the agent's total holds, for the hot path, and
// keeps the count of agents with revocable or shared resources.
func (s *State) SetFlags(ag *Agent) {
	before := ag.HasRevocable || ag.HasShared
	ag.HasReserved, ag.HasShared, ag.HasRevocable, ag.HasRefined, ag.HasGPUs = false, false, false, false, false
	for r := range ag.Total.All() {
		ag.HasReserved = ag.HasReserved || r.IsReserved()
		ag.HasShared = ag.HasShared || r.Shared
		ag.HasRevocable = ag.HasRevocable || r.Revocable
		ag.HasRefined = ag.HasRefined || r.Reservations.IsRefined()
		ag.HasGPUs = ag.HasGPUs || (r.Name == "gpus" && r.Type == resources.ScalarType && r.Scalar > 0)
	}
	switch after := ag.HasRevocable || ag.HasShared; {
	case after && !before:
		s.RevocableOrSharedAgents++
	case before && !after:
		s.RevocableOrSharedAgents--
	}
}

// Shape returns total without allocation roles, in the storage of an
// earlier agent's equal total when there is one (see State.shapes).
func (s *State) Shape(total resources.Resources) resources.Resources {
	if role, ok := total.AllocationRole(); !ok || role != "" {
		total = total.Unallocate().Frozen() // a copy of the caller's
	}
	return s.shapes.Intern(total)
}

// Task returns a framework and one of its tasks in the ledger.
func (s *State) Task(fwID, taskID string) (*Framework, *Task, error) {
	fw, err := s.Framework(fwID)
	if err != nil {
		return nil, nil, err
	}
	t, ok := fw.Tasks[taskID]
	if !ok {
		return nil, nil, fmt.Errorf("%w: framework %q, task %q", ErrUnknownTask, fwID, taskID)
	}
	return fw, t, nil
}

// UnknownUse returns the part of used (checked) that belongs to frameworks
// not added yet, or nil.
func (s *State) UnknownUse(used map[string]resources.Resources) map[string]resources.Resources {
	var out map[string]resources.Resources
	for fwID, res := range used {
		if _, ok := s.Frameworks.Lookup(fwID); ok || res.IsEmpty() {
			continue
		}
		if out == nil {
			out = map[string]resources.Resources{}
		}
		out[fwID] = out[fwID].Plus(res)
	}
	return out
}

// UnnumberAgent takes a removed agent's number back, once its filters are
// forgotten.
func (s *State) UnnumberAgent(ag *Agent) {
	s.AgentsByNum.Set(int(ag.Num), nil)
	s.agentNums.Give(int(ag.Num))
	ag.Num = 0
}
