package sim

import "errors"

// Errors returned by the package, wrapped with what was wrong (the agent
// group, framework, task, line or option, and the rule it breaks); test
// them with errors.Is.
var (
	// ErrInvalidWorkload: a workload the lab cannot run: an agent group
	// without agents or with resources that do not parse, a role or
	// framework named twice or badly, a task without resources or
	// duration, a generator that draws impossible values, an event for
	// an unknown agent.
	ErrInvalidWorkload = errors.New("sim: invalid workload")
	// ErrInvalidTrace: a trace line that does not read: the error names
	// the line number and the field.
	ErrInvalidTrace = errors.New("sim: malformed trace")
	// ErrInvalidConfig: a configuration without a name, two with one
	// name, a negative PreemptDelay, or allocator options or a sorter the
	// allocator refuses.
	ErrInvalidConfig = errors.New("sim: invalid configuration")
	// ErrInvalidOptions: run options out of range (a negative interval
	// or count).
	ErrInvalidOptions = errors.New("sim: invalid run options")
	// ErrAllocator: the allocator refused an event of the simulation,
	// which means the simulation or a sorter broke a rule; the wrapped
	// error says which.
	ErrAllocator = errors.New("sim: the allocator refused an event")
)
