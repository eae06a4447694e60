package allocator

import "github.com/allot-go/allot/allocator/internal/cluster"

// numberAgent gives ag its number on entry.
func (a *Allocator) numberAgent(ag *cluster.Agent) {
	ag.Num = int32(a.agentNums.Take())
	a.agentsByNum.Set(int(ag.Num), ag)
}

// unnumberAgent takes a removed agent's number back, once its filters are
// forgotten.
func (a *Allocator) unnumberAgent(ag *cluster.Agent) {
	a.agentsByNum.Set(int(ag.Num), nil)
	a.agentNums.Give(int(ag.Num))
	ag.Num = 0
}
