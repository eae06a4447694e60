package sim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/offer/placement"
	"github.com/allot-go/allot/resources"
)

// simFramework is a framework's scheduler: its backlog, and what it needs
// to place it.
type simFramework struct {
	spec   Framework
	filter *allocator.Filter
	// backlog[head:] are its pending tasks in the order it places them.
	backlog    []*liveTask
	head       int
	suppressed bool
	// byID are its tasks under way (pending or running), by ID.
	byID map[string]*liveTask
	// groups counts, for groups of tasks that want different machines,
	// the tasks running on each agent (placement's Input.Running).
	groups map[string]map[string]int
	// demand is scratch of the statement of demand, per role (in the
	// order of spec.Roles), full whether a role's holds
	// allocator.MaxPending shapes; statedNothing says its last statement
	// was that nothing waits (Config.StateDemand).
	demand        [][]allocator.Pending
	full          []bool
	statedNothing bool

	// Scratch of place: the window, the usable offers with what each
	// offers and what is left of it as the window takes tasks, the
	// groups that want different machines placed on an agent in the
	// window, the offers to decline and the running tasks of the groups.
	window        []placement.Task
	usable        []offer.Offer
	offered, left []resources.Quantities
	placedOn      map[groupAgent]bool
	unused        []offer.Offer
	running       []placement.Running
}

// addFramework adds f to the allocator, suppressed until tasks come.
func (r *run) addFramework(f Framework) (*simFramework, error) {
	refuse := f.Refuse
	if refuse == 0 {
		refuse = allocator.DefaultRefuse
	}
	fw := &simFramework{spec: f, filter: &allocator.Filter{Refuse: refuse}, byID: map[string]*liveTask{}, suppressed: true}
	if err := r.a.AddFramework(f.ID, fw.info(true), nil, allocator.Active); err != nil {
		return nil, fmt.Errorf("%w: framework %q: %w", ErrInvalidWorkload, f.ID, err)
	}
	return fw, nil
}

// info is the framework's info for the allocator, all roles suppressed or
// none.
func (fw *simFramework) info(suppressed bool) allocator.FrameworkInfo {
	info := allocator.FrameworkInfo{Roles: fw.spec.Roles, Capabilities: fw.spec.Capabilities}
	if suppressed {
		info.SuppressedRoles = fw.spec.Roles
	}
	return info
}

// push adds task t to the backlog, at the back or at the front.
func (fw *simFramework) push(t *liveTask, front bool) {
	switch {
	case !front:
		fw.backlog = append(fw.backlog, t)
	case fw.head > 0:
		fw.head--
		fw.backlog[fw.head] = t
	default:
		fw.backlog = slices.Insert(fw.backlog, 0, t)
	}
}

func (fw *simFramework) pending() int { return len(fw.backlog) - fw.head }

// revive lifts the framework's suppression, now that it has tasks. It
// does so as Mesos's UPDATE_FRAMEWORK does, with the framework's info
// without suppressed roles, which keeps its refusal filters: ReviveOffers
// would clear them, and a framework that revives for every task would then
// be offered every agent with free resources each time.
func (r *run) revive(fw *simFramework) error {
	if !fw.suppressed {
		return nil
	}
	if err := r.a.UpdateFramework(fw.spec.ID, fw.info(false)); err != nil {
		return fmt.Errorf("%w: revive %q: %w", ErrAllocator, fw.spec.ID, err)
	}
	fw.suppressed = false
	return nil
}

// suppressIdle suppresses the offers of frameworks with nothing to run.
func (r *run) suppressIdle() error {
	for _, fw := range r.fws {
		if fw.suppressed || fw.pending() > 0 {
			continue
		}
		if err := r.a.SuppressOffers(fw.spec.ID); err != nil {
			return fmt.Errorf("%w: suppress %q: %w", ErrAllocator, fw.spec.ID, err)
		}
		fw.suppressed = true
	}
	return nil
}

// takeOffers hands each framework its offers (a run returns them sorted by
// framework) and returns how many were declined whole.
func (r *run) takeOffers(offers []offer.Offer) (declined int, err error) {
	for start := 0; start < len(offers); {
		end := start + 1
		for end < len(offers) && offers[end].FrameworkID == offers[start].FrameworkID {
			end++
		}
		fw := r.fws[r.m.fwIndex[offers[start].FrameworkID]]
		n, err := r.place(fw, offers[start:end])
		if err != nil {
			return declined, err
		}
		declined += n
		start = end
	}
	return declined, nil
}

// place places fw's backlog on its offers, launches what fits and
// declines the rest. Offers on agents with a maintenance window ahead are
// declined.
func (r *run) place(fw *simFramework, offers []offer.Offer) (declined int, err error) {
	fw.usable, fw.unused = fw.usable[:0], fw.unused[:0]
	for _, o := range offers {
		if r.agents[r.m.agentIndex[o.AgentID]].announced != nil {
			declined++
			if err := r.decline(fw, o); err != nil {
				return declined, err
			}
			continue
		}
		fw.usable = append(fw.usable, o)
	}
	// Placement's order of offers for tasks it scores alike.
	slices.SortFunc(fw.usable, func(a, b offer.Offer) int {
		return cmp.Or(strings.Compare(a.AgentID, b.AgentID), strings.Compare(a.ID, b.ID))
	})
	window, scanned := r.window(fw)
	if len(window) > 0 {
		if err := r.launchOn(fw, window, scanned); err != nil {
			return declined, err
		}
	} else {
		fw.unused = append(fw.unused, fw.usable...)
	}
	for _, o := range fw.unused {
		if err := r.decline(fw, o); err != nil {
			return declined, err
		}
	}
	return declined + len(fw.unused), nil
}

// launchOn places window on fw's usable offers and launches what fits,
// leaving in fw.unused the offers to decline, by agent and offer id. Offers
// that hold none of the window's requests are not shown to placement,
// which would find them unused: they are many when the cluster has free
// crumbs everywhere. The window's tasks are among the first scanned of the
// backlog.
func (r *run) launchOn(fw *simFramework, window []placement.Task, scanned int) error {
	fitting := fw.usable[:0]
	for k, o := range fw.usable {
		if holdsAny(fw.offered[k], window) {
			fitting = append(fitting, o)
		} else {
			fw.unused = append(fw.unused, o)
		}
	}
	if len(fitting) == 0 {
		return nil
	}
	res, err := placement.Place(placement.Input{
		Tasks: window, Offers: fitting, Agents: r.agentsIn, Running: fw.runningIn(window),
		Filters: fw.spec.Filters, Rankers: fw.spec.Rankers,
	})
	if err != nil {
		return fmt.Errorf("%w: framework %q: %w", ErrInvalidWorkload, fw.spec.ID, err)
	}
	for _, acc := range res.Launches {
		if err := r.a.Accept(fw.spec.ID, acc.Offer.AgentID, acc.Offer.Resources, acc.Operations(), fw.filter); err != nil {
			return fmt.Errorf("%w: accept of %s: %w", ErrAllocator, acc.Offer.ID, err)
		}
		ag := r.m.agentIndex[acc.Offer.AgentID]
		for _, t := range acc.Launch.Tasks {
			r.launch(fw.byID[t.ID], ag)
		}
	}
	r.dropLaunched(fw, scanned)
	fw.unused = append(fw.unused, res.Unused...)
	slices.SortFunc(fw.unused, func(a, b offer.Offer) int {
		return cmp.Or(strings.Compare(a.AgentID, b.AgentID), strings.Compare(a.ID, b.ID))
	})
	return nil
}

// holdsAny reports whether q holds the resources of some task of window.
func holdsAny(q resources.Quantities, window []placement.Task) bool {
	for i, t := range window {
		if i > 0 && t.Resources.Equal(window[i-1].Resources) {
			continue // tasks of one shape come in runs
		}
		if q.Contains(t.Resources) {
			return true
		}
	}
	return false
}

func (r *run) decline(fw *simFramework, o offer.Offer) error {
	if err := r.a.RecoverResources(fw.spec.ID, o.AgentID, o.Resources, fw.filter); err != nil {
		return fmt.Errorf("%w: decline of %s: %w", ErrAllocator, o.ID, err)
	}
	return nil
}

// window returns the tasks of fw's backlog that its usable offers hold,
// in the backlog's order, as placement places them without rankers: each
// task on the first offer (by agent id, then offer id) made to its role
// that still holds it, on an agent without a task of its group when the
// group wants different machines. A task that no offer holds any more is
// passed over, not waited for: the tasks behind it that fit go in (a real
// framework places every pending task it can, not only its head). It
// also returns how many tasks of the backlog it scanned, from the head to
// the last it took. The scan stops once every offer is spent; each class
// of tasks alike (framework, role, resources, group with different
// machines) resumes its search of the offers where the class's last task
// stopped, the offers before having refused it, so that a long backlog
// costs a look per task and a visit per class and offer.
func (r *run) window(fw *simFramework) (window []placement.Task, scanned int) {
	fw.window = fw.window[:0]
	n := len(fw.usable)
	if n == 0 {
		return fw.window, 0
	}
	fw.offered, fw.left = fw.offered[:0], fw.left[:0]
	open := 0
	for _, o := range fw.usable {
		q := o.Resources.Quantities()
		fw.offered = append(fw.offered, q)
		fw.left = append(fw.left, q.Clone())
		if !q.IsEmpty() {
			open++
		}
	}
	r.round++
	clear(fw.placedOn)
	for pos, lt := range fw.backlog[fw.head:] {
		if open == 0 {
			break
		}
		t := lt.spec
		c := lt.class
		if r.classRound[c] != r.round {
			r.classRound[c], r.classNext[c] = r.round, 0
		}
		k := r.classNext[c]
		for ; k < n; k++ {
			if fw.usable[k].Role == t.Role && fw.left[k].Contains(t.Resources) && !fw.spreadBlocked(t, fw.usable[k].AgentID) {
				break
			}
		}
		r.classNext[c] = k
		if k == n {
			continue // no offer holds it: the tasks behind it may fit
		}
		fw.left[k].Subtract(t.Resources)
		if fw.left[k].IsEmpty() {
			open--
		}
		if t.DifferentMachines {
			if fw.placedOn == nil {
				fw.placedOn = map[groupAgent]bool{}
			}
			fw.placedOn[groupAgent{t.Group, fw.usable[k].AgentID}] = true
		}
		fw.window = append(fw.window, t.place)
		scanned = pos + 1
	}
	return fw.window, scanned
}

// groupAgent is a group of tasks that want different machines, and an
// agent.
type groupAgent struct{ group, agent string }

// spreadBlocked reports whether t's group wants different machines and
// has a task on agent, running or taken into the window.
func (fw *simFramework) spreadBlocked(t *taskSpec, agent string) bool {
	if !t.DifferentMachines {
		return false
	}
	return fw.groups[t.Group][agent] > 0 || fw.placedOn[groupAgent{t.Group, agent}]
}

// dropLaunched takes the tasks launched out of the first n of the backlog,
// keeping the order of the others.
func (r *run) dropLaunched(fw *simFramework, n int) {
	j := fw.head + n
	for k := fw.head + n - 1; k >= fw.head; k-- {
		if t := fw.backlog[k]; t.phase == pending {
			j--
			fw.backlog[j] = t
		}
	}
	clear(fw.backlog[fw.head:j]) // let the launched tasks go with their end
	fw.head = j
	if fw.head > 1024 && fw.head > len(fw.backlog)/2 {
		n := copy(fw.backlog, fw.backlog[fw.head:])
		clear(fw.backlog[n:])
		fw.backlog = fw.backlog[:n]
		fw.head = 0
	}
}

// runningIn returns the running tasks of the groups in window that want
// different machines, for placement.
func (fw *simFramework) runningIn(window []placement.Task) []placement.Running {
	fw.running = fw.running[:0]
	if len(fw.groups) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, t := range window {
		if len(t.Constraints) == 0 || seen[t.Group] {
			continue
		}
		seen[t.Group] = true
		agents := fw.groups[t.Group]
		for _, ag := range slices.Sorted(maps.Keys(agents)) {
			for range agents[ag] {
				fw.running = append(fw.running, placement.Running{Group: t.Group, AgentID: ag})
			}
		}
	}
	return fw.running
}

// started and stopped keep the groups' counts.
func (fw *simFramework) started(t *taskSpec, agent string) {
	if !t.DifferentMachines {
		return
	}
	if fw.groups == nil {
		fw.groups = map[string]map[string]int{}
	}
	if fw.groups[t.Group] == nil {
		fw.groups[t.Group] = map[string]int{}
	}
	fw.groups[t.Group][agent]++
}

func (fw *simFramework) stopped(t *taskSpec, agent string) {
	if !t.DifferentMachines {
		return
	}
	g := fw.groups[t.Group]
	if g[agent]--; g[agent] <= 0 {
		delete(g, agent)
	}
	if len(g) == 0 {
		delete(fw.groups, t.Group)
	}
}
