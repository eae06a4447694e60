package sorter

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/allot-go/allot/resources"
)

// Random is the weighted random sorter: every Sort returns the active
// clients in a fresh random order in which a client comes early with a
// probability that grows with its weight, level by level of the client tree.
// It keeps allocations only to answer Allocation and AllocationQuantities,
// and ignores agent totals and fairness exclusions.
//
// A client's relative weight is the product, from the root down, of each
// node's weight divided by the sum of the weights of its siblings that have
// an active client below them (itself included). Sort draws a key E/w per
// client, E exponentially distributed, and orders by ascending key: the
// Efraimidis–Spirakis weighted shuffle, in which the first client is client
// i with probability w_i / Σ w, the second is drawn the same way from the
// rest, and so on. Unlike the DRF sorter, subtrees are not kept together.
//
// The randomness comes from a PCG source seeded from Config.Seed: the same
// seed and the same calls give the same orders.
//
// A Random is not safe for concurrent use.
type Random struct {
	t   tree
	rng *rand.Rand
	pcg *rand.PCG // rng's source, kept to save and restore its state

	valid  bool      // leaves and rel are up to date
	leaves []*node   // active leaves, in tree order
	rel    []float64 // their relative weights
	keys   []drawn
	sorted []string
}

type drawn struct {
	key float64
	i   int
}

var _ Sorter = (*Random)(nil)

// NewRandom returns an empty random sorter seeded from cfg.Seed.
// cfg.FairnessExcluded is not used.
func NewRandom(cfg Config) *Random {
	seed := uint64(cfg.Seed)
	pcg := rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	r := &Random{
		t:   newTree(false, cfg.FairnessExcluded),
		rng: rand.New(pcg),
		pcg: pcg,
	}
	r.t.bind()
	return r
}

// Add adds an inactive client with no allocation. It returns
// ErrInvalidClient for a malformed path and ErrDuplicateClient if client is
// already present.
func (r *Random) Add(client string) error { return r.changed(r.t.add(client)) }

// Remove removes a client and its allocation. It returns ErrUnknownClient if
// client is not present.
func (r *Random) Remove(client string) error { return r.changed(r.t.remove(client)) }

// Activate makes client eligible for Sort. It returns ErrUnknownClient if
// client is not present.
func (r *Random) Activate(client string) error {
	return r.changed(r.t.setActive(client, true))
}

// Deactivate hides client from Sort, keeping its allocation. It returns
// ErrUnknownClient if client is not present.
func (r *Random) Deactivate(client string) error {
	return r.changed(r.t.setActive(client, false))
}

// UpdateWeight sets the weight of the node at path, which need not exist
// yet. It returns ErrInvalidClient for a malformed path and
// ErrInvalidWeight for a weight that is not a finite number above zero.
func (r *Random) UpdateWeight(path string, weight float64) error {
	return r.changed(r.t.updateWeight(path, weight))
}

// Allocated records that res on agent was given to client. The sorter keeps
// res without copying it: do not change res in place afterwards. It returns
// ErrUnknownClient if client is not present.
func (r *Random) Allocated(client, agent string, res resources.Resources) error {
	return r.t.allocated(client, agent, res)
}

// Unallocated records that client gave back res on agent. It returns
// ErrUnknownClient if client is not present and ErrNotAllocated if client
// does not hold res on agent.
func (r *Random) Unallocated(client, agent string, res resources.Resources) error {
	return r.t.unallocated(client, agent, res)
}

// Update replaces old with new in client's allocation on agent. It returns
// ErrUnknownClient if client is not present and ErrNotAllocated if client
// does not hold old on agent.
func (r *Random) Update(client, agent string, old, new resources.Resources) error {
	return r.t.update(client, agent, old, new)
}

// Allocation returns client's resources per agent; nil for an unknown
// client or one that holds nothing. The caller must not modify the result,
// which is valid until the client's allocation changes.
func (r *Random) Allocation(client string) map[string]resources.Resources {
	return r.t.allocation(client)
}

// AllocationQuantities returns the scalar quantities client holds summed
// over agents, a shared volume counted once per agent; zero for an unknown
// client.
func (r *Random) AllocationQuantities(client string) resources.Quantities {
	return r.t.allocationQuantities(client)
}

// AddAgent records agent's total; the random sorter does not use it.
func (r *Random) AddAgent(agent string, total resources.Quantities) { r.t.addAgent(agent, total) }

// RemoveAgent forgets agent's total. It returns ErrUnknownAgent if the agent
// was never added or was removed.
func (r *Random) RemoveAgent(agent string) error { return r.t.removeAgent(agent) }

// Sort returns the active clients in a fresh weighted random order. The
// caller must not modify the result; it is valid until the next call.
func (r *Random) Sort() []string {
	if !r.valid {
		r.leaves = r.leaves[:0]
		r.rel = r.rel[:0]
		r.collect(r.t.root, 1)
		r.valid = true
	}
	r.keys = r.keys[:0]
	for i, w := range r.rel {
		r.keys = append(r.keys, drawn{key: r.rng.ExpFloat64() / w, i: i})
	}
	slices.SortFunc(r.keys, func(a, b drawn) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	r.sorted = r.sorted[:0]
	for _, k := range r.keys {
		r.sorted = append(r.sorted, r.leaves[k.i].client())
	}
	return r.sorted
}

// collect appends the active leaves below n with their relative weights;
// rel is n's own. Weights are divided by the largest among the siblings
// before summing, so that huge weights cannot overflow the sum.
func (r *Random) collect(n *node, rel float64) {
	top, sum := 0.0, 0.0
	n.order.Ascend(func(c *node) bool {
		if c.activeLeaves > 0 {
			top = max(top, c.weight)
		}
		return true
	})
	n.order.Ascend(func(c *node) bool {
		if c.activeLeaves > 0 {
			sum += c.weight / top
		}
		return true
	})
	n.order.Ascend(func(c *node) bool {
		if c.activeLeaves == 0 {
			return true
		}
		w := rel * (c.weight / top / sum)
		if c.leaf {
			r.leaves = append(r.leaves, c)
			r.rel = append(r.rel, w)
		} else {
			r.collect(c, w)
		}
		return true
	})
}

// Contains reports whether client has been added and not removed.
func (r *Random) Contains(client string) bool {
	_, ok := r.t.leafOf(client)
	return ok
}

// Count returns the number of clients, active or not.
func (r *Random) Count() int { return r.t.clientCount() }

func (r *Random) changed(err error) error {
	if err == nil {
		r.valid = false
	}
	return err
}
