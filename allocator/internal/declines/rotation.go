package declines

import (
	"slices"

	"github.com/allot-go/allot/allocator/internal/cluster"
)

// NoteDecline puts fw in ag's round after it declined resources there.
func (b *Book) NoteDecline(fw *cluster.Framework, ag *cluster.Agent) {
	if !b.MesosOfferOrder {
		ag.Filtered.SetDeclined(b.FilterNum(fw))
	}
}

// HeldBack reports whether fw is in ag's round: it declined what the
// agent has, and others are offered it first.
func (b *Book) HeldBack(fw *cluster.Framework, ag *cluster.Agent) bool {
	return fw.Num != 0 && ag.Filtered.Declined(fw.Num)
}

// AgentChanged starts a new round on ag, whose available resources grew
// or whose info changed, unless a decline is what changed them.
func (b *Book) AgentChanged(ag *cluster.Agent) {
	if !b.Declining {
		ag.Filtered.ClearRound()
	}
}

// LeaveRounds takes fw out of every agent's round.
func (b *Book) LeaveRounds(fw *cluster.Framework) {
	if fw.Num == 0 {
		return
	}
	for _, ag := range b.Cluster.AgentList {
		ag.Filtered.ClearDeclined(fw.Num)
	}
}

// EndRound is called when the fair-share stage has walked every role on
// the agent: if it held (heldBack counts the frameworks the walks held
// back) frameworks back for the agent's round and
// something is still left, the round ends (it is emptied) and endRound
// says so: the stage then walks the agent again, and offers what is left
// in DRF order to whoever can take it, the frameworks held back included.
func (b *Book) EndRound(heldBack int, ag *cluster.Agent) bool {
	if heldBack == 0 || ag.Available.IsEmpty() {
		return false
	}
	ag.Filtered.ClearRound()
	return true
}

// RoundMembers returns the ids of the frameworks in ag's round, for a
// snapshot.
func (b *Book) RoundMembers(ag *cluster.Agent) []string {
	var out []string
	for num := range ag.Filtered.DeclinedAll() {
		if fw := b.RefusersByNum.At(num); fw != nil {
			out = append(out, fw.ID)
		}
	}
	slices.Sort(out)
	return out
}
