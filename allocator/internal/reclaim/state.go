package reclaim

import (
	"cmp"
	"strings"
	"time"

	"github.com/allot-go/allot/resources"
)

// Mode says whether and why runs choose tasks to end (package allocator's
// Reclaim, value for value).
type Mode uint8

const (
	Off Mode = iota
	Guarantees
	FairShare
)

// Reason says why a task was chosen (package allocator's PreemptReason,
// value for value).
type Reason uint8

const (
	ForGuarantee Reason = iota + 1
	ForFairShare
)

// TaskRef names a task of the ledger.
type TaskRef struct{ Framework, Task string }

// Compare orders task refs by framework, then task id.
func (x TaskRef) Compare(y TaskRef) int {
	return cmp.Or(strings.Compare(x.Framework, y.Framework), strings.Compare(x.Task, y.Task))
}

// Choice is a task chosen to end that has not ended: the victim of one
// pending task's room.
type Choice struct {
	// ForRole is the role it was chosen for; ForFramework the framework
	// whose pending task it makes room for, in role HeldIn (ForRole or,
	// for a guarantee, a role under it).
	ForRole, ForFramework, HeldIn string
	Reason                        Reason
	// Frees is what the task's end frees that counts towards a
	// guarantee: its unreserved, non-revocable, non-shared scalars.
	Frees resources.Quantities
	// Task is one pending task's quantities, as the framework stated it;
	// Room is the part of Task this victim's end is to free and hold for
	// it (the victims of one group together free what the agent lacked).
	Task, Room resources.Quantities
	// Group numbers the choice: the victims chosen together for one
	// pending task share it.
	Group uint64
	// Until: past it, at a run, the choice lapses.
	Until time.Time
}

// State is what reclaim keeps between runs: the choices not ended, and
// when each role last had tasks chosen for it.
type State struct {
	Choices map[TaskRef]*Choice
	// TookAt is, per role, the latest run that chose tasks for it (as
	// the role they were chosen for, or one between it and the role
	// their room is held in), kept for the run after it.
	TookAt map[string]uint64
	// Groups counts the groups chosen so far (Choice.Group).
	Groups uint64
}

// NewState returns the state of an allocator that has chosen nothing.
func NewState() State {
	return State{Choices: map[TaskRef]*Choice{}, TookAt: map[string]uint64{}}
}

// Chosen is a task a run chose to end, or withdrew an earlier choice of.
type Chosen struct {
	Ref   TaskRef
	Agent string
	// Role is the role the task runs in.
	Role string
	Choice
	// Free is, on the first of a group's victims, the part of the task
	// free on the agent when the group was chosen: the allocator holds
	// it for the task at once, so that the room is whole when the
	// victims end.
	Free resources.Quantities
	// ForShare and RoleShare are the weighted shares of ForRole and of
	// Role before the task ends and after its room moves (zero for a
	// withdrawal).
	ForShare, RoleShare [2]float64
}
