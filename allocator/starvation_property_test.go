package allocator_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// ---- 1. The starvation bound of the rotation after declines ----

// starveKind is how one of the other frameworks answers offers.
type starveKind int

const (
	// starveDecliner declines every offer, with its filter.
	starveDecliner starveKind = iota
	// starveSometimes launches a task now and then (one chance in
	// oneIn, while its backlog lasts), else declines.
	starveSometimes
	// starveTaker launches one task per offer while its backlog lasts,
	// then declines.
	starveTaker
	// starveDemandTaker is a taker that states its backlog as demand
	// (restated after every run), so its offers are sized to its task.
	starveDemandTaker
	// starveSuppressed suppressed offers and never revives: not eligible.
	starveSuppressed
	// starveInactive is inactive: not eligible.
	starveInactive
	numStarveKinds
)

var starveKindNames = [...]string{"decliner", "sometimes", "taker", "demand-taker", "suppressed", "inactive"}

type starveFramework struct {
	id, role string
	kind     starveKind
	// filter goes with each decline (nil: none).
	filter *allocator.Filter
	// task is what it launches; backlog how many more it will.
	task    resources.Quantities
	backlog int
	oneIn   int
}

func (f starveFramework) String() string {
	filter := "no filter"
	if f.filter != nil {
		filter = "filter " + f.filter.Refuse.String()
	}
	return fmt.Sprintf("%s (role %s, %s, %s, task %s, backlog %d, 1 in %d)", f.id, f.role, starveKindNames[f.kind], filter, f.task, f.backlog, f.oneIn)
}

// starveSpec is a flat cluster where framework user (role u) runs a task
// on the first agent, and other frameworks answer offers as their kind
// says. user can use any leftover: it accepts every offer, launching
// userTask when that fits (or nothing, when userTask is empty: it hands
// the offer back through Accept, which is not a decline).
type starveSpec struct {
	seed     int64
	agents   []resources.Quantities
	userHeld resources.Quantities
	userTask resources.Quantities
	others   []starveFramework
	runs     int
}

func (s starveSpec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "world %d: agents", s.seed)
	for i, q := range s.agents {
		fmt.Fprintf(&b, " a%d{%s}", i, q)
	}
	fmt.Fprintf(&b, "; user holds %s on a0 and launches {%s} per offer\n", s.userHeld, s.userTask)
	for _, f := range s.others {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}

func genStarveSpec(seed int64) starveSpec {
	rng := rand.New(rand.NewSource(seed))
	s := starveSpec{seed: seed, runs: 40}
	for range 1 + rng.Intn(3) {
		cpus := int64(2+rng.Intn(15)) * 1000
		mem := int64(2+rng.Intn(31)) * 256 * 1000
		s.agents = append(s.agents, fairQuantities([]string{"cpus", "mem"}, []int64{cpus, mem}))
	}
	// user's task on a0 leaves at least one CPU: a leftover others may
	// decline.
	total := s.agents[0]
	heldCPUs := int64(1+rng.Intn(int(total.Scalar("cpus")/1000)-1)) * 1000
	heldMem := int64(total.Scalar("mem")) * int64(1+rng.Intn(4)) / 4
	s.userHeld = fairQuantities([]string{"cpus", "mem"}, []int64{heldCPUs, heldMem})
	if rng.Intn(2) == 0 {
		s.userTask = resources.MustParseQuantities("cpus:0.1;mem:16")
	}
	roles := 1 + rng.Intn(8)
	for i := range 1 + rng.Intn(8) {
		f := starveFramework{
			id:      fmt.Sprintf("f%d", i),
			role:    fmt.Sprintf("r%d", rng.Intn(roles)),
			kind:    starveKind(rng.Intn(int(numStarveKinds))),
			task:    fairQuantities([]string{"cpus", "mem"}, []int64{int64(1+rng.Intn(10)) * 100, int64(1+rng.Intn(8)) * 64 * 1000}),
			backlog: 1 + rng.Intn(4),
			oneIn:   2 + rng.Intn(4),
		}
		if n := rng.Intn(11); n > 0 {
			f.filter = &allocator.Filter{Refuse: time.Duration(n) * time.Second}
		}
		s.others = append(s.others, f)
	}
	return s
}

// starveWorld plays a starveSpec.
type starveWorld struct {
	spec   starveSpec
	a      *allocator.Allocator
	clock  *allocator.ManualClock
	rng    *rand.Rand
	others map[string]*starveFramework
	ids    int
}

func newStarveWorld(spec starveSpec, opts allocator.Options) (*starveWorld, error) {
	w := &starveWorld{spec: spec, clock: allocator.NewManualClock(fairnessEpoch), rng: rand.New(rand.NewSource(spec.seed + 1)), others: map[string]*starveFramework{}}
	opts.Seed, opts.Clock = spec.seed, w.clock.Now
	a, err := allocator.New(opts)
	if err != nil {
		return nil, err
	}
	w.a = a
	for i, q := range spec.agents {
		if err := a.AddAgent(fmt.Sprintf("a%d", i), allocator.AgentInfo{}, fairUnreserved(q), nil); err != nil {
			return nil, err
		}
	}
	if err := a.AddFramework("user", allocator.FrameworkInfo{Roles: []string{"u"}}, nil, allocator.Active); err != nil {
		return nil, err
	}
	for _, o := range a.AllocateAll().Offers {
		var err error
		if o.AgentID == "a0" {
			err = fairLaunch(a, o, &w.ids, spec.userHeld)
		} else {
			err = fairLaunch(a, o, &w.ids)
		}
		if err != nil {
			return nil, err
		}
	}
	for i := range spec.others {
		f := spec.others[i]
		w.others[f.id] = &f
		info := allocator.FrameworkInfo{Roles: []string{f.role}}
		state := allocator.Active
		switch f.kind {
		case starveSuppressed:
			info.SuppressedRoles = []string{f.role}
		case starveInactive:
			state = allocator.Inactive
		}
		if err := a.AddFramework(f.id, info, nil, state); err != nil {
			return nil, err
		}
		if err := w.stateDemand(&f); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// stateDemand restates a demand taker's backlog.
func (w *starveWorld) stateDemand(f *starveFramework) error {
	if f.kind != starveDemandTaker {
		return nil
	}
	var pending []allocator.Pending
	if f.backlog > 0 {
		pending = []allocator.Pending{{Resources: f.task, Count: f.backlog}}
	}
	return w.a.UpdateDemand(f.id, f.role, pending)
}

// answer plays the host for one offer and reports whether it was
// accepted (anything but a decline).
func (w *starveWorld) answer(o offer.Offer) (accepted bool, err error) {
	q := o.Resources.Quantities()
	if o.FrameworkID == "user" {
		if !w.spec.userTask.IsEmpty() && q.Contains(w.spec.userTask) {
			return true, fairLaunch(w.a, o, &w.ids, w.spec.userTask)
		}
		return true, fairLaunch(w.a, o, &w.ids)
	}
	f := w.others[o.FrameworkID]
	take := false
	switch f.kind {
	case starveSometimes:
		take = w.rng.Intn(f.oneIn) == 0
	case starveTaker, starveDemandTaker:
		take = true
	}
	if take && f.backlog > 0 && q.Contains(f.task) {
		f.backlog--
		return true, fairLaunch(w.a, o, &w.ids, f.task)
	}
	return false, w.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, f.filter)
}

// eligible counts the frameworks that may be offered anything: active,
// not suppressed (every framework here has one role).
func (w *starveWorld) eligible() int {
	n := 0
	for _, v := range w.a.Frameworks() {
		if v.Active && len(v.Suppressed) == 0 {
			n++
		}
	}
	return n
}

// check runs the world, a run a second, and checks the starvation bound:
// on each agent, in consecutive runs that start with a leftover user can
// use (the minimum allocatable resources) and in which user is not
// offered the agent, with no offer on the agent accepted in between (an
// accept changes what the agent has other than by declines, which starts
// a new round), there are fewer than N runs, where N is the most
// frameworks eligible at the start of any of them. Each such run offers
// the agent to a framework that is not in its round yet (others declined
// in the round are held back, and user, never declining, is never
// held back, so the round cannot end before user is offered), so after
// at most N-1 of them user is first.
func (w *starveWorld) check() error {
	streak := map[string]int{}
	bound := map[string]int{}
	var history []string
	for run := 1; run <= w.spec.runs; run++ {
		w.clock.Advance(time.Second)
		eligible := w.eligible()
		usable := map[string]resources.Quantities{}
		for _, v := range w.a.Agents() {
			if q := v.Available.Quantities(); fairAllocatable(q) {
				usable[v.ID] = q
			}
		}
		res := w.a.AllocateAll()
		var line []string
		offeredUser := map[string]bool{}
		for _, o := range res.Offers {
			line = append(line, fmt.Sprintf("%s@%s", o.FrameworkID, o.AgentID))
			if o.FrameworkID == "user" {
				offeredUser[o.AgentID] = true
			}
		}
		history = append(history, fmt.Sprintf("run %d: %s", run, strings.Join(line, " ")))
		for i := range w.spec.agents {
			id := fmt.Sprintf("a%d", i)
			left, ok := usable[id]
			if !ok || offeredUser[id] {
				streak[id], bound[id] = 0, 0
				continue
			}
			streak[id]++
			bound[id] = max(bound[id], eligible)
			if streak[id] >= bound[id] {
				return fmt.Errorf("run %d: user was not offered %s's leftover {%s} in %d runs in a row, with %d frameworks eligible\n%s", run, id, left, streak[id], bound[id], strings.Join(history[max(0, len(history)-streak[id]-2):], "\n"))
			}
		}
		for _, o := range res.Offers {
			accepted, err := w.answer(o)
			if err != nil {
				return fmt.Errorf("run %d: %w", run, err)
			}
			if accepted {
				streak[o.AgentID], bound[o.AgentID] = 0, 0
			}
		}
		for _, f := range w.spec.others {
			if err := w.stateDemand(w.others[f.id]); err != nil {
				return fmt.Errorf("run %d: %w", run, err)
			}
		}
	}
	return w.a.CheckInvariants()
}

func starveCheck(spec starveSpec, opts allocator.Options) error {
	w, err := newStarveWorld(spec, opts)
	if err != nil {
		return err
	}
	return w.check()
}

// TestPropertyStarvationBound: with the rotation after declines (the
// default), a framework that can use an agent's leftover is offered it
// within N runs, N the number of frameworks eligible for the agent,
// whatever the others decline and with whatever filters.
func TestPropertyStarvationBound(t *testing.T) {
	fairProperty(t, 200, "user is offered a leftover within N runs", func(seed int64) string {
		spec := genStarveSpec(seed)
		if err := starveCheck(spec, allocator.Options{}); err != nil {
			return fmt.Sprintf("%v\n%s", err, spec)
		}
		return ""
	})
}

// The negative control: on rotation_test.go's starving cluster (five
// decliners with 5 s filters, user holding all the memory of the one
// agent), Mesos's order breaks the bound and the rotation keeps it.
func TestPropertyStarvationBoundMesosOrderFails(t *testing.T) {
	spec := starveSpec{
		seed:     1,
		agents:   []resources.Quantities{resources.MustParseQuantities("cpus:4;mem:256")},
		userHeld: resources.MustParseQuantities("cpus:1;mem:256"),
		runs:     60,
	}
	for i := range 5 {
		spec.others = append(spec.others, starveFramework{
			id: fmt.Sprintf("d%d", i), role: fmt.Sprintf("rd%d", i), kind: starveDecliner,
			filter: &allocator.Filter{Refuse: 5 * time.Second}, oneIn: 1,
		})
	}
	if err := starveCheck(spec, allocator.Options{}); err != nil {
		t.Fatalf("the rotation: %v", err)
	}
	err := starveCheck(spec, allocator.Options{MesosOfferOrder: true})
	if err == nil {
		t.Fatal("Mesos's order kept the starvation bound")
	}
	t.Logf("Mesos's order: %v", err)
}

// ---- 2 and 3. Demand and discrete DRF ----
