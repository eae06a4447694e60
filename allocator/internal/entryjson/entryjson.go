package entryjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// ErrInvalidEntry: an entry that does not decode, or names no event
// (package allocator's ErrInvalidEntry).
var ErrInvalidEntry = errors.New("allocator: invalid journal entry")

// Entry is package allocator's Entry in the records' types (its doc says
// what each field holds): the framework's and agent's info as the records
// keep them, a filter as its duration, a quota as the role tree keeps it.
// HostnamesListed says the entry is an update-whitelist with a list (an
// empty one stops all offers; none lifts the whitelist).
type Entry struct {
	Event            string
	At               time.Time
	Framework, Agent string
	FrameworkInfo    *cluster.FrameworkInfo
	AgentInfo        *cluster.AgentInfo
	Active           bool
	Resources        resources.Resources
	Total            *resources.Resources
	Used             map[string]resources.Resources
	Roles            []string
	Refuse           *time.Duration
	Operations       []offer.Operation
	Weights          map[string]float64
	Role             string
	Quota            roles.Quota
	Unavailability   *offer.Unavailability
	Status           uint8
	Hostnames        []string
	HostnamesListed  bool
	Task, Offer      string
	Run              uint64
	Hold             time.Duration
	Demand           []cluster.Pending
}

// jsonEntry is an Entry as JSON: resources in the text format, read back
// with "*" as the default role, so that they round-trip exactly.
type jsonEntry struct {
	Event          string                 `json:"event"`
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

// constraintOps names the operators of a constraint by their values
// (cluster.OpExists to cluster.OpNotEquals).
var constraintOps = [...]string{1: "EXISTS", 2: "NOT_EXISTS", 3: "EQUALS", 4: "NOT_EQUALS"}

// Marshal writes the entry as one JSON object with no newline in it:
//
//	{"event":"recover-resources","at":"2026-01-01T00:00:05Z","framework":"f1",
//	 "agent":"a1","resources":"cpus(allocated: web):4","filter":{"refuse_ns":5000000000}}
//
// Resources, quantities and limits are in the text format ("" when
// empty), capabilities by their Mesos names, durations in nanoseconds,
// times in RFC 3339 with nanoseconds. Fields an event does not use are
// left out.
func Marshal(e Entry) ([]byte, error) {
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
	if e.Refuse != nil {
		j.Filter = &jsonFilter{*e.Refuse}
	}
	for _, op := range e.Operations {
		j.Operations = append(j.Operations, offer.OperationToJSON(op))
	}
	if u := e.Unavailability; u != nil {
		j.Unavailability = &jsonUnavailable{u.Start, u.Duration}
	}
	switch e.Status {
	case 0:
	case cluster.InverseAccepted:
		j.Status = "ACCEPT"
	case cluster.InverseDeclined:
		j.Status = "DECLINE"
	default:
		j.Status = strconv.Itoa(int(e.Status))
	}
	for _, p := range e.Demand {
		j.Demand = append(j.Demand, jsonPending{Resources: quantitiesText(p.Resources), Count: p.Count})
	}
	if e.HostnamesListed {
		h := e.Hostnames
		j.Hostnames = &h
	}
	return json.Marshal(j)
}

// Unmarshal reads what Marshal writes. Bad input is an error wrapping
// ErrInvalidEntry that names the field.
func Unmarshal(data []byte) (Entry, error) {
	var j jsonEntry
	if err := json.Unmarshal(data, &j); err != nil {
		return Entry{}, fmt.Errorf("%w: %w", ErrInvalidEntry, err)
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
		info := &cluster.FrameworkInfo{Roles: ji.Roles, Principal: ji.Principal, SuppressedRoles: ji.SuppressedRoles}
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
			info.Constraints = map[string]cluster.Constraints{}
			for role, groups := range ji.Constraints {
				cs := cluster.Constraints{}
				for _, g := range groups {
					group := []cluster.AttributeConstraint{}
					for _, c := range g {
						op := uint8(0)
						for k, name := range constraintOps {
							if name != "" && name == c.Op {
								op = uint8(k)
							}
						}
						if op == 0 {
							n, err := strconv.ParseUint(c.Op, 10, 8)
							field("constraint op", err)
							op = uint8(n)
						}
						group = append(group, cluster.AttributeConstraint{Attribute: c.Attribute, Op: op, Value: c.Value})
					}
					cs = append(cs, group)
				}
				info.Constraints[role] = cs
			}
		}
		out.FrameworkInfo = info
	}
	if ji := j.AgentInfo; ji != nil {
		info := &cluster.AgentInfo{Hostname: ji.Hostname, Attributes: ji.Attributes, Region: ji.Region}
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
		refuse := j.Filter.Refuse
		out.Refuse = &refuse
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
		out.Demand = append(out.Demand, cluster.Pending{Resources: q, Count: jp.Count})
	}
	switch j.Status {
	case "":
	case "ACCEPT":
		out.Status = cluster.InverseAccepted
	case "DECLINE":
		out.Status = cluster.InverseDeclined
	default:
		n, err := strconv.ParseUint(j.Status, 10, 8)
		field("status", err)
		out.Status = uint8(n)
	}
	if j.Hostnames != nil {
		out.HostnamesListed = true
		out.Hostnames = *j.Hostnames
		if out.Hostnames == nil {
			out.Hostnames = []string{}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Entry{}, fmt.Errorf("%w: %s: %w", ErrInvalidEntry, j.Event, err)
	}
	return out, nil
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
