package explain

import (
	"time"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The reasons' codes, in order of precedence: package allocator's Reason
// values, which that package checks when it compiles. A pass records one
// (cluster.PassRecord.Reason).
const (
	None uint8 = iota
	Inactive
	Suppressed
	Incapable
	Constraints
	NoFit
	Filtered
	QuotaLimit
	Headroom
	MinAllocatable
	Fairness
	Declined
	NothingLeft
	AgentInactive
	NumReasons
)

// Found is what was found on one agent: package allocator's AgentReason,
// field for field.
type Found struct {
	Agent     string
	Framework string
	Until     time.Time
	Missing   offer.Capabilities
	Offer     resources.Quantities
	// Winner and WinnerRole were offered the agent (Fairness).
	Winner, WinnerRole string
}
