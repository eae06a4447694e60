package sorter

import (
	"errors"
	"fmt"
	"math"

	"github.com/allot-go/allot/resources"
)

// Errors returned by sorters, wrapped with detail; test with errors.Is.
var (
	// ErrUnknownClient: the client was never added, or was removed.
	ErrUnknownClient = errors.New("sorter: unknown client")
	// ErrDuplicateClient: Add of a client that is already present.
	ErrDuplicateClient = errors.New("sorter: client already present")
	// ErrInvalidClient: a client path that is empty, has empty components, or
	// uses the reserved component ".".
	ErrInvalidClient = errors.New("sorter: invalid client path")
	// ErrInvalidWeight: a weight that is not a finite number above zero.
	ErrInvalidWeight = errors.New("sorter: invalid weight")
	// ErrUnknownAgent: RemoveAgent of an agent that was never added.
	ErrUnknownAgent = errors.New("sorter: unknown agent")
	// ErrNotAllocated: Unallocated or Update with resources the client does
	// not hold on that agent.
	ErrNotAllocated = errors.New("sorter: resources not allocated to client")
)

// ValidatePath checks a client path or a weight path as every sorter of
// this package does: it must not be empty, and no "/"-separated component
// may be empty or ".". It returns nil or an error wrapping
// ErrInvalidClient. A Sorter of your own calls it in Add and UpdateWeight
// (Accounting does).
func ValidatePath(path string) error {
	if !validPath(path) {
		return fmt.Errorf("%w %q", ErrInvalidClient, path)
	}
	return nil
}

// ValidateWeight checks a weight as every sorter of this package does: it
// must be a finite number above zero. It returns nil or an error wrapping
// ErrInvalidWeight. A Sorter of your own calls it in UpdateWeight
// (Accounting does).
func ValidateWeight(w float64) error {
	if math.IsNaN(w) || math.IsInf(w, 0) || w <= 0 {
		return fmt.Errorf("%w %v: want a finite number above zero", ErrInvalidWeight, w)
	}
	return nil
}

// Sorter orders clients (roles or frameworks) for the allocator: Sort returns
// the active clients, the one to be served first in front.
//
// Clients are "/"-separated paths ("eng/backend" or a framework id) with no
// empty component and no component "."; a client may be a prefix of another
// ("eng" and "eng/backend"). The components form a tree; a sorter may use it
// (the DRF sorter shares a subtree's allocation among its members) or
// ignore it.
//
// Which call is accepted when, common to every implementation:
//   - Add puts a client in, inactive and holding nothing; Add of a client
//     already present fails (ErrDuplicateClient).
//   - Activate and Deactivate work on any present client and are
//     idempotent. Only active clients are returned by Sort.
//   - Allocated, Unallocated and Update work on any present client, active
//     or not, on any agent (added or not); the allocation is kept across
//     deactivation. Unallocated and Update fail (ErrNotAllocated) unless the
//     client holds the resources to take back on that agent.
//   - Remove drops a present client with its allocation; the client can be
//     added again and starts afresh.
//   - UpdateWeight applies to a path whether or not a client exists there
//     yet, and lasts until changed (set 1 to reset).
//   - AddAgent can be called at any time and replaces the agent's total;
//     RemoveAgent fails (ErrUnknownAgent) for an agent not added. The sum of
//     the totals is the pool shares are measured against; allocations on a
//     removed agent stay until unallocated.
//
// Every method that takes a client returns ErrUnknownClient for one that is
// not present, and every call that returns an error changes nothing. The
// queries answer for an unknown client with the zero value: Allocation
// nil, AllocationQuantities empty, Contains false.
//
// Implementations are not safe for concurrent use.
type Sorter interface {
	// Add adds an inactive client with no allocation.
	Add(client string) error
	// Remove removes a client and its allocation.
	Remove(client string) error
	// Activate makes a client eligible for Sort.
	Activate(client string) error
	// Deactivate keeps a client and its allocation but hides it from Sort.
	Deactivate(client string) error
	// UpdateWeight sets the weight of the tree node at path (default 1).
	UpdateWeight(path string, weight float64) error

	// Allocated records that resources on agent were given to client. An
	// implementation may keep r without copying it: do not change r in
	// place afterwards.
	Allocated(client, agent string, r resources.Resources) error
	// Unallocated records that client gave back resources on agent.
	Unallocated(client, agent string, r resources.Resources) error
	// Update replaces old with new in client's allocation on agent (a
	// conversion such as a reservation; quantities may change).
	Update(client, agent string, old, new resources.Resources) error
	// Allocation returns client's resources per agent. The caller must not
	// modify the result.
	Allocation(client string) map[string]resources.Resources
	// AllocationQuantities returns the scalar quantities client holds, summed
	// over agents (shared resources counted once per agent).
	AllocationQuantities(client string) resources.Quantities

	// AddAgent sets the scalar total an agent contributes to the pool. An
	// implementation may keep total without copying it, and must not change
	// it: the caller does not change it in place afterwards, and may hand
	// the same value to other sorters.
	AddAgent(agent string, total resources.Quantities)
	// RemoveAgent removes an agent's total from the pool.
	RemoveAgent(agent string) error

	// Sort returns the active clients, first served first. The caller must
	// not modify the returned slice; it is valid until the next call.
	Sort() []string
	// Contains reports whether client has been added and not removed.
	Contains(client string) bool
	// Count returns the number of clients, active or not.
	Count() int
}

// Sharer is implemented by sorters that can tell where a node of the client
// tree stands. ShareOf returns the share by which the sorter orders the
// node at path: for a client without children, what it holds; for a path
// with clients below it, its whole subtree. It returns 0 for a path that is
// not in the tree, and must not change the order.
//
// The allocator reports the role sorter's ShareOf of each role as
// allocator.RoleView.Share; with a role sorter that is not a Sharer that
// field is -1. The DRF sorter is a Sharer (its weighted dominant share); the
// random sorter is not.
type Sharer interface {
	ShareOf(path string) float64
}

var _ Sharer = (*DRF)(nil)

// Config configures a sorter built by a Factory.
type Config struct {
	// FairnessExcluded lists resource names ignored when computing shares,
	// typically scarce ones such as "gpus" (Mesos's
	// --fair_sharing_excluded_resource_names).
	FairnessExcluded resources.NameSet
	// Seed seeds the sorters that use randomness. The same seed and the same
	// calls give the same orders.
	Seed int64
}

// Factory builds a sorter; an allocator takes one to make its role sorter
// and one sorter per role for the frameworks within it.
type Factory func(Config) Sorter
