package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/offer"
)

// maintenanceWorld: f1 and f2 hold resources on a1 and a2, both under
// maintenance, and each has answered an inverse offer for both agents
// with a filter.
func maintenanceWorld(t *testing.T) *world {
	w := newWorld(t)
	w.agent("a1", "cpus:2;mem:2048")
	w.agent("a2", "cpus:2;mem:2048")
	w.framework("f1", 0, "r")
	w.framework("f2", 0, "q")
	for _, ag := range []string{"a1", "a2"} {
		w.ok(w.m.UpdateUnavailability(ag, &offer.Unavailability{Start: t0.Add(time.Hour), Duration: time.Hour}))
	}
	refuse := time.Minute
	for _, fw := range []string{"f1", "f2"} {
		for _, ag := range []string{"a1", "a2"} {
			w.ok(w.m.UpdateInverseOffer(ag, fw, cluster.InverseAccepted, &refuse))
		}
	}
	w.clearPending()
	return w
}

// UpdateUnavailability refuses an unknown agent; it sets the agent's
// window (a copy of it) or clears it, forgets every inverse offer and
// inverse-offer filter of that agent (of no other), and makes it wait for
// a run.
func TestUpdateUnavailability(t *testing.T) {
	w := maintenanceWorld(t)
	w.refuses(cluster.ErrUnknownAgent, func() error { return w.m.UpdateUnavailability("a9", nil) })
	u := offer.Unavailability{Start: t0.Add(2 * time.Hour), Duration: time.Minute}
	w.ok(w.m.UpdateUnavailability("a1", &u))
	u.Duration = time.Hour
	a1 := w.cs.Agents.Get("a1")
	require.Equal(t, &offer.Unavailability{Start: t0.Add(2 * time.Hour), Duration: time.Minute}, a1.Info.Unavailability)
	require.Empty(t, a1.Inverse())
	require.Len(t, w.cs.Agents.Get("a2").Inverse(), 2)
	for _, fw := range []string{"f1", "f2"} {
		filters := w.cs.Frameworks.Get(fw).InverseFilters
		require.NotContains(t, filters, "a1")
		require.Contains(t, filters, "a2")
	}
	require.Equal(t, "a1", w.pending())
	w.ok(w.m.UpdateUnavailability("a1", nil))
	require.Nil(t, a1.Info.Unavailability)
}

// UpdateInverseOffer refuses an unknown agent or framework and a status
// other than accepted or declined; it records the answer, ends the
// outstanding inverse offer, and keeps a filter for a positive duration
// (at least one allocation interval) only.
func TestUpdateInverseOffer(t *testing.T) {
	w := newWorld(t)
	w.agent("a1", "cpus:2;mem:2048")
	w.agent("a2", "cpus:2;mem:2048")
	w.framework("f1", 0, "r")
	w.ok(w.m.UpdateUnavailability("a1", &offer.Unavailability{Start: t0.Add(time.Hour), Duration: time.Hour}))
	res := w.engine.Triggered(true)
	require.Len(t, res.InverseOffers, 1)
	ag := w.cs.Agents.Get("a1")
	require.True(t, ag.Inverse()["f1"].Outstanding)
	refuse := time.Minute
	w.refuses(cluster.ErrUnknownAgent, func() error { return w.m.UpdateInverseOffer("a9", "f1", cluster.InverseAccepted, &refuse) })
	w.refuses(cluster.ErrUnknownFramework, func() error { return w.m.UpdateInverseOffer("a1", "f9", cluster.InverseAccepted, &refuse) })
	for _, status := range []uint8{0, cluster.InverseDeclined + 1} {
		w.refuses(cluster.ErrInvalidStatus, func() error { return w.m.UpdateInverseOffer("a1", "f1", status, &refuse) })
	}
	fw := w.cs.Frameworks.Get("f1")

	zero := time.Duration(0)
	w.ok(w.m.UpdateInverseOffer("a1", "f1", cluster.InverseDeclined, &zero))
	require.Equal(t, cluster.InverseState{Status: cluster.InverseDeclined}, *ag.Inverse()["f1"])
	require.Nil(t, fw.InverseFilters, "no filter for no time")
	w.ok(w.m.UpdateInverseOffer("a1", "f1", cluster.InverseAccepted, nil))
	require.Equal(t, cluster.InverseState{Status: cluster.InverseAccepted}, *ag.Inverse()["f1"])
	require.Nil(t, fw.InverseFilters)

	w.ok(w.m.UpdateInverseOffer("a1", "f1", cluster.InverseAccepted, &refuse))
	short := time.Millisecond
	w.ok(w.m.UpdateInverseOffer("a2", "f1", cluster.InverseAccepted, &short))
	require.Equal(t, map[string]refusals.InverseFilter{
		"a1": {Expires: w.now.Add(time.Minute), Batch: 1},
		"a2": {Expires: w.now.Add(time.Second), Batch: 1},
	}, fw.InverseFilters)
}
