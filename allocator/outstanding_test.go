package allocator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
)

func offerIDs(offers []offer.Offer) []string {
	var ids []string
	for _, o := range offers {
		ids = append(ids, o.ID)
	}
	return ids
}

// The allocator keeps the offers it made until they are given back in
// full, finds those that hold given resources, and rescinds one by id.
func TestOutstandingOffers(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddAgent("a2", allocator.AgentInfo{}, res("cpus:2;mem:2048"), nil))
	require.NoError(t, a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	offers := a.Allocate().Offers
	require.Len(t, offers, 2)
	require.Equal(t, offerIDs(offers), offerIDs(a.Offers()))

	// Launching on part of an offer with UpdateAllocation leaves the rest
	// outstanding under the same id.
	o := offers[0]
	task := res("cpus:1;mem:1024").Allocate(o.Role)
	require.NoError(t, a.UpdateAllocation(o.FrameworkID, o.AgentID, o.Resources, launchOps("t1", task)))
	now := a.Offers()
	require.Equal(t, offerIDs(offers), offerIDs(now))
	require.True(t, now[0].Resources.Equal(o.Resources.Minus(task)), "left outstanding: %s", now[0].Resources)

	// Which offers hold some cpus of a2: the second.
	holding, err := a.OffersHolding("a2", res("cpus:1"))
	require.NoError(t, err)
	require.Equal(t, []string{offers[1].ID}, offerIDs(holding))
	holding, err = a.OffersHolding("a2", res("gpus:1"))
	require.NoError(t, err)
	require.Empty(t, holding)
	_, err = a.OffersHolding("nowhere", res("cpus:1"))
	require.ErrorIs(t, err, allocator.ErrUnknownAgent)

	// Rescinding gives the resources back, with no filter.
	require.NoError(t, a.RescindOffer(offers[1].ID))
	require.Equal(t, []string{offers[0].ID}, offerIDs(a.Offers()))
	v, _ := a.Agent("a2")
	require.True(t, v.Offered["web"].IsEmpty())
	require.ErrorIs(t, a.RescindOffer(offers[1].ID), allocator.ErrUnknownOffer)
	require.Empty(t, a.Filters())

	// Declining the rest ends the first offer.
	require.NoError(t, a.RecoverResources(o.FrameworkID, o.AgentID, now[0].Resources, nil))
	require.Empty(t, a.Offers())
	require.NoError(t, a.CheckInvariants())
}

// Before an operator destroys a shared volume, the host finds every offer
// holding it: a shared volume stays available while offered, so several
// frameworks may hold offers of it.
func TestOffersHoldingSharedVolume(t *testing.T) {
	clock := allocator.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096;"+sharedVolume), nil))
	for _, id := range []string{"db1", "db2"} {
		require.NoError(t, a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{"db"}, Principal: "ops", Capabilities: offer.SharedResources}, nil, allocator.Active))
	}
	first := a.Allocate().Offers
	require.Len(t, first, 1)
	// The first framework keeps its offer of the volume but gives back
	// half the cpus and memory, which the next run offers to the other
	// with the volume again.
	back := res("cpus:2;mem:2048").Allocate("db")
	require.NoError(t, a.RecoverResources(first[0].FrameworkID, "a1", back, nil))
	first[0].Resources = first[0].Resources.Minus(back)
	second := a.AllocateAll().Offers
	require.Len(t, second, 1)
	require.NotEqual(t, first[0].FrameworkID, second[0].FrameworkID)
	holding, err := a.OffersHolding("a1", res(sharedVolume))
	require.NoError(t, err)
	require.Equal(t, []string{first[0].ID, second[0].ID}, offerIDs(holding))
	for _, o := range holding {
		require.NoError(t, a.RescindOffer(o.ID))
	}
	require.Empty(t, a.Offers())
	require.NoError(t, a.CheckInvariants())
	// With no offer holding it, the operator's DESTROY goes through.
	destroy := offer.Destroy{Volumes: res(sharedVolume)}
	require.NoError(t, a.UpdateAvailable("a1", []offer.Operation{destroy}))
}
