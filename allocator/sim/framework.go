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
	// backlog[head:] are its pending tasks (indexes of run.m.tasks) in the
	// order it places them.
	backlog    []int
	head       int
	suppressed bool
	byID       map[string]int
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

	window  []placement.Task // scratch of place
	usable  []offer.Offer
	unused  []offer.Offer
	running []placement.Running
}

// addFramework adds f to the allocator, suppressed until tasks come.
func (r *run) addFramework(f Framework) (*simFramework, error) {
	refuse := f.Refuse
	if refuse == 0 {
		refuse = allocator.DefaultRefuse
	}
	fw := &simFramework{spec: f, filter: &allocator.Filter{Refuse: refuse}, byID: map[string]int{}, suppressed: true}
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

// push adds task i to the backlog, at the back or at the front.
func (fw *simFramework) push(i int, front bool) {
	switch {
	case !front:
		fw.backlog = append(fw.backlog, i)
	case fw.head > 0:
		fw.head--
		fw.backlog[fw.head] = i
	default:
		fw.backlog = slices.Insert(fw.backlog, 0, i)
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

// place places the head of fw's backlog on its offers, launches what fits
// and declines the rest. Offers on agents with a maintenance window ahead
// are declined.
func (r *run) place(fw *simFramework, offers []offer.Offer) (declined int, err error) {
	fw.usable, fw.unused = fw.usable[:0], fw.unused[:0]
	var offered resources.Quantities
	for _, o := range offers {
		if r.agents[r.m.agentIndex[o.AgentID]].announced != nil {
			declined++
			if err := r.decline(fw, o); err != nil {
				return declined, err
			}
			continue
		}
		fw.usable = append(fw.usable, o)
		offered.Add(o.Resources.Quantities())
	}
	window := r.window(fw, offered)
	if len(window) > 0 {
		if err := r.launchOn(fw, window); err != nil {
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
// crumbs everywhere.
func (r *run) launchOn(fw *simFramework, window []placement.Task) error {
	fitting := fw.usable[:0]
	for _, o := range fw.usable {
		if holdsAny(o.Resources.Quantities(), window) {
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
	r.dropLaunched(fw, len(window))
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

// window returns the head of fw's backlog that its offers could hold: the
// tasks in order until the sum of those before one passes what is
// offered. Later tasks would find the offers full; leaving them out keeps
// a long backlog from costing every interval.
func (r *run) window(fw *simFramework, offered resources.Quantities) []placement.Task {
	fw.window = fw.window[:0]
	var sum resources.Quantities
	for _, i := range fw.backlog[fw.head:] {
		if !offered.Contains(sum) {
			break
		}
		t := &r.m.tasks[i]
		fw.window = append(fw.window, t.place)
		sum.Add(t.Resources)
	}
	return fw.window
}

// dropLaunched takes the tasks launched out of the first n of the backlog,
// keeping the order of the others.
func (r *run) dropLaunched(fw *simFramework, n int) {
	j := fw.head + n
	for k := fw.head + n - 1; k >= fw.head; k-- {
		if i := fw.backlog[k]; r.tasks[i].phase == pending {
			j--
			fw.backlog[j] = i
		}
	}
	fw.head = j
	if fw.head > 1024 && fw.head > len(fw.backlog)/2 {
		fw.backlog = append(fw.backlog[:0], fw.backlog[fw.head:]...)
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
