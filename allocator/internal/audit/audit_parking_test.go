package audit

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// parking is the world with role q, whose limits leave it nothing of any
// scalar the cluster has, parked at the current epoch: capped, as the run
// parks it, and consistent.
func parking(t *testing.T) *world {
	w := newWorld(t)
	w.b.Roles.Ensure("q").SetQuota(roles.Quota{Limits: resources.MustParseLimits("cpus:0;mem:0")})
	w.parking.Add("q")
	w.parking.ParkedEpoch = w.parking.CapEpoch
	require.NoError(t, w.check(), "q is capped: parking it is consistent")
	return w
}

// TestCheckFindsEachParkingCorruption: a role parked at the current epoch
// must still exist, have no unmet guarantee in its ancestry and be unable
// to take anything; each drift is reported by name.
func TestCheckFindsEachParkingCorruption(t *testing.T) {
	cases := map[string]struct {
		corrupt func(w *world)
		want    string
	}{
		"a parked role that is gone": {func(w *world) {
			w.parking.Add("gone")
		}, `parked role "gone" has an unmet guarantee in its ancestry, or is gone`},
		"a parked role with an unmet guarantee": {func(w *world) {
			w.b.Roles.Ensure("q/g").SetQuota(roles.Quota{Guarantees: resources.MustParseQuantities("cpus:1")})
			w.parking.Add("q/g")
		}, `parked role "q/g" has an unmet guarantee`},
		"a parked role under an unmet guarantee": {func(w *world) {
			w.b.Roles.Get("q").SetQuota(roles.Quota{Guarantees: resources.MustParseQuantities("cpus:1"),
				Limits: resources.MustParseLimits("cpus:0;mem:0")})
		}, `parked role "q" has an unmet guarantee`},
		"a parked role whose limit was raised": {func(w *world) {
			w.b.Roles.Get("q").SetQuota(roles.Quota{Limits: resources.MustParseLimits("cpus:1;mem:0")})
		}, `role "q" is kept out of the role sorter, but could take more`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := parking(t)
			tc.corrupt(w)
			require.ErrorContains(t, w.check(), tc.want)
		})
	}
}

// Parked roles are checked only while the parking is current: an event
// that could uncap a role makes the next run look at them again, and
// until then a parked role that could take more is no fault.
func TestCheckLeavesAStaleParkingAlone(t *testing.T) {
	w := parking(t)
	w.parking.Add("gone")
	w.parking.Add("r")
	require.Error(t, w.check())
	w.parking.Uncapped()
	require.NoError(t, w.check())
}
