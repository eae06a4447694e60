package sorter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/resources"
)

// refSorter is the dumb reference the DRF sorter is checked against: it
// keeps only the clients' allocations and recomputes every share and the
// whole order from scratch on each Sort. The only state it tracks besides
// the clients is the allocation count of every tree node, whose lifetime
// follows the tree's: a node keeps its count while its path stays in the
// tree (as a leaf or an internal node), a new virtual leaf "p/." starts
// from the count of the leaf p it replaces, and every other new node
// starts from zero.
type refSorter struct {
	excluded resources.NameSet
	clients  map[string]*refClient
	weights  map[string]float64
	agents   map[string]resources.Quantities
	counts   map[string]uint64 // node path -> allocation count
}

type refClient struct {
	active bool
	alloc  map[string]resources.Resources
}

func newRef(excluded resources.NameSet) *refSorter {
	return &refSorter{
		excluded: excluded,
		clients:  map[string]*refClient{},
		weights:  map[string]float64{},
		agents:   map[string]resources.Quantities{},
		counts:   map[string]uint64{},
	}
}

// internal reports whether path is a proper prefix of a client's path.
func (r *refSorter) internal(path string) bool {
	for c := range r.clients {
		if strings.HasPrefix(c, path+"/") {
			return true
		}
	}
	return false
}

// leafPath is the path of client's leaf: the client's own path, or the
// virtual leaf below it when it has children.
func (r *refSorter) leafPath(client string) string {
	if r.internal(client) {
		return client + "/."
	}
	return client
}

// nodes returns the paths of every node of the tree the clients imply,
// each with whether it is a leaf.
func (r *refSorter) nodes() map[string]bool {
	out := map[string]bool{}
	for c := range r.clients {
		out[r.leafPath(c)] = true
		for i := range len(c) {
			if c[i] == '/' {
				out[c[:i]] = false
			}
		}
		if r.internal(c) {
			out[c] = false
		}
	}
	return out
}

// reshape carries the counts over a change of the tree.
func (r *refSorter) reshape(before map[string]bool) {
	after := r.nodes()
	for p := range r.counts {
		if _, ok := after[p]; !ok {
			delete(r.counts, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; ok {
			continue
		}
		if parent, ok := strings.CutSuffix(p, "/."); ok && before[parent] {
			r.counts[p] = r.counts[parent]
		} else {
			r.counts[p] = 0
		}
	}
}

func (r *refSorter) Add(client string) error {
	if !validPath(client) {
		return ErrInvalidClient
	}
	if r.clients[client] != nil {
		return ErrDuplicateClient
	}
	before := r.nodes()
	r.clients[client] = &refClient{alloc: map[string]resources.Resources{}}
	r.reshape(before)
	return nil
}

func (r *refSorter) Remove(client string) error {
	if r.clients[client] == nil {
		return ErrUnknownClient
	}
	before := r.nodes()
	delete(r.clients, client)
	r.reshape(before)
	return nil
}

func (r *refSorter) setActive(client string, active bool) error {
	c := r.clients[client]
	if c == nil {
		return ErrUnknownClient
	}
	c.active = active
	return nil
}

func (r *refSorter) UpdateWeight(path string, w float64) error {
	if !validPath(path) {
		return ErrInvalidClient
	}
	if ValidateWeight(w) != nil {
		return ErrInvalidWeight
	}
	r.weights[path] = w
	return nil
}

func (r *refSorter) Allocated(client, agent string, res resources.Resources) error {
	c := r.clients[client]
	if c == nil {
		return ErrUnknownClient
	}
	if !res.IsEmpty() {
		c.alloc[agent] = c.alloc[agent].Plus(res)
	}
	leaf := r.leafPath(client)
	r.counts[leaf]++
	for i := range len(leaf) {
		if leaf[i] == '/' {
			r.counts[leaf[:i]]++
		}
	}
	return nil
}

func (r *refSorter) Unallocated(client, agent string, res resources.Resources) error {
	c := r.clients[client]
	if c == nil {
		return ErrUnknownClient
	}
	if !c.alloc[agent].Contains(res) {
		return ErrNotAllocated
	}
	c.alloc[agent] = c.alloc[agent].Minus(res)
	if c.alloc[agent].IsEmpty() {
		delete(c.alloc, agent)
	}
	return nil
}

func (r *refSorter) Update(client, agent string, old, new resources.Resources) error {
	c := r.clients[client]
	if c == nil {
		return ErrUnknownClient
	}
	if !c.alloc[agent].Contains(old) {
		return ErrNotAllocated
	}
	c.alloc[agent] = c.alloc[agent].Minus(old).Plus(new)
	if c.alloc[agent].IsEmpty() {
		delete(c.alloc, agent)
	}
	return nil
}

func (r *refSorter) AddAgent(agent string, total resources.Quantities) {
	r.agents[agent] = total.Clone()
}

func (r *refSorter) RemoveAgent(agent string) error {
	if _, ok := r.agents[agent]; !ok {
		return ErrUnknownAgent
	}
	delete(r.agents, agent)
	return nil
}

// members returns the clients in the subtree of node path p.
func (r *refSorter) members(p string) []string {
	if client, ok := strings.CutSuffix(p, "/."); ok {
		return []string{client}
	}
	var out []string
	for c := range r.clients {
		if c == p || strings.HasPrefix(c, p+"/") {
			out = append(out, c)
		}
	}
	return out
}

// quantities sums the allocation of a set of clients: per agent, the
// multiset union (in which a shared volume counts once), then over agents.
func (r *refSorter) quantities(clients []string) resources.Quantities {
	perAgent := map[string]resources.Resources{}
	for _, c := range clients {
		for a, res := range r.clients[c].alloc {
			perAgent[a] = perAgent[a].Plus(res)
		}
	}
	var q resources.Quantities
	for _, res := range perAgent {
		q.Add(res.Quantities())
	}
	return q
}

func (r *refSorter) pool() resources.Quantities {
	var q resources.Quantities
	for _, t := range r.agents {
		q.Add(t)
	}
	return q
}

func (r *refSorter) share(p string) float64 {
	s, _ := r.quantities(r.members(p)).DominantShare(r.pool(), r.excluded)
	w, ok := r.weights[p]
	if !ok {
		w = 1
	}
	return s / w
}

func (r *refSorter) Sort() []string {
	nodes := r.nodes()
	var out []string
	var visit func(parent string)
	visit = func(parent string) {
		type kid struct {
			path  string
			share float64
			count uint64
		}
		var kids []kid
		for p := range nodes {
			up, _, _ := cutLast(p)
			if up != parent {
				continue
			}
			active := false
			for _, c := range r.members(p) {
				active = active || r.clients[c].active
			}
			if active {
				kids = append(kids, kid{p, r.share(p), r.counts[p]})
			}
		}
		slices.SortFunc(kids, func(a, b kid) int {
			switch {
			case a.share != b.share:
				if a.share < b.share {
					return -1
				}
				return 1
			case a.count != b.count:
				if a.count < b.count {
					return -1
				}
				return 1
			}
			return strings.Compare(a.path, b.path)
		})
		for _, k := range kids {
			if client, ok := strings.CutSuffix(k.path, "/."); ok {
				out = append(out, client)
			} else if r.clients[k.path] != nil && !r.internal(k.path) {
				out = append(out, k.path)
			} else {
				visit(k.path)
			}
		}
	}
	visit("")
	return out
}

// cutLast splits a node path into its parent's path and its last
// component.
func cutLast(p string) (string, string, bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p, false
	}
	return p[:i], p[i+1:], true
}

// The event vocabulary of the model test. Paths include prefixes of other
// paths, so clients turn into virtual leaves and back.
var (
	modelPaths = []string{"a", "b", "a/b", "a/c", "a/b/c", "b/d", "e/f", "e/f/g", "a//b"}
	modelRes   = []string{
		"cpus:1", "mem:2", "cpus:2;mem:1", "cpus:0.5;disk:3", "gpus:1",
		"cpus:3;ports:[1-5]", "disk(role1)[id:v,path:p]<SHARED>:4",
		"cpus:1;disk(role1)[id:v,path:p]<SHARED>:4", "mem:0.001", "{}",
	}
	modelTotals = []string{"cpus:10;mem:10;disk:10", "cpus:4;mem:20", "cpus:7", "mem:3;disk:100;gpus:2", ""}
	modelAgents = []string{"s1", "s2", "s3"}
	modelWeight = []float64{1, 2, 0.5, 3, 1.5, 0, -1}
)

type modelOp uint64

func (op modelOp) pick(n, shift int) int { return int((uint64(op) >> shift) % uint64(n)) }

func (op modelOp) String() string {
	p := modelPaths[op.pick(len(modelPaths), 8)]
	a := modelAgents[op.pick(len(modelAgents), 16)]
	res := modelRes[op.pick(len(modelRes), 24)]
	res2 := modelRes[op.pick(len(modelRes), 32)]
	switch op % 11 {
	case 0:
		return "Add(" + p + ")"
	case 1:
		return "Remove(" + p + ")"
	case 2:
		return "Activate(" + p + ")"
	case 3:
		return "Deactivate(" + p + ")"
	case 4, 5:
		return fmt.Sprintf("Allocated(%s, %s, %s)", p, a, res)
	case 6:
		return fmt.Sprintf("Unallocated(%s, %s, %s)", p, a, res)
	case 7:
		return fmt.Sprintf("UpdateWeight(%s, %v)", p, modelWeight[op.pick(len(modelWeight), 40)])
	case 8:
		return fmt.Sprintf("AddAgent(%s, %s)", a, modelTotals[op.pick(len(modelTotals), 24)])
	case 9:
		return "RemoveAgent(" + a + ")"
	default:
		return fmt.Sprintf("Update(%s, %s, %s, %s)", p, a, res, res2)
	}
}

// apply applies op to the DRF sorter and the reference and reports any
// difference in their answers.
func (op modelOp) apply(d *DRF, r *refSorter) error {
	p := modelPaths[op.pick(len(modelPaths), 8)]
	a := modelAgents[op.pick(len(modelAgents), 16)]
	res := resources.MustParse(modelRes[op.pick(len(modelRes), 24)], "")
	res2 := resources.MustParse(modelRes[op.pick(len(modelRes), 32)], "")
	var got, want error
	switch op % 11 {
	case 0:
		got, want = d.Add(p), r.Add(p)
	case 1:
		got, want = d.Remove(p), r.Remove(p)
	case 2:
		got, want = d.Activate(p), r.setActive(p, true)
	case 3:
		got, want = d.Deactivate(p), r.setActive(p, false)
	case 4, 5:
		got, want = d.Allocated(p, a, res), r.Allocated(p, a, res)
	case 6:
		got, want = d.Unallocated(p, a, res), r.Unallocated(p, a, res)
	case 7:
		w := modelWeight[op.pick(len(modelWeight), 40)]
		got, want = d.UpdateWeight(p, w), r.UpdateWeight(p, w)
	case 8:
		q := resources.MustParseQuantities(modelTotals[op.pick(len(modelTotals), 24)])
		d.AddAgent(a, q)
		r.AddAgent(a, q)
	case 9:
		got, want = d.RemoveAgent(a), r.RemoveAgent(a)
	default:
		got, want = d.Update(p, a, res, res2), r.Update(p, a, res, res2)
	}
	if (got == nil) != (want == nil) || (want != nil && !errors.Is(got, want)) {
		return fmt.Errorf("error %v, reference %v", got, want)
	}
	return nil
}

// compare checks everything the DRF sorter shows against the reference.
func compare(d *DRF, r *refSorter) error {
	if got, want := d.Sort(), r.Sort(); !slices.Equal(got, want) {
		return fmt.Errorf("Sort() = %q, reference %q", got, want)
	}
	if d.Count() != len(r.clients) {
		return fmt.Errorf("Count() = %d, reference %d", d.Count(), len(r.clients))
	}
	for _, p := range modelPaths {
		if d.Contains(p) != (r.clients[p] != nil) {
			return fmt.Errorf("Contains(%s) = %v", p, d.Contains(p))
		}
		if r.clients[p] == nil {
			continue
		}
		if got, want := d.AllocationQuantities(p), r.quantities([]string{p}); !got.Equal(want) {
			return fmt.Errorf("AllocationQuantities(%s) = %s, reference %s", p, got, want)
		}
	}
	for p := range r.nodes() {
		if got, want := d.ShareOf(p), r.share(p); got != want {
			return fmt.Errorf("ShareOf(%s) = %v, reference %v", p, got, want)
		}
		if n := d.t.find(p); n == nil || n.count != r.counts[p] {
			return fmt.Errorf("node %s: %+v, reference count %d", p, n, r.counts[p])
		}
	}
	return checkTree(&d.t)
}

// checkTree checks the tree's structural invariants.
func checkTree(t *tree) error {
	nodes := 0
	var walk func(n *node) error
	walk = func(n *node) error {
		if n.order.Len() != n.kids.len() {
			return fmt.Errorf("%q: %d children ordered, %d present", n.path, n.order.Len(), n.kids.len())
		}
		active := 0
		for name, c := range n.kids.all() {
			nodes++
			if c.name != name || c.parent != n || c.dead {
				return fmt.Errorf("%q: child %q misfiled", n.path, name)
			}
			if !n.order.Has(c) {
				return fmt.Errorf("%q: child %q not found under its key", n.path, name)
			}
			if c.leaf {
				if t.leaf(c.client()) != c {
					return fmt.Errorf("leaf %q is not client %q's", c.path, c.client())
				}
				if c.active {
					active++
				}
				continue
			}
			if c.kids.len() == 0 {
				return fmt.Errorf("internal node %q has no children", c.path)
			}
			if v := c.kids.get(virtualName); v != nil && c.kids.len() == 1 {
				return fmt.Errorf("internal node %q holds only its virtual leaf", c.path)
			}
			if err := walk(c); err != nil {
				return err
			}
			active += int(c.activeLeaves)
		}
		if n.leaf == false && int(n.activeLeaves) != active {
			return fmt.Errorf("%q: %d active leaves counted, %d below", n.path, n.activeLeaves, active)
		}
		return nil
	}
	if err := walk(t.root); err != nil {
		return err
	}
	var agents []*agent
	t.agents.all(func(a *agent) { agents = append(agents, a) })
	if len(agents) != t.agents.len() {
		return fmt.Errorf("%d agents indexed, %d counted", len(agents), t.agents.len())
	}
	for _, a := range agents {
		name := a.name
		if t.agents.get(name) != a {
			return fmt.Errorf("agent %q not found by name", name)
		}
		if !a.added && len(a.holders) == 0 {
			return fmt.Errorf("agent %q kept with nothing", name)
		}
		if a.index != nil && len(a.index) != len(a.holders) {
			return fmt.Errorf("agent %q: %d holders, %d indexed", name, len(a.holders), len(a.index))
		}
		for i, h := range a.holders {
			if h.leaf.dead || h.at >= len(h.leaf.held) || h.leaf.held[h.at] != a || t.leaf(h.leaf.client()) != h.leaf {
				return fmt.Errorf("agent %q: holding %d of %q misfiled", name, i, h.leaf.client())
			}
			if a.index != nil && a.index[h.leaf] != i {
				return fmt.Errorf("agent %q: holding %d of %q indexed at %d", name, i, h.leaf.client(), a.index[h.leaf])
			}
			if h.res.IsEmpty() {
				return fmt.Errorf("agent %q: empty holding of %q", name, h.leaf.client())
			}
		}
	}
	if nodes != t.nodes {
		return fmt.Errorf("%d nodes counted, %d found", t.nodes, nodes)
	}
	return nil
}

// TestPropertyMatchesReference runs random event sequences through the
// incremental DRF sorter and the reference, comparing every answer after
// every event.
func TestPropertyMatchesReference(t *testing.T) {
	properties := gopter.NewProperties(parameters(t, 300))
	properties.Property("DRF = reference", prop.ForAll(
		func(excludeGPUs bool, ops []uint64) (bool, error) {
			var excluded resources.NameSet
			if excludeGPUs {
				excluded = resources.NewNameSet("gpus")
			}
			d, r := NewDRF(Config{FairnessExcluded: excluded}), newRef(excluded)
			for i, x := range ops {
				op := modelOp(x)
				if err := op.apply(d, r); err != nil {
					return false, fmt.Errorf("event %d %s: %w", i, op, err)
				}
				// Compare after most events, and sometimes let several
				// pile up before the next Sort.
				if x%5 != 0 || i == len(ops)-1 {
					if err := compare(d, r); err != nil {
						return false, fmt.Errorf("after event %d %s: %w\n%s", i, op, err, d.Describe())
					}
				}
			}
			return true, nil
		},
		gen.Bool(),
		gen.SliceOf(gen.UInt64()),
	))
	properties.TestingRun(t)
}

// FuzzReference decodes the input into events (eight bytes each) and runs
// them through the DRF sorter and the reference, as the property test does.
func FuzzReference(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("add a, a/b and b; activate; allocate shared volumes; remove agents; reweight"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, r := NewDRF(Config{}), newRef(resources.NameSet{})
		for i := 0; i+8 <= len(data); i += 8 {
			var x uint64
			for _, b := range data[i : i+8] {
				x = x<<8 | uint64(b)
			}
			op := modelOp(x)
			if err := op.apply(d, r); err != nil {
				t.Fatalf("event %d %s: %v", i/8, op, err)
			}
			if err := compare(d, r); err != nil {
				t.Fatalf("after event %d %s: %v\n%s", i/8, op, err, d.Describe())
			}
		}
	})
}
