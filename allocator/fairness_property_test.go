package allocator_test

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Property tests of fairness: the rotation after declines (rotation.go)
// and offers sized to stated demand (demand.go).
//
// Each property draws worlds from an int64 seed (gopter's argument) and
// prints gopter's seed when it starts (replay the whole property with
// -allocator.seed, scale it with -allocator.sequences). A failure message
// names the world's seed too. Worlds are bounded by constants, not by
// testing.Short, so the package's run stays short either way.

// fairnessParameters are parameters(t) (the seed from -allocator.seed)
// with tests worlds per property unless -allocator.sequences says.
func fairnessParameters(t *testing.T, tests int) *gopter.TestParameters {
	t.Helper()
	p := parameters(t)
	if *sequencesFlag == 0 {
		p.MinSuccessfulTests = tests
		if raceEnabled {
			p.MinSuccessfulTests = max(tests/5, 10)
		}
	}
	return p
}

// fairProperty runs one seeded property.
func fairProperty(t *testing.T, tests int, name string, check func(seed int64) string) {
	t.Helper()
	props := gopter.NewProperties(fairnessParameters(t, tests))
	props.Property(name, prop.ForAll(check, gen.Int64()))
	props.TestingRun(t)
}

var fairnessEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fairMilli formats an amount in thousandths of a unit (resources.Scalar) as
// resource text, exactly.
func fairMilli(v int64) string { return fmt.Sprintf("%d.%03d", v/1000, v%1000) }

// fairQuantities makes quantities from amounts in thousandths, by name
// (zero amounts left out).
func fairQuantities(names []string, amounts []int64) resources.Quantities {
	var parts []string
	for i, name := range names {
		if amounts[i] > 0 {
			parts = append(parts, name+":"+fairMilli(amounts[i]))
		}
	}
	return resources.MustParseQuantities(strings.Join(parts, ";"))
}

// fairUnreserved makes unreserved resources of quantities.
func fairUnreserved(q resources.Quantities) resources.Resources {
	return resources.MustParse(q.String(), "*")
}

// fairAllocatable is DefaultMinAllocatable's test on quantities:
// cpus:0.01 or mem:32.
func fairAllocatable(q resources.Quantities) bool {
	return q.Scalar("cpus") >= 10 || q.Scalar("mem") >= 32000
}

// fairLaunch accepts an offer, launching a task of each shape of tasks (none:
// the offer is accepted and given back whole, which is not a decline).
func fairLaunch(a *allocator.Allocator, o offer.Offer, ids *int, tasks ...resources.Quantities) error {
	var ops []offer.Operation
	if len(tasks) > 0 {
		list := make([]offer.Task, len(tasks))
		for i, q := range tasks {
			*ids++
			list[i] = offer.Task{ID: fmt.Sprintf("%s-t%d", o.FrameworkID, *ids), Resources: fairUnreserved(q).Allocate(o.Role)}
		}
		ops = []offer.Operation{offer.Launch{Tasks: list}}
	}
	if err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, ops, nil); err != nil {
		return fmt.Errorf("accepting %s on %s (%s) with %d tasks: %w", o.FrameworkID, o.AgentID, o.Resources, len(tasks), err)
	}
	return nil
}

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

// drfUser is one user of a DRF world: one framework in a role of its own,
// with one task shape (amounts in thousandths, by the world's names) and
// a role weight.
type drfUser struct {
	role, fw string
	shape    []int64
	weight   float64
}

type drfSpec struct {
	seed   int64
	names  []string
	agent  []int64 // one agent's total, by names
	agents int
	// joins says how many agents join before each run (property 3).
	joins []int
	users []drfUser
}

func (s drfSpec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "world %d: %d agent(s) of {%s}, joining %v\n", s.seed, s.agents, fairQuantities(s.names, s.agent), s.joins)
	for _, u := range s.users {
		fmt.Fprintf(&b, "  %s (role %s, weight %g): task {%s}\n", u.fw, u.role, u.weight, fairQuantities(s.names, u.shape))
	}
	return b.String()
}

// fairLargeCount is a pending count no world runs out of.
const fairLargeCount = 1 << 20

func genDRFSpec(seed int64, agents int) drfSpec {
	rng := rand.New(rand.NewSource(seed))
	s := drfSpec{seed: seed, agents: agents, names: []string{"cpus", "mem"}}
	if rng.Intn(2) == 0 {
		s.names = append(s.names, "disk")
	}
	// Coarse amounts make equal shares, and so the tie rules, common.
	coarse := rng.Intn(2) == 0
	for _, name := range s.names {
		var v int64
		switch {
		case coarse:
			v = int64(4+4*rng.Intn(4)) * 1000
		case name == "cpus":
			v = int64(4+rng.Intn(29)) * 1000
		default:
			v = int64(1024+rng.Intn(31*1024)) * 1000
		}
		s.agent = append(s.agent, v)
	}
	weights := []float64{0.5, 1, 1.5, 2, 3}
	useWeights := rng.Intn(2) == 0
	perm := rng.Perm(5)
	for i := range 2 + rng.Intn(4) {
		u := drfUser{role: fmt.Sprintf("r%d", perm[i]), weight: 1}
		u.fw = "fw-" + u.role
		if useWeights {
			u.weight = weights[rng.Intn(len(weights))]
		}
		for j, name := range s.names {
			var v int64
			switch {
			case coarse:
				v = s.agent[j] / int64(1<<rng.Intn(4)) / 4 // a quarter down to a 32nd
			case name == "cpus":
				v = int64(1+rng.Intn(40)) * 100 // 0.1 to 4 cpus
			case name == "disk" && rng.Intn(3) == 0:
				v = 0 // no disk
			default:
				v = 1000 + rng.Int63n(s.agent[j]/4)
			}
			u.shape = append(u.shape, v)
		}
		s.users = append(s.users, u)
	}
	return s
}

// drfShare is the DRF sorter's weighted dominant share (sorter/doc.go,
// "Ties"): the largest of holding/total over the names, as float64 of
// the integer thousandths, divided by the weight unless it is 1. Done the
// same way, equal holdings give bit-identical shares.
func drfShare(held, total []int64, weight float64) float64 {
	best := 0.0
	for i, t := range total {
		if t <= 0 {
			continue
		}
		if s := float64(held[i]) / float64(t); s > best {
			best = s
		}
	}
	if weight != 1 {
		best /= weight
	}
	return best
}

func fairFits(shape, left []int64) bool {
	for i, v := range shape {
		if v > left[i] {
			return false
		}
	}
	return true
}

// drfFiller is the DRF paper's progressive filling with whole tasks,
// skipping users whose task no longer fits: each step gives one task to
// the user first by the DRF sorter's order among those that can take
// one. That order (sorter/doc.go, "Ties") is weighted dominant share
// ascending, then allocation count ascending (how many times the sorter
// was charged for the client: one per task offered, as each task is an
// offer of its own, and nothing was ever offered before), then role name.
type drfFiller struct {
	users []drfUser
	total []int64 // the pool, by names
	tasks []int
	held  [][]int64
}

func newDRFFiller(users []drfUser, total []int64) *drfFiller {
	f := &drfFiller{users: users, total: total, tasks: make([]int, len(users)), held: make([][]int64, len(users))}
	for i, u := range users {
		f.held[i] = make([]int64, len(u.shape))
	}
	return f
}

// before reports whether user i comes before user j in DRF order.
func (f *drfFiller) before(i, j int) bool {
	si, sj := drfShare(f.held[i], f.total, f.users[i].weight), drfShare(f.held[j], f.total, f.users[j].weight)
	if si != sj {
		return si < sj
	}
	if f.tasks[i] != f.tasks[j] {
		return f.tasks[i] < f.tasks[j]
	}
	return f.users[i].role < f.users[j].role
}

// next returns the first user in DRF order that can take a task (can
// says whether user i's task fits), or -1.
func (f *drfFiller) next(can func(i int) bool) int {
	best := -1
	for i := range f.users {
		if can(i) && (best < 0 || f.before(i, best)) {
			best = i
		}
	}
	return best
}

func (f *drfFiller) give(i int, left []int64) {
	f.tasks[i]++
	for k, v := range f.users[i].shape {
		f.held[i][k] += v
		left[k] -= v
	}
}

// fillAgent fills one agent's left (shares by f's pool) until no task
// fits.
func (f *drfFiller) fillAgent(left []int64) {
	for {
		i := f.next(func(i int) bool { return fairFits(f.users[i].shape, left) })
		if i < 0 {
			return
		}
		f.give(i, left)
	}
}

// fillPool fills agents as one pool with per-agent fit: each step gives
// a task to the first user in DRF order whose task fits on some agent,
// placed on the first agent (by index) where it fits.
func (f *drfFiller) fillPool(agents [][]int64) {
	where := func(i int) int {
		return slices.IndexFunc(agents, func(left []int64) bool { return fairFits(f.users[i].shape, left) })
	}
	for {
		i := f.next(func(i int) bool { return where(i) >= 0 })
		if i < 0 {
			return
		}
		f.give(i, agents[where(i)])
	}
}

// drfWorld is an allocator with the spec's users, each stating a large
// pending count of its task.
type drfWorld struct {
	spec  drfSpec
	a     *allocator.Allocator
	clock *allocator.ManualClock
	added int
	ids   int
	tasks map[string]int
}

func newDRFWorld(spec drfSpec, opts allocator.Options) (*drfWorld, error) {
	w := &drfWorld{spec: spec, clock: allocator.NewManualClock(fairnessEpoch), tasks: map[string]int{}}
	opts.Seed, opts.Clock = spec.seed, w.clock.Now
	a, err := allocator.New(opts)
	if err != nil {
		return nil, err
	}
	w.a = a
	weights := map[string]float64{}
	for _, u := range spec.users {
		if u.weight != 1 {
			weights[u.role] = u.weight
		}
	}
	if len(weights) > 0 {
		if err := a.UpdateWeights(weights); err != nil {
			return nil, err
		}
	}
	for _, u := range spec.users {
		if err := a.AddFramework(u.fw, allocator.FrameworkInfo{Roles: []string{u.role}}, nil, allocator.Active); err != nil {
			return nil, err
		}
	}
	return w, w.stateDemand()
}

func (w *drfWorld) stateDemand() error {
	for _, u := range w.spec.users {
		shape := fairQuantities(w.spec.names, u.shape)
		if err := w.a.UpdateDemand(u.fw, u.role, []allocator.Pending{{Resources: shape, Count: fairLargeCount}}); err != nil {
			return err
		}
	}
	return nil
}

func (w *drfWorld) addAgents(n int) error {
	for range n {
		if err := w.a.AddAgent(fmt.Sprintf("a%02d", w.added), allocator.AgentInfo{}, fairUnreserved(fairQuantities(w.spec.names, w.spec.agent)), nil); err != nil {
			return err
		}
		w.added++
	}
	return nil
}

// tasksIn returns how many of u's tasks an offer holds: the offer must
// hold exactly that many times the task.
func (w *drfWorld) tasksIn(u drfUser, o offer.Offer) (int, error) {
	q := o.Resources.Quantities()
	n := int(q.Scalar(w.spec.names[0]) / resources.Scalar(u.shape[0]))
	want := make([]int64, len(u.shape))
	for i, v := range u.shape {
		want[i] = v * int64(n)
	}
	if n == 0 || !q.Equal(fairQuantities(w.spec.names, want)) {
		return 0, fmt.Errorf("offer to %s on %s holds {%s}, not a number of tasks of {%s}", o.FrameworkID, o.AgentID, q, fairQuantities(w.spec.names, u.shape))
	}
	return n, nil
}

func (w *drfWorld) user(fwID string) drfUser {
	i := slices.IndexFunc(w.spec.users, func(u drfUser) bool { return u.fw == fwID })
	return w.spec.users[i]
}

// fairCompareTasks compares tasks per user with want, allowing tolerance.
func fairCompareTasks(users []drfUser, got map[string]int, want []int, tolerance int) error {
	var bad []string
	for i, u := range users {
		if d := got[u.fw] - want[i]; d > tolerance || d < -tolerance {
			bad = append(bad, fmt.Sprintf("%s has %d tasks, %d expected", u.fw, got[u.fw], want[i]))
		}
	}
	if len(bad) > 0 {
		var all []string
		for i, u := range users {
			all = append(all, fmt.Sprintf("%s %d/%d", u.fw, got[u.fw], want[i]))
		}
		return fmt.Errorf("%s (got/expected: %s)", strings.Join(bad, "; "), strings.Join(all, ", "))
	}
	return nil
}

// demandOneAgent checks one run on one agent against progressive filling,
// exactly.
func demandOneAgent(spec drfSpec, opts allocator.Options) error {
	w, err := newDRFWorld(spec, opts)
	if err != nil {
		return err
	}
	if err := w.addAgents(1); err != nil {
		return err
	}
	got := map[string]int{}
	for _, o := range w.a.AllocateAll().Offers {
		n, err := w.tasksIn(w.user(o.FrameworkID), o)
		if err != nil {
			return err
		}
		got[o.FrameworkID] += n
	}
	f := newDRFFiller(spec.users, spec.agent)
	f.fillAgent(slices.Clone(spec.agent))
	return fairCompareTasks(spec.users, got, f.tasks, 0)
}

// TestPropertyDemandOneAgentIsDRF: on one agent, one run hands out tasks
// to users that state a large pending count exactly as the DRF paper's
// progressive filling does, with the DRF sorter's tie rules (share, then
// allocation count, then name).
func TestPropertyDemandOneAgentIsDRF(t *testing.T) {
	fairProperty(t, 200, "one agent's tasks are progressive filling's", func(seed int64) string {
		spec := genDRFSpec(seed, 1)
		if err := demandOneAgent(spec, allocator.Options{}); err != nil {
			return fmt.Sprintf("%v\n%s", err, spec)
		}
		return ""
	})
}

// fairRunManyAgents lets agents join the spec's world in batches, a run
// after each (users launch all they are offered, and state their demand
// again), then runs until a run offers nothing. It returns the tasks
// launched per framework.
func fairRunManyAgents(spec drfSpec, opts allocator.Options) (map[string]int, error) {
	w, err := newDRFWorld(spec, opts)
	if err != nil {
		return nil, err
	}
	quiet := false
	for run := 0; run < len(spec.joins) || !quiet; run++ {
		if run >= len(spec.joins)+20 {
			return nil, fmt.Errorf("no convergence after %d runs", run)
		}
		if run < len(spec.joins) {
			if err := w.addAgents(spec.joins[run]); err != nil {
				return nil, err
			}
		}
		w.clock.Advance(time.Second)
		res := w.a.AllocateAll()
		quiet = len(res.Offers) == 0
		for _, o := range res.Offers {
			u := w.user(o.FrameworkID)
			n, err := w.tasksIn(u, o)
			if err != nil {
				return nil, fmt.Errorf("run %d: %w", run, err)
			}
			tasks := make([]resources.Quantities, n)
			for i := range tasks {
				tasks[i] = fairQuantities(spec.names, u.shape)
			}
			if err := fairLaunch(w.a, o, &w.ids, tasks...); err != nil {
				return nil, fmt.Errorf("run %d: %w", run, err)
			}
			w.tasks[o.FrameworkID] += n
		}
		if err := w.stateDemand(); err != nil {
			return nil, err
		}
	}
	return w.tasks, w.a.CheckInvariants()
}

// fairStagedFilling is progressive filling as the runs of
// fairRunManyAgents can do it: agents join in the spec's batches, and
// each batch is filled in turn with the shares of the pool present then
// (what earlier batches hold stays: nothing is taken back, and nothing
// more fits on earlier agents). Each batch is filled as one pool with
// per-agent fit (drfFiller.fillPool: the first user in DRF order whose
// task fits on one of the batch's agents gets it, on the first such
// agent), or, with byAgent, agent by agent (drfFiller.fillAgent), as a
// run walks one agent after another.
func fairStagedFilling(spec drfSpec, byAgent bool) []int {
	f := newDRFFiller(spec.users, nil)
	present := 0
	for _, n := range spec.joins {
		present += n
		f.total = make([]int64, len(spec.names))
		for k, v := range spec.agent {
			f.total[k] = v * int64(present)
		}
		batch := make([][]int64, n)
		for i := range batch {
			batch[i] = slices.Clone(spec.agent)
		}
		if byAgent {
			for _, left := range batch {
				f.fillAgent(left)
			}
		} else {
			f.fillPool(batch)
		}
	}
	return f.tasks
}

func genFairManyAgentsSpec(seed int64) drfSpec {
	rng := rand.New(rand.NewSource(^seed))
	spec := genDRFSpec(seed, 4+rng.Intn(9))
	for left := spec.agents; left > 0; {
		n := 1 + rng.Intn(left)
		if rng.Intn(2) == 0 {
			n = left // all at once, often
		}
		spec.joins = append(spec.joins, n)
		left -= n
	}
	return spec
}

// TestPropertyDemandManyAgentsWithinOneTask: on 4 to 12 equal agents,
// joining in batches (often all at once), users that launch what they
// are offered and state their demand again end, once a run offers
// nothing, within one task of progressive filling over the pool with
// per-agent fit, batch by batch (fairStagedFilling). They end exactly
// where filling agent by agent puts them (fairStagedFilling with
// byAgent), which is what a run does: equal agents, all empty, make the
// order the run visits them in irrelevant.
//
// The comparison is with the pool of each batch, not with one filling of
// the final pool: tasks placed while fewer agents were present stay
// where they are, and with later batches a user can end two tasks away
// from a filling of the whole pool at once (world 530240012356933963:
// 5 agents joining 2, 2 and 1).
func TestPropertyDemandManyAgentsWithinOneTask(t *testing.T) {
	fairProperty(t, 150, "tasks on many agents are within one of progressive filling's", func(seed int64) string {
		spec := genFairManyAgentsSpec(seed)
		got, err := fairRunManyAgents(spec, allocator.Options{})
		if err == nil {
			err = fairCompareTasks(spec.users, got, fairStagedFilling(spec, false), 1)
		}
		if err == nil {
			if err = fairCompareTasks(spec.users, got, fairStagedFilling(spec, true), 0); err != nil {
				err = fmt.Errorf("filling agent by agent: %w", err)
			}
		}
		if err != nil {
			return fmt.Sprintf("%v\n%s", err, spec)
		}
		return ""
	})
}

// ---- 4. Work conservation with demand ----

// conserveKind is how a framework of a conservation world answers.
type conserveKind int

const (
	// conserveAccepter launches every task it is offered (what of an
	// offer makes no task it gives back through Accept).
	conserveAccepter conserveKind = iota
	// conservePartial launches some of the tasks of an offer and gives
	// the rest back through Accept (not a decline).
	conservePartial
	// conserveDecliner declines every offer, with its filter.
	conserveDecliner
	// conserveMixed launches what it is offered, as an accepter, or
	// declines it, one chance in two.
	conserveMixed
	// conserveMesos states no demand (it is offered whole leftovers): it
	// launches one task of its shapes, or declines, one chance in two.
	conserveMesos
	// conserveSuppressed states demand and suppressed offers.
	conserveSuppressed
	// conserveInactive states demand and is inactive.
	conserveInactive
	numConserveKinds
)

var conserveKindNames = [...]string{"accepter", "partial", "decliner", "mixed", "mesos", "suppressed", "inactive"}

type conserveFramework struct {
	id, role string
	kind     conserveKind
	filter   *allocator.Filter
	// zone, when set, constrains it to the agents of that zone.
	zone string
	// pending are its tasks waiting, by shape: what it states (after each
	// run, less what it launched).
	pending []allocator.Pending
}

type conserveSpec struct {
	seed   int64
	agents []resources.Quantities
	// zones are the agents' zone attributes.
	zones      []string
	frameworks []conserveFramework
	// quota is set on roles (a limit on a role of the frameworks, a
	// guarantee on a role of none, whose headroom others cannot take).
	quota map[string]allocator.Quota
	runs  int
}

func (s conserveSpec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "world %d: agents", s.seed)
	for i, q := range s.agents {
		fmt.Fprintf(&b, " a%d{%s}@%s", i, q, s.zones[i])
	}
	for _, role := range slices.Sorted(maps.Keys(s.quota)) {
		q := s.quota[role]
		fmt.Fprintf(&b, "; role %s guarantee {%s} limit {%s}", role, q.Guarantees, q.Limits)
	}
	b.WriteString("\n")
	for _, f := range s.frameworks {
		filter := "no filter"
		if f.filter != nil {
			filter = "filter " + f.filter.Refuse.String()
		}
		if f.zone != "" {
			filter += ", zone " + f.zone
		}
		fmt.Fprintf(&b, "  %s (role %s, %s, %s):", f.id, f.role, conserveKindNames[f.kind], filter)
		for _, p := range f.pending {
			fmt.Fprintf(&b, " %d x {%s}", p.Count, p.Resources)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// genConserveSpec draws a world; with declines false no framework that
// states demand declines (the decliner and mixed kinds are left out).
func genConserveSpec(seed int64, declines bool) conserveSpec {
	rng := rand.New(rand.NewSource(seed))
	s := conserveSpec{seed: seed, runs: 8, quota: map[string]allocator.Quota{}}
	// At most ExplainAgents agents, so that Explain lists every agent it
	// has a reason for.
	for range 1 + rng.Intn(6) {
		s.agents = append(s.agents, fairQuantities([]string{"cpus", "mem"}, []int64{int64(2+rng.Intn(15)) * 1000, int64(1+rng.Intn(16)) * 1024 * 1000}))
		s.zones = append(s.zones, []string{"a", "b"}[rng.Intn(2)])
	}
	roles := 1 + rng.Intn(4)
	if rng.Intn(3) == 0 {
		s.quota[fmt.Sprintf("r%d", rng.Intn(roles))] = allocator.Quota{Limits: resources.MustParseLimits(fmt.Sprintf("cpus:%d", 1+rng.Intn(8)))}
	}
	if rng.Intn(4) == 0 {
		s.quota["idle"] = allocator.Quota{Guarantees: resources.MustParseQuantities(fmt.Sprintf("cpus:%d", 1+rng.Intn(8)))}
	}
	for i := range 2 + rng.Intn(5) {
		f := conserveFramework{id: fmt.Sprintf("f%d", i), role: fmt.Sprintf("r%d", rng.Intn(roles))}
		if rng.Intn(3) == 0 {
			f.zone = []string{"a", "b"}[rng.Intn(2)]
		}
		for {
			f.kind = conserveKind(rng.Intn(int(numConserveKinds)))
			if declines || (f.kind != conserveDecliner && f.kind != conserveMixed) {
				break
			}
		}
		if n := rng.Intn(4); n > 0 {
			f.filter = &allocator.Filter{Refuse: time.Duration(n) * time.Second}
		}
		for range 1 + rng.Intn(3) {
			shape := fairQuantities([]string{"cpus", "mem"}, []int64{int64(1+rng.Intn(8)) * 500, int64(1+rng.Intn(16)) * 256 * 1000})
			f.pending = append(f.pending, allocator.Pending{Resources: shape, Count: 1 + rng.Intn(8)})
		}
		s.frameworks = append(s.frameworks, f)
	}
	return s
}

type conserveWorld struct {
	spec  conserveSpec
	a     *allocator.Allocator
	clock *allocator.ManualClock
	rng   *rand.Rand
	fws   map[string]*conserveFramework
	ids   int
}

func newConserveWorld(spec conserveSpec, opts allocator.Options) (*conserveWorld, error) {
	w := &conserveWorld{spec: spec, clock: allocator.NewManualClock(fairnessEpoch), rng: rand.New(rand.NewSource(spec.seed + 1)), fws: map[string]*conserveFramework{}}
	opts.Seed, opts.Clock = spec.seed, w.clock.Now
	a, err := allocator.New(opts)
	if err != nil {
		return nil, err
	}
	w.a = a
	for i, q := range spec.agents {
		info := allocator.AgentInfo{Attributes: map[string]string{"zone": spec.zones[i]}}
		if err := a.AddAgent(fmt.Sprintf("a%d", i), info, fairUnreserved(q), nil); err != nil {
			return nil, err
		}
	}
	for _, role := range slices.Sorted(maps.Keys(spec.quota)) {
		if err := a.UpdateQuota(role, spec.quota[role]); err != nil {
			return nil, err
		}
	}
	for i := range spec.frameworks {
		f := spec.frameworks[i]
		f.pending = slices.Clone(f.pending)
		w.fws[f.id] = &f
		info := allocator.FrameworkInfo{Roles: []string{f.role}}
		if f.zone != "" {
			info.Constraints = map[string]allocator.Constraints{f.role: {{{Attribute: "zone", Op: allocator.OpEquals, Value: f.zone}}}}
		}
		state := allocator.Active
		switch f.kind {
		case conserveSuppressed:
			info.SuppressedRoles = []string{f.role}
		case conserveInactive:
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

func (w *conserveWorld) stateDemand(f *conserveFramework) error {
	if f.kind == conserveMesos {
		return nil
	}
	var pending []allocator.Pending
	for _, p := range f.pending {
		if p.Count > 0 {
			pending = append(pending, p)
		}
	}
	return w.a.UpdateDemand(f.id, f.role, pending)
}

// decompose returns tasks of the framework's pending shapes (within what
// it still waits for) that make up the offer exactly, if some do, else
// as many as fit in the statement's order: the offer is the sum of the
// tasks it was sized to.
func (f *conserveFramework) decompose(offered resources.Quantities) []int {
	counts := make([]int, len(f.pending))
	var exact func(i int, left resources.Quantities) bool
	exact = func(i int, left resources.Quantities) bool {
		if left.IsEmpty() {
			return true
		}
		if i == len(f.pending) {
			return false
		}
		p := f.pending[i]
		for n := 0; ; n++ {
			if exact(i+1, left) {
				counts[i] = n
				return true
			}
			if n == p.Count || !left.Contains(p.Resources) {
				return false
			}
			left = left.Minus(p.Resources)
		}
	}
	if exact(0, offered) {
		return counts
	}
	clear(counts)
	left := offered.Clone()
	for i, p := range f.pending {
		for counts[i] < p.Count && left.Contains(p.Resources) {
			left.Subtract(p.Resources)
			counts[i]++
		}
	}
	return counts
}

// answer plays the host for one offer, as the framework's kind says:
// it launches tasks the offer was sized to (decompose; all of them, or
// some) and gives the rest back through Accept, or declines the offer
// (RecoverResources, with the framework's filter). Only the decliner,
// mixed and mesos kinds decline.
func (w *conserveWorld) answer(o offer.Offer) error {
	f := w.fws[o.FrameworkID]
	most := -1 // all
	switch f.kind {
	case conservePartial:
		most = w.rng.Intn(3)
	case conserveDecliner:
		most = 0
	case conserveMixed, conserveMesos:
		if w.rng.Intn(2) == 0 {
			most = 0
		} else if f.kind == conserveMesos {
			most = 1
		}
	}
	if most == 0 && f.kind != conservePartial {
		return w.a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, f.filter)
	}
	var tasks []resources.Quantities
	for i, n := range f.decompose(o.Resources.Quantities()) {
		for range n {
			if most >= 0 && len(tasks) == most {
				break
			}
			tasks = append(tasks, f.pending[i].Resources)
			f.pending[i].Count--
		}
	}
	return fairLaunch(w.a, o, &w.ids, tasks...)
}

// fairReasonFor returns the reason Explain gives for role on agent, if
// any.
func fairReasonFor(ex allocator.Explanation, role, agent string) (allocator.Reason, bool) {
	for _, re := range ex.Roles {
		if re.Role != role {
			continue
		}
		for _, g := range re.Reasons {
			for _, ar := range g.Agents {
				if ar.Agent == agent {
					return g.Reason, true
				}
			}
		}
	}
	return allocator.ReasonNone, false
}

// fairQuotaKeeps reports whether quota keeps a task from a role: the
// role's limit would be passed (what it consumes, offers included, plus
// the task), or the task would take what is held for unmet guarantees
// (the unreserved resources left on all agents, free, less the task,
// fall below the guarantees still unmet). Explain names such reasons
// only for agents the framework was offered nothing on; on an agent
// where it was offered some tasks before the limit or the headroom
// stopped it, it reports the offer.
func fairQuotaKeeps(roles []allocator.RoleView, role string, task, free resources.Quantities) bool {
	var required resources.Quantities
	for _, rv := range roles {
		used := rv.OfferedOrAllocated.Plus(rv.Reserved)
		used.Max(rv.Consumed)
		if rv.Role == role && !rv.Quota.Limits.IsEmpty() && !rv.Quota.Limits.Contains(used.Plus(task)) {
			return true
		}
		for name, g := range rv.Quota.Guarantees.All() {
			if u := used.Scalar(name); u < g {
				required.AddScalar(name, g-u)
			}
		}
	}
	for name, r := range required.All() {
		if free.Scalar(name)-task.Scalar(name) < r {
			return true
		}
	}
	return false
}

// conserved checks the latest run: no agent has available resources that
// hold a pending task of a framework that is active, not suppressed in
// the role and states demand there with something pending, unless
// Explain gives a reason for the agent or quota keeps the task from the
// role (fairQuotaKeeps).
//
// The task checked is the first of the framework's pending tasks (in the
// order of its statement) that fits what is left. The walk of an agent
// goes on until a whole walk makes no offer sized to a task, so its last
// walk visits every framework with what is left after the run, and sizes
// its offer to the first pending task that fits then: this one, or one
// before it in the statement that offers on other agents used up later
// in the run (before, the statement when the run began). A refusal filter
// listed before the run (refused) whose resources hold such a task is a
// reason, and the pair is not checked. The reasons that do not hold are
// ReasonNoFit (it says that no pending task fitted what the agent had
// left, which was more than it has now: what an agent has only shrinks
// during a run) and ReasonFiltered without such a filter, unless quota
// keeps the task (Explain says no-fit where a limit or the headroom cut
// the offer below every pending task).
func (w *conserveWorld) conserved(before map[string]map[string][]allocator.Pending, refused map[[3]string][]resources.Quantities, res allocator.Result) error {
	agents := w.a.Agents()
	roles := w.a.Roles()
	var free resources.Quantities
	for _, ag := range agents {
		free.Add(ag.Available.Quantities())
	}
	for _, v := range w.a.Frameworks() {
		if !v.Active {
			continue
		}
		demand, err := w.a.Demand(v.ID)
		if err != nil {
			return err
		}
		ex, err := w.a.Explain(v.ID)
		if err != nil {
			return err
		}
		for _, role := range v.Roles {
			if slices.Contains(v.Suppressed, role) {
				continue
			}
			for _, ag := range agents {
				left := ag.Available.Quantities()
				i := slices.IndexFunc(demand[role], func(p allocator.Pending) bool { return p.Count > 0 && left.Contains(p.Resources) })
				if i < 0 {
					continue
				}
				p := demand[role][i]
				filters := refused[[3]string{v.ID, role, ag.ID}]
				covered := false
				for _, q := range before[v.ID][role] {
					if q.Count > 0 && left.Contains(q.Resources) && slices.ContainsFunc(filters, func(r resources.Quantities) bool { return r.Contains(q.Resources) }) {
						covered = true
					}
					if covered || q.Resources.Equal(p.Resources) {
						break
					}
				}
				if covered {
					continue
				}
				reason, named := fairReasonFor(ex, role, ag.ID)
				if (named && reason != allocator.ReasonNoFit && reason != allocator.ReasonFiltered) || fairQuotaKeeps(roles, role, p.Resources, free) {
					continue
				}
				var offers []string
				for _, o := range res.Offers {
					if o.AgentID == ag.ID {
						offers = append(offers, fmt.Sprintf("%s {%s}", o.FrameworkID, o.Resources.Quantities()))
					}
				}
				why := "gives no reason for it"
				if named {
					why = "gives reason " + reason.String()
				}
				return fmt.Errorf("%s has {%s} left, which holds %s's pending task {%s} (%d pending in role %s, refusal filters there %v), and Explain %s (%v); offers on %s: %s",
					ag.ID, left, v.ID, p.Resources, p.Count, role, filters, why, ex.Roles, ag.ID, strings.Join(offers, ", "))
			}
		}
	}
	return nil
}

// check runs the world, a run a second, checking each run before the
// host answers its offers.
func (w *conserveWorld) check() error {
	var history []string
	for run := 1; run <= w.spec.runs; run++ {
		w.clock.Advance(time.Second)
		refused := map[[3]string][]resources.Quantities{}
		for _, f := range w.a.Filters() {
			key := [3]string{f.Framework, f.Role, f.Agent}
			refused[key] = append(refused[key], f.Refused.Quantities())
		}
		before := map[string]map[string][]allocator.Pending{}
		for _, f := range w.spec.frameworks {
			d, err := w.a.Demand(f.id)
			if err != nil {
				return err
			}
			before[f.id] = d
		}
		res := w.a.AllocateAll()
		var line []string
		for _, o := range res.Offers {
			line = append(line, fmt.Sprintf("%s@%s{%s}", o.FrameworkID, o.AgentID, o.Resources.Quantities()))
		}
		history = append(history, fmt.Sprintf("run %d: %s", run, strings.Join(line, " ")))
		if err := w.conserved(before, refused, res); err != nil {
			return fmt.Errorf("run %d: %w\n%s", run, err, strings.Join(history, "\n"))
		}
		for _, o := range res.Offers {
			if err := w.answer(o); err != nil {
				return fmt.Errorf("run %d: %w", run, err)
			}
		}
		for _, f := range w.spec.frameworks {
			if err := w.stateDemand(w.fws[f.id]); err != nil {
				return fmt.Errorf("run %d: %w", run, err)
			}
		}
	}
	return w.a.CheckInvariants()
}

func conserveCheck(spec conserveSpec, opts allocator.Options) error {
	w, err := newConserveWorld(spec, opts)
	if err != nil {
		return err
	}
	return w.check()
}

// TestPropertyDemandWorkConservation: after every run, no agent is left
// with resources a framework waiting for them could be offered, unless
// Explain says why (see conserved). "accepting": frameworks that state
// demand launch what they are offered (or some of it, giving the rest
// back through Accept); "declining": some of them decline their offers
// too; "declining, Mesos's order": the same without the rotation after
// declines.
//
// With declines the property fails today, for two faults of the
// allocator that TestDemandWorkConservationAfterRoundEnds and
// TestDemandFilterCoversOnlyWhatWasRefused show on their own.
func TestPropertyDemandWorkConservation(t *testing.T) {
	for _, c := range []struct {
		name     string
		declines bool
		opts     allocator.Options
	}{
		{"accepting", false, allocator.Options{}},
		{"declining", true, allocator.Options{}},
		{"declining, Mesos's order", true, allocator.Options{MesosOfferOrder: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fairProperty(t, 150, "no pending task fits what an agent has left", func(seed int64) string {
				spec := genConserveSpec(seed, c.declines)
				if err := conserveCheck(spec, c.opts); err != nil {
					return fmt.Sprintf("%v\n%s", err, spec)
				}
				return ""
			})
		})
	}
}

// TestDemandWorkConservationAfterRoundEnds is the smallest world the
// "declining" conservation property fails on. One agent of 4 CPUs; f
// waits for 100 tasks of 1 CPU. It is offered the 4 tasks, declines them
// (no filter), and states its demand again. In the next run f is held
// back for the agent's round (it declined), nobody else may be offered
// the agent, so the round ends and f is offered what is left: all 4
// tasks fit, and the offer should hold them, as offers sized to demand
// hand an agent out task by task. endRound (rotation.go) makes one
// offerTo per framework held back, sized to one task, and does not go
// on: 3 CPUs stay idle while f waits for them, in every run f declines.
func TestDemandWorkConservationAfterRoundEnds(t *testing.T) {
	clock := allocator.NewManualClock(fairnessEpoch)
	a, err := allocator.New(allocator.Options{Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil); err != nil {
		t.Fatal(err)
	}
	if err := a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active); err != nil {
		t.Fatal(err)
	}
	demand := []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:1;mem:1"), Count: 100}}
	for run := 1; run <= 2; run++ {
		if err := a.UpdateDemand("f", "r", demand); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
		res := a.AllocateAll()
		if len(res.Offers) != 1 {
			t.Fatalf("run %d: offers %v", run, res.Offers)
		}
		o := res.Offers[0]
		if got := o.Resources.Quantities(); !got.Equal(resources.MustParseQuantities("cpus:4;mem:4")) {
			ag, _ := a.Agent("a1")
			left, _ := a.Demand("f")
			t.Fatalf("run %d: f is offered {%s}, and {%s} stays idle although %d more of its tasks wait", run, got, ag.Available, left["r"][0].Count)
		}
		if err := a.RecoverResources("f", "a1", o.Resources, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDemandFilterCoversOnlyWhatWasRefused is the smallest world the
// conservation property with declines fails on with Options{
// MesosOfferOrder: true} (world 452 there), where the rounds do not
// apply. d refused {cpus:1; mem:2048} on a1 for 10 s, and now waits for
// that task and five of {cpus:2; mem:1024}, which the filter does not
// cover. In the run, d's offer is sized to the first task, which the
// filter covers: d is passed over, and so is every framework of its role,
// which the run remembers (the nobody cache of allocate.go, for the
// agent's version). t takes 3 GB of the agent, and the walk starts
// again: the first task no longer fits, the second does and is not
// refused, but the role is skipped as unchanged (RunStats.Unchanged), as
// the agent's version did not change when it shrank. With
// Options.CacheFree d is offered the second task.
func TestDemandFilterCoversOnlyWhatWasRefused(t *testing.T) {
	for _, cacheFree := range []bool{true, false} {
		clock := allocator.NewManualClock(fairnessEpoch)
		a, err := allocator.New(allocator.Options{Clock: clock.Now, CacheFree: cacheFree})
		if err != nil {
			t.Fatal(err)
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		first := resources.MustParseQuantities("cpus:1;mem:2048")
		second := resources.MustParseQuantities("cpus:2;mem:1024")
		must(a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:5;mem:5120", "*"), nil))
		must(a.AddFramework("d", allocator.FrameworkInfo{Roles: []string{"rd"}}, nil, allocator.Active))
		must(a.UpdateDemand("d", "rd", []allocator.Pending{{Resources: first, Count: 1}}))
		clock.Advance(time.Second)
		for _, o := range a.AllocateAll().Offers {
			must(a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: 10 * time.Second}))
		}
		// t holds a task, so d (share 0) comes first.
		used := map[string]resources.Resources{"a1": resources.MustParse("cpus:1;mem:512", "*").Allocate("rt")}
		must(a.AddFramework("t", allocator.FrameworkInfo{Roles: []string{"rt"}}, used, allocator.Active))
		must(a.UpdateDemand("t", "rt", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:1;mem:3072"), Count: 1}}))
		must(a.UpdateDemand("d", "rd", []allocator.Pending{{Resources: first, Count: 1}, {Resources: second, Count: 5}}))
		clock.Advance(time.Second)
		res := a.AllocateAll()
		if got := res.OffersTo("d"); len(got) != 1 || !got[0].Resources.Quantities().Equal(second) {
			ag, _ := a.Agent("a1")
			t.Errorf("CacheFree %v: d is offered %v, and a1 keeps {%s}, which holds d's task {%s} that its filter does not cover (RunStats.Unchanged %d)",
				cacheFree, got, ag.Available, second, res.Stats.Unchanged)
		}
	}
}
