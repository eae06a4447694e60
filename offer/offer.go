package offer

import (
	"strconv"
	"strings"
	"time"

	"github.com/allot-go/allot/resources"
)

// Offer is a set of resources on one agent offered to one framework, under
// one of the framework's roles. All resources carry that role as their
// allocation role.
type Offer struct {
	ID          string
	FrameworkID string
	AgentID     string
	Role        string
	Resources   resources.Resources
}

// Unavailability is a maintenance window: the agent is unavailable from
// Start for Duration (zero Duration means indefinitely).
type Unavailability struct {
	Start    time.Time
	Duration time.Duration
}

// InverseOffer asks a framework to give back everything it holds on an agent
// before a maintenance window.
type InverseOffer struct {
	ID             string
	FrameworkID    string
	AgentID        string
	Unavailability Unavailability
}

// IDs hands out offer ids from a counter that the caller owns: unique and
// deterministic, never from a clock or a random source. The zero value starts
// at "o1" (or Prefix + "1").
type IDs struct {
	Prefix string
	last   uint64
}

// Next returns a new id.
func (g *IDs) Next() string {
	g.last++
	p := g.Prefix
	if p == "" {
		p = "o"
	}
	return p + strconv.FormatUint(g.last, 10)
}

// NextN returns n new ids, the same as n calls of Next would, made in two
// allocations whatever n is: the ids are parts of one string, written once
// (its length is known before).
func (g *IDs) NextN(n int) []string {
	if n <= 0 {
		return nil
	}
	p := g.Prefix
	if p == "" {
		p = "o"
	}
	size, v := 0, g.last
	for range n {
		v++
		size += len(p) + decimalDigits(v)
	}
	var b strings.Builder
	b.Grow(size)
	var digits [20]byte
	for range n {
		g.last++
		b.WriteString(p)
		b.Write(strconv.AppendUint(digits[:0], g.last, 10))
	}
	all := b.String()
	out := make([]string, n)
	start, v := 0, g.last-uint64(n)
	for i := range out {
		v++
		end := start + len(p) + decimalDigits(v)
		out[i] = all[start:end]
		start = end
	}
	return out
}

// decimalDigits is the length of v in base 10.
func decimalDigits(v uint64) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// Last returns the number of ids handed out.
func (g *IDs) Last() uint64 { return g.last }
