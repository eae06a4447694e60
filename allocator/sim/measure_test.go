package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestJain(t *testing.T) {
	index := func(xs ...float64) float64 {
		var sum, squares float64
		for _, x := range xs {
			sum += x
			squares += x * x
		}
		return jain(len(xs), sum, squares)
	}
	require.InDelta(t, 1, index(0.3, 0.3, 0.3), 1e-15)
	require.InDelta(t, 1.0/3, index(0.9, 0, 0), 1e-15)          // one has everything: 1/n
	require.InDelta(t, 0.9, index(0.5, 0.25, 0.25, 0.5), 1e-15) // 1.5² / (4 · 0.625)
	require.Equal(t, 1.0, index(0.7))                           // fewer than two
	require.Equal(t, 1.0, index(0, 0))                          // all zero: equal
}

func TestPercentile(t *testing.T) {
	ds := func(secs ...int) []time.Duration {
		out := make([]time.Duration, len(secs))
		for i, s := range secs {
			out[i] = time.Duration(s) * time.Second
		}
		return out
	}
	w := ds(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	require.Equal(t, 5*time.Second, percentile(w, 50))
	require.Equal(t, 9*time.Second, percentile(w, 90))
	require.Equal(t, 10*time.Second, percentile(w, 99))
	require.Equal(t, 7*time.Second, percentile(ds(7), 50))
	require.Equal(t, WaitStats{Tasks: 4, Mean: 2500 * time.Millisecond, P50: 2 * time.Second, P90: 4 * time.Second, P99: 4 * time.Second, Max: 4 * time.Second}, waitStats(ds(1, 2, 3, 4)))
	require.Equal(t, WaitStats{}, waitStats(nil))
}

func TestSeconds(t *testing.T) {
	for text, want := range map[string]time.Duration{
		"0": 0, "12": 12 * time.Second, "0.5": 500 * time.Millisecond, "1.000000001": time.Second + 1,
		"1000000000": maxTime, "007.250": 7250 * time.Millisecond,
	} {
		got, err := parseSeconds(text)
		require.NoError(t, err, text)
		require.Equal(t, want, got, text)
	}
	for _, text := range []string{"", ".5", "5.", "-1", "+1", "1e3", " 1", "1.0000000001", "1000000000.1", "18446744073709551616", "0x10", "½"} {
		_, err := parseSeconds(text)
		require.Error(t, err, text)
	}
	for _, d := range []time.Duration{0, 1, time.Second, 1500 * time.Millisecond, maxTime} {
		back, err := parseSeconds(formatSeconds(d))
		require.NoError(t, err)
		require.Equal(t, d, back)
	}
	require.Equal(t, "1.5", formatSeconds(1500*time.Millisecond))
}
