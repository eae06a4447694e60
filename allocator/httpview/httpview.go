// Package httpview serves an allocator's read-only views as JSON over
// HTTP, for operators and their dashboards: the allocator's parts of
// Apache Mesos's /roles, /quota and /state endpoints, in their shapes, and
// /explain, which says why a framework (or a role) got what it got in the
// latest allocation run.
//
// # Usage
//
// New reads the allocator through its Runner (Runner.Do), so it is safe
// to serve while the Runner runs; every request holds the Runner's lock
// only while it copies the views, and encodes them after:
//
//	r := runner.New(a, runner.Options{...})
//	http.Handle("/allocator/", http.StripPrefix("/allocator", httpview.New(r)))
//
// Serve reads any Source: Locked serves an allocator a program drives
// itself (a simulation on a manual clock, a test) behind its own lock, and
// a Source of one's own may lend any Viewer:
//
//	var mu sync.Mutex // held by the program around its own calls to a
//	http.Handle("/allocator/", http.StripPrefix("/allocator", httpview.Serve(httpview.Locked(&mu, a))))
//
// Endpoints (GET only; other methods get 405):
//
//   - /roles: {"roles": [{"name", "weight", "share", "frameworks",
//     "resources", "allocated", "offered", "reserved", "quota": {"role",
//     "guarantee", "limit", "consumed"}}]}, roles by name. As in Mesos,
//     "resources" is what the role's frameworks hold (offered and
//     allocated), "reserved" the scalar reservations of its subtree.
//   - /quota: {"configs": [{"role", "guarantees", "limits", "consumed"}]},
//     the roles with quota, by name.
//   - /state: {"slaves": [...], "frameworks": [...]}, with Mesos's names:
//     per agent "id", "hostname", "active", "resources",
//     "used_resources", "offered_resources", "unreserved_resources",
//     "reserved_resources" (by role); per framework "id", "roles",
//     "suppressed_roles", "active", "capabilities", "used_resources",
//     "offered_resources", "offers" (the outstanding ones).
//   - /explain?framework=ID or /explain?role=ROLE: the explanation of the
//     latest run (allocator.Explain, ExplainRole), each role with its
//     sentence as "text", and the run's "preemptions" that concern it
//     (with reclaim on). An unknown framework or role is 404, a request
//     without either or with an invalid role 400, before any run 404.
//
// Resources are Mesos's "model" of them: an object from names to values,
// scalars as numbers, ranges ("[31000-32000]") and sets ("{a,b}") as
// text. Quantities and limits are objects from names to numbers. Errors
// are {"error": "..."} with the status code. A Runner that was closed
// gives 503.
package httpview

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/resources"
)

// New returns the handler of r's views, read under the Runner's lock.
func New(r *runner.Runner) http.Handler { return Serve(FromRunner(r)) }

// Serve returns the handler of the views src lends.
func Serve(src Source) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /roles", func(w http.ResponseWriter, req *http.Request) { serve(w, src, rolesOf) })
	mux.HandleFunc("GET /quota", func(w http.ResponseWriter, req *http.Request) { serve(w, src, quotaOf) })
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, req *http.Request) { serve(w, src, stateOf) })
	mux.HandleFunc("GET /explain", func(w http.ResponseWriter, req *http.Request) {
		fw, role := req.URL.Query().Get("framework"), req.URL.Query().Get("role")
		if (fw == "") == (role == "") {
			writeError(w, http.StatusBadRequest, errors.New("httpview: /explain needs framework= or role=, one of them"))
			return
		}
		serve(w, src, func(v Viewer) (any, error) {
			var x allocator.Explanation
			var err error
			if fw != "" {
				x, err = v.Explain(fw)
			} else {
				x, err = v.ExplainRole(role)
			}
			if err != nil {
				return nil, err
			}
			return explanationOf(x), nil
		})
	})
	return mux
}

// serve builds a view while src lends its Viewer and writes it after.
func serve(w http.ResponseWriter, src Source, view func(Viewer) (any, error)) {
	var out any
	err := src.View(func(v Viewer) error {
		var err error
		out, err = view(v)
		return err
	})
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, runner.ErrClosed), errors.Is(err, runner.ErrZero):
		return http.StatusServiceUnavailable
	case errors.Is(err, allocator.ErrInvalidRole):
		return http.StatusBadRequest
	case errors.Is(err, allocator.ErrUnknownFramework), errors.Is(err, allocator.ErrUnknownRole), errors.Is(err, allocator.ErrNoRun):
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

// Model is Mesos's model of resources: scalars as numbers, ranges and sets
// as text.
type Model map[string]any

// modelOf sums res by name.
func modelOf(res resources.Resources) Model {
	m := Model{}
	ranges := map[string][]resources.Range{}
	sets := map[string][]string{}
	var scalars resources.Quantities
	for r := range res.All() {
		switch r.Type {
		case resources.ScalarType:
			scalars.AddScalar(r.Name, r.Scalar)
		case resources.RangesType:
			ranges[r.Name] = append(ranges[r.Name], r.Ranges...)
		case resources.SetType:
			sets[r.Name] = append(sets[r.Name], r.Set...)
		}
	}
	for name, v := range scalars.All() {
		m[name] = v.Float64()
	}
	for name, list := range ranges {
		rs, _ := resources.NewRanges(list...)
		m[name] = rs.String()
	}
	for name, list := range sets {
		slices.Sort(list)
		m[name] = resources.Set(slices.Compact(list)).String()
	}
	return m
}

// QuantitiesJSON are scalar amounts by name.
type QuantitiesJSON map[string]float64

func quantitiesOf(q resources.Quantities) QuantitiesJSON {
	out := QuantitiesJSON{}
	for name, v := range q.All() {
		out[name] = v.Float64()
	}
	return out
}

func limitsOf(l resources.Limits) QuantitiesJSON {
	out := QuantitiesJSON{}
	for _, name := range l.Names() {
		v, _ := l.Get(name)
		out[name] = v.Float64()
	}
	return out
}

// RoleJSON is one role of /roles.
type RoleJSON struct {
	Name       string        `json:"name"`
	Weight     float64       `json:"weight"`
	Share      float64       `json:"share"`
	Frameworks []string      `json:"frameworks"`
	Resources  Model         `json:"resources"`
	Allocated  Model         `json:"allocated"`
	Offered    Model         `json:"offered"`
	Reserved   Model         `json:"reserved"`
	Quota      RoleQuotaJSON `json:"quota"`
}

// RoleQuotaJSON is a role's quota in /roles.
type RoleQuotaJSON struct {
	Role      string         `json:"role"`
	Guarantee QuantitiesJSON `json:"guarantee"`
	Limit     QuantitiesJSON `json:"limit"`
	Consumed  QuantitiesJSON `json:"consumed"`
}

// RolesJSON is the answer of /roles.
type RolesJSON struct {
	Roles []RoleJSON `json:"roles"`
}

func rolesOf(a Viewer) (any, error) {
	offered, allocated := map[string]resources.Resources{}, map[string]resources.Resources{}
	for _, f := range a.Frameworks() {
		for _, role := range f.Offered.AllocationRoles() {
			cur := offered[role]
			cur.Add(f.Offered.AllocatedTo(role).Unallocate())
			offered[role] = cur
		}
		for _, role := range f.Allocated.AllocationRoles() {
			cur := allocated[role]
			cur.Add(f.Allocated.AllocatedTo(role).Unallocate())
			allocated[role] = cur
		}
	}
	out := RolesJSON{Roles: []RoleJSON{}}
	for _, rv := range a.Roles() {
		reserved := Model{}
		for name, v := range rv.Reserved.All() {
			reserved[name] = v.Float64()
		}
		out.Roles = append(out.Roles, RoleJSON{
			Name: rv.Role, Weight: rv.Weight, Share: rv.Share, Frameworks: nonNil(rv.Frameworks),
			Resources: modelOf(offered[rv.Role].Plus(allocated[rv.Role])),
			Allocated: modelOf(allocated[rv.Role]), Offered: modelOf(offered[rv.Role]),
			Reserved: reserved,
			Quota: RoleQuotaJSON{Role: rv.Role, Guarantee: quantitiesOf(rv.Quota.Guarantees),
				Limit: limitsOf(rv.Quota.Limits), Consumed: quantitiesOf(rv.Consumed)},
		})
	}
	return out, nil
}

// QuotaConfigJSON is one role's quota in /quota.
type QuotaConfigJSON struct {
	Role       string         `json:"role"`
	Guarantees QuantitiesJSON `json:"guarantees"`
	Limits     QuantitiesJSON `json:"limits"`
	Consumed   QuantitiesJSON `json:"consumed"`
}

// QuotaJSON is the answer of /quota.
type QuotaJSON struct {
	Configs []QuotaConfigJSON `json:"configs"`
}

func quotaOf(a Viewer) (any, error) {
	out := QuotaJSON{Configs: []QuotaConfigJSON{}}
	for _, rv := range a.Roles() {
		if rv.Quota.IsZero() {
			continue
		}
		out.Configs = append(out.Configs, QuotaConfigJSON{Role: rv.Role, Guarantees: quantitiesOf(rv.Quota.Guarantees),
			Limits: limitsOf(rv.Quota.Limits), Consumed: quantitiesOf(rv.Consumed)})
	}
	return out, nil
}

// AgentJSON is one agent of /state ("slaves" in Mesos).
type AgentJSON struct {
	ID                  string           `json:"id"`
	Hostname            string           `json:"hostname"`
	Active              bool             `json:"active"`
	Resources           Model            `json:"resources"`
	UsedResources       Model            `json:"used_resources"`
	OfferedResources    Model            `json:"offered_resources"`
	UnreservedResources Model            `json:"unreserved_resources"`
	ReservedResources   map[string]Model `json:"reserved_resources"`
}

// FrameworkJSON is one framework of /state.
type FrameworkJSON struct {
	ID               string      `json:"id"`
	Roles            []string    `json:"roles"`
	SuppressedRoles  []string    `json:"suppressed_roles"`
	Active           bool        `json:"active"`
	Capabilities     []string    `json:"capabilities"`
	UsedResources    Model       `json:"used_resources"`
	OfferedResources Model       `json:"offered_resources"`
	Offers           []OfferJSON `json:"offers"`
}

// OfferJSON is an outstanding offer in /state.
type OfferJSON struct {
	ID          string `json:"id"`
	FrameworkID string `json:"framework_id"`
	AgentID     string `json:"slave_id"`
	Role        string `json:"role"`
	Resources   Model  `json:"resources"`
}

// StateJSON is the answer of /state.
type StateJSON struct {
	Agents     []AgentJSON     `json:"slaves"`
	Frameworks []FrameworkJSON `json:"frameworks"`
}

func stateOf(a Viewer) (any, error) {
	out := StateJSON{Agents: []AgentJSON{}, Frameworks: []FrameworkJSON{}}
	for _, v := range a.Agents() {
		var used, offered resources.Resources
		for _, r := range v.Allocated {
			used.Add(r.Unallocate())
		}
		for _, r := range v.Offered {
			offered.Add(r.Unallocate())
		}
		reserved := map[string]Model{}
		for r := range v.Total.All() {
			if role := r.Role(); r.IsReserved() && reserved[role] == nil {
				reserved[role] = modelOf(v.Total.Reserved(role))
			}
		}
		out.Agents = append(out.Agents, AgentJSON{
			ID: v.ID, Hostname: v.Hostname, Active: v.Active,
			Resources: modelOf(v.Total), UsedResources: modelOf(used), OfferedResources: modelOf(offered),
			UnreservedResources: modelOf(v.Total.Unreserved()), ReservedResources: reserved,
		})
	}
	offers := map[string][]OfferJSON{}
	for _, o := range a.Offers() {
		offers[o.FrameworkID] = append(offers[o.FrameworkID], OfferJSON{ID: o.ID, FrameworkID: o.FrameworkID, AgentID: o.AgentID, Role: o.Role, Resources: modelOf(o.Resources)})
	}
	for _, f := range a.Frameworks() {
		out.Frameworks = append(out.Frameworks, FrameworkJSON{
			ID: f.ID, Roles: nonNil(f.Roles), SuppressedRoles: nonNil(f.Suppressed), Active: f.Active,
			Capabilities:  nonNil(f.Capabilities.Names()),
			UsedResources: modelOf(f.Allocated), OfferedResources: modelOf(f.Offered),
			Offers: nonNil(offers[f.ID]),
		})
	}
	return out, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ExplanationJSON is the answer of /explain.
type ExplanationJSON struct {
	Framework string                `json:"framework,omitempty"`
	Run       uint64                `json:"run"`
	Time      time.Time             `json:"time"`
	Roles     []RoleExplanationJSON `json:"roles"`
	// Preemptions are the run's tasks chosen to end that concern the
	// framework or role (allocator.Options.Reclaim); left out when none.
	Preemptions []PreemptionJSON `json:"preemptions,omitempty"`
}

// PreemptionJSON is a task a run chose to end for another role.
type PreemptionJSON struct {
	Framework    string         `json:"framework"`
	Task         string         `json:"task"`
	Agent        string         `json:"agent"`
	Role         string         `json:"role"`
	For          string         `json:"for"`
	ForFramework string         `json:"for_framework"`
	HeldIn       string         `json:"held_in"`
	Reason       string         `json:"reason"`
	Frees        QuantitiesJSON `json:"frees"`
	// ForTask is the pending task the choice makes room for.
	ForTask QuantitiesJSON `json:"for_task"`
	// ForShare and RoleShare are the two roles' weighted shares, before
	// and after.
	ForShare  [2]float64 `json:"for_share"`
	RoleShare [2]float64 `json:"role_share"`
	Text      string     `json:"text"`
}

// RoleExplanationJSON is one role of an explanation.
type RoleExplanationJSON struct {
	Role    string            `json:"role"`
	Text    string            `json:"text"`
	Agents  int               `json:"agents"`
	Offered int               `json:"offered"`
	Reason  string            `json:"reason,omitempty"`
	Reasons []ReasonGroupJSON `json:"reasons"`
}

// ReasonGroupJSON is one reason of a role's explanation, with its figures.
type ReasonGroupJSON struct {
	Reason      string               `json:"reason"`
	Count       int                  `json:"count"`
	Agents      []AgentReasonJSON    `json:"agents"`
	State       string               `json:"state,omitempty"`
	Missing     []string             `json:"missing,omitempty"`
	Earliest    *time.Time           `json:"earliest,omitempty"`
	Until       *time.Time           `json:"until,omitempty"`
	QuotaRole   string               `json:"quota_role,omitempty"`
	Limit       QuantitiesJSON       `json:"limit,omitempty"`
	Consumed    QuantitiesJSON       `json:"consumed,omitempty"`
	Unmet       []RoleQuantitiesJSON `json:"unmet,omitempty"`
	Left        QuantitiesJSON       `json:"left,omitempty"`
	Winner      string               `json:"winner,omitempty"`
	WinnerRole  string               `json:"winner_role,omitempty"`
	Share       *float64             `json:"share,omitempty"`
	WinnerShare *float64             `json:"winner_share,omitempty"`
	Winners     int                  `json:"winners,omitempty"`
}

// AgentReasonJSON is one agent of a reason.
type AgentReasonJSON struct {
	Agent      string         `json:"agent"`
	Framework  string         `json:"framework,omitempty"`
	Until      *time.Time     `json:"until,omitempty"`
	Missing    []string       `json:"missing,omitempty"`
	Offer      QuantitiesJSON `json:"offer,omitempty"`
	Winner     string         `json:"winner,omitempty"`
	WinnerRole string         `json:"winner_role,omitempty"`
}

// RoleQuantitiesJSON is a role and an amount.
type RoleQuantitiesJSON struct {
	Role      string         `json:"role"`
	Resources QuantitiesJSON `json:"resources"`
}

func explanationOf(x allocator.Explanation) ExplanationJSON {
	out := ExplanationJSON{Framework: x.Framework, Run: x.Run, Time: x.Time, Roles: []RoleExplanationJSON{}}
	for _, p := range x.Preemptions {
		out.Preemptions = append(out.Preemptions, PreemptionJSON{
			Framework: p.FrameworkID, Task: p.TaskID, Agent: p.AgentID, Role: p.Role, For: p.For,
			ForFramework: p.ForFramework, HeldIn: p.HeldIn, Reason: p.Reason.String(), Frees: quantitiesOf(p.Frees),
			ForTask: quantitiesOf(p.ForTask), ForShare: p.ForShare, RoleShare: p.RoleShare, Text: p.String(),
		})
	}
	for _, r := range x.Roles {
		re := RoleExplanationJSON{Role: r.Role, Text: r.String(), Agents: r.Agents, Offered: r.Offered, Reasons: []ReasonGroupJSON{}}
		if r.Reason != allocator.ReasonNone {
			re.Reason = r.Reason.String()
		}
		for _, g := range r.Reasons {
			rg := ReasonGroupJSON{Reason: g.Reason.String(), Count: g.Count, Agents: []AgentReasonJSON{}, State: g.State,
				QuotaRole: g.QuotaRole, Winner: g.Winner, WinnerRole: g.WinnerRole, Winners: g.Winners}
			if g.Missing != 0 {
				rg.Missing = nonNil(g.Missing.Names())
			}
			rg.Earliest, rg.Until = timeOrNil(g.Earliest), timeOrNil(g.Until)
			if g.Reason == allocator.ReasonQuotaLimit {
				rg.Limit, rg.Consumed = limitsOf(g.Limit), quantitiesOf(g.Consumed)
			}
			for _, u := range g.Unmet {
				rg.Unmet = append(rg.Unmet, RoleQuantitiesJSON{Role: u.Role, Resources: quantitiesOf(u.Quantities)})
			}
			if g.Reason == allocator.ReasonMinAllocatable {
				rg.Left = quantitiesOf(g.Left)
			}
			if g.Reason == allocator.ReasonFairness && g.Share >= 0 {
				share, winner := g.Share, g.WinnerShare
				rg.Share, rg.WinnerShare = &share, &winner
			}
			for _, ar := range g.Agents {
				ja := AgentReasonJSON{Agent: ar.Agent, Framework: ar.Framework, Until: timeOrNil(ar.Until),
					Winner: ar.Winner, WinnerRole: ar.WinnerRole}
				if ar.Missing != 0 {
					ja.Missing = nonNil(ar.Missing.Names())
				}
				if !ar.Offer.IsEmpty() {
					ja.Offer = quantitiesOf(ar.Offer)
				}
				rg.Agents = append(rg.Agents, ja)
			}
			re.Reasons = append(re.Reasons, rg)
		}
		out.Roles = append(out.Roles, re)
	}
	return out
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
