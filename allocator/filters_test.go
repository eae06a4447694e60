package allocator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// A refusal filter survives at least one periodic batch (MESOS-4302): with a
// 60 s interval, a decline at T with a 1 s refusal lasts until T+60 s and
// keeps the agent from the framework in the first batch after it; a run at
// its expiry that is not that first batch no longer sees it.
func TestRefusalSurvivesOneBatch(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := allocator.NewManualClock(start)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, AllocationInterval: time.Minute})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	offers := a.AllocateAll().Offers
	require.Len(t, offers, 1)
	clock.Advance(3 * time.Second) // the decline comes in between two batches
	require.NoError(t, a.RecoverResources("f", "a1", offers[0].Resources, &allocator.Filter{Refuse: time.Second}))
	filters := a.Filters()
	require.Len(t, filters, 1)
	require.Equal(t, start.Add(63*time.Second), filters[0].Expires, "the filter lasts one interval, not the refusal's 1 s")

	clock.Set(start.Add(60 * time.Second)) // the next batch: filtered
	require.Empty(t, a.AllocateAll().Offers)
	clock.Set(start.Add(63*time.Second - time.Nanosecond)) // before the expiry: filtered
	require.Empty(t, a.AllocateAll().Offers)
	require.Len(t, a.Filters(), 1)
	clock.Set(start.Add(63 * time.Second)) // at the expiry: offered again
	require.Len(t, a.AllocateAll().Offers, 1)
	require.Empty(t, a.Filters())
}

// At its expiry instant a filter applies to the first batch since it was
// made and to no other run: not to a run that is not periodic, nor to a
// second batch at the same instant.
func TestRefusalAtExpiryForTheFirstBatchOnly(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := allocator.NewManualClock(start)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, AllocationInterval: time.Second})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	o := a.Allocate().Offers[0]
	require.NoError(t, a.RecoverResources("f", "a1", o.Resources, &allocator.Filter{Refuse: time.Second}))
	clock.Advance(time.Second) // the filter's expiry; no batch since it was made
	require.Len(t, a.Filters(), 1, "at its expiry the filter waits for the first batch")

	// A run that is not periodic: the filter does not apply.
	require.NoError(t, a.UpdateAgent("a1", allocator.AgentInfo{Hostname: "h1"}, nil)) // triggers a run of the agent
	got := a.Allocate().Offers
	require.Len(t, got, 1)
	require.Equal(t, "f", got[0].FrameworkID)

	// Made again at the same instant, the filter applies to the first
	// batch at its expiry and to no second one.
	clock.Set(start)
	b := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now, AllocationInterval: time.Second})
	require.NoError(t, b.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, b.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	o = b.Allocate().Offers[0]
	require.NoError(t, b.RecoverResources("f", "a1", o.Resources, &allocator.Filter{Refuse: time.Second}))
	clock.Advance(time.Second)
	require.Empty(t, b.AllocateAll().Offers, "the first batch at the expiry: filtered")
	require.Empty(t, b.Filters(), "the filter ends with that batch")
	require.Len(t, b.AllocateAll().Offers, 1, "a second batch at the same instant: offered")
}

// Inverse-offer filters follow the same rule.
func TestInverseOfferFilterAtExpiry(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := allocator.NewManualClock(start)
	a := newAllocator(t, allocator.Options{Seed: 1, Clock: clock.Now})
	require.NoError(t, a.AddAgent("a1", allocator.AgentInfo{}, res("cpus:4;mem:4096"), nil))
	require.NoError(t, a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active))
	o := a.AllocateAll().Offers[0]
	require.NoError(t, a.Accept("f", "a1", o.Resources, nil, nil)) // keeps nothing
	o = a.AllocateAll().Offers[0]
	task := res("cpus:1").Allocate("r")
	require.NoError(t, a.Accept("f", "a1", o.Resources, launchOps("t1", task), nil))
	require.NoError(t, a.UpdateUnavailability("a1", unavailableFrom(start.Add(time.Hour))))
	inverse := a.Allocate().InverseOffers
	require.Len(t, inverse, 1)
	require.NoError(t, a.UpdateInverseOffer("a1", "f", allocator.InverseDeclined, &allocator.Filter{Refuse: 10 * time.Second}))
	clock.Advance(10*time.Second - time.Nanosecond)
	require.Empty(t, a.Allocate().InverseOffers, "inverse offer made before the filter's expiry")
	clock.Advance(time.Nanosecond)
	require.Empty(t, a.Allocate().InverseOffers, "at its expiry, the filter waits for the first batch")
	require.Empty(t, a.AllocateAll().InverseOffers, "inverse offer made in the first batch after the filter")
	require.Len(t, a.AllocateAll().InverseOffers, 1)
}

func launchOps(id string, r resources.Resources) []offer.Operation {
	return []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: id, Resources: r}}}}
}

func unavailableFrom(t time.Time) *offer.Unavailability {
	return &offer.Unavailability{Start: t, Duration: time.Hour}
}
