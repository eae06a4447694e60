package declines

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNoteDecline puts a framework in the agent's round, numbering it,
// filter or no filter; the round is kept beside the filter bits.
func TestNoteDecline(t *testing.T) {
	w := newWorld(t, false)
	a1 := w.agent("a1", "cpus:4")
	a2 := w.agent("a2", "cpus:4")
	f1 := w.framework("f1", "r1")
	f2 := w.framework("f2", "r1")
	require.False(t, w.b.HeldBack(f1, a1), "unnumbered")

	w.decline(f2, a1, w.take(a1, "cpus:4", "r1"), 0, t0) // no filter
	require.Equal(t, 1, f2.Num)
	require.True(t, w.b.HeldBack(f2, a1))
	require.False(t, w.b.HeldBack(f2, a2))
	require.False(t, a1.Filtered.Filtered(f2.Num), "no filter, no filter bit")
	require.Equal(t, []string{"f2"}, w.b.RoundMembers(a1))
	require.Empty(t, w.b.RoundMembers(a2))

	w.offerAndDecline(f1, a1, "r1", time.Hour, t0)
	require.True(t, w.b.HeldBack(f1, a1))
	require.True(t, a1.Filtered.Filtered(f1.Num))
	require.Equal(t, []string{"f1", "f2"}, w.b.RoundMembers(a1))
	w.check(t0)
}

// TestNoteDeclineUnderMesosOfferOrder: the rotation is off; a decline
// without a filter does not even number the framework.
func TestNoteDeclineUnderMesosOfferOrder(t *testing.T) {
	w := newWorld(t, false)
	w.b.MesosOfferOrder = true
	ag := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r1")
	f2 := w.framework("f2", "r1")
	w.decline(f1, ag, w.take(ag, "cpus:4", "r1"), 0, t0)
	require.Equal(t, 0, f1.Num)
	require.False(t, w.b.HeldBack(f1, ag))
	w.offerAndDecline(f2, ag, "r1", time.Hour, t0)
	require.Equal(t, 1, f2.Num)
	require.False(t, w.b.HeldBack(f2, ag))
	require.Empty(t, w.b.RoundMembers(ag))
	require.Empty(t, slices.Collect(ag.Filtered.DeclinedAll()))
	w.check(t0)
}

// TestAgentChanged: a new round starts when the agent's resources grow or
// its info changes, unless a decline is what gave them back; the filter
// bits stay.
func TestAgentChanged(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r1")
	f2 := w.framework("f2", "r1")
	f3 := w.framework("f3", "r1")
	w.offerAndDecline(f1, ag, "r1", time.Hour, t0)
	// f2 declines part: giving it back is a change, but a decline's.
	w.decline(f2, ag, w.take(ag, "cpus:1", "r1"), 0, t0)
	require.Equal(t, []string{"f1", "f2"}, w.b.RoundMembers(ag))

	w.b.Declining = true
	w.b.AgentChanged(ag)
	w.b.Declining = false
	require.Equal(t, []string{"f1", "f2"}, w.b.RoundMembers(ag))

	// f3's task ends: the resources come back other than by a decline.
	used := w.take(ag, "cpus:2", "r1")
	w.giveBack(ag, used)
	require.Empty(t, w.b.RoundMembers(ag))
	require.False(t, w.b.HeldBack(f1, ag))
	require.False(t, w.b.HeldBack(f3, ag))
	require.True(t, ag.Filtered.Filtered(f1.Num))
	w.check(t0)

	w.decline(f2, ag, w.take(ag, "cpus:1", "r1"), 0, t0)
	w.b.AgentChanged(ag)
	require.Empty(t, w.b.RoundMembers(ag))
}

// TestLeaveRounds takes a framework out of every agent's round, others
// staying.
func TestLeaveRounds(t *testing.T) {
	w := newWorld(t, false)
	a1 := w.agent("a1", "cpus:4")
	a2 := w.agent("a2", "cpus:4")
	f1 := w.framework("f1", "r1")
	f2 := w.framework("f2", "r1")
	f3 := w.framework("f3", "r1")
	w.offerAndDecline(f1, a1, "r1", time.Hour, t0)
	w.offerAndDecline(f1, a2, "r1", time.Hour, t0)
	w.offerAndDecline(f2, a1, "r1", 0, t0)
	w.offerAndDecline(f2, a2, "r1", 0, t0)
	w.b.LeaveRounds(f1)
	w.b.LeaveRounds(f3) // never numbered: nothing to leave
	require.Equal(t, 0, f3.Num)
	require.Equal(t, []string{"f2"}, w.b.RoundMembers(a1))
	require.Equal(t, []string{"f2"}, w.b.RoundMembers(a2))
	require.False(t, w.b.HeldBack(f1, a1))
	require.True(t, a1.Filtered.Filtered(f1.Num), "its filters stay")
	require.True(t, a2.Filtered.Filtered(f1.Num))
	w.check(t0)
}

// TestEndRound: the round ends only when the walks held someone back and
// something is left, and then only the round is emptied.
func TestEndRound(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4")
	f1 := w.framework("f1", "r1")
	f2 := w.framework("f2", "r1")
	w.offerAndDecline(f1, ag, "r1", time.Hour, t0)
	w.offerAndDecline(f2, ag, "r1", 0, t0)

	require.False(t, w.b.EndRound(0, ag), "nobody held back")
	require.Equal(t, []string{"f1", "f2"}, w.b.RoundMembers(ag))

	all := w.take(ag, "cpus:4", "r1")
	require.False(t, w.b.EndRound(2, ag), "nothing left")
	require.Equal(t, []string{"f1", "f2"}, w.b.RoundMembers(ag))
	ag.Available = all.Unallocate()

	require.True(t, w.b.EndRound(1, ag))
	require.Empty(t, w.b.RoundMembers(ag))
	require.False(t, w.b.HeldBack(f1, ag))
	require.False(t, w.b.HeldBack(f2, ag))
	require.True(t, ag.Filtered.Filtered(f1.Num), "the filter bits stay")
	require.False(t, ag.Filtered.Filtered(f2.Num))
	w.check(t0)
}

// TestRoundMembersSorted: ids in order, whatever the numbers.
func TestRoundMembersSorted(t *testing.T) {
	w := newWorld(t, false)
	ag := w.agent("a1", "cpus:4")
	ids := []string{"zeta", "alpha", "mu", "beta"}
	for _, id := range ids {
		fw := w.framework(id, "r1")
		w.offerAndDecline(fw, ag, "r1", 0, t0)
	}
	require.Equal(t, []string{"alpha", "beta", "mu", "zeta"}, w.b.RoundMembers(ag))
	require.Equal(t, 4, w.cs.Frameworks.Get("beta").Num)
	require.Nil(t, w.b.RoundMembers(w.agent("a2", "cpus:1")))
}
