// Command pool tells the pool story end to end: pool reservations that are
// also quota guarantees, a role's maximum share as its quota limit, a
// role's share charged only beyond its allowance
// (Options.ChargeBeyondAllowance), reserved resources used first
// (Options.ReservedFirst) and freed resources held for in-framework
// preemption (PreemptTask).
//
//	go run ./examples/pool
//
// Twelve agents of cpus:16;mem:65536. On every agent cpus:2;mem:8192 are
// reserved (static reservations) for each of the roles etl, finance and
// web: pool reservations of cpus:24;mem:98304 each, spread over the
// cluster, and each of these roles has the same amounts as its quota
// guarantee. Role adhoc may hold at most a quarter of the cluster (its
// quota limit, cpus:48;mem:196608); role dev has no quota. Every task is
// <1 CPU, 4 GB>, so a role's share is its CPUs out of 192.
//
// The same events go to two allocators: "mesos", with Mesos's behaviour
// (the options off), and "pool", with ChargeBeyondAllowance and
// ReservedFirst on. After every step a table gives each role's share, what
// it holds of the shared pool (allocated), its reservations, its quota
// consumption and its tasks, for both allocators (once when they agree).
//
//  1. The cluster and its quota.
//  2. etl launches 24 tasks, two per agent, on resources it names
//     unreserved. mesos runs them on the shared pool: etl's reservation
//     stays idle and every agent's shared part loses two CPUs. pool moves
//     them onto the reservation (AcceptApplied says so): the shared pool
//     stays whole, and etl, using exactly its pool reservation, has share 0.
//  3. adhoc takes everything it is offered and stops at its limit, with
//     shared resources still free; no offer holds a reservation.
//  4. web launches 24 tasks on its reservation (offer.PickTask takes
//     reserved resources first): with the same holdings, its share is 0.125
//     on mesos and 0 on pool.
//  5. dev subscribes and web scales out; they share the rest of the pool
//     in the order their shares give. On pool, web's allowance is its pool
//     reservation (its guarantee, which the reservation meets): only what
//     it holds of the shared pool counts in its share, so it and dev share
//     the rest of the pool as two roles that held nothing would.
//  6. finance stays idle: its reservation is offered to nobody else, and
//     as reservations count as consumed quota its guarantee is met, so no
//     headroom is held back for it.
//  7. adhoc preempts one of its tasks for an urgent one (PreemptTask): the
//     next run offers the freed resources to adhoc alone, though dev's
//     share is lower; while held they count in adhoc's share and quota.
//  8. A task of adhoc ends (EndTask): what it used goes back to the pool,
//     to the role with the lowest share.
package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

const agents = 12

var (
	// agentTotal is every agent's total: a shared part, and cpus:2;mem:8192
	// of the pool reservation of each of etl, finance and web.
	agentTotal = resources.MustParse("cpus:10;mem:40960;cpus(etl):2;mem(etl):8192;cpus(finance):2;mem(finance):8192;cpus(web):2;mem(web):8192", "*")
	// shared is the unreserved part of an agent.
	shared = resources.MustParseQuantities("cpus:10;mem:40960")
	// poolRoles have a pool reservation of poolSize in all, and the same
	// amounts as quota guarantee.
	poolRoles = []string{"etl", "finance", "web"}
	poolSize  = resources.MustParseQuantities("cpus:24;mem:98304")
	// adhocLimit is adhoc's maximum share, a quarter of the cluster.
	adhocLimit = resources.MustParseLimits("cpus:48;mem:196608")
	// task is the size of every task.
	task = resources.MustParseQuantities("cpus:1;mem:4096")

	epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// holdFor is how long a preempted task's resources are held.
const holdFor = 30 * time.Second

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pool:", err)
		os.Exit(1)
	}
}

// framework is how a framework uses its offers.
type framework struct {
	id string
	// want is how many more tasks it wants; negative: as many as it is
	// offered. At zero it suppresses offers.
	want int
	// perAgent caps its tasks on one agent (0: no cap).
	perAgent int
	// unreserved: it names unreserved resources for its tasks, as a
	// framework written for a shared pool does; otherwise it places them
	// with offer.PickTask, which takes the role's reservations first.
	unreserved bool
	// launched counts its tasks, for their ids.
	launched int
}

// host is one allocator and the frameworks it serves.
type host struct {
	name  string
	a     *allocator.Allocator
	clock *allocator.ManualClock
	fws   map[string]*framework
	out   *hostOutcome
}

// offered is one offer and what the framework did with it.
type offered struct {
	Run              uint64
	Framework, Agent string
	// Resources are the offered resources, without allocation role.
	Resources resources.Resources
	// Tasks is how many tasks it launched, OnReserved how many of them as
	// launched (after ReservedFirst) run on reserved resources only.
	Tasks, OnReserved int
}

// row is one role of a table.
type row struct {
	Share                         float64
	Allocated, Reserved, Consumed resources.Quantities
	Tasks                         int
}

// snapshot is the state after a step.
type snapshot struct {
	Roles map[string]row
	// FreeShared is the unreserved resources neither offered, used nor
	// held; WholeAgents counts the agents whose whole shared part is free.
	FreeShared  resources.Quantities
	WholeAgents int
	// FreeReserved is, per role, its reservations neither offered nor
	// used.
	FreeReserved map[string]resources.Quantities
	// Unmet is the sum of the unmet quota guarantees: the headroom held
	// back.
	Unmet resources.Quantities
	// OnReserved counts, per framework, its tasks in the ledger (Tasks)
	// that run on reserved resources only.
	OnReserved map[string]int
}

// hostOutcome is what one allocator did.
type hostOutcome struct {
	// Steps are the snapshots after steps 1 to 8, Offers the offers of
	// each step.
	Steps  []snapshot
	Offers [][]offered
	// AdhocSkips are why adhoc was passed over in the run of step 3 that
	// brought it to its limit.
	AdhocSkips map[allocator.Reason]int
	// IdleOffers is how many offers the run of step 6 made.
	IdleOffers int
	// Preempted is the task adhoc preempted in step 7, PreemptedOn its
	// agent, Held what the agent held for adhoc, and WhileHeld the roles
	// while it was held.
	Preempted, PreemptedOn string
	Held                   resources.Resources
	WhileHeld              snapshot
	// Ended is the task that ends in step 8.
	Ended string
}

// outcome is what the story observed, for tests.
type outcome struct {
	Mesos, Pool hostOutcome
}

// step is one step of the story: what each host does, and what to say of
// the two afterwards.
type step struct {
	title string
	do    func(h *host, w io.Writer) error
	note  func(w io.Writer, m, p *hostOutcome)
}

func run(w io.Writer) (outcome, error) {
	var out outcome
	hosts := []*host{{name: "mesos", out: &out.Mesos}, {name: "pool", out: &out.Pool}}
	for _, h := range hosts {
		h.clock = allocator.NewManualClock(epoch)
		opts := allocator.Options{Seed: 2, Clock: h.clock.Now}
		if h.name == "pool" {
			opts.ChargeBeyondAllowance, opts.ReservedFirst = true, true
		}
		a, err := allocator.New(opts)
		if err != nil {
			return out, err
		}
		h.a, h.fws = a, map[string]*framework{}
	}
	fmt.Fprintln(w, "The same events go to two allocators:")
	fmt.Fprintln(w, "  mesos  Mesos's behaviour: the options off")
	fmt.Fprintln(w, "  pool   Options.ChargeBeyondAllowance and Options.ReservedFirst on")
	fmt.Fprintln(w, "Every task is <1 CPU, 4 GB>; a role's share is its CPUs out of 192.")

	for _, s := range story() {
		fmt.Fprintf(w, "\n%s\n", s.title)
		var texts []string
		for _, h := range hosts {
			var b bytes.Buffer
			h.out.Offers = append(h.out.Offers, nil)
			if err := s.do(h, &b); err != nil {
				return out, fmt.Errorf("%s: %s: %w", h.name, firstLine(s.title), err)
			}
			if err := h.a.CheckInvariants(); err != nil {
				return out, fmt.Errorf("%s: %s: %w", h.name, firstLine(s.title), err)
			}
			h.out.Steps = append(h.out.Steps, table(h, &b))
			texts = append(texts, b.String())
		}
		if texts[0] == texts[1] {
			fmt.Fprintf(w, "  mesos and pool alike:\n%s", texts[0])
		} else {
			for i, h := range hosts {
				fmt.Fprintf(w, "  %s:\n%s", h.name, texts[i])
			}
		}
		if s.note != nil {
			s.note(w, &out.Mesos, &out.Pool)
		}
	}
	return out, nil
}

func story() []step {
	return []step{
		{"1. Twelve agents of cpus:16; mem:65536, each with cpus:2; mem:8192 reserved for etl, finance and web;\n" +
			"   the same amounts over the cluster are these roles' quota guarantees; adhoc's maximum share,\n" +
			"   a quarter of the cluster, is its quota limit",
			setUp, nil},
		{"2. etl subscribes: 24 tasks, two per agent, on resources it names unreserved",
			func(h *host, w io.Writer) error {
				return subscribe(h, w, "etl", &framework{want: 24, perAgent: 2, unreserved: true})
			}, noteETL},
		{"3. adhoc subscribes: it takes everything it is offered",
			func(h *host, w io.Writer) error {
				return subscribe(h, w, "adhoc", &framework{want: -1})
			}, noteAdhoc},
		{"4. web subscribes: 24 tasks, two per agent, placed with offer.PickTask (reservations first)",
			func(h *host, w io.Writer) error {
				return subscribe(h, w, "web", &framework{want: 24, perAgent: 2})
			}, noteWeb},
		{"5. dev subscribes and web scales out (ReviveOffers): both take everything they are offered",
			func(h *host, w io.Writer) error {
				if err := h.a.AddFramework("dev", allocator.FrameworkInfo{Roles: []string{"dev"}}, nil, allocator.Active); err != nil {
					return err
				}
				h.fws["dev"] = &framework{id: "dev", want: -1}
				h.fws["web"].want, h.fws["web"].perAgent = -1, 0
				if err := h.a.ReviveOffers("web"); err != nil {
					return err
				}
				return settle(h, w)
			}, noteCompete},
		{"6. finance stays idle; dev and web still want more",
			idle, noteIdle},
		{fmt.Sprintf("7. adhoc preempts one of its tasks to run an urgent one (PreemptTask, held %s)", holdFor),
			preempt, notePreempt},
		{"8. One of adhoc's tasks ends (EndTask)",
			func(h *host, w io.Writer) error {
				h.out.Ended = h.a.Tasks("adhoc")[0].ID
				if err := h.a.EndTask("adhoc", h.out.Ended); err != nil {
					return err
				}
				fmt.Fprintf(w, "   adhoc's task %s ends\n", h.out.Ended)
				return settle(h, w)
			}, noteEnd},
	}
}

// setUp adds the agents and sets the quota.
func setUp(h *host, w io.Writer) error {
	for i := 1; i <= agents; i++ {
		id := fmt.Sprintf("agent-%02d", i)
		if err := h.a.AddAgent(id, allocator.AgentInfo{Hostname: id}, agentTotal, nil); err != nil {
			return err
		}
	}
	for _, role := range poolRoles {
		if err := h.a.UpdateQuota(role, allocator.Quota{Guarantees: poolSize}); err != nil {
			return err
		}
	}
	if err := h.a.UpdateQuota("adhoc", allocator.Quota{Limits: adhocLimit}); err != nil {
		return err
	}
	fmt.Fprintf(w, "   every agent: shared %s\n", sorted(agentTotal.Unreserved()))
	fmt.Fprintf(w, "                reserved %s\n", sorted(agentTotal.Reserved("")))
	fmt.Fprintf(w, "   %-8s %-20s %s\n", "role", "guarantees", "limits")
	for _, r := range h.a.Roles() {
		fmt.Fprintf(w, "   %-8s %-20s %s\n", r.Role, orNone(r.Quota.Guarantees.String()), orNone(r.Quota.Limits.String()))
	}
	return nil
}

// subscribe adds a framework in the role of its name and runs allocations
// until none is made.
func subscribe(h *host, w io.Writer, id string, fw *framework) error {
	fw.id = id
	if err := h.a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{id}}, nil, allocator.Active); err != nil {
		return err
	}
	h.fws[id] = fw
	return settle(h, w)
}

// settle runs allocations (AllocateAll, a second apart) until one makes no
// offer; every framework launches what it wants of each offer.
func settle(h *host, w io.Writer) error {
	for range 10 {
		h.clock.Advance(time.Second)
		res := h.a.AllocateAll()
		if len(res.Offers) == 0 {
			return nil
		}
		if err := answer(h, w, res); err != nil {
			return err
		}
		if _, ok := h.fws["adhoc"]; ok && h.out.AdhocSkips == nil {
			if skips := h.a.Skips("adhoc"); skips[allocator.ReasonQuotaLimit] > 0 {
				h.out.AdhocSkips = skips
				fmt.Fprintf(w, "          then adhoc is at its limit: %s\n", describeSkips(skips))
			}
		}
	}
	return fmt.Errorf("offers still made after 10 runs")
}

// answer lets each framework launch what it wants of its offers and give
// back the rest, and prints the offers, those alike on one line.
func answer(h *host, w io.Writer, res allocator.Result) error {
	var recs []offered
	for _, o := range res.Offers {
		fw := h.fws[o.FrameworkID]
		tasks := fw.place(h.a, o)
		var ops []offer.Operation
		var filter *allocator.Filter
		if len(tasks) > 0 {
			ops = []offer.Operation{offer.Launch{Tasks: tasks}}
		} else {
			filter = &allocator.Filter{Refuse: time.Hour} // it has no use for the agent
		}
		applied, err := h.a.AcceptApplied(o.FrameworkID, o.AgentID, o.Resources, ops, filter)
		if err != nil {
			return err
		}
		rec := offered{Run: res.Stats.Run, Framework: o.FrameworkID, Agent: o.AgentID, Resources: o.Resources.Unallocate(), Tasks: len(tasks)}
		for _, op := range applied {
			if l, ok := op.(offer.Launch); ok {
				for _, t := range l.Tasks {
					if t.Resources.Unreserved().IsEmpty() {
						rec.OnReserved++
					}
				}
			}
		}
		recs = append(recs, rec)
		if fw.want == 0 {
			if err := h.a.SuppressOffers(fw.id); err != nil {
				return err
			}
		}
	}
	i := len(h.out.Offers) - 1
	h.out.Offers[i] = append(h.out.Offers[i], recs...)
	printOffers(w, recs)
	return nil
}

// printOffers prints offers, one line for those of one run and framework
// with the same resources and the same use.
func printOffers(w io.Writer, recs []offered) {
	type key struct {
		run       uint64
		fw, res   string
		tasks, on int
	}
	var keys []key
	agentsOf := map[key][]string{}
	for _, r := range recs {
		k := key{r.Run, r.Framework, sorted(r.Resources).String(), r.Tasks, r.OnReserved}
		if _, ok := agentsOf[k]; !ok {
			keys = append(keys, k)
		}
		agentsOf[k] = append(agentsOf[k], strings.TrimPrefix(r.Agent, "agent-"))
	}
	for _, k := range keys {
		ids := agentsOf[k]
		where, each := "agent-"+ids[0], ""
		if len(ids) > 1 {
			where, each = fmt.Sprintf("%d agents (%s)", len(ids), spans(ids)), " each"
		}
		var use string
		switch {
		case k.tasks == 0:
			use = "declines"
		case k.on == k.tasks:
			use = fmt.Sprintf("%s%s on reserved resources", plural(k.tasks, "task"), each)
		case k.on == 0:
			use = fmt.Sprintf("%s%s on unreserved resources", plural(k.tasks, "task"), each)
		default:
			use = fmt.Sprintf("%s%s, %d on reserved resources", plural(k.tasks, "task"), each, k.on)
		}
		fmt.Fprintf(w, "   run %d: %s is offered %s\n          on %s: %s\n", k.run, k.fw, k.res, where, use)
	}
}

// spans writes agent numbers ("01", "02", "03", "05") as spans: "01-03 05".
func spans(ids []string) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && number(ids[j+1]) == number(ids[j])+1 {
			j++
		}
		if j > i {
			parts = append(parts, ids[i]+"-"+ids[j])
		} else {
			parts = append(parts, ids[i])
		}
		i = j + 1
	}
	return strings.Join(parts, " ")
}

func number(id string) int {
	n, _ := strconv.Atoi(id)
	return n
}

// place returns the tasks fw launches on offer o.
func (fw *framework) place(a *allocator.Allocator, o offer.Offer) []offer.Task {
	n := 0 // tasks fw runs on the agent
	for _, t := range a.Tasks(fw.id) {
		if t.Agent == o.AgentID {
			n++
		}
	}
	var tasks []offer.Task
	left := o.Resources
	for fw.want != 0 && (fw.perAgent == 0 || n < fw.perAgent) {
		id := fmt.Sprintf("%s-%02d", fw.id, fw.launched+1)
		var t offer.Task
		if fw.unreserved {
			res := resources.MustParse(task.String(), "*").Allocate(o.Role)
			if !left.Contains(res) {
				break
			}
			t = offer.Task{ID: id, Resources: res}
		} else {
			var ok bool
			if t, ok = offer.PickTask(left, id, task, o.Role); !ok {
				break
			}
		}
		tasks = append(tasks, t)
		left = left.Minus(t.Resources)
		fw.launched++
		n++
		if fw.want > 0 {
			fw.want--
		}
	}
	return tasks
}

// idle runs an allocation with dev and web wanting more and only
// finance's reservation free.
func idle(h *host, w io.Writer) error {
	h.clock.Advance(time.Second)
	res := h.a.AllocateAll()
	h.out.IdleOffers = len(res.Offers)
	if len(res.Offers) == 0 {
		fmt.Fprintf(w, "   run %d: no offer\n", res.Stats.Run)
		return nil
	}
	return answer(h, w, res)
}

// preempt makes adhoc preempt its first task, prints the roles while the
// resources are held, and runs the allocation the hold triggers, in which
// adhoc launches its urgent task.
func preempt(h *host, w io.Writer) error {
	t := h.a.Tasks("adhoc")[0]
	if err := h.a.PreemptTask("adhoc", t.ID, holdFor); err != nil {
		return err
	}
	v, _ := h.a.Agent(t.Agent)
	h.out.Preempted, h.out.PreemptedOn, h.out.Held = t.ID, t.Agent, v.Held["adhoc"].Unallocate()
	fmt.Fprintf(w, "   adhoc preempts %s on %s: %s held for adhoc for %s\n", t.ID, t.Agent, sorted(h.out.Held), v.HeldUntil["adhoc"].Sub(h.clock.Now()))
	fmt.Fprintln(w, "   while held:")
	h.out.WhileHeld = table(h, w)
	fmt.Fprintln(w, "   the run PreemptTask triggered:")
	h.fws["adhoc"].want = 1 // the urgent task
	h.clock.Advance(time.Second)
	return answer(h, w, h.a.Allocate())
}

// table prints every role's share, allocation, reservations, quota
// consumption and tasks, and what is free; it returns them.
func table(h *host, w io.Writer) snapshot {
	s := snapshot{Roles: map[string]row{}, FreeReserved: map[string]resources.Quantities{}, OnReserved: map[string]int{}}
	tasks := map[string]int{}
	for _, v := range h.a.Frameworks() {
		for _, t := range h.a.Tasks(v.ID) {
			tasks[t.Role]++
			if t.Resources.Unreserved().IsEmpty() {
				s.OnReserved[v.ID]++
			}
		}
	}
	fmt.Fprintf(w, "   %-8s %6s  %-20s %-20s %-20s %5s\n", "role", "share", "allocated", "reserved", "consumed", "tasks")
	for _, r := range h.a.Roles() {
		row := row{Share: r.Share, Allocated: r.OfferedOrAllocated, Reserved: r.Reserved, Consumed: r.Consumed, Tasks: tasks[r.Role]}
		s.Roles[r.Role] = row
		fmt.Fprintf(w, "   %-8s %6.3f  %-20s %-20s %-20s %5d\n", r.Role, r.Share, orNone(r.OfferedOrAllocated.String()),
			orNone(r.Reserved.String()), orNone(r.Consumed.String()), row.Tasks)
		s.Unmet.Add(r.Quota.Guarantees.Minus(r.Consumed))
	}
	for _, v := range h.a.Agents() {
		free := v.Available.Unreserved().Quantities()
		s.FreeShared.Add(free)
		if free.Equal(shared) {
			s.WholeAgents++
		}
		for _, role := range poolRoles {
			q := s.FreeReserved[role]
			q.Add(v.Available.Reserved(role).Quantities())
			s.FreeReserved[role] = q
		}
	}
	var idle []string
	for _, role := range poolRoles {
		if q := s.FreeReserved[role]; !q.IsEmpty() {
			idle = append(idle, fmt.Sprintf("%s %s", role, q))
		}
	}
	fmt.Fprintf(w, "   shared pool free: %s (whole on %d of %d agents)\n", orNone(s.FreeShared.String()), s.WholeAgents, agents)
	fmt.Fprintf(w, "   reservations free: %s\n", orNone(strings.Join(idle, ", ")))
	fmt.Fprintf(w, "   unmet guarantees (headroom held back): %s\n", orNone(s.Unmet.String()))
	return s
}

// named pairs each allocator's outcome with its name.
type named struct {
	name string
	o    *hostOutcome
}

func noteETL(w io.Writer, m, p *hostOutcome) {
	ms, ps := m.Steps[1], p.Steps[1]
	fmt.Fprintf(w, "  mesos: etl's %d tasks run on the shared pool and its reservation, %s, stays idle;\n",
		ms.Roles["etl"].Tasks, ms.FreeReserved["etl"])
	fmt.Fprintf(w, "    %d of %d agents keep their shared part whole. etl consumes %s of quota\n",
		ms.WholeAgents, agents, ms.Roles["etl"].Consumed)
	fmt.Fprintf(w, "    and its share is %.3f.\n", ms.Roles["etl"].Share)
	fmt.Fprintf(w, "  pool: ReservedFirst moved %s onto etl's reservation (AcceptApplied returns them\n",
		plural(onReserved(p.Offers[1], "etl"), "task"))
	fmt.Fprintf(w, "    as launched); %d of %d agents keep their shared part whole. etl consumes %s,\n",
		ps.WholeAgents, agents, ps.Roles["etl"].Consumed)
	fmt.Fprintf(w, "    its guarantee; it uses exactly its pool reservation, so with ChargeBeyondAllowance\n")
	fmt.Fprintf(w, "    its share is %.3f.\n", ps.Roles["etl"].Share)
}

func noteAdhoc(w io.Writer, m, p *hostOutcome) {
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		s := h.o.Steps[2]
		fmt.Fprintf(w, "  %s: adhoc runs %d tasks on %d agents and stops at its limit (share %.3f),\n",
			h.name, s.Roles["adhoc"].Tasks, len(h.o.Offers[2]), s.Roles["adhoc"].Share)
		fmt.Fprintf(w, "    with %s of the shared pool still free.\n", s.FreeShared)
	}
	fmt.Fprintf(w, "  Offers to adhoc that held a reserved resource: %d on mesos, %d on pool.\n",
		reservedOffers(m.Offers[2]), reservedOffers(p.Offers[2]))
}

func noteWeb(w io.Writer, m, p *hostOutcome) {
	ms, ps := m.Steps[3].Roles["web"], p.Steps[3].Roles["web"]
	fmt.Fprintf(w, "  web uses exactly its pool reservation on both allocators (%s on reserved resources,\n",
		plural(onReserved(m.Offers[3], "web"), "task"))
	fmt.Fprintf(w, "  %s of the shared pool): its share is %.3f on mesos and %.3f on pool, where it holds\n",
		orNothing(ms.Allocated.String()), ms.Share, ps.Share)
	fmt.Fprintln(w, "  nothing beyond its allowance.")
}

func noteCompete(w io.Writer, m, p *hostOutcome) {
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		before, after := h.o.Steps[3], h.o.Steps[4]
		dev, web := after.Roles["dev"], after.Roles["web"]
		fmt.Fprintf(w, "  %s: of the free %s, dev gets %s (share %.3f),\n", h.name, before.FreeShared, dev.Allocated, dev.Share)
		fmt.Fprintf(w, "    web %s (share %.3f).\n", web.Allocated.Minus(before.Roles["web"].Allocated), web.Share)
	}
	web := p.Steps[4].Roles["web"]
	fmt.Fprintf(w, "  On pool, web's allowance is its pool reservation, %s, which is also its\n", web.Reserved)
	fmt.Fprintf(w, "  guarantee: of the %s it holds, %s counts in its share, and web and dev\n",
		web.Consumed, web.Consumed.Minus(web.Reserved))
	fmt.Fprintln(w, "  share the rest of the pool as two roles that held nothing would.")
}

func noteIdle(w io.Writer, m, p *hostOutcome) {
	offers := "no offer on either allocator"
	if m.IdleOffers+p.IdleOffers > 0 {
		offers = fmt.Sprintf("%s on mesos and %s on pool", plural(m.IdleOffers, "offer"), plural(p.IdleOffers, "offer"))
	}
	fmt.Fprintf(w, "  finance's reservation, %s, is free on every agent, and dev and web want\n",
		p.Steps[5].FreeReserved["finance"])
	fmt.Fprintf(w, "  more, but the run makes %s: reserved resources go only to their role.\n", offers)
	fmt.Fprintf(w, "  Reservations count as consumed quota, so finance's guarantee is met (consumed %s)\n",
		p.Steps[5].Roles["finance"].Consumed)
	fmt.Fprintf(w, "  and nothing more is held back for it (unmet guarantees: %s).\n", orNone(p.Steps[5].Unmet.String()))
	fmt.Fprintf(w, "  On mesos etl's reservation, %s, idles too.\n", m.Steps[5].FreeReserved["etl"])
}

func notePreempt(w io.Writer, m, p *hostOutcome) {
	fmt.Fprintf(w, "  While held, adhoc's share stays %.3f and its consumption %s, its limit.\n",
		p.WhileHeld.Roles["adhoc"].Share, p.WhileHeld.Roles["adhoc"].Consumed)
	fmt.Fprintf(w, "  dev's share is lower (%.3f on mesos, %.3f on pool) and dev wants more, but the run\n",
		m.WhileHeld.Roles["dev"].Share, p.WhileHeld.Roles["dev"].Share)
	fmt.Fprintf(w, "  offers %s to %s, which runs its urgent task there.\n", sorted(m.Held), both(offeredTo(m.Offers[6]), offeredTo(p.Offers[6])))
}

// both says "x alone on both allocators", or "x on mesos and y on pool".
func both(x, y string) string {
	if x == y {
		return x + " alone on both allocators"
	}
	return x + " on mesos and " + y + " on pool"
}

func noteEnd(w io.Writer, m, p *hostOutcome) {
	fmt.Fprintln(w, "  Ended, not preempted, the task's resources go back to the pool, to the lowest share:")
	for _, h := range []named{{"mesos", m}, {"pool", p}} {
		to, before := offeredTo(h.o.Offers[7]), h.o.Steps[6].Roles
		other := "dev"
		if to == "dev" {
			other = "web"
		}
		fmt.Fprintf(w, "  %s: to %s (share %.3f, %s's %.3f).\n", h.name, to, before[to].Share, other, before[other].Share)
	}
}

// onReserved counts the tasks of fw's offers launched on reserved resources.
func onReserved(recs []offered, fw string) int {
	n := 0
	for _, r := range recs {
		if r.Framework == fw {
			n += r.OnReserved
		}
	}
	return n
}

// reservedOffers counts the offers that hold reserved resources.
func reservedOffers(recs []offered) int {
	n := 0
	for _, r := range recs {
		if !r.Resources.Reserved("").IsEmpty() {
			n++
		}
	}
	return n
}

// offeredTo names the frameworks offers went to.
func offeredTo(recs []offered) string {
	var names []string
	for _, r := range recs {
		if !slices.Contains(names, r.Framework) {
			names = append(names, r.Framework)
		}
	}
	if len(names) == 0 {
		return "nobody"
	}
	return strings.Join(names, " and ")
}

func describeSkips(skips map[allocator.Reason]int) string {
	var parts []string
	for r := allocator.ReasonFiltered; r <= allocator.ReasonAgentInactive; r++ {
		if n := skips[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("passed over %s (%s)", plural(n, "time"), r))
		}
	}
	if len(parts) == 0 {
		return "never passed over"
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 && what == "time" {
		return "once"
	}
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func orNothing(s string) string {
	if s == "{}" || s == "" {
		return "nothing"
	}
	return s
}

func orNone(s string) string {
	if s == "{}" || s == "" {
		return "-"
	}
	return s
}

// sorted returns rs with its entries in name order, unreserved ones first,
// then in the order of their text, so that the same resources always print
// the same way.
func sorted(rs resources.Resources) resources.Resources {
	list := rs.Slice()
	slices.SortStableFunc(list, func(a, b resources.Resource) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(len(a.Reservations), len(b.Reservations)),
			strings.Compare(a.String(), b.String()))
	})
	var out resources.Resources
	for _, r := range list {
		_ = out.AddResource(r)
	}
	return out
}
