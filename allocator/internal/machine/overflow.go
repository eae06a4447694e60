package machine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/resources"
)

// Every per-name sum the allocator keeps is bounded so that it stays exact:
// the cluster's totals plus what frameworks hold beyond their agents' totals
// (over-allocation, from used resources reported by the host or a total
// that shrank) is at most resources.MaxTotal, and so are the quota
// guarantees of all roles together. Role and framework holdings, sorter
// pools and shares, quota consumption (reservations plus holdings) and
// headroom are all sums of at most two such amounts. The events that could
// pass the bound check it first and fail with cluster.ErrOverflow.

// QuantitiesWithin returns the scalar quantities of res (non-shared only
// when nonShared is set), or cluster.ErrOverflow when a name sums past
// resources.MaxTotal.
func QuantitiesWithin(res resources.Resources, nonShared bool, what string) (resources.Quantities, error) {
	if nonShared && res.HasShared() {
		res = res.NonShared()
	}
	q, ok := res.QuantitiesWithin(resources.MaxTotal)
	if !ok {
		return q, fmt.Errorf("%w: %s holds more than %s of one resource", cluster.ErrOverflow, what, resources.MaxTotal)
	}
	return q, nil
}

// addWithin adds q to sum, or reports cluster.ErrOverflow when a name would pass
// resources.MaxTotal (both are within it, so the addition itself is exact).
func addWithin(sum *resources.Quantities, q resources.Quantities, what string) error {
	next := sum.Plus(q)
	if !next.Within(resources.MaxTotal) {
		return fmt.Errorf("%w: %s hold more than %s of one resource", cluster.ErrOverflow, what, resources.MaxTotal)
	}
	*sum = next
	return nil
}

// usedQuantities sums the non-shared scalars of used resources reported
// for one agent.
func usedQuantities(used map[string]resources.Resources, what string) (resources.Quantities, error) {
	var sum resources.Quantities
	for _, id := range slices.Sorted(maps.Keys(used)) {
		q, err := QuantitiesWithin(used[id], true, what)
		if err != nil {
			return sum, err
		}
		if err := addWithin(&sum, q, what); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// checkGuarantees reports cluster.ErrOverflow if role's guarantees g would take the
// guarantees of all roles together past resources.MaxTotal.
func (m *Machine) checkGuarantees(role string, g resources.Quantities) error {
	sum := g.Clone()
	if !sum.Within(resources.MaxTotal) {
		return fmt.Errorf("%w: the quota guarantees of all roles hold more than %s of one resource", cluster.ErrOverflow, resources.MaxTotal)
	}
	for n := range m.roles.Nodes.All() {
		path := n.Path
		if path != role {
			if err := addWithin(&sum, n.Q().Guarantees, "the quota guarantees of all roles"); err != nil {
				return err
			}
		}
	}
	return nil
}
