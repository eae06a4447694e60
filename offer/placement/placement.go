package placement

import (
	"fmt"
	"strings"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Attributes are an agent's attributes, name to value: the map a host
// passes to the allocator as allocator.AgentInfo.Attributes ("zone":
// "us-east-1a", "rack": "r12", "instance": "m5.xlarge").
type Attributes map[string]string

// Agent is what placement knows of an agent besides its offers. A host
// fills it from what it told the allocator when the agent joined:
//
//	agents[id] = placement.Agent{
//		Attributes: placement.Attributes(info.Attributes), // allocator.AgentInfo
//		Total:      total.Quantities(),                    // the agent's total resources
//	}
type Agent struct {
	// Attributes are matched by the attribute filters and by Spread and
	// MaxPerValue.
	Attributes Attributes
	// Total is the agent's total scalar resources, if known. BinPack
	// measures how full an agent would be against it; names it lacks are
	// measured against the offer instead.
	Total resources.Quantities
}

// Ports asks for host ports: Count ports of any number, plus the given
// Numbers, all from the ranges resource named Resource ("ports" when
// empty). Ports are taken from reserved ranges first, as offer.Pick takes
// scalars, and lowest first.
type Ports struct {
	Resource string
	Count    int
	Numbers  []uint64
}

// IsEmpty reports whether p asks for no port.
func (p Ports) IsEmpty() bool { return p.Count == 0 && len(p.Numbers) == 0 }

// Task is a pending task of the framework.
type Task struct {
	// ID names the task; ids are unique among the tasks of a call.
	ID string
	// Group names the tasks that filters and rankers count together: the
	// replicas of a service, the tasks of a job. Tasks without a group form
	// the group "".
	Group string
	// Role, when set, restricts the task to offers made to that role.
	Role string
	// Resources are the scalar resources the task needs (cpus, mem, disk,
	// gpus, ...), taken from the offer reserved first (see offer.Pick).
	Resources resources.Quantities
	// Ports are the host ports the task needs.
	Ports Ports
	// Volumes are persistent volumes the task runs on: the offer must hold
	// each of them (a volume not shared is used by one task at a time).
	Volumes resources.Resources
	// Constraints are the task's hard constraints, AND-ed with
	// Input.Filters.
	Constraints []Filter
	// Preferences are the task's soft preferences, summed with
	// Input.Rankers.
	Preferences []Ranker
}

// Running is a task of the framework that already runs: it counts in
// UniqueHost, MaxPerValue, Spread, Locality and Candidate.Running as the
// tasks placed by the call do.
type Running struct {
	Group   string
	AgentID string
}

// Input is one placement problem: the framework's pending tasks, its
// offers and what filters and rankers see.
type Input struct {
	// Tasks are placed in this order: earlier tasks are placed first and
	// see the best offers.
	Tasks []Task
	// Offers are the framework's current offers; their order does not
	// matter (they are visited by agent id, then offer id).
	Offers []offer.Offer
	// Agents holds the attributes (and totals) of the agents that offers
	// and running tasks name; an agent absent from it has no attributes.
	Agents map[string]Agent
	// Running are the framework's tasks already running.
	Running []Running
	// Filters are hard constraints for every task, AND-ed with each task's
	// Constraints. Fitting resources, ports, volumes and role are always
	// checked first.
	Filters []Filter
	// Rankers score the offers a task may go on, for every task, summed
	// with each task's Preferences. Without any, a task goes on the first
	// offer it fits, by agent id.
	Rankers []Ranker
	// GoodEnough, in (0, 1], stops a task's search at the first offer, in
	// agent id order, that scores at least this much: the best offer seen
	// so far is taken. 0 searches every offer.
	GoodEnough float64
}

// Result is the outcome of Place.
type Result struct {
	// Assignments are the placed tasks, in the order of Input.Tasks.
	Assignments []Assignment
	// Launches are the offers that got tasks, by agent id then offer id,
	// each with one LAUNCH of its tasks in the order they were placed.
	Launches []OfferLaunch
	// Unused are the offers that got no task, by agent id then offer id:
	// the host declines them.
	Unused []offer.Offer
	// Unassigned are the tasks left unplaced, in the order of Input.Tasks,
	// each with the reason every offer refused it.
	Unassigned []Unassigned
}

// Assignment places a task on an offer.
type Assignment struct {
	TaskID  string
	OfferID string
	AgentID string
	// Resources are the exact resources the task launches with: its scalars
	// (reserved first, as offer.Pick takes them), ports and volumes, all
	// allocated to the offer's role. They are the Resources of the task in
	// the offer's Accept, and share storage with it; tasks given the same
	// scalars (and no ports or volumes) share one value. Clone before
	// changing them in place, as for any copy of a Resources.
	Resources resources.Resources
	// Score is the weighted score of the offer for the task, in [0, 1].
	Score float64
}

// OfferLaunch is what to do with one offer: launch the tasks placed on it.
type OfferLaunch struct {
	Offer  offer.Offer
	Launch offer.Launch
}

// Operations returns the operations to pass to the allocator's Accept:
//
//	err := a.Accept(acc.Offer.FrameworkID, acc.Offer.AgentID, acc.Offer.Resources, acc.Operations(), filter)
func (a OfferLaunch) Operations() []offer.Operation { return []offer.Operation{a.Launch} }

// Accept is OfferLaunch's earlier name.
//
// Deprecated: use OfferLaunch; the allocator's Accept is the call it feeds.
type Accept = OfferLaunch

// Unassigned is a task no offer took, with one reason per offer, by agent
// id then offer id, as the offers stand at the end of the call: every
// offer that refused the task in its turn still refuses it then, unless a
// custom predicate changed its answer. Tasks alike but for their ids share
// one Reasons slice: treat it as read-only.
type Unassigned struct {
	TaskID  string
	Reasons []Reason
}

// Reason says why an offer refused a task: a resource that does not fit,
// or the filter that refused. It is the first check that failed, in the
// order role, scalar resources (by name), ports, volumes, Input.Filters,
// the task's Constraints.
type Reason struct {
	OfferID string
	AgentID string
	// Resource names what does not fit: a scalar resource ("cpus"), the
	// ports resource, or "volume"; empty when a filter refused.
	Resource string
	// Filter is the filter that refused, as its String prints it ("role"
	// for a task's Role); empty when a resource does not fit.
	Filter string
	// Detail says what was found, for instance "wants 2, 1.5 left" or
	// `zone is "b"`.
	Detail string
}

// String prints "o1 on a1: does not fit: cpus: wants 2, 1.5 left" or
// `o1 on a1: zone in {a,b}: zone is "c"`.
func (r Reason) String() string {
	var b strings.Builder
	b.WriteString(r.OfferID)
	b.WriteString(" on ")
	b.WriteString(r.AgentID)
	b.WriteString(": ")
	if r.Resource != "" {
		b.WriteString("does not fit: ")
		b.WriteString(r.Resource)
	} else {
		b.WriteString(r.Filter)
	}
	if r.Detail != "" {
		b.WriteString(": ")
		b.WriteString(r.Detail)
	}
	return b.String()
}

// Unplaced returns the tasks of tasks (the Input's) that no offer took, in
// their order: what is still pending after the call.
func (r Result) Unplaced(tasks []Task) []Task {
	placed := make(map[string]bool, len(r.Assignments))
	for _, as := range r.Assignments {
		placed[as.TaskID] = true
	}
	var out []Task
	for _, t := range tasks {
		if !placed[t.ID] {
			out = append(out, t)
		}
	}
	return out
}

// String describes the result in stable text, one line per assignment,
// offer and reason:
//
//	t1 -> o1 on a1 (score 0.75): cpus(allocated: web):1; mem(allocated: web):1024
//	unused: o3 on a3
//	t9 unassigned:
//	  o1 on a1: does not fit: cpus: wants 8, 3 left
func (r Result) String() string {
	var b strings.Builder
	for _, a := range r.Assignments {
		fmt.Fprintf(&b, "%s -> %s on %s (score %s): %s\n", a.TaskID, a.OfferID, a.AgentID, formatScore(a.Score), a.Resources)
	}
	for _, o := range r.Unused {
		fmt.Fprintf(&b, "unused: %s on %s\n", o.ID, o.AgentID)
	}
	for _, u := range r.Unassigned {
		fmt.Fprintf(&b, "%s unassigned:\n", u.TaskID)
		for _, reason := range u.Reasons {
			fmt.Fprintf(&b, "  %s\n", reason)
		}
	}
	return b.String()
}

// formatScore prints a score with at most 4 decimals.
func formatScore(s float64) string {
	out := fmt.Sprintf("%.4f", s)
	out = strings.TrimRight(out, "0")
	return strings.TrimSuffix(out, ".")
}
