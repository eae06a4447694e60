package declines

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/refusals"
)

// TestFilterNum: a framework is numbered once, from 1, and its number
// names it.
func TestFilterNum(t *testing.T) {
	w := newWorld(t, false)
	f1 := w.framework("f1", "r1")
	f2 := w.framework("f2", "r1")
	require.Equal(t, 0, f1.Num)
	require.Nil(t, w.b.RefusersByNum.At(0))
	require.Equal(t, 1, w.b.FilterNum(f1))
	require.Equal(t, 1, w.b.FilterNum(f1))
	require.Equal(t, 2, w.b.FilterNum(f2))
	require.Equal(t, 1, f1.Num)
	require.Equal(t, 2, f2.Num)
	require.Same(t, f1, w.b.RefusersByNum.At(1))
	require.Same(t, f2, w.b.RefusersByNum.At(2))
	w.check(t0)
}

// TestFilterNumAfterRestore: a framework whose filters came without a
// number (a snapshot's) gets its bits on every agent it has filters on
// when it is numbered.
func TestFilterNumAfterRestore(t *testing.T) {
	w := newWorld(t, false)
	a1 := w.agent("a1", "cpus:4")
	a2 := w.agent("a2", "cpus:4")
	a3 := w.agent("a3", "cpus:4")
	f0 := w.framework("f0", "r1")
	require.Equal(t, 1, w.b.FilterNum(f0))
	fw := w.framework("f1", "r1", "r2")
	f := refusals.Refusal{Refused: res("cpus:1"), Expires: t0.Add(time.Hour)}
	fw.Filters.Add("r1", a1.ID, f)
	fw.Filters.Add("r2", a3.ID, f)
	fw.Filters.Add("r2", "gone", f) // an agent the book does not know
	require.Equal(t, 2, w.b.FilterNum(fw))
	require.True(t, a1.Filtered.Filtered(2))
	require.False(t, a2.Filtered.Filtered(2))
	require.True(t, a3.Filtered.Filtered(2))
	require.False(t, a1.Filtered.Filtered(1))
	filtered, until := w.b.IsFiltered(fw, "r2", a3, res("cpus:1"), false, t0, false)
	require.True(t, filtered)
	require.Equal(t, t0.Add(time.Hour), until)
}

// TestReleaseNum: a removed framework's number, once its filters and
// rounds are gone, goes to the next framework numbered, which inherits no
// bit.
func TestReleaseNum(t *testing.T) {
	w := newWorld(t, false)
	a1 := w.agent("a1", "cpus:4")
	a2 := w.agent("a2", "cpus:4")
	f1 := w.framework("f1", "r1")
	f2 := w.framework("f2", "r1")
	w.offerAndDecline(f1, a1, "r1", time.Hour, t0)
	w.decline(f1, a2, w.take(a2, "cpus:1", "r1"), time.Hour, t0)
	w.offerAndDecline(f2, a2, "r1", time.Hour, t0)
	require.Equal(t, 1, f1.Num)
	require.Equal(t, 2, f2.Num)
	require.True(t, w.b.HeldBack(f1, a1))

	w.removeFramework(f1)
	require.Equal(t, 0, f1.Num)
	require.Nil(t, w.b.RefusersByNum.At(1))
	require.Same(t, f2, w.b.RefusersByNum.At(2))
	w.check(t0)
	// Released once: a second release gives nothing back.
	w.b.ReleaseNum(f1)

	f3 := w.framework("f3", "r1")
	require.Equal(t, 1, w.b.FilterNum(f3))
	f4 := w.framework("f4", "r1")
	require.Equal(t, 3, w.b.FilterNum(f4))
	for _, ag := range w.cs.AgentList {
		require.False(t, ag.Filtered.Filtered(1), "agent %s", ag.ID)
		require.False(t, w.b.HeldBack(f3, ag), "agent %s", ag.ID)
		filtered, _ := w.b.IsFiltered(f3, "r1", ag, ag.Available, true, t0, false)
		require.False(t, filtered)
	}
	require.True(t, w.b.HeldBack(f2, a2))
	require.Equal(t, []string{"f2"}, w.b.RoundMembers(a2))
	w.check(t0)
}
