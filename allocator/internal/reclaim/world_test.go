package reclaim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// world is a small cluster built by hand, with the bookkeeping the
// allocator would keep: each agent's free headroom, the role tree's
// consumption, the ledger. Shares are worked out here from first
// principles (a role's own tasks over the cluster's totals, divided by
// its weight), not by the allocator's sorters.
type world struct {
	t       *testing.T
	cs      *cluster.State
	tree    *roles.Tree
	tasks   []*cluster.Task
	seq     uint64
	weights map[string]float64
	// order is each role's frameworks in the order they are offered.
	order map[string][]string
	// unusable are the (framework, agent) pairs Usable refuses.
	unusable map[[2]string]bool
	// holdable is Run.Holdable (nil: whatever is free).
	holdable func(n *roles.Node, reason Reason) resources.Quantities
	st       State
	run      uint64
	now      time.Time
}

func qty(s string) resources.Quantities { return resources.MustParseQuantities(s) }

func newWorld(t *testing.T) *world {
	return &world{t: t, cs: &cluster.State{}, tree: roles.NewTree(), weights: map[string]float64{},
		order: map[string][]string{}, unusable: map[[2]string]bool{}, st: NewState(),
		now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// agent adds an agent of total quantities, all free.
func (w *world) agent(id, total string) *cluster.Agent {
	ag := &cluster.Agent{ID: id, Active: true, Total: resources.MustParse(total, "*")}
	ag.Headroom = qty(total)
	w.cs.NumberAgent(ag)
	w.cs.Agents.Put(ag)
	i, _ := w.cs.AgentPlace(id)
	w.cs.AgentList = slices.Insert(w.cs.AgentList, i, ag)
	w.cs.Totals.Add(qty(total))
	return ag
}

// framework adds a framework subscribed to roles.
func (w *world) framework(id string, roleList ...string) *cluster.Framework {
	fw := &cluster.Framework{ID: id, Active: true, Tasks: map[string]*cluster.Task{}}
	for _, r := range roleList {
		fw.Roles.Mark(r, tables.Subscribed)
		w.tree.Ensure(r)
		w.order[r] = append(w.order[r], id)
	}
	w.cs.Frameworks.Put(fw)
	return fw
}

// launch runs a task of fw in role on agent, using quantities q of what
// is free there.
func (w *world) launch(fwID, taskID, role, agentID, q string) *cluster.Task {
	return w.launchUses(fwID, taskID, role, agentID, q, q)
}

// end ends a task: what it used is free again.
func (w *world) end(fwID, taskID string) {
	fw := w.cs.Frameworks.Get(fwID)
	t := fw.Tasks[taskID]
	delete(fw.Tasks, taskID)
	t.Ended = true
	q := t.Reclaimable()
	w.cs.Agents.Get(t.Agent).Headroom.Add(q)
	w.tree.TrackAllocatedUnreserved(t.Role, q, false)
}

// demand sets fw's statement in role: shape and count pairs.
func (w *world) demand(fwID, role string, pending ...cluster.Pending) {
	fw := w.cs.Frameworks.Get(fwID)
	if fw.Demand == nil {
		fw.Demand = map[string][]cluster.Pending{}
	}
	fw.Demand[role] = pending
}

func pend(q string, n int) cluster.Pending { return cluster.Pending{Resources: qty(q), Count: n} }

func (w *world) quota(role, guarantees, limits string) {
	q := roles.Quota{Guarantees: qty(guarantees)}
	if limits != "" {
		q.Limits = resources.MustParseLimits(limits)
	}
	w.tree.Ensure(role).SetQuota(q)
}

// share is a role's own weighted dominant share with plus and minus.
func (w *world) share(n *roles.Node, plus, minus resources.Quantities) float64 {
	own := n.AllocatedUnreserved.Clone()
	for _, c := range n.Children {
		own.Subtract(c.AllocatedUnreserved)
	}
	own.Add(plus)
	own.Subtract(minus)
	best := 0.0
	for name, v := range own.All() {
		if total := w.cs.Totals.Scalar(name); total > 0 {
			best = max(best, float64(v)/float64(total))
		}
	}
	weight := 1.0
	if x, ok := w.weights[n.Path]; ok {
		weight = x
	}
	return best / weight
}

// reclaim makes a run in mode; offered are the roles the run offered
// something.
func (w *world) reclaim(mode Mode, offered ...string) (chosen, withdrawn []Chosen) {
	w.run++
	w.now = w.now.Add(time.Second)
	// The ledger holds the tasks that ended too, until it is compacted
	// (cluster.Ledger.Live): reclaim passes them over.
	ledger := slices.Clone(w.tasks)
	r := &Run{ID: w.run, Now: w.now, Timeout: 10 * time.Second, Mode: mode, Cluster: w.cs, Roles: w.tree, Tasks: func() []*cluster.Task { return ledger },
		Offered: map[string]bool{},
		Usable: func(fw *cluster.Framework, role string, ag *cluster.Agent) bool {
			return ag.Active && !w.unusable[[2]string{fw.ID, ag.ID}]
		},
		Share: w.share, Holdable: w.holdable,
		Frameworks: func(n *roles.Node) []*cluster.Framework {
			var out []*cluster.Framework
			for _, id := range w.order[n.Path] {
				if fw := w.cs.Frameworks.Get(id); fw != nil && fw.Active {
					out = append(out, fw)
				}
			}
			return out
		}}
	for _, role := range offered {
		r.Offered[role] = true
	}
	return w.st.Reclaim(r)
}

// victims names chosen tasks as "framework/task@agent".
func victims(cs []Chosen) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s/%s@%s", c.Ref.Framework, c.Ref.Task, c.Agent))
	}
	return out
}

// fullCluster is agents a1..an of cpus:4;mem:4096, each running four
// tasks of cpus:1;mem:1024 of spark in role batch (t01-t04 on a1, ...),
// and nginx subscribed to web.
func fullCluster(t *testing.T, agents int) *world {
	w := newWorld(t)
	w.framework("spark", "batch")
	w.framework("nginx", "web")
	n := 0
	for i := 1; i <= agents; i++ {
		id := fmt.Sprintf("a%d", i)
		w.agent(id, "cpus:4;mem:4096")
		for range 4 {
			n++
			w.launch("spark", fmt.Sprintf("t%02d", n), "batch", id, "cpus:1;mem:1024")
		}
	}
	return w
}

// launchUses runs a task of fw in role on agent that uses the resources
// uses (revocable ones, say), of which the quantities free come out of
// what is free there.
func (w *world) launchUses(fwID, taskID, role, agentID, uses, free string) *cluster.Task {
	fw, ag := w.cs.Frameworks.Get(fwID), w.cs.Agents.Get(agentID)
	res := resources.MustParse(uses, "*").Allocate(role)
	require.True(w.t, ag.Headroom.Contains(qty(free)), "agent %s has %s free, not %s", agentID, ag.Headroom, free)
	ag.Headroom.Subtract(qty(free))
	w.seq++
	t := &cluster.Task{ID: taskID, Agent: agentID, Role: role, Uses: res, Owns: res, Seq: w.seq, Framework: fw}
	fw.Tasks[taskID] = t
	w.tasks = append(w.tasks, t)
	w.tree.TrackAllocatedUnreserved(role, qty(free), true)
	return t
}

// threeRoles is one agent of cpus:9;mem:9216 running, of cpus:1;mem:1024
// each, four tasks of m (m1-m4) and five of a (x1-x5), oldest first, and
// role t, with nothing, waiting for a task of cpus:2;mem:2048.
func threeRoles(t *testing.T) *world {
	w := newWorld(t)
	w.framework("mfw", "m")
	w.framework("afw", "a")
	w.framework("tfw", "t")
	w.agent("a1", "cpus:9;mem:9216")
	for i := 1; i <= 4; i++ {
		w.launch("mfw", fmt.Sprintf("m%d", i), "m", "a1", "cpus:1;mem:1024")
	}
	for i := 1; i <= 5; i++ {
		w.launch("afw", fmt.Sprintf("x%d", i), "a", "a1", "cpus:1;mem:1024")
	}
	w.demand("tfw", "t", pend("cpus:2;mem:2048", 1))
	return w
}
