package allocator

import "github.com/allot-go/allot/allocator/internal/tables"

// frameworkTable holds the frameworks by id.
type frameworkTable = tables.Table[framework, byFrameworkID]

// byFrameworkID keys a framework by its id.
type byFrameworkID struct{}

func (byFrameworkID) Of(fw *framework) string { return fw.id }

// agentTable holds agents by id.
type agentTable = tables.Table[agent, byAgentID]

// byAgentID keys an agent by its id.
type byAgentID struct{}

func (byAgentID) Of(ag *agent) string { return ag.id }
