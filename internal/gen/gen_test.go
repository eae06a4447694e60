package gen

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// The generators' own contract: every value is valid and survives a text
// round trip.
func TestGenerators(t *testing.T) {
	props := gopter.NewProperties(Parameters(t))
	props.Property("resources are valid and print to parsable text", prop.ForAll(
		func(rs resources.Resources) bool {
			for r := range rs.All() {
				if err := r.Validate(); err != nil {
					t.Log(err)
					return false
				}
			}
			back, err := resources.Parse(rs.String(), "*")
			return err == nil && back.Equal(rs)
		}, Resources()))
	props.Property("stacks are valid", prop.ForAll(
		func(s reservation.Stack) bool { return s.Validate() == nil }, Stack()))
	props.Property("reservations are valid", prop.ForAll(
		func(r reservation.Reservation) bool { return r.Validate() == nil }, Reservation()))
	props.Property("roles are valid", prop.ForAll(
		func(r string) bool { return reservation.ValidateRole(r) == nil }, Role()))
	props.Property("quantities have no zero", prop.ForAll(
		func(q resources.Quantities) bool {
			for _, v := range q.All() {
				if v <= 0 {
					return false
				}
			}
			return true
		}, Quantities()))
	props.Property("agents hold cpus, mem, disk and ports", prop.ForAll(
		func(rs resources.Resources) bool {
			q := rs.Quantities()
			return q.Float64("cpus") > 0 && q.Float64("mem") > 0 && q.Float64("disk") > 0 && !rs.Get("ports").IsEmpty()
		}, Agent()))
	props.Property("limits print and parse", prop.ForAll(
		func(l resources.Limits) bool {
			back, err := resources.ParseLimits(l.String())
			return l.IsEmpty() || (err == nil && back.Equal(l))
		}, Limits()))
	props.TestingRun(t)
}

func TestVariety(t *testing.T) {
	// The pools must produce the metadata the options promise.
	params := gopter.DefaultGenParameters()
	seen := map[string]bool{}
	g := Resources()
	for range 500 {
		rs := g(params).Result.(resources.Resources)
		for r := range rs.All() {
			seen["reserved"] = seen["reserved"] || r.IsReserved()
			seen["refined"] = seen["refined"] || r.Reservations.IsRefined()
			seen["volume"] = seen["volume"] || r.IsPersistentVolume()
			seen["shared"] = seen["shared"] || r.Shared
			seen["revocable"] = seen["revocable"] || r.Revocable
			seen["provider"] = seen["provider"] || r.ProviderID != ""
			seen["allocated"] = seen["allocated"] || r.AllocationRole != ""
			seen["ranges"] = seen["ranges"] || r.Type == resources.RangesType
			seen["set"] = seen["set"] || r.Type == resources.SetType
			seen["copies"] = seen["copies"] || rs.Copies(r) > 1
		}
	}
	for _, k := range []string{"reserved", "refined", "volume", "shared", "revocable", "provider", "allocated", "ranges", "set", "copies"} {
		if !seen[k] {
			t.Errorf("500 generated Resources had no %s resource", k)
		}
	}
}
