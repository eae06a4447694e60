// Command tenants walks through reservation refinement on a cluster shared
// by two tenants, as in Mesos's reservation refinement design.
//
// Four agents of cpus:1;mem:1024;disk:10000. An operator reserves agents 0
// and 1 for tenant1 and agents 2 and 3 for tenant2, then refines each
// reservation one level down: agent 0 to tenant1/private, agent 1 to
// tenant1/public, agent 2 to tenant2/private, agent 3 to tenant2/public. A
// framework in role tenant1/private/test-framework, capable of reservation
// refinement, is offered agent 0 only; it refines the reservation to its own
// role, runs a task, and leaves. Unreserving the refinement gives the
// resources back to tenant1/private.
//
//	go run ./examples/tenants
package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/examples/internal/ordered"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

const (
	frameworkID   = "test-framework"
	frameworkRole = "tenant1/private/test-framework"
	principal     = "test-principal"
	operator      = "ops"
)

var agentIDs = []string{"agent-0", "agent-1", "agent-2", "agent-3"}

// refinedTo says to which sub-role each agent's tenant reservation is
// refined.
var refinedTo = map[string]string{
	"agent-0": "tenant1/private",
	"agent-1": "tenant1/public",
	"agent-2": "tenant2/private",
	"agent-3": "tenant2/public",
}

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tenants:", err)
		os.Exit(1)
	}
}

// outcome is what the walk-through observed, for tests.
type outcome struct {
	// Offers are the offers test-framework received.
	Offers []offer.Offer
	// Refined is what its RESERVE made of its offer; Launched its task.
	Refined, Launched resources.Resources
	// AfterLeave and AfterUnreserve are every agent's total when the
	// framework has left, and after the operator unreserved the
	// refinement.
	AfterLeave, AfterUnreserve map[string]resources.Resources
	// Refused is the error of a RESERVE for another role than the
	// framework's.
	Refused error
	// LegacySkips are why a framework of tenant1/private without
	// RESERVATION_REFINEMENT was passed over.
	LegacySkips map[allocator.Reason]int
	// Reoffer is what a new framework of tenant1/private/analytics is
	// offered at the end.
	Reoffer []offer.Offer
}

func run(w io.Writer) (outcome, error) {
	var out outcome
	a, err := allocator.New(allocator.Options{Seed: 1})
	if err != nil {
		return out, err
	}

	agent := resources.MustParse("cpus:1;mem:1024;disk:10000", "*")
	step(w, "1. Four agents of "+ordered.Resources(agent).String())
	for _, id := range agentIDs {
		if err := a.AddAgent(id, allocator.AgentInfo{Hostname: id}, agent, nil); err != nil {
			return out, err
		}
	}
	printAgents(w, a)

	step(w, "2. The operator reserves agents 0 and 1 for tenant1, agents 2 and 3 for tenant2")
	for _, id := range agentIDs {
		tenant := reservation.TopLevel(refinedTo[id])
		reserved, err := agent.PushReservation(dynamic(tenant, operator))
		if err != nil {
			return out, err
		}
		if err := operate(w, a, id, offer.Reserve{Resources: reserved}); err != nil {
			return out, err
		}
	}

	step(w, "3. The operator refines each reservation to a sub-role")
	for _, id := range agentIDs {
		view, _ := a.Agent(id)
		refined, err := view.Total.PushReservation(dynamic(refinedTo[id], operator))
		if err != nil {
			return out, err
		}
		if err := operate(w, a, id, offer.Reserve{Resources: refined}); err != nil {
			return out, err
		}
	}
	printAgents(w, a)

	step(w, "4. A framework of tenant1/private without RESERVATION_REFINEMENT is offered nothing")
	if err := a.AddFramework("legacy", allocator.FrameworkInfo{Roles: []string{"tenant1/private"}}, nil, allocator.Active); err != nil {
		return out, err
	}
	offers := a.Allocate().Offers
	printOffers(w, offers)
	out.LegacySkips = a.Skips("legacy")
	fmt.Fprintf(w, "   passed over: %s\n", describeSkips(out.LegacySkips))
	if err := a.RemoveFramework("legacy"); err != nil {
		return out, err
	}

	step(w, "5. "+frameworkID+" subscribes with role "+frameworkRole+" and RESERVATION_REFINEMENT")
	info := allocator.FrameworkInfo{
		Roles:        []string{frameworkRole},
		Principal:    principal,
		Capabilities: offer.ReservationRefinement,
	}
	if err := a.AddFramework(frameworkID, info, nil, allocator.Active); err != nil {
		return out, err
	}
	out.Offers = a.Allocate().Offers
	printOffers(w, out.Offers)
	fmt.Fprintln(w, "   Agents 1, 2 and 3 are reserved for roles that are not tenant1/private/test-framework or its ancestors.")
	if len(out.Offers) != 1 {
		return out, fmt.Errorf("%s got %d offers, want 1", frameworkID, len(out.Offers))
	}
	o := out.Offers[0]

	step(w, "6. It refines the tenant1/private reservation to its own role and launches a task")
	refined, err := o.Resources.PushReservation(dynamic(frameworkRole, principal))
	if err != nil {
		return out, err
	}
	reserve := offer.Reserve{Resources: refined}
	after, err := offer.Apply(o.Resources, reserve)
	if err != nil {
		return out, err
	}
	task, ok := offer.PickTask(after, "task-1", resources.MustParseQuantities("cpus:1;mem:512"), o.Role)
	if !ok {
		return out, fmt.Errorf("the task does not fit in %s", after)
	}
	launch := offer.Launch{Tasks: []offer.Task{task}}

	// A framework reserves only for its own role: refining to a sibling
	// role is refused, and changes nothing.
	other, err := o.Resources.PushReservation(dynamic("tenant1/private/other", principal))
	if err != nil {
		return out, err
	}
	out.Refused = a.Accept(frameworkID, o.AgentID, o.Resources, []offer.Operation{offer.Reserve{Resources: other}}, nil)
	if !errors.Is(out.Refused, offer.ErrAllocationRoleMismatch) {
		return out, fmt.Errorf("RESERVE for another role: got %v, want offer.ErrAllocationRoleMismatch", out.Refused)
	}
	fmt.Fprintln(w, "   RESERVE for tenant1/private/other: refused, not the role of the offer (offer.ErrAllocationRoleMismatch)")

	for _, op := range []offer.Operation{reserve, launch} {
		fmt.Fprintf(w, "   %s\n", describeOp(op))
	}
	if err := a.Accept(frameworkID, o.AgentID, o.Resources, []offer.Operation{reserve, launch}, nil); err != nil {
		return out, err
	}
	out.Refined, out.Launched = refined, task.Resources
	printAgents(w, a)

	step(w, "7. The task finishes")
	if err := a.RecoverAllocated(frameworkID, o.AgentID, task.Resources, nil); err != nil {
		return out, err
	}
	view, _ := a.Agent(o.AgentID)
	fmt.Fprintf(w, "   %s available: %s\n", view.ID, ordered.ByReservation(view.Available))

	step(w, "8. The framework unsubscribes: its reservation stays on agent-0")
	if err := a.RemoveFramework(frameworkID); err != nil {
		return out, err
	}
	out.AfterLeave = totals(a)
	printAgents(w, a)

	step(w, "9. The operator unreserves the refinement: agent-0 is tenant1/private's again")
	view, _ = a.Agent("agent-0")
	mine := view.Total.Filter(func(r resources.Resource) bool { return r.Role() == frameworkRole })
	if err := operate(w, a, "agent-0", offer.Unreserve{Resources: mine}); err != nil {
		return out, err
	}
	out.AfterUnreserve = totals(a)
	printAgents(w, a)

	step(w, "10. A new framework of tenant1/private/analytics is offered agent-0")
	info.Roles = []string{"tenant1/private/analytics"}
	if err := a.AddFramework("analytics", info, nil, allocator.Active); err != nil {
		return out, err
	}
	out.Reoffer = a.Allocate().Offers
	printOffers(w, out.Reoffer)
	return out, nil
}

// dynamic is a dynamic reservation for role by principal.
func dynamic(role, principal string) reservation.Reservation {
	return reservation.Reservation{Type: reservation.Dynamic, Role: role, Principal: principal}
}

// operate applies an operator operation to an agent's unallocated
// resources, as Mesos's /reserve and /unreserve endpoints do.
func operate(w io.Writer, a *allocator.Allocator, agentID string, op offer.Operation) error {
	fmt.Fprintf(w, "   %s: %s\n", agentID, describeOp(op))
	return a.UpdateAvailable(agentID, []offer.Operation{op})
}

func totals(a *allocator.Allocator) map[string]resources.Resources {
	out := map[string]resources.Resources{}
	for _, v := range a.Agents() {
		out[v.ID] = v.Total
	}
	return out
}

func step(w io.Writer, title string) {
	fmt.Fprintf(w, "\n%s\n", title)
}

func printOffers(w io.Writer, offers []offer.Offer) {
	if len(offers) == 0 {
		fmt.Fprintln(w, "   no offers")
	}
	for _, o := range offers {
		fmt.Fprintf(w, "   offer to %s (role %s) on %s: %s\n", o.FrameworkID, o.Role, o.AgentID, ordered.ByReservation(o.Resources))
	}
}

func printAgents(w io.Writer, a *allocator.Allocator) {
	for _, v := range a.Agents() {
		fmt.Fprintf(w, "   %s total: %s\n", v.ID, ordered.ByReservation(v.Total))
		for _, fw := range slices.Sorted(maps.Keys(v.Allocated)) {
			fmt.Fprintf(w, "   %s   used by %s: %s\n", strings.Repeat(" ", len(v.ID)), fw, ordered.ByReservation(v.Allocated[fw]))
		}
	}
}

func describeOp(op offer.Operation) string {
	switch o := op.(type) {
	case offer.Reserve:
		return "RESERVE " + ordered.ByReservation(o.Resources)
	case offer.Unreserve:
		return "UNRESERVE " + ordered.ByReservation(o.Resources)
	case offer.Launch:
		var parts []string
		for _, t := range o.Tasks {
			parts = append(parts, t.ID+": "+ordered.ByReservation(t.Resources))
		}
		return "LAUNCH " + strings.Join(parts, ", ")
	}
	return op.String()
}

// describeSkips prints why a framework was passed over, reasons in their
// order: "incapable 1".
func describeSkips(skips map[allocator.Reason]int) string {
	reasons := make([]allocator.Reason, 0, len(skips))
	for r := range skips {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	var parts []string
	for _, r := range reasons {
		parts = append(parts, fmt.Sprintf("%s %d", r, skips[r]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
