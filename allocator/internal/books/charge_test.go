package books

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// TestChargeOfCountedQuantities: for resources with nothing reserved,
// revocable or shared (what an offer holds on an agent without them), the
// Charge made from the quantities trackHeld counts is the one load makes
// from the resources; with any of them the two differ, which is why
// trackOffer takes the short way only on such agents.
func TestChargeOfCountedQuantities(t *testing.T) {
	counted := func(res resources.Resources) resources.Quantities {
		var q resources.Quantities
		res.AddUnreservedQuantitiesTo(&q)
		return q
	}
	plain := resources.MustParse("cpus:2;mem:1024;disk:10;gpus:1;ports:[31000-31005]", "*").Allocate("r")
	var fromRes, fromQ Charge
	fromRes.Load(plain)
	fromQ.Q = resources.MustParseQuantities("cpus:9") // storage to reuse
	fromQ.LoadQuantities(counted(plain))
	require.True(t, fromRes.Q.Equal(fromQ.Q), "load %s, loadQuantities %s", fromRes.Q, fromQ.Q)
	require.True(t, fromQ.Shared.IsEmpty())

	reserved := resources.MustParse("cpus(r):2;mem:1024", "*").Allocate("r")
	fromRes.Load(reserved)
	fromQ.LoadQuantities(counted(reserved))
	require.False(t, fromRes.Q.Equal(fromQ.Q), "reserved cpus are charged, not counted as unreserved")
}
