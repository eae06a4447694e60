// Command quota shows quota as the pool view of reservations: a role's
// guarantee and limit are set once for the whole cluster, not agent by
// agent, and the allocator keeps them whatever the agents.
//
// Six agents of cpus:4;mem:8192. Role prod is guaranteed cpus:8;mem:16384
// and limited to cpus:10;mem:20480; role batch may hold at most
// cpus:4;mem:8192 (its max share, one sixth); role analytics is guaranteed
// cpus:4;mem:8192 but has no framework yet; role dev has no quota. Every
// framework takes all it is offered, in tasks of <1 CPU, 2 GB>. The run
// shows that guarantees are met before fair sharing, that no role passes
// its limit, and that what is held back for an idle role's guarantee is
// exactly its unmet guarantee (the headroom rule), and no more.
//
//	go run ./examples/quota
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/examples/internal/ordered"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

var (
	agent = resources.MustParse("cpus:4;mem:8192", "*")
	// task is the size of every task.
	task = resources.MustParseQuantities("cpus:1;mem:2048")

	quotas = []struct {
		role string
		q    allocator.Quota
	}{
		{"prod", allocator.Quota{
			Guarantees: resources.MustParseQuantities("cpus:8;mem:16384"),
			Limits:     resources.MustParseLimits("cpus:10;mem:20480"),
		}},
		{"batch", allocator.Quota{Limits: resources.MustParseLimits("cpus:4;mem:8192")}},
		{"analytics", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:4;mem:8192")}},
	}
)

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quota:", err)
		os.Exit(1)
	}
}

// snapshot is the state after a phase.
type snapshot struct {
	// Consumed is each role's quota consumption; Free what no framework
	// holds; Headroom the unmet guarantees held back for.
	Consumed map[string]resources.Quantities
	Free     resources.Quantities
	Headroom resources.Quantities
}

// outcome is what the walk-through observed, for tests.
type outcome struct {
	Start, Analytics, DevLeaves snapshot
	// OverLimit lists every time a role was found above its limit (never,
	// if the allocator is right).
	OverLimit []string
	// launched counts the tasks each framework launched, for their ids.
	launched map[string]int
}

func run(w io.Writer) (outcome, error) {
	var out outcome
	a, err := allocator.New(allocator.Options{Seed: 1})
	if err != nil {
		return out, err
	}
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("agent-%d", i)
		if err := a.AddAgent(id, allocator.AgentInfo{Hostname: id}, agent, nil); err != nil {
			return out, err
		}
	}

	step(w, "1. Quota is set once for the cluster: guarantees (met first) and limits (never passed)")
	for _, q := range quotas {
		if err := a.UpdateQuota(q.role, q.q); err != nil {
			return out, err
		}
		fmt.Fprintf(w, "   %-9s guarantees %-18s limits %s\n", q.role, orNone(q.q.Guarantees.String()), orNone(q.q.Limits.String()))
	}

	step(w, "2. batch, dev and prod subscribe; each takes all it is offered")
	for _, role := range []string{"batch", "dev", "prod"} {
		if err := a.AddFramework(role, allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active); err != nil {
			return out, err
		}
	}
	if err := settle(w, a, &out); err != nil {
		return out, err
	}
	out.Start = report(w, a)
	fmt.Fprintln(w, "   prod got its guarantee although batch and dev come first by name and want everything;")
	fmt.Fprintln(w, "   batch stops at its limit; one agent's worth stays free for analytics' guarantee, no more.")

	step(w, "3. analytics subscribes: the resources held back for it are its at once")
	if err := a.AddFramework("analytics", allocator.FrameworkInfo{Roles: []string{"analytics"}}, nil, allocator.Active); err != nil {
		return out, err
	}
	if err := settle(w, a, &out); err != nil {
		return out, err
	}
	out.Analytics = report(w, a)

	step(w, "4. analytics needs no more and suppresses offers; dev leaves")
	if err := a.SuppressOffers("analytics"); err != nil {
		return out, err
	}
	if err := a.RemoveFramework("dev"); err != nil {
		return out, err
	}
	if err := settle(w, a, &out); err != nil {
		return out, err
	}
	out.DevLeaves = report(w, a)
	fmt.Fprintln(w, "   prod grows to its limit and no further, batch stays at its limit: what is left stays free,")
	fmt.Fprintln(w, "   though prod and batch would take it.")
	return out, nil
}

// settle runs allocations until one makes no offer, every framework
// launching as many tasks as fit in each offer and declining the rest
// without a filter; it records any role found above its limit.
func settle(w io.Writer, a *allocator.Allocator, out *outcome) error {
	for round := 1; round <= 10; round++ {
		res := a.AllocateAll()
		if len(res.Offers) == 0 {
			return nil
		}
		for _, o := range res.Offers {
			var launch offer.Launch
			left := o.Resources
			for {
				t, ok := offer.PickTask(left, fmt.Sprintf("%s-%d", o.FrameworkID, out.launched[o.FrameworkID]+1), task, o.Role)
				if !ok {
					break
				}
				if out.launched == nil {
					out.launched = map[string]int{}
				}
				out.launched[o.FrameworkID]++
				launch.Tasks = append(launch.Tasks, t)
				left = left.Minus(t.Resources)
			}
			if len(launch.Tasks) == 0 {
				fmt.Fprintf(w, "   run %d: %s is offered %s on %s and declines\n", res.Stats.Run, o.FrameworkID, ordered.Resources(o.Resources.Unallocate()), o.AgentID)
				if err := a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(w, "   run %d: %s is offered %s on %s and runs %d tasks\n", res.Stats.Run, o.FrameworkID, ordered.Resources(o.Resources.Unallocate()), o.AgentID, len(launch.Tasks))
			if err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, nil); err != nil {
				return err
			}
		}
		for _, r := range a.Roles() {
			if !r.Quota.Limits.IsEmpty() && !r.Quota.Limits.Contains(r.Consumed) {
				out.OverLimit = append(out.OverLimit, fmt.Sprintf("run %d: %s consumes %s, limits %s", res.Stats.Run, r.Role, r.Consumed, r.Quota.Limits))
			}
		}
	}
	return fmt.Errorf("offers still made after 10 runs")
}

// report prints every role's quota and consumption, what is free and what
// must be held back.
func report(w io.Writer, a *allocator.Allocator) snapshot {
	s := snapshot{Consumed: map[string]resources.Quantities{}}
	fmt.Fprintf(w, "   %-9s %-18s %-18s %-18s %s\n", "role", "guarantees", "limits", "consumed", "share")
	for _, r := range a.Roles() {
		s.Consumed[r.Role] = r.Consumed
		fmt.Fprintf(w, "   %-9s %-18s %-18s %-18s %.3f\n", r.Role, orNone(r.Quota.Guarantees.String()),
			orNone(r.Quota.Limits.String()), orNone(r.Consumed.String()), r.Share)
		if g := r.Quota.Guarantees; !g.IsEmpty() {
			s.Headroom.Add(unmet(g, r.Consumed))
		}
	}
	for _, v := range a.Agents() {
		s.Free.Add(v.Available.Quantities())
	}
	fmt.Fprintf(w, "   free: %s; unmet guarantees (held back): %s\n", orNone(s.Free.String()), orNone(s.Headroom.String()))
	return s
}

// unmet returns what of guarantees consumed does not cover.
func unmet(guarantees, consumed resources.Quantities) resources.Quantities {
	var out resources.Quantities
	for name, v := range guarantees.All() {
		if c := consumed.Scalar(name); c < v {
			out.SetScalar(name, v-c)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "{}" || s == "" {
		return "-"
	}
	return s
}

func step(w io.Writer, title string) { fmt.Fprintf(w, "\n%s\n", title) }
