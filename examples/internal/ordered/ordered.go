// Package ordered puts resources in the order the example programs print
// them: entries in name order, then in the order of their text, so that the
// same resources always print the same way, in the order Quantities print;
// ByReservation prints them grouped by reservation.
package ordered

import (
	"cmp"
	"slices"
	"strings"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Resources returns rs with its entries in name order, then in the order
// of their text; a shared volume keeps its copies.
func Resources(rs resources.Resources) resources.Resources {
	list := rs.Slice()
	slices.SortStableFunc(list, func(a, b resources.Resource) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.String(), b.String()))
	})
	var out resources.Resources
	for _, r := range list {
		for range max(1, rs.Copies(r)) {
			_ = out.AddResource(r)
		}
	}
	return out
}

// ByReservation prints resources grouped by reservation stack, without
// allocation roles, unreserved first, then the stacks in the order of
// their text: "cpus:1; mem:1024 reserved [(DYNAMIC,db,db-ops)]".
func ByReservation(rs resources.Resources) string {
	rs = rs.Unallocate()
	var stacks []reservation.Stack
	for r := range rs.All() {
		if !slices.ContainsFunc(stacks, r.Reservations.Equal) {
			stacks = append(stacks, r.Reservations)
		}
	}
	slices.SortStableFunc(stacks, func(a, b reservation.Stack) int {
		return cmp.Or(cmp.Compare(min(len(a), 1), min(len(b), 1)), strings.Compare(a.String(), b.String()))
	})
	var parts []string
	for _, s := range stacks {
		group := Resources(rs.Filter(func(r resources.Resource) bool { return r.Reservations.Equal(s) }).ToUnreserved())
		if len(s) == 0 {
			parts = append(parts, group.String()+" unreserved")
		} else {
			parts = append(parts, group.String()+" reserved "+s.String())
		}
	}
	if len(parts) == 0 {
		return "{}"
	}
	return strings.Join(parts, " + ")
}
