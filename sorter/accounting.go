package sorter

import (
	"slices"

	"github.com/allot-go/allot/resources"
)

// Accounting is the bookkeeping every Sorter owes its caller, without a
// policy: the clients and their tree, which are active, the weights of
// paths, what each client holds on each agent, how many times each was
// allocated to, and the pool of agent totals. It checks every argument as
// the Sorter interface documents (ErrInvalidClient, ErrDuplicateClient,
// ErrUnknownClient, ErrInvalidWeight, ErrNotAllocated, ErrUnknownAgent) and
// a call that returns an error changes nothing. Shared volumes count once
// per client per agent, as in the package's own sorters.
//
// A sorter of your own embeds an Accounting and writes only Sort, reading
// the figures below to order the active clients:
//
//	type LeastServed struct {
//		sorter.Accounting
//		order []string
//	}
//
//	func (s *LeastServed) Sort() []string {
//		s.order = s.AppendActive(s.order[:0]) // in path order
//		slices.SortStableFunc(s.order, func(a, b string) int {
//			return cmp.Compare(s.AllocationCount(a), s.AllocationCount(b))
//		})
//		return s.order
//	}
//
// *LeastServed is then a Sorter, and sortertest.Run checks it. It may also
// implement Walker and Sharer, which the allocator looks for.
//
// The zero Accounting is empty and ready to use, and counts every resource
// in DominantShare; NewAccounting takes a Config. Its methods have pointer
// receivers: embed it in a struct used through a pointer, and do not copy
// an Accounting once it is in use. It is not safe for concurrent use.
type Accounting struct {
	t        tree
	ready    bool
	version  uint64
	active   []string // active clients in path order, while activeOK
	activeOK bool
}

// NewAccounting returns an empty Accounting whose DominantShare leaves out
// the resource names in cfg.FairnessExcluded. cfg.Seed is not used.
func NewAccounting(cfg Config) Accounting {
	return Accounting{t: newTree(false, cfg.FairnessExcluded), ready: true}
}

// tree returns the bookkeeping, making it on first use of a zero
// Accounting.
func (a *Accounting) tree() *tree {
	if !a.ready {
		a.t = newTree(false, resources.NameSet{})
		a.ready = true
	}
	return &a.t
}

// changed counts a successful change; reshaped also drops the list of
// active clients.
func (a *Accounting) changed(err error) error {
	if err == nil {
		a.version++
	}
	return err
}

func (a *Accounting) reshaped(err error) error {
	if err == nil {
		a.version++
		a.activeOK = false
	}
	return err
}

// Add adds an inactive client with no allocation. It returns
// ErrInvalidClient for a malformed path and ErrDuplicateClient if client is
// already present.
func (a *Accounting) Add(client string) error { return a.reshaped(a.tree().add(client)) }

// Remove removes a client and its allocation. It returns ErrUnknownClient
// if client is not present.
func (a *Accounting) Remove(client string) error { return a.reshaped(a.tree().remove(client)) }

// Activate makes client one of the active clients (AppendActive). It
// returns ErrUnknownClient if client is not present.
func (a *Accounting) Activate(client string) error {
	if a.Active(client) {
		return nil
	}
	return a.reshaped(a.tree().setActive(client, true))
}

// Deactivate keeps client and its allocation but drops it from the active
// clients. It returns ErrUnknownClient if client is not present.
func (a *Accounting) Deactivate(client string) error {
	if !a.Active(client) && a.Contains(client) {
		return nil
	}
	return a.reshaped(a.tree().setActive(client, false))
}

// UpdateWeight sets the weight of path, which need not be a client yet,
// until changed (1 is the default). It returns ErrInvalidClient for a
// malformed path and ErrInvalidWeight for a weight that is not a finite
// number above zero (see ValidatePath and ValidateWeight).
func (a *Accounting) UpdateWeight(path string, weight float64) error {
	return a.changed(a.tree().updateWeight(path, weight))
}

// Allocated records that r on agent was given to client, active or not,
// and counts one allocation for the client and each of its ancestors, even
// when r is empty. The agent need not have been added. r is kept without a
// copy: do not change it in place afterwards. It returns ErrUnknownClient
// if client is not present.
func (a *Accounting) Allocated(client, agent string, r resources.Resources) error {
	return a.changed(a.tree().allocated(client, agent, r))
}

// Unallocated records that client gave back r on agent. It returns
// ErrUnknownClient if client is not present and ErrNotAllocated if client
// does not hold r on agent.
func (a *Accounting) Unallocated(client, agent string, r resources.Resources) error {
	return a.changed(a.tree().unallocated(client, agent, r))
}

// Update replaces old with new in client's allocation on agent; the
// allocation count does not change. It returns ErrUnknownClient if client
// is not present and ErrNotAllocated if client does not hold old on agent.
func (a *Accounting) Update(client, agent string, old, new resources.Resources) error {
	return a.changed(a.tree().update(client, agent, old, new))
}

// Allocation returns client's resources per agent; nil for an unknown
// client or one that holds nothing. The caller must not modify the result,
// which is valid until the client's allocation changes.
func (a *Accounting) Allocation(client string) map[string]resources.Resources {
	return a.tree().allocation(client)
}

// AllocationQuantities returns a copy of the scalar quantities client holds
// summed over agents, a shared volume counted once per agent; zero for an
// unknown client.
func (a *Accounting) AllocationQuantities(client string) resources.Quantities {
	return a.tree().allocationQuantities(client)
}

// AddAgent sets the scalar total agent contributes to the pool, replacing
// any earlier total.
func (a *Accounting) AddAgent(agent string, total resources.Quantities) {
	if a.tree().addAgent(agent, total) {
		a.version++
	}
}

// RemoveAgent removes agent's total from the pool; allocations on it stay
// until unallocated. It returns ErrUnknownAgent if the agent was never
// added or was removed.
func (a *Accounting) RemoveAgent(agent string) error {
	return a.changed(a.tree().removeAgent(agent))
}

// Contains reports whether client has been added and not removed.
func (a *Accounting) Contains(client string) bool {
	_, ok := a.t.leafOf(client)
	return ok
}

// Count returns the number of clients, active or not.
func (a *Accounting) Count() int { return a.t.clientCount() }

// Active reports whether client is present and active.
func (a *Accounting) Active(client string) bool {
	l, ok := a.t.leafOf(client)
	return ok && l.active
}

// AppendActive appends the active clients to dst in path order (string
// order) and returns the extended slice; a Sort reorders that slice. It
// allocates only when dst is too small, and sorts the clients only after a
// client was added, removed, activated or deactivated.
func (a *Accounting) AppendActive(dst []string) []string {
	if !a.activeOK {
		a.active = a.active[:0]
		for l := range a.t.leaves() {
			if l.active {
				a.active = append(a.active, l.client())
			}
		}
		slices.Sort(a.active)
		a.activeOK = true
	}
	return append(dst, a.active...)
}

// AllocationCount returns how many times Allocated was called for client
// (the DRF sorter's second sort key); 0 for an unknown client. It never
// goes down: Unallocated does not lower it, and a client whose children are
// removed keeps their count.
func (a *Accounting) AllocationCount(client string) uint64 {
	if l, ok := a.t.leafOf(client); ok {
		return l.count
	}
	return 0
}

// Quantity returns the amount of the named scalar resource client itself
// holds, summed over agents (a shared volume counted once per agent); 0 for
// an unknown client. It allocates nothing.
func (a *Accounting) Quantity(client, name string) float64 {
	if l, ok := a.t.leafOf(client); ok {
		return l.total.Float64(name)
	}
	return 0
}

// SubtreeQuantity returns the amount of the named scalar resource held by
// the clients at path and below it together, summed over agents; 0 for a
// path with no client at or below it. It allocates nothing.
func (a *Accounting) SubtreeQuantity(path, name string) float64 {
	if n := a.tree().find(path); n != nil {
		return n.total.Float64(name)
	}
	return 0
}

// Weight returns the weight of path: the last UpdateWeight of it, or 1.
func (a *Accounting) Weight(path string) float64 { return a.tree().weightOf(path) }

// Pool returns the sum of the agents' totals. The caller must not modify
// the result, which is valid until the next AddAgent or RemoveAgent.
func (a *Accounting) Pool() resources.Quantities { return a.t.total }

// DominantShare returns the weighted dominant share of the node at path,
// as the DRF sorter computes it (DRF.ShareOf): the largest fraction of the
// pool it holds of any resource not excluded by the Config, divided by the
// weight of path. For a client with children, path is its whole subtree and
// path+"/." the client alone (weight 1). It returns 0 for a path that is
// not in the tree, and allocates nothing.
func (a *Accounting) DominantShare(path string) float64 {
	n := a.tree().find(path)
	if n == nil {
		return 0
	}
	s, _ := a.t.shareOf(n)
	return s
}

// Version returns a number that goes up with every call that changes the
// accounting (a client, an activity, a weight, an allocation, the pool). A
// sorter that keeps its order between Sorts can compare it with the
// version the order was made at.
func (a *Accounting) Version() uint64 { return a.version }
