package main

import (
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// agentTotal is every agent's total. Tasks use 2 GB a CPU, so an agent's
// CPUs and memory fill together and a role's dominant share is its CPUs
// out of the cluster's.
var agentTotal = resources.MustParse("cpus:8;mem:16384", "*")

const memPerCPU = 2048

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// cluster is one allocator on a manual clock and what its host records:
// the tasks that filled it, in launch order.
type cluster struct {
	a     *allocator.Allocator
	clock *allocator.ManualClock
	tasks []launched
}

// launched is one task the host launched.
type launched struct {
	id, agent string
	cpus      float64
}

func newCluster(mode allocator.Reclaim, agents int) (*cluster, error) {
	clock := allocator.NewManualClock(epoch)
	a, err := allocator.New(allocator.Options{Seed: 1, Clock: clock.Now, Reclaim: mode})
	if err != nil {
		return nil, err
	}
	for i := range agents {
		id := fmt.Sprintf("agent-%d", i+1)
		if err := a.AddAgent(id, allocator.AgentInfo{Hostname: id}, agentTotal, nil); err != nil {
			return nil, err
		}
	}
	return &cluster{a: a, clock: clock}, nil
}

// step is one allocation interval: the clock moves a second, the
// allocator runs over every agent, and its invariants are checked.
func (c *cluster) step() (allocator.Result, error) {
	c.clock.Advance(time.Second)
	res := c.a.AllocateAll()
	return res, c.a.CheckInvariants()
}

// sized returns the quantities of a task of n CPUs.
func sized(cpus float64) resources.Quantities {
	return resources.MustParseQuantities(fmt.Sprintf("cpus:%g;mem:%g", cpus, cpus*memPerCPU))
}

// taskOf returns a task of quantities q on unreserved resources, allocated
// to role as a launch on an offer to role needs.
func taskOf(id string, q resources.Quantities, role string) offer.Task {
	return offer.Task{ID: id, Resources: resources.MustParse(q.String(), "*").Allocate(role)}
}

// fill adds framework fw in role and, in one run, launches on every offer
// tasks of the sizes size gives (from the CPUs left on the agent) until
// every agent is full. Then fw suppresses offers: it has nothing more to
// run, and it should not take back what reclaim frees for others.
func (c *cluster) fill(fw, role string, size func(left float64) float64) error {
	if err := c.a.AddFramework(fw, allocator.FrameworkInfo{Roles: []string{role}}, nil, allocator.Active); err != nil {
		return err
	}
	res, err := c.step()
	if err != nil {
		return err
	}
	for _, o := range res.OffersTo(fw) {
		var tasks []offer.Task
		for left := o.Resources.Quantities().Float64("cpus"); left > 0; {
			n := size(left)
			t := launched{id: fmt.Sprintf("%s-%02d", role, len(c.tasks)+1), agent: o.AgentID, cpus: n}
			c.tasks = append(c.tasks, t)
			tasks = append(tasks, taskOf(t.id, sized(n), role))
			left -= n
		}
		if err := c.a.Accept(fw, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil); err != nil {
			return err
		}
	}
	return c.a.SuppressOffers(fw)
}

// endChosen ends every task the run chose, as a host does once the kill
// requests it sent are done: EndTask, as for any task that ends.
func (c *cluster) endChosen(ps []allocator.Preemption) error {
	for _, p := range ps {
		if err := c.a.EndTask(p.FrameworkID, p.TaskID); err != nil {
			return err
		}
	}
	return nil
}

// share is role's weighted dominant share, as the role sorter reports it.
func (c *cluster) share(role string) float64 {
	v, _ := c.a.Role(role)
	return v.Share
}

// held is what the agents hold for framework fw.
func (c *cluster) held(fw string) resources.Quantities {
	var q resources.Quantities
	for _, v := range c.a.Agents() {
		q.Add(v.Held[fw].Quantities())
	}
	return q
}

// running is what framework fw's tasks use.
func (c *cluster) running(fw string) resources.Quantities {
	var q resources.Quantities
	for _, t := range c.a.Tasks(fw) {
		q.Add(t.Resources.Quantities())
	}
	return q
}

// service is a framework that runs replicas of one size: before every
// run its host states the replicas it waits to run (UpdateDemand), those
// it wants less those running; it launches as many as fit on each offer,
// up to want (0: as many as the cluster holds), gives back the rest, and
// suppresses offers once it runs all it wants.
type service struct {
	id, role string
	replica  resources.Quantities
	want     int
	running  int
}

// state states the replicas the service waits to run: want less those
// running, or, without an end, as many as the cluster could hold.
func (s *service) state(c *cluster) error {
	n := s.want - s.running
	if s.want == 0 {
		var total resources.Quantities
		for _, v := range c.a.Agents() {
			total.Add(v.Total.Quantities())
		}
		n = int(total.Float64("cpus")/s.replica.Float64("cpus")) - s.running
	}
	var pending []allocator.Pending
	if n > 0 {
		pending = []allocator.Pending{{Resources: s.replica, Count: n}}
	}
	return c.a.UpdateDemand(s.id, s.role, pending)
}

// add subscribes the service's framework to its role.
func (s *service) add(c *cluster) error {
	return c.a.AddFramework(s.id, allocator.FrameworkInfo{Roles: []string{s.role}}, nil, allocator.Active)
}

// answer launches replicas on the service's offers of res and records in
// rec the offers, the replicas launched and what it gave back.
func (s *service) answer(c *cluster, res allocator.Result, rec *runRecord) error {
	rec.Offers = res.OffersTo(s.id)
	started := s.running
	for _, o := range rec.Offers {
		var tasks []offer.Task
		left := o.Resources.Quantities()
		for left.Contains(s.replica) && (s.want == 0 || s.running < s.want) {
			s.running++
			tasks = append(tasks, taskOf(fmt.Sprintf("%s-%02d", s.id, s.running), s.replica, s.role))
			left.Subtract(s.replica)
		}
		rec.Returned.Add(left)
		if len(tasks) == 0 {
			if err := c.a.RecoverResources(s.id, o.AgentID, o.Resources, nil); err != nil {
				return err
			}
			continue
		}
		// Accept gives back what the replicas leave of the offer.
		if err := c.a.Accept(s.id, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil); err != nil {
			return err
		}
	}
	rec.Replicas = s.running - started
	if s.want > 0 && s.running >= s.want && started < s.want {
		return c.a.SuppressOffers(s.id)
	}
	return nil
}
