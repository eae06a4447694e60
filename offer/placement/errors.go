package placement

import "errors"

// Errors returned by Place. Each is wrapped with what was wrong (the task,
// offer or filter, and the rule it breaks) and checked with errors.Is. On
// error, Place returns an empty Result and calls no custom filter or ranker.
var (
	// ErrInvalidTask: a task without an id, asking for nothing, with an
	// invalid role, a negative or impossible port request, a scalar request
	// for a resource that offers carry as ranges or a set, or volumes that
	// are not persistent volumes.
	ErrInvalidTask = errors.New("placement: invalid task")
	// ErrDuplicateTask: two tasks with one id.
	ErrDuplicateTask = errors.New("placement: duplicate task id")
	// ErrInvalidOffer: an offer without an id or agent, with an invalid role,
	// with resources allocated to a role other than its own, or of another
	// framework than the other offers.
	ErrInvalidOffer = errors.New("placement: invalid offer")
	// ErrDuplicateOffer: two offers with one id.
	ErrDuplicateOffer = errors.New("placement: duplicate offer id")
	// ErrInvalidFilter: a zero Filter, an empty attribute, a limit below
	// one, or a custom predicate without a name or function.
	ErrInvalidFilter = errors.New("placement: invalid filter")
	// ErrInvalidRanker: a zero Ranker, an empty attribute or an invalid
	// resource name, bin-packing on a resource that offers hold as ranges or
	// a set, a negative or non-finite weight, or a custom score without a
	// name or function.
	ErrInvalidRanker = errors.New("placement: invalid ranker")
	// ErrInvalidRunning: a running task without an agent.
	ErrInvalidRunning = errors.New("placement: invalid running task")
	// ErrInvalidInput: GoodEnough outside [0, 1].
	ErrInvalidInput = errors.New("placement: invalid input")
)
