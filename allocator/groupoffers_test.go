package allocator

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// TestGroupOffersOrder checks the order of a run's result: by framework,
// then role, then the agents' ranks, whatever order the offers were made
// in (stage one's, then stage two's, each in rank order), with ids handed
// out in that order and each offer noted outstanding on its agent.
func TestGroupOffersOrder(t *testing.T) {
	a, err := New(Options{Seed: 1})
	require.NoError(t, err)
	agents := map[string]*agent{}
	for i, id := range []string{"a0", "a1", "a2", "a3"} {
		agents[id] = &agent{id: id, rank: i}
	}
	res := resources.MustParse("cpus:1", "*")
	made := []struct{ fw, role, agent string }{
		// stage one
		{"f2", "r", "a1"}, {"f1", "q", "a2"}, {"f2", "r", "a3"},
		// stage two
		{"f2", "r", "a0"}, {"f1", "q", "a0"}, {"f2", "p", "a2"}, {"f1", "q", "a1"},
	}
	var records []offerRecord
	for _, m := range made {
		ag := agents[m.agent]
		records = append(records, offerRecord{key: offerKey{m.fw, m.role, m.agent}, res: res.Allocate(m.role), ag: ag, rank: ag.rank})
	}
	out := a.groupOffers(records)
	var got []string
	for i, o := range out {
		got = append(got, fmt.Sprintf("%s %s %s", o.FrameworkID, o.Role, o.AgentID))
		require.Equal(t, fmt.Sprintf("offer-%d", i+1), o.ID, "ids in output order")
		outstanding := map[string]string{}
		for _, oo := range agents[o.AgentID].outstanding {
			outstanding[oo.id] = oo.framework + " " + oo.role
		}
		require.Equal(t, o.FrameworkID+" "+o.Role, outstanding[o.ID], "%s noted outstanding on %s", o.ID, o.AgentID)
	}
	require.Equal(t, []string{
		"f1 q a0", "f1 q a1", "f1 q a2",
		"f2 p a2",
		"f2 r a0", "f2 r a1", "f2 r a3",
	}, got)
}
