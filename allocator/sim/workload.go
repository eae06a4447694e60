package sim

import (
	"iter"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/offer/placement"
	"github.com/allot-go/allot/resources"
)

// Workload is what a simulation runs: a cluster, roles, frameworks, their
// tasks (given, read from a trace, or drawn by generators) and events.
// Only Agents and some tasks are required: frameworks and roles that tasks
// name without declaring them get the defaults.
type Workload struct {
	Agents     []AgentGroup
	Roles      []Role
	Frameworks []Framework
	// Tasks are given one by one (from a trace, say); Generators draw
	// more from the run's seed. Both are submitted by their Submit time.
	Tasks      []Task
	Generators []Generator
	// Stream, when set, gives more tasks, in order of submission (a task
	// submitted before the one before it is an error naming it), for a
	// trace too long to hold: a run reads it as its clock goes, one task
	// ahead of the last submitted, and keeps a task only while it waits
	// or runs, so that its memory follows the tasks under way, not the
	// trace's length (StreamGoogleFiles reads the Google trace so). It
	// is a function, called for a new reading each time: once to check
	// the tasks and learn the frameworks and roles they name before the
	// runs, then once per run (Compare runs several); every reading must
	// give the same tasks. Its tasks are merged with the others by
	// Submit, after them at one time. Tasks are told apart by framework
	// and ID among those under way only: the run does not remember the
	// stream's tasks that ended.
	Stream func() iter.Seq2[Task, error]
	Events []Event
}

// AgentGroup is Count agents of one shape. Agent i (from 1) is named
// Name-i; with Zones, it is in zone Zones[(i-1) % len(Zones)], which it
// carries as its attribute "zone".
type AgentGroup struct {
	Name  string
	Count int
	// Resources are each agent's total, in the resources text format
	// ("cpus:16;mem:65536"), unreserved unless they say otherwise.
	Resources  string
	Attributes map[string]string
	Zones      []string
}

// Role is a role's weight and quota.
type Role struct {
	Name string
	// Weight divides the role's share (0 means 1).
	Weight float64
	Quota  allocator.Quota
}

// Framework is a scheduler of the simulation. Each interval it places its
// backlog on its offers with offer/placement, in order, passing over the
// tasks that fit no offer (not waiting behind them), launches what fits,
// declines the rest with a refusal filter, and ends each task when its
// duration has passed. It suppresses offers while it has nothing to
// run, and revives them when tasks arrive.
type Framework struct {
	ID string
	// Roles are the roles it subscribes to; empty means those its tasks
	// name ("*" if they name none).
	Roles []string
	// Refuse is the refusal filter of its declines (0 means
	// allocator.DefaultRefuse).
	Refuse time.Duration
	// Filters and Rankers are placement's, for every task of the
	// framework (without rankers, a task goes on the first offer it fits,
	// by agent id).
	Filters      []placement.Filter
	Rankers      []placement.Ranker
	Capabilities offer.Capabilities
}

// Task is one task submission.
type Task struct {
	// Framework submits the task; Role is the role it runs in (empty: the
	// framework's first role).
	Framework, Role string
	// ID is unique among the framework's tasks.
	ID string
	// Submit is when the task is submitted, from the start of the run.
	Submit time.Duration
	// Resources are what the task uses while it runs.
	Resources resources.Quantities
	// Duration is how long it runs once launched.
	Duration time.Duration
	// Group names tasks that placement counts together (the tasks of a
	// job); with DifferentMachines, at most one task of the group runs on
	// an agent.
	Group             string
	DifferentMachines bool
}

// EventKind says what happens to an agent.
type EventKind uint8

const (
	// AgentFailure: the agent is lost with its tasks, which go back to
	// their frameworks' backlogs as new submissions; it comes back after
	// Event.For (never, if For is zero).
	AgentFailure EventKind = iota + 1
	// AgentMaintenance: a maintenance window of Event.For is announced,
	// starting Event.Notice later. Frameworks accept the inverse offers
	// and place no new task on the agent; at the window's start the tasks
	// still there are killed (and resubmitted) and the agent leaves the
	// cluster until the window ends.
	AgentMaintenance
)

// String names the kind.
func (k EventKind) String() string {
	switch k {
	case AgentFailure:
		return "failure"
	case AgentMaintenance:
		return "maintenance"
	}
	return "unknown"
}

// Event is something that happens to an agent at a time of the run.
type Event struct {
	At     time.Duration
	Kind   EventKind
	Agent  string
	Notice time.Duration
	For    time.Duration
}
