package allocator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/entryjson"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The journal.
//
// Every event the allocator takes can be written down as an Entry: the
// event, its arguments and the clock reading it used. A host that sets
// Options.Journal receives the entry of every event that succeeded, in
// order, and appends it to a log (MarshalJSON gives one line of JSON);
// Replay, or Apply entry by entry, feeds such a log to a fresh allocator
// made with the same Options, which then holds exactly the same state.
// Allocation runs are entries too: their offers are made again, not read
// from the log.
//
// A host that replicates the allocator's input (see examples/replicated)
// makes entries itself, stamps them with its clock, agrees on their order
// with its peers and has each replica Apply them.

// Entry is one event of the journal. Event says which; the fields it uses
// are those of the method it names:
//
//	add-framework          Framework FrameworkInfo Used Active
//	remove-, activate-, deactivate-framework   Framework
//	update-framework       Framework FrameworkInfo
//	suppress-, revive-offers                   Framework Roles
//	add-agent              Agent AgentInfo Resources (the total) Used
//	remove-, activate-, deactivate-agent       Agent
//	update-agent           Agent AgentInfo Total
//	add-resource-provider  Agent Resources (the provider's total) Used
//	update-whitelist       Hostnames (nil lifts the whitelist)
//	recover-resources, recover-allocated       Framework Agent Resources Filter
//	update-weights         Weights
//	update-quota           Role Quota
//	update-unavailability  Agent Unavailability
//	update-inverse-offer   Agent Framework Status Filter
//	pause, resume          nothing
//	update-allocation      Framework Agent Resources (offered) Operations
//	update-available       Agent Operations
//	accept, accept-each    Framework Agent Resources (offered) Operations Filter
//	end-task               Framework Task
//	rescind-offer          Offer
//	allocate, allocate-all Run
//	recover-held           Framework Agent Resources Hold
//	preempt-task           Framework Task Hold
//
// An accept-each entry holds only the operations that were applied: the
// others changed nothing. Run is the number of the allocation run an
// allocate or allocate-all made (0 when paused); Apply checks that its run
// has the same number, so a journal with an entry missing is found out at
// the next run. A host that makes entries itself, before they are applied,
// leaves Run zero: it is then not checked.
//
// An entry recorded through Options.Journal refers to the caller's
// arguments: encode it before changing them.
type Entry struct {
	Event EventKind
	// At is the clock reading the event used (filters' expiries, the
	// time of a run), the zero time when it read none. Apply reads it
	// instead of the clock.
	At time.Time

	Framework, Agent string
	FrameworkInfo    *FrameworkInfo
	AgentInfo        *AgentInfo
	Active           bool
	Resources        resources.Resources
	Total            *resources.Resources
	Used             map[string]resources.Resources
	Roles            []string
	Filter           *Filter
	Operations       []offer.Operation
	Weights          map[string]float64
	Role             string
	Quota            Quota
	Unavailability   *offer.Unavailability
	Status           InverseOfferStatus
	Hostnames        []string
	Task, Offer      string
	Run              uint64
	// Hold is how long a recover-held or preempt-task holds resources.
	Hold time.Duration
	// Demand is an update-demand's statement.
	Demand []Pending
}

// Errors of the journal, wrapped with detail; test with errors.Is.
var (
	// ErrInvalidEntry: an entry that does not decode, or names no event.
	ErrInvalidEntry = entryjson.ErrInvalidEntry
	// ErrReplay: an entry the allocator does not take as it was taken when
	// recorded (its event fails, or its run has another number): the
	// journal is not the allocator's history from a fresh start, or from
	// the snapshot it was restored from.
	ErrReplay = errors.New("allocator: journal does not replay")
)

// Apply applies one entry of a journal, reading its time instead of the
// clock, and returns the run it made, if it is an allocation. An entry the
// allocator does not take as it was recorded is ErrReplay, and changes
// nothing: an allocation whose run would have another number, an
// AcceptEach one of whose operations would be dropped. An entry that names
// no event is ErrInvalidEntry. With Options.Journal set, the hook receives
// the entry.
func (a *Allocator) Apply(e Entry) (Result, error) {
	res, _, err := a.stepOwn(e, true)
	if err != nil && !errors.Is(err, ErrInvalidEntry) {
		err = fmt.Errorf("%w: %s: %w", ErrReplay, e.Event, err)
	}
	return res, err
}

// Replay applies every entry of a journal in JSON (entries as MarshalJSON
// writes them, one after the other: a log of one entry per line is one) to
// a, which is usually fresh from New with the options of the allocator the
// journal was recorded from, or restored from a snapshot the journal goes
// on from. It stops at the first entry that does not decode or apply, and
// says which.
func Replay(a *Allocator, journal io.Reader) error {
	dec := json.NewDecoder(journal)
	for i := 1; ; i++ {
		var e Entry
		if err := dec.Decode(&e); err != nil {
			if err == io.EOF {
				return nil
			}
			if errors.Is(err, ErrInvalidEntry) {
				return fmt.Errorf("entry %d: %w", i, err)
			}
			return fmt.Errorf("%w: entry %d: %w", ErrInvalidEntry, i, err)
		}
		if _, err := a.Apply(e); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
}

// MarshalJSON writes the entry as one JSON object with no newline in it:
//
//	{"event":"recover-resources","at":"2026-01-01T00:00:05Z","framework":"f1",
//	 "agent":"a1","resources":"cpus(allocated: web):4","filter":{"refuse_ns":5000000000}}
//
// Resources, quantities and limits are in the text format ("" when
// empty), capabilities by their Mesos names, durations in nanoseconds,
// times in RFC 3339 with nanoseconds. Fields an event does not use are
// left out.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryjson.Entry{
		Event: string(e.Event), At: e.At, Framework: e.Framework, Agent: e.Agent, Active: e.Active,
		Resources: e.Resources, Total: e.Total, Used: e.Used, Roles: e.Roles, Refuse: e.Filter.refuse(),
		Operations: e.Operations, Weights: e.Weights, Role: e.Role, Quota: roles.Quota(e.Quota),
		Unavailability: e.Unavailability, Status: uint8(e.Status), Hostnames: e.Hostnames,
		HostnamesListed: e.Event == EventUpdateWhitelist && e.Hostnames != nil,
		Task:            e.Task, Offer: e.Offer, Run: e.Run, Hold: e.Hold, Demand: pendingSpec(e.Demand),
	}
	if e.FrameworkInfo != nil {
		info := e.FrameworkInfo.spec()
		j.FrameworkInfo = &info
	}
	if e.AgentInfo != nil {
		info := cluster.AgentInfo(*e.AgentInfo)
		j.AgentInfo = &info
	}
	return entryjson.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes. Bad input is an error
// wrapping ErrInvalidEntry that names the field.
func (e *Entry) UnmarshalJSON(data []byte) error {
	j, err := entryjson.Unmarshal(data)
	if err != nil {
		return err
	}
	out := Entry{
		Event: EventKind(j.Event), At: j.At, Framework: j.Framework, Agent: j.Agent, Active: j.Active,
		Resources: j.Resources, Total: j.Total, Used: j.Used, Roles: j.Roles,
		Operations: j.Operations, Weights: j.Weights, Role: j.Role, Quota: Quota(j.Quota),
		Unavailability: j.Unavailability, Status: InverseOfferStatus(j.Status), Hostnames: j.Hostnames,
		Task: j.Task, Offer: j.Offer, Run: j.Run, Hold: j.Hold,
	}
	if j.Refuse != nil {
		out.Filter = &Filter{Refuse: *j.Refuse}
	}
	if j.FrameworkInfo != nil {
		info := publicInfo(*j.FrameworkInfo)
		out.FrameworkInfo = &info
	}
	if j.AgentInfo != nil {
		info := AgentInfo(*j.AgentInfo)
		out.AgentInfo = &info
	}
	for _, p := range j.Demand {
		out.Demand = append(out.Demand, Pending(p))
	}
	*e = out
	return nil
}
