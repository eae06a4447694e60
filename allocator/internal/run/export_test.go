package run

import "github.com/allot-go/allot/allocator/internal/cluster"

// RunStorage returns the storage a run keeps for the next: that of its
// candidate agents and that of their ranks, by agent number.
func (e *Engine) RunStorage() ([]*cluster.Agent, []int32) { return e.runAgents, e.runRanks }
