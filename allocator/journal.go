package allocator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

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
	ErrInvalidEntry = errors.New("allocator: invalid journal entry")
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

// ---- JSON ----

// jsonEntry is an Entry as JSON: resources in the text format, read back
// with "*" as the default role, so that they round-trip exactly.
type jsonEntry struct {
	Event          EventKind              `json:"event"`
	At             *time.Time             `json:"at,omitempty"`
	Framework      string                 `json:"framework,omitempty"`
	Agent          string                 `json:"agent,omitempty"`
	FrameworkInfo  *jsonFrameworkInfo     `json:"framework_info,omitempty"`
	AgentInfo      *jsonAgentInfo         `json:"agent_info,omitempty"`
	Active         bool                   `json:"active,omitempty"`
	Resources      string                 `json:"resources,omitempty"`
	Total          *string                `json:"total,omitempty"`
	Used           map[string]string      `json:"used,omitempty"`
	Roles          []string               `json:"roles,omitempty"`
	Filter         *jsonFilter            `json:"filter,omitempty"`
	Operations     []*offer.OperationJSON `json:"operations,omitempty"`
	Weights        map[string]float64     `json:"weights,omitempty"`
	Role           string                 `json:"role,omitempty"`
	Guarantees     string                 `json:"guarantees,omitempty"`
	Limits         string                 `json:"limits,omitempty"`
	Unavailability *jsonUnavailable       `json:"unavailability,omitempty"`
	Status         string                 `json:"status,omitempty"`
	Hostnames      *[]string              `json:"hostnames,omitempty"`
	Task           string                 `json:"task,omitempty"`
	Offer          string                 `json:"offer,omitempty"`
	Run            uint64                 `json:"run,omitempty"`
	Hold           time.Duration          `json:"hold_ns,omitempty"`
	Demand         []jsonPending          `json:"demand,omitempty"`
}

// jsonPending is a Pending: one task's resources as quantities text, and
// the count.
type jsonPending struct {
	Resources string `json:"resources"`
	Count     int    `json:"count"`
}

type jsonFilter struct {
	Refuse time.Duration `json:"refuse_ns"`
}

type jsonUnavailable struct {
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration_ns,omitempty"`
}

type jsonFrameworkInfo struct {
	Roles           []string                      `json:"roles"`
	Principal       string                        `json:"principal,omitempty"`
	Capabilities    []string                      `json:"capabilities,omitempty"`
	SuppressedRoles []string                      `json:"suppressed_roles,omitempty"`
	MinAllocatable  map[string][]string           `json:"min_allocatable,omitempty"`
	Constraints     map[string][][]jsonConstraint `json:"constraints,omitempty"`
}

type jsonConstraint struct {
	Attribute string `json:"attribute"`
	Op        string `json:"op"`
	Value     string `json:"value,omitempty"`
}

type jsonAgentInfo struct {
	Hostname       string            `json:"hostname,omitempty"`
	Attributes     map[string]string `json:"attributes,omitempty"`
	Region         string            `json:"region,omitempty"`
	Capabilities   []string          `json:"capabilities,omitempty"`
	Unavailability *jsonUnavailable  `json:"unavailability,omitempty"`
}

var constraintOps = [...]string{OpExists: "EXISTS", OpNotExists: "NOT_EXISTS", OpEquals: "EQUALS", OpNotEquals: "NOT_EQUALS"}

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
	j := jsonEntry{
		Event: e.Event, Framework: e.Framework, Agent: e.Agent, Active: e.Active,
		Resources: text(e.Resources), Roles: e.Roles, Weights: e.Weights, Role: e.Role,
		Guarantees: quantitiesText(e.Quota.Guarantees), Task: e.Task, Offer: e.Offer, Run: e.Run, Hold: e.Hold,
	}
	if !e.At.IsZero() {
		at := e.At
		j.At = &at
	}
	if !e.Quota.Limits.IsEmpty() {
		j.Limits = e.Quota.Limits.String()
	}
	if info := e.FrameworkInfo; info != nil {
		ji := &jsonFrameworkInfo{Roles: info.Roles, Principal: info.Principal, Capabilities: info.Capabilities.Names(), SuppressedRoles: info.SuppressedRoles}
		if info.MinAllocatable != nil {
			ji.MinAllocatable = map[string][]string{}
			for role, list := range info.MinAllocatable {
				texts := []string{}
				for _, q := range list {
					texts = append(texts, quantitiesText(q))
				}
				ji.MinAllocatable[role] = texts
			}
		}
		if info.Constraints != nil {
			ji.Constraints = map[string][][]jsonConstraint{}
			for role, cs := range info.Constraints {
				groups := [][]jsonConstraint{}
				for _, g := range cs {
					list := []jsonConstraint{}
					for _, c := range g {
						op := strconv.Itoa(int(c.Op))
						if int(c.Op) < len(constraintOps) && constraintOps[c.Op] != "" {
							op = constraintOps[c.Op]
						}
						list = append(list, jsonConstraint{Attribute: c.Attribute, Op: op, Value: c.Value})
					}
					groups = append(groups, list)
				}
				ji.Constraints[role] = groups
			}
		}
		j.FrameworkInfo = ji
	}
	if info := e.AgentInfo; info != nil {
		j.AgentInfo = &jsonAgentInfo{Hostname: info.Hostname, Attributes: info.Attributes, Region: info.Region, Capabilities: info.Capabilities.Names()}
		if u := info.Unavailability; u != nil {
			j.AgentInfo.Unavailability = &jsonUnavailable{u.Start, u.Duration}
		}
	}
	if e.Total != nil {
		t := text(*e.Total)
		j.Total = &t
	}
	if e.Used != nil {
		j.Used = map[string]string{}
		for k, v := range e.Used {
			j.Used[k] = text(v)
		}
	}
	if e.Filter != nil {
		j.Filter = &jsonFilter{e.Filter.Refuse}
	}
	for _, op := range e.Operations {
		j.Operations = append(j.Operations, offer.OperationToJSON(op))
	}
	if u := e.Unavailability; u != nil {
		j.Unavailability = &jsonUnavailable{u.Start, u.Duration}
	}
	if e.Status != 0 {
		j.Status = e.Status.String()
		if e.Status > InverseDeclined {
			j.Status = strconv.Itoa(int(e.Status))
		}
	}
	for _, p := range e.Demand {
		j.Demand = append(j.Demand, jsonPending{Resources: quantitiesText(p.Resources), Count: p.Count})
	}
	if e.Event == EventUpdateWhitelist && e.Hostnames != nil {
		h := e.Hostnames
		j.Hostnames = &h
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes. Bad input is an error
// wrapping ErrInvalidEntry that names the field.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var j jsonEntry
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidEntry, err)
	}
	out := Entry{
		Event: j.Event, Framework: j.Framework, Agent: j.Agent, Active: j.Active,
		Roles: j.Roles, Weights: j.Weights, Role: j.Role, Task: j.Task, Offer: j.Offer, Run: j.Run, Hold: j.Hold,
	}
	if j.At != nil {
		out.At = *j.At
	}
	var errs []error
	field := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	var err error
	out.Resources, err = parseText(j.Resources)
	field("resources", err)
	out.Quota.Guarantees, err = resources.ParseQuantities(j.Guarantees)
	field("guarantees", err)
	out.Quota.Limits, err = resources.ParseLimits(j.Limits)
	field("limits", err)
	if ji := j.FrameworkInfo; ji != nil {
		info := &FrameworkInfo{Roles: ji.Roles, Principal: ji.Principal, SuppressedRoles: ji.SuppressedRoles}
		info.Capabilities, err = parseCapabilities(ji.Capabilities)
		field("framework capabilities", err)
		if ji.MinAllocatable != nil {
			info.MinAllocatable = map[string][]resources.Quantities{}
			for role, texts := range ji.MinAllocatable {
				list := []resources.Quantities{}
				for _, t := range texts {
					q, err := resources.ParseQuantities(t)
					field("min_allocatable", err)
					list = append(list, q)
				}
				info.MinAllocatable[role] = list
			}
		}
		if ji.Constraints != nil {
			info.Constraints = map[string]Constraints{}
			for role, groups := range ji.Constraints {
				cs := Constraints{}
				for _, g := range groups {
					group := ConstraintGroup{}
					for _, c := range g {
						op := ConstraintOp(0)
						for k, name := range constraintOps {
							if name != "" && name == c.Op {
								op = ConstraintOp(k)
							}
						}
						if op == 0 {
							n, err := strconv.ParseUint(c.Op, 10, 8)
							field("constraint op", err)
							op = ConstraintOp(n)
						}
						group = append(group, AttributeConstraint{Attribute: c.Attribute, Op: op, Value: c.Value})
					}
					cs = append(cs, group)
				}
				info.Constraints[role] = cs
			}
		}
		out.FrameworkInfo = info
	}
	if ji := j.AgentInfo; ji != nil {
		info := &AgentInfo{Hostname: ji.Hostname, Attributes: ji.Attributes, Region: ji.Region}
		info.Capabilities, err = parseCapabilities(ji.Capabilities)
		field("agent capabilities", err)
		if u := ji.Unavailability; u != nil {
			info.Unavailability = &offer.Unavailability{Start: u.Start, Duration: u.Duration}
		}
		out.AgentInfo = info
	}
	if j.Total != nil {
		t, err := parseText(*j.Total)
		field("total", err)
		out.Total = &t
	}
	if j.Used != nil {
		out.Used = map[string]resources.Resources{}
		for k, v := range j.Used {
			r, err := parseText(v)
			field("used", err)
			out.Used[k] = r
		}
	}
	if j.Filter != nil {
		out.Filter = &Filter{Refuse: j.Filter.Refuse}
	}
	for i, jo := range j.Operations {
		op, err := jo.Operation()
		field(fmt.Sprintf("operation %d", i), err)
		out.Operations = append(out.Operations, op)
	}
	if u := j.Unavailability; u != nil {
		out.Unavailability = &offer.Unavailability{Start: u.Start, Duration: u.Duration}
	}
	for i, jp := range j.Demand {
		q, err := resources.ParseQuantities(jp.Resources)
		field(fmt.Sprintf("demand %d", i), err)
		out.Demand = append(out.Demand, Pending{Resources: q, Count: jp.Count})
	}
	switch j.Status {
	case "":
	case "ACCEPT":
		out.Status = InverseAccepted
	case "DECLINE":
		out.Status = InverseDeclined
	default:
		n, err := strconv.ParseUint(j.Status, 10, 8)
		field("status", err)
		out.Status = InverseOfferStatus(n)
	}
	if j.Hostnames != nil {
		out.Hostnames = *j.Hostnames
		if out.Hostnames == nil {
			out.Hostnames = []string{}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidEntry, j.Event, err)
	}
	*e = out
	return nil
}

func text(r resources.Resources) string {
	if r.IsEmpty() {
		return ""
	}
	return r.String()
}

func quantitiesText(q resources.Quantities) string {
	if q.IsEmpty() {
		return ""
	}
	return q.String()
}

func parseText(s string) (resources.Resources, error) {
	if s == "" {
		return resources.Resources{}, nil
	}
	return resources.Parse(s, "*")
}

func parseCapabilities(names []string) (offer.Capabilities, error) {
	var c offer.Capabilities
	for _, name := range names {
		if bit, ok := offer.ParseCapability(name); ok {
			c |= bit
			continue
		}
		if hex, ok := strings.CutPrefix(name, "0x"); ok {
			if n, err := strconv.ParseUint(hex, 16, 32); err == nil {
				c |= offer.Capabilities(n)
				continue
			}
		}
		return 0, fmt.Errorf("unknown capability %q", name)
	}
	return c, nil
}
