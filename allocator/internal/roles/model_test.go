package roles

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// The tests of this file drive a Tree and a plain model of it with the
// same random operations and compare the two after each: which roles are in
// the tree, their parents and children, their subtree figures (recomputed
// from what each role was given itself) and the quota arithmetic
// (recomputed from the definitions over the model).

// amounts are quantities as a plain map, in thousandths, positive entries
// only.
type amounts map[string]int64

var resourceNames = []string{"cpus", "mem", "disk"}

func (a amounts) quantities() resources.Quantities {
	var q resources.Quantities
	for name, v := range a {
		if v > 0 {
			q.SetScalar(name, resources.Scalar(v))
		}
	}
	return q
}

func amountsOf(q resources.Quantities) amounts {
	out := amounts{}
	for name, v := range q.All() {
		out[name] = int64(v)
	}
	return out
}

func (a amounts) norm() amounts {
	out := amounts{}
	for name, v := range a {
		if v > 0 {
			out[name] = v
		}
	}
	return out
}

func plus(a, b amounts) amounts {
	out := amounts{}
	for name, v := range a {
		out[name] += v
	}
	for name, v := range b {
		out[name] += v
	}
	return out.norm()
}

// minus is a − b, saturating at zero.
func minus(a, b amounts) amounts {
	out := amounts{}
	for name, v := range a {
		out[name] = max(v-b[name], 0)
	}
	return out.norm()
}

// larger is the larger of a and b, name by name.
func larger(a, b amounts) amounts {
	out := amounts{}
	for name, v := range a {
		out[name] = v
	}
	for name, v := range b {
		out[name] = max(out[name], v)
	}
	return out.norm()
}

func randomAmounts(rng *rand.Rand, most int) amounts {
	out := amounts{}
	for _, name := range resourceNames {
		if rng.IntN(2) == 0 {
			// Mostly whole units, sometimes thousandths.
			v := int64(rng.IntN(most+1)) * 1000
			if rng.IntN(4) == 0 {
				v += int64(rng.IntN(1000))
			}
			out[name] = v
		}
	}
	return out.norm()
}

// part is a random part of a, at most a name by name.
func part(rng *rand.Rand, a amounts) amounts {
	out := amounts{}
	for name, v := range a {
		switch rng.IntN(3) {
		case 0:
		case 1:
			out[name] = v
		default:
			out[name] = rng.Int64N(v + 1)
		}
	}
	return out.norm()
}

// The figures of a node, in the model's order.
const (
	figReserved = iota
	figAllocatedReserved
	figAllocatedUnreserved
	figures
)

func figureOf(n *Node, fig int) resources.Quantities {
	switch fig {
	case figReserved:
		return n.Reserved
	case figAllocatedReserved:
		return n.AllocatedReserved
	}
	return n.AllocatedUnreserved
}

type modelQuota struct {
	guarantees amounts
	limits     map[string]int64 // a name present is limited, to 0 too
}

func (q modelQuota) isZero() bool { return len(q.guarantees) == 0 && len(q.limits) == 0 }

func (q modelQuota) quota() Quota {
	var l resources.Limits
	for name, v := range q.limits {
		l.Set(name, resources.Scalar(v))
	}
	return Quota{Guarantees: q.guarantees.quantities(), Limits: l}
}

// model is the role tree as plain maps.
type model struct {
	present    map[string]bool
	own        [figures]map[string]amounts // what was tracked at the role itself
	frameworks map[string]map[string]bool
	sorter     map[string]bool
	quota      map[string]modelQuota
	weight     map[string]bool
	// sums memoizes subtree; cleared whenever own changes.
	sums map[[2]string]amounts
}

func newModel() *model {
	m := &model{
		present:    map[string]bool{},
		frameworks: map[string]map[string]bool{},
		sorter:     map[string]bool{},
		quota:      map[string]modelQuota{},
		weight:     map[string]bool{},
	}
	for i := range m.own {
		m.own[i] = map[string]amounts{}
	}
	return m
}

// parentOf is the parent path, "" for a top-level role (the root).
func parentOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return ""
}

func within(path, root string) bool {
	return root == "" || path == root || strings.HasPrefix(path, root+"/")
}

func (m *model) ensure(path string) {
	if m.present[path] {
		return
	}
	if p := parentOf(path); p != "" {
		m.ensure(p)
	}
	m.present[path] = true
}

// subtree sums what was tracked at path and below it.
func (m *model) subtree(fig int, path string) amounts {
	key := [2]string{string(rune('0' + fig)), path}
	if out, ok := m.sums[key]; ok {
		return out
	}
	if m.sums == nil {
		m.sums = map[[2]string]amounts{}
	}
	out := m.subtreeOnce(fig, path)
	m.sums[key] = out
	return out
}

func (m *model) subtreeOnce(fig int, path string) amounts {
	out := amounts{}
	for p, a := range m.own[fig] {
		if within(p, path) {
			out = plus(out, a)
		}
	}
	return out
}

func (m *model) children(path string) []string {
	var out []string
	for p := range m.present {
		if parentOf(p) == path {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func (m *model) holds(path string) bool {
	if len(m.children(path)) > 0 || len(m.frameworks[path]) > 0 || m.sorter[path] ||
		!m.quota[path].isZero() || m.weight[path] {
		return true
	}
	for fig := range figures {
		if len(m.subtree(fig, path)) > 0 {
			return true
		}
	}
	return false
}

func (m *model) prune(path string) {
	for path != "" && m.present[path] && !m.holds(path) {
		delete(m.present, path)
		path = parentOf(path)
	}
}

func (m *model) consumed(path string) amounts {
	key := [2]string{"consumed", path}
	if out, ok := m.sums[key]; ok {
		return out
	}
	out := plus(m.subtree(figReserved, path), m.subtree(figAllocatedUnreserved, path))
	m.sums[key] = out // subtree made sums
	return out
}

// unmet is guarantees − consumed, of the role alone.
func (m *model) unmet(path string) amounts {
	return minus(m.quota[path].guarantees, m.consumed(path))
}

// need(r) = max(guarantees(r) − consumed(r), Σ need(children)).
func (m *model) need(path string) amounts {
	sum := amounts{}
	for _, c := range m.children(path) {
		sum = plus(sum, m.need(c))
	}
	return larger(m.unmet(path), sum)
}

func (m *model) requiredHeadroom() amounts {
	out := amounts{}
	for _, c := range m.children("") {
		out = plus(out, m.need(c))
	}
	return out
}

// ancestry is path and its ancestors, nearest first.
func ancestry(path string) []string {
	var out []string
	for ; path != ""; path = parentOf(path) {
		out = append(out, path)
	}
	return out
}

func (m *model) quotaAncestry(path string) []string {
	var out []string
	for _, p := range ancestry(path) {
		if !m.quota[p].isZero() {
			out = append(out, p)
		}
	}
	return out
}

func (m *model) unsatisfied(path string) amounts {
	out := amounts{}
	for _, p := range ancestry(path) {
		out = larger(out, m.unmet(p))
	}
	return out
}

// limitHeadroom is, for every name a limit of path or an ancestor names,
// the least that limit leaves (limit − consumed, saturating at zero).
func (m *model) limitHeadroom(path string) (map[string]int64, bool) {
	out := map[string]int64{}
	limited := false
	for _, p := range ancestry(path) {
		consumed := m.consumed(p)
		for name, lim := range m.quota[p].limits {
			limited = true
			left := max(lim-consumed[name], 0)
			if have, ok := out[name]; !ok || left < have {
				out[name] = left
			}
		}
	}
	return out, limited
}

func limitsOf(l resources.Limits) map[string]int64 {
	out := map[string]int64{}
	for _, name := range l.Names() {
		v, ok := l.Get(name)
		if !ok {
			panic(name)
		}
		out[name] = int64(v)
	}
	return out
}

// same requires got to equal want; it compares before calling require,
// whose bookkeeping costs more than the model.
func same[M ~map[string]int64](t *testing.T, want, got M, msgAndArgs ...any) {
	t.Helper()
	if !maps.Equal(want, got) {
		require.Equal(t, want, got, msgAndArgs...)
	}
}

// checker compares a tree with its model.
type checker struct {
	t       *testing.T
	tree    *Tree
	m       *model
	seed    uint64
	step    int
	epochs  map[*Node]uint64 // every node seen, with its epoch
	handed  map[uint64]bool  // every epoch seen
	maxSeen uint64
	created int // nodes the model says were created
}

func (c *checker) where() []any { return []any{"seed %d step %d", c.seed, c.step} }

func (c *checker) msg(format string, args ...any) []any {
	return append([]any{"seed %d step %d: " + format, c.seed, c.step}, args...)
}

// structure checks the nodes, their links, epochs and figures.
func (c *checker) structure() {
	t, tree, m := c.t, c.tree, c.m
	var want []string
	for p := range m.present {
		want = append(want, p)
	}
	sort.Strings(want)
	got := tree.Nodes.Keys()
	if len(want) == 0 {
		require.Empty(t, got, c.where()...)
	} else {
		require.Equal(t, want, got, c.where()...)
	}
	require.Equal(t, "", tree.Root.Path, c.where()...)
	require.Nil(t, tree.Root.Parent, c.where()...)
	for _, path := range append([]string{""}, want...) {
		n := tree.Root
		if path != "" {
			n = tree.Get(path)
			require.NotNil(t, n, c.msg("%q", path)...)
			require.Equal(t, path, n.Path, c.where()...)
			parent := tree.Root
			if p := parentOf(path); p != "" {
				parent = tree.Get(p)
			}
			require.Same(t, parent, n.Parent, c.msg("parent of %q", path)...)
		}
		var kids []string
		for _, k := range n.Children {
			require.Same(t, tree.Get(k.Path), k, c.msg("child %q of %q", k.Path, path)...)
			kids = append(kids, k.Path)
		}
		wantKids := m.children(path)
		if len(wantKids) == 0 {
			require.Empty(t, kids, c.msg("children of %q", path)...)
		} else {
			require.Equal(t, wantKids, kids, c.msg("children of %q", path)...)
		}
		for fig := range figures {
			var wantFig amounts
			if path == "" {
				wantFig = amounts{} // the root keeps no figures
			} else {
				wantFig = m.subtree(fig, path)
			}
			same(t, wantFig, amountsOf(figureOf(n, fig)), c.msg("figure %d of %q", fig, path)...)
		}
	}
	// Epochs: each node created has one no node had before, and the
	// counter is the last handed out.
	fresh := []uint64{}
	for n := range tree.Nodes.All() {
		if e, ok := c.epochs[n]; ok {
			require.Equal(t, e, n.Epoch, c.msg("epoch of %q changed", n.Path)...)
			continue
		}
		require.False(t, c.handed[n.Epoch], c.msg("epoch %d of %q handed out again", n.Epoch, n.Path)...)
		require.Greater(t, n.Epoch, c.maxSeen, c.msg("epoch of %q", n.Path)...)
		c.epochs[n] = n.Epoch
		c.handed[n.Epoch] = true
		fresh = append(fresh, n.Epoch)
	}
	for _, e := range fresh {
		c.maxSeen = max(c.maxSeen, e)
	}
	require.Equal(t, uint64(c.created), tree.Epochs, c.where()...)
	if c.created > 0 {
		require.Equal(t, c.maxSeen, tree.Epochs, c.where()...)
	}
}

// quota checks the quota arithmetic of every role.
func (c *checker) quota() {
	t, tree, m := c.t, c.tree, c.m
	stale := resources.MustParseQuantities("cpus:77;gpus:5;mem:1")
	got := stale.Clone()
	tree.RequiredHeadroomInto(&got)
	same(t, m.requiredHeadroom(), amountsOf(got), c.msg("required headroom")...)
	same(t, m.requiredHeadroom(), amountsOf(tree.RequiredHeadroom()), c.msg("required headroom")...)
	for path := range m.present {
		n := tree.Get(path)
		same(t, m.consumed(path), amountsOf(n.Consumed()), c.msg("consumed %q", path)...)

		unmet := stale.Clone()
		n.UnmetInto(&unmet)
		same(t, m.unmet(path), amountsOf(unmet), c.msg("unmet %q", path)...)

		same(t, m.unsatisfied(path), amountsOf(tree.UnsatisfiedGuarantees(n)), c.msg("unsatisfied %q", path)...)
		into := stale.Clone()
		tree.UnsatisfiedInto(n, &into)
		same(t, m.unsatisfied(path), amountsOf(into), c.msg("unsatisfied %q", path)...)

		wantLeft, wantLimited := m.limitHeadroom(path)
		left, limited := tree.LimitHeadroom(n)
		require.Equal(t, wantLimited, limited, c.msg("limited %q", path)...)
		if wantLimited {
			// Unlimited, the figure is not one (callers read it only
			// when limited).
			same(t, wantLeft, limitsOf(left), c.msg("limit headroom %q", path)...)
		}

		var anc []string
		for q := range n.QuotaAncestry {
			anc = append(anc, q.Path)
		}
		require.Equal(t, m.quotaAncestry(path), anc, c.msg("quota ancestry %q", path)...)
		if want := m.quotaAncestry(path); len(want) > 0 {
			var first []string
			for q := range n.QuotaAncestry {
				first = append(first, q.Path)
				break
			}
			require.Equal(t, want[:1], first, c.msg("quota ancestry %q stopped", path)...)
		}
		mq := m.quota[path]
		same(t, mq.guarantees.norm(), amountsOf(n.Q().Guarantees), c.msg("guarantees %q", path)...)
		wantLimits := map[string]int64{}
		maps.Copy(wantLimits, mq.limits)
		same(t, wantLimits, limitsOf(n.Q().Limits), c.msg("limits %q", path)...)
		require.Equal(t, mq.isZero(), n.Quota == nil, c.msg("quota pointer %q", path)...)
	}
}

var modelPaths = []string{
	"a", "a/x", "a/x/p", "a/x/q", "a/y", "a/y/r/s",
	"b", "b/z", "c", "c/d/e", "c/d/f", "d", "e/f/g/h",
}

// TestTreeAgainstModel runs random operations on a tree and its model.
func TestTreeAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		runModel(t, seed, 250)
	}
}

func runModel(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	tree := NewTree()
	m := newModel()
	c := &checker{t: t, tree: tree, m: m, seed: seed, epochs: map[*Node]uint64{}, handed: map[uint64]bool{}}
	ensure := func(path string) {
		before := len(m.present)
		m.ensure(path)
		c.created += len(m.present) - before
	}
	randomPath := func() string {
		p := modelPaths[rng.IntN(len(modelPaths))]
		// Sometimes an ancestor of it.
		for rng.IntN(3) == 0 && parentOf(p) != "" {
			p = parentOf(p)
		}
		return p
	}
	presentPath := func() (string, bool) {
		var ps []string
		for p := range m.present {
			ps = append(ps, p)
		}
		if len(ps) == 0 {
			return "", false
		}
		sort.Strings(ps)
		return ps[rng.IntN(len(ps))], true
	}
	// track tracks a at path in figure fig, in the tree and the model.
	track := func(fig int, path string, a amounts, add bool) {
		q := a.quantities()
		if len(a) > 0 {
			ensure(path) // nothing tracked ensures nothing
		}
		switch {
		case fig == figReserved:
			tree.TrackReserved(path, q, add)
		case fig == figAllocatedReserved:
			tree.TrackAllocatedReserved(path, q, add)
		case rng.IntN(2) == 0:
			tree.TrackAllocatedUnreserved(path, q, add)
		default:
			ensure(path)
			tree.TrackAllocatedUnreservedAt(tree.Ensure(path), q, add)
		}
		m.sums = nil
		if add {
			m.own[fig][path] = plus(m.own[fig][path], a)
		} else {
			m.own[fig][path] = minus(m.own[fig][path], a)
		}
		if fig == figReserved && !add {
			m.prune(path) // taking reservations prunes
		}
	}
	for step := range steps {
		c.step = step
		switch op := rng.IntN(20); {
		case op < 6: // track more
			track(rng.IntN(figures), randomPath(), randomAmounts(rng, 4), true)
		case op < 11: // track less, at most what the role itself has
			path, fig := randomPath(), rng.IntN(figures)
			a := amounts{}
			if own := m.own[fig][path]; rng.IntN(4) > 0 {
				a = part(rng, own)
			}
			track(fig, path, a, false)
		case op < 12:
			path := randomPath()
			got := tree.Ensure(path)
			ensure(path)
			require.Equal(t, path, got.Path, c.where()...)
		case op < 14: // frameworks
			if path, ok := presentPath(); ok {
				id := []string{"f1", "f2", "f3"}[rng.IntN(3)]
				n := tree.Get(path)
				if m.frameworks[path] == nil {
					m.frameworks[path] = map[string]bool{}
				}
				if rng.IntN(2) == 0 {
					n.Frameworks.Add(id)
					m.frameworks[path][id] = true
				} else {
					n.Frameworks.Remove(id)
					delete(m.frameworks[path], id)
				}
			}
		case op < 15: // framework sorter
			if path, ok := presentPath(); ok {
				n := tree.Get(path)
				if m.sorter[path] {
					n.FrameworkSorter = nil
				} else {
					n.FrameworkSorter = &TrackedSorter{}
				}
				m.sorter[path] = !m.sorter[path]
			}
		case op < 17: // quota
			if path, ok := presentPath(); ok {
				q := modelQuota{guarantees: amounts{}, limits: map[string]int64{}}
				if rng.IntN(3) > 0 {
					q.guarantees = randomAmounts(rng, 6)
				}
				if rng.IntN(2) == 0 {
					for _, name := range resourceNames {
						if rng.IntN(2) == 0 {
							q.limits[name] = int64(rng.IntN(8)) * 1000
						}
					}
				}
				tree.Get(path).SetQuota(q.quota())
				m.quota[path] = q
			}
		case op < 18: // weights
			if path, ok := presentPath(); ok {
				if m.weight[path] {
					delete(tree.Weights, path)
				} else {
					tree.Weights[path] = 2
				}
				m.weight[path] = !m.weight[path]
			}
		default:
			path := randomPath()
			tree.Prune(path)
			m.prune(path)
		}
		c.structure()
		c.quota()
	}
}

// A node with anything in its subtree is never pruned, whichever the
// thing, and pruning a leaf that holds nothing takes its empty ancestors,
// up to the first that holds something.
func TestPruneKeepsWhatHoldsSomething(t *testing.T) {
	one := resources.MustParseQuantities("cpus:1")
	holds := map[string]func(tree *Tree, n *Node){
		"children":   func(tree *Tree, n *Node) { tree.Ensure(n.Path + "/kid") },
		"framework":  func(_ *Tree, n *Node) { n.Frameworks.Add("f") },
		"frameworks": func(_ *Tree, n *Node) { n.Frameworks.Add("f"); n.Frameworks.Add("g") },
		"sorter":     func(_ *Tree, n *Node) { n.FrameworkSorter = &TrackedSorter{} },
		"guarantee":  func(_ *Tree, n *Node) { n.SetQuota(Quota{Guarantees: one}) },
		"limit":      func(_ *Tree, n *Node) { n.SetQuota(Quota{Limits: resources.MustParseLimits("mem:0")}) },
		"reserved":   func(tree *Tree, n *Node) { tree.TrackReserved(n.Path, one, true) },
		"allocated reserved": func(tree *Tree, n *Node) {
			tree.TrackAllocatedReserved(n.Path, one, true)
		},
		"allocated unreserved": func(tree *Tree, n *Node) {
			tree.TrackAllocatedUnreserved(n.Path, one, true)
		},
		"weight": func(tree *Tree, n *Node) { tree.Weights[n.Path] = 0.5 },
	}
	for what, hold := range holds {
		t.Run(what, func(t *testing.T) {
			tree := NewTree()
			leaf := tree.Ensure("a/b/c")
			tree.Ensure("z")
			hold(tree, tree.Get("a/b"))
			tree.Prune("a/b/c")
			require.Nil(t, tree.Get("a/b/c"), "the empty leaf goes")
			require.NotNil(t, tree.Get("a/b"), "%s keeps it", what)
			require.NotNil(t, tree.Get("a"), "and its ancestors")
			require.NotNil(t, tree.Get("z"))
			require.NotContains(t, tree.Get("a/b").Children, leaf)
			tree.Prune("a/b")
			require.NotNil(t, tree.Get("a/b"), "%s keeps it", what)
			tree.Prune("a")
			require.NotNil(t, tree.Get("a"), "a parent stays")
		})
	}
	tree := NewTree()
	tree.Ensure("a/b/c")
	tree.Ensure("a/d")
	tree.Prune("a/b/c")
	require.Equal(t, []string{"a", "a/d"}, tree.Nodes.Keys())
	require.Len(t, tree.Root.Children, 1)
	require.Len(t, tree.Get("a").Children, 1)
	tree.Prune("a/d")
	require.Empty(t, tree.Nodes.Keys())
	require.Empty(t, tree.Root.Children)
	tree.Prune("")
	tree.Prune("missing/path")
	require.Empty(t, tree.Nodes.Keys())
}

// Taking reservations prunes; taking allocations does not, and a figure
// taken below zero stays at zero in every ancestor.
func TestTrackReservedPrunes(t *testing.T) {
	tree := NewTree()
	q := resources.MustParseQuantities("cpus:2;mem:10")
	tree.TrackReserved("a/b", q, true)
	require.Equal(t, amounts{"cpus": 2000, "mem": 10000}, amountsOf(tree.Get("a").Reserved))
	tree.TrackReserved("a/b", resources.MustParseQuantities("cpus:2"), false)
	require.Equal(t, amounts{"mem": 10000}, amountsOf(tree.Get("a").Reserved))
	require.NotNil(t, tree.Get("a/b"))
	tree.TrackReserved("a/b", resources.MustParseQuantities("mem:10"), false)
	require.Nil(t, tree.Get("a/b"))
	require.Nil(t, tree.Get("a"))

	tree.TrackAllocatedUnreserved("c/d", q, true)
	tree.TrackAllocatedUnreserved("c/d", q, false)
	require.NotNil(t, tree.Get("c/d"), "only reservations prune")
	require.True(t, tree.Get("c").AllocatedUnreserved.IsEmpty())

	tree.TrackAllocatedReserved("c/d", q, true)
	tree.TrackAllocatedReserved("c/d", resources.MustParseQuantities("cpus:5;mem:1"), false)
	require.Equal(t, amounts{"mem": 9000}, amountsOf(tree.Get("c/d").AllocatedReserved))
	require.Equal(t, amounts{"mem": 9000}, amountsOf(tree.Get("c").AllocatedReserved))

	// Nothing tracked ensures nothing.
	tree.TrackReserved("x/y", resources.Quantities{}, true)
	tree.TrackAllocatedReserved("x/y", resources.Quantities{}, true)
	tree.TrackAllocatedUnreserved("x/y", resources.Quantities{}, true)
	require.Nil(t, tree.Get("x"))
	require.True(t, tree.Root.Reserved.IsEmpty() && tree.Root.AllocatedUnreserved.IsEmpty() && tree.Root.AllocatedReserved.IsEmpty())
}

// Epochs come from a counter: each is the one after the last.
func TestNewEpochCounts(t *testing.T) {
	tree := NewTree()
	require.Equal(t, uint64(0), tree.Epochs)
	for want := uint64(1); want <= 5; want++ {
		require.Equal(t, want, tree.NewEpoch())
		require.Equal(t, want, tree.Epochs)
	}
	a := tree.Ensure("a/b")
	require.Equal(t, uint64(7), a.Epoch, "a/b comes after its parent a")
	require.Equal(t, uint64(6), tree.Get("a").Epoch)
	require.Same(t, a, tree.Ensure("a/b"), "an existing node is kept")
	require.Equal(t, uint64(7), tree.Epochs)
}

// A zero quota is none; a role without one reads the zero quota.
func TestQuotaOfARole(t *testing.T) {
	tree := NewTree()
	n := tree.Ensure("a")
	require.Nil(t, n.Quota)
	require.True(t, n.Q().IsZero())
	require.Same(t, &NoQuota, n.Q())
	q := Quota{Guarantees: resources.MustParseQuantities("cpus:1")}
	n.SetQuota(q)
	require.NotNil(t, n.Quota)
	require.NotSame(t, &NoQuota, n.Q())
	require.True(t, n.Q().Guarantees.Equal(q.Guarantees))
	n.SetQuota(Quota{Limits: resources.MustParseLimits("cpus:0")})
	require.True(t, n.Q().Guarantees.IsEmpty())
	require.False(t, n.Q().IsZero(), "a zero limit is a limit")
	n.SetQuota(Quota{})
	require.Nil(t, n.Quota)
	require.True(t, NoQuota.IsZero())
}

// QuotaAncestry stops at the root, and at a detached node's top.
func TestQuotaAncestryOfADetachedNode(t *testing.T) {
	n := &Node{Path: "x", Quota: &Quota{Guarantees: resources.MustParseQuantities("cpus:1")}}
	var got []*Node
	for q := range n.QuotaAncestry {
		got = append(got, q)
	}
	require.Equal(t, []*Node{n}, got)
	var none *Node
	for range none.QuotaAncestry {
		t.Fatal("a nil node has no ancestry")
	}
}

// The figures hold exact sums at every depth with many roles and large
// amounts.
func TestSubtreeSumsDeep(t *testing.T) {
	tree := NewTree()
	want := map[string]int64{}
	paths := []string{}
	for i := range 6 {
		p := "r"
		for j := range i + 1 {
			p += "/" + string(rune('a'+j))
		}
		paths = append(paths, p)
	}
	for i, p := range paths {
		v := int64(math.MaxInt32) + int64(i)
		tree.TrackReserved(p, amounts{"mem": v}.quantities(), true)
		for _, a := range ancestry(p) {
			want[a] += v
		}
	}
	for p, v := range want {
		require.Equal(t, amounts{"mem": v}, amountsOf(tree.Get(p).Reserved), p)
	}
	keys := tree.Nodes.Keys()
	require.True(t, slices.IsSorted(keys))
	require.Len(t, keys, len(want))
}
