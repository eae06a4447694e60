package sorter

import (
	"slices"
	"strconv"
	"strings"

	"github.com/allot-go/allot/resources"
)

// Share reports where a client stands in a DRF sorter.
type Share struct {
	// Client is the client's path.
	Client string
	// Share is the client's weighted dominant share: the largest fraction
	// of the pool it holds of any resource that counts, divided by Weight.
	// It is what orders the client among its siblings.
	Share float64
	// Dominant is the resource that fraction is of; "" when the pool has no
	// resource that counts.
	Dominant string
	// Weight is the weight of the client's node: 1 for the virtual leaf of
	// a client that has children.
	Weight float64
	// Count is the client's allocation count, the second sort key.
	Count uint64
	// Active reports whether Sort returns the client.
	Active bool
	// Allocation is what the client holds, summed over agents.
	Allocation resources.Quantities
}

// Shares returns every client's share, active or not, in path order.
func (d *DRF) Shares() []Share {
	out := make([]Share, 0, d.t.clientCount())
	for l := range d.t.leaves() {
		s, dom := d.t.shareOf(l)
		out = append(out, Share{
			Client:     l.client(),
			Share:      s,
			Dominant:   dom,
			Weight:     l.weight,
			Count:      l.count,
			Active:     l.active,
			Allocation: l.total.Clone(),
		})
	}
	slices.SortFunc(out, func(a, b Share) int { return strings.Compare(a.Client, b.Client) })
	return out
}

// ShareOf returns the weighted dominant share of the node at path: a
// client without children, an internal node (for a client with children,
// its whole subtree), or with a trailing "/." the virtual leaf of a client
// with children (its own allocation only). It returns 0 for a path that is
// not in the tree. It allocates nothing.
func (d *DRF) ShareOf(path string) float64 {
	n := d.t.find(path)
	if n == nil {
		return 0
	}
	s, _ := d.t.shareOf(n)
	return s
}

// Describe renders the tree as stable text, one node a line in the order
// Sort visits them (idle subtrees last), indented by depth:
//
//	pool cpus:100; mem:100
//	a share=0.06 dominant=cpus weight=1 count=1 alloc={cpus:6; mem:6}
//	b/ share=0.07 dominant=cpus weight=1 count=2 alloc={cpus:7; mem:7}
//	  d share=0.03 dominant=cpus weight=1 count=1 alloc={cpus:3; mem:3}
//	  c share=0.04 dominant=cpus weight=1 count=1 alloc={cpus:4; mem:4} inactive
//
// Internal nodes end in "/", a virtual leaf is ".". Shares are printed with
// six significant digits.
func (d *DRF) Describe() string {
	d.Sort() // settles every order
	var b strings.Builder
	b.WriteString("pool ")
	b.WriteString(d.t.total.String())
	b.WriteByte('\n')
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		n.order.Ascend(func(c *node) bool {
			for range depth {
				b.WriteString("  ")
			}
			b.WriteString(c.name)
			if !c.leaf {
				b.WriteByte('/')
			}
			s, dom := d.t.shareOf(c)
			if dom == "" {
				dom = "-"
			}
			b.WriteString(" share=")
			b.WriteString(strconv.FormatFloat(s, 'g', 6, 64))
			b.WriteString(" dominant=")
			b.WriteString(dom)
			b.WriteString(" weight=")
			b.WriteString(strconv.FormatFloat(c.weight, 'g', -1, 64))
			b.WriteString(" count=")
			b.WriteString(strconv.FormatUint(c.count, 10))
			b.WriteString(" alloc={")
			if !c.total.IsEmpty() {
				b.WriteString(c.total.String())
			}
			b.WriteByte('}')
			if c.leaf && !c.active {
				b.WriteString(" inactive")
			}
			b.WriteByte('\n')
			if !c.leaf {
				walk(c, depth+1)
			}
			return true
		})
	}
	walk(d.t.root, 0)
	return b.String()
}
