package allocator

// numberAgent gives ag its number on entry.
func (a *Allocator) numberAgent(ag *agent) {
	ag.num = int32(a.agentNums.Take())
	a.agentsByNum.Set(int(ag.num), ag)
}

// unnumberAgent takes a removed agent's number back, once its filters are
// forgotten.
func (a *Allocator) unnumberAgent(ag *agent) {
	a.agentsByNum.Set(int(ag.num), nil)
	a.agentNums.Give(int(ag.num))
	ag.num = 0
}
