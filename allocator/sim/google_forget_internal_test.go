package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tasks kept after their end are those of the last day, and at most
// twice as many between sweeps, however long the trace; kept for ever,
// every task. What is read is the same either way.
func TestGoogleReaderForgets(t *testing.T) {
	const (
		tasks   = 20000
		spacing = 30                     // seconds from a task's SUBMIT to the next
		perDay  = 24 * 60 * 60 / spacing // tasks ending within a day: 2880
	)
	parts := make([]string, 100)
	for i := range tasks {
		at := int64(i) * spacing * 1_000_000
		parts[i*len(parts)/tasks] += fmt.Sprintf("%d,,7,%d,,0,u,0,0,0.5,0.25,,0\n%d,,7,%d,,1,u,0,0,,,,0\n%d,,7,%d,,4,u,0,0,,,,0\n",
			at, i, at+1_000_000, i, at+60_000_000, i)
	}
	read := func(opts GoogleOptions) ([]Task, GoogleStats, int) {
		g, err := newGoogleReader(opts)
		require.NoError(t, err)
		most := 0
		for _, p := range parts {
			require.NoError(t, g.read(strings.NewReader(p)))
			most = max(most, len(g.ended))
		}
		return g.finish(), g.stats, most
	}
	bounded, boundedStats, most := read(GoogleOptions{})
	require.Greater(t, most, perDay)
	require.LessOrEqual(t, most, 2*(perDay+2)) // a day's tasks, and as many more before a sweep
	all, allStats, kept := read(GoogleOptions{Remember: -1})
	require.Equal(t, tasks, kept)
	require.Equal(t, all, bounded)
	require.Equal(t, allStats, boundedStats)
	require.Len(t, all, tasks)
}

// repeats finds a repeated ID pair by pair among a few runs of a task, and
// through a set among many.
func TestRepeats(t *testing.T) {
	for _, n := range []int{2, 5, 16, 17, 40} {
		tasks := make([]Task, n)
		indexes := make([]int, n)
		for i := range tasks {
			tasks[i].ID, indexes[i] = fmt.Sprintf("1-0.%d", i+1), i
		}
		require.False(t, repeats(tasks, indexes), "%d runs", n)
		tasks[n-1].ID = tasks[0].ID
		require.True(t, repeats(tasks, indexes), "%d runs", n)
		require.False(t, repeats(tasks, indexes[1:]), "%d runs", n)
	}
}
