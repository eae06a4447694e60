// Package ordered puts resources in the order the example programs print
// them: entries in name order, then in the order of their text, so that the
// same resources always print the same way, in the order Quantities print.
package ordered

import (
	"cmp"
	"slices"
	"strings"

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
