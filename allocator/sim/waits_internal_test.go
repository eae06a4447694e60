package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The chart's distribution of a role kept as a histogram is the exact
// one's, each point's wait lower by less than 1/256.
func TestChartOfHistogram(t *testing.T) {
	var exact []time.Duration
	h := &WaitHistogram{}
	for i := range 5000 {
		d := time.Duration(i*i) * time.Millisecond
		exact = append(exact, d)
		h.Add(d)
	}
	want := cdf(roleWaits(&Result{Waits: [][]time.Duration{exact}}, 0))
	got := cdf(roleWaits(&Result{Waits: [][]time.Duration{nil}, WaitHistograms: []*WaitHistogram{h}}, 0))
	require.Len(t, got, len(want))
	for k := range want {
		require.Equal(t, want[k][1], got[k][1])
		require.LessOrEqual(t, got[k][0], want[k][0])
		require.Less(t, want[k][0]-got[k][0], want[k][0]/256+1e-12, "point %d", k)
	}
	require.Equal(t, want[len(want)-1], got[len(got)-1], "the largest wait is exact")
}
