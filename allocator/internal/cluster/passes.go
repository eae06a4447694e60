package cluster

import (
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/resources"
)

// PassRecord says that a run passed fw over on ag in a role, and why.
type PassRecord struct {
	Framework *Framework
	Node      *roles.Node
	Agent     *Agent
	Reason    uint8 // a reason's code (package explain)
	Stage     Stage
	// Missing are the capabilities whose lack made an incapable pass.
	Missing uint16
	// Detail is 1 + the index in the run log's details of the quantities
	// behind the pass, or 0 (-1 - the index in a nobody entry's copy).
	Detail int32
}

// NobodyPasses are the passes of the walk that found that no framework of
// a role could take anything on an agent, kept with the nobody entry.
type NobodyPasses struct {
	Passes  []PassRecord
	Details []resources.Quantities
	Indexed bool
}

// Kept passes of walks that passed nobody over one by one: shared, so that
// such walks (every framework stepped over through the index) allocate
// nothing.
var (
	NoPasses        = &NobodyPasses{}
	NoPassesIndexed = &NobodyPasses{Indexed: true}
)

// Stage is one of the two stages of a run.
type Stage uint8

// The stages of a run: offers towards guarantees, then fair shares.
const (
	StageGuarantees Stage = iota
	StageFairShare
)

// NumReasons is the number of package allocator's Reasons (numReasons,
// which reasons.go checks against it), for the counts a framework keeps.
const NumReasons = 14
