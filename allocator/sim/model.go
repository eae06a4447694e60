package sim

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"iter"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer/placement"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// maxTime bounds every time and duration of a workload (about 31 years),
// so that sums of them never overflow.
const maxTime = 1_000_000_000 * time.Second

// maxAgents bounds the agents of one group.
const maxAgents = 1_000_000

// model is a workload checked and resolved for runs: agents with their ids,
// frameworks and roles sorted by name, tasks sorted by submission.
type model struct {
	agents     []agentSpec
	agentIndex map[string]int
	roles      []Role // sorted by name, weights resolved
	roleIndex  map[string]int
	frameworks []Framework // sorted by ID, roles resolved
	fwIndex    map[string]int
	tasks      []taskSpec // given and generated, sorted by Submit, stably
	// stream is the workload's Stream, of streamed tasks, read at each
	// run (see taskSource).
	stream   func() iter.Seq2[Task, error]
	streamed int
	events   []Event // sorted by At, stably
	total    resources.Quantities
	names    []string // the scalar resources of the cluster, sorted
}

type agentSpec struct {
	id    string
	info  allocator.AgentInfo
	total resources.Resources
	qty   resources.Quantities
}

// taskSpec is a task resolved: its framework's and role's indexes, and the
// task as placement takes it.
type taskSpec struct {
	Task
	fw, role int
	place    placement.Task
}

// compile checks w and resolves it, drawing the generators' tasks from
// seed.
func compile(w Workload, seed uint64) (*model, error) {
	m := &model{agentIndex: map[string]int{}, roleIndex: map[string]int{}, fwIndex: map[string]int{}}
	steps := []func() error{
		func() error { return m.addAgents(w.Agents) },
		func() error { return m.addTasks(w, seed) },
		func() error { return m.addEvents(w.Events) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidWorkload, fmt.Sprintf(format, args...))
}

// validName checks an id as the allocator does: not empty, no control
// characters.
func validName(id string) bool {
	if id == "" {
		return false
	}
	for _, c := range id {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

func (m *model) addAgents(groups []AgentGroup) error {
	if len(groups) == 0 {
		return invalid("no agents")
	}
	for _, g := range groups {
		if !validName(g.Name) || strings.Contains(g.Name, "/") {
			return invalid("agent group name %q: want a non-empty name without control characters or '/'", g.Name)
		}
		if g.Count < 1 || g.Count > maxAgents {
			return invalid("agent group %q: count %d: want 1 to %d", g.Name, g.Count, maxAgents)
		}
		total, err := resources.Parse(g.Resources, "*")
		if err != nil {
			return invalid("agent group %q: %v", g.Name, err)
		}
		if total.Quantities().IsEmpty() {
			return invalid("agent group %q: resources %q hold no scalar", g.Name, g.Resources)
		}
		for i := 1; i <= g.Count; i++ {
			if err := m.addAgent(g, i, total); err != nil {
				return err
			}
		}
	}
	m.names = m.total.Names()
	slices.Sort(m.names)
	return nil
}

func (m *model) addAgent(g AgentGroup, i int, total resources.Resources) error {
	id := fmt.Sprintf("%s-%d", g.Name, i)
	if _, dup := m.agentIndex[id]; dup {
		return invalid("agent %q named twice (groups share a name)", id)
	}
	attrs := maps.Clone(g.Attributes)
	if len(g.Zones) > 0 {
		if attrs == nil {
			attrs = map[string]string{}
		}
		attrs["zone"] = g.Zones[(i-1)%len(g.Zones)]
	}
	m.agentIndex[id] = len(m.agents)
	m.agents = append(m.agents, agentSpec{
		id: id, info: allocator.AgentInfo{Hostname: id, Attributes: attrs},
		total: total, qty: total.Quantities(),
	})
	m.total.Add(total.Quantities())
	return nil
}

// Expand returns the workload's tasks, given, generated from seed and
// streamed, in order of submission (tasks submitted at the same time in
// the order they were given, then generated, then streamed): the tasks a
// run with that seed submits. Write them with WriteCSV to keep a
// generated workload as a trace. It holds the whole stream.
func (w Workload) Expand(seed uint64) ([]Task, error) {
	tasks, err := allTasks(w, seed)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(tasks, func(a, b Task) int { return cmp.Compare(a.Submit, b.Submit) })
	if w.Stream == nil {
		return tasks, nil
	}
	out := make([]Task, 0, len(tasks))
	var last time.Duration
	n, k := 0, 0
	for t, err := range w.Stream() {
		if err != nil {
			return nil, fmt.Errorf("task stream, after %d tasks: %w", n, err)
		}
		n++
		if err := checkStreamed(t, n, last); err != nil {
			return nil, err
		}
		last = t.Submit
		for ; k < len(tasks) && tasks[k].Submit <= t.Submit; k++ {
			out = append(out, tasks[k])
		}
		out = append(out, t)
	}
	return append(out, tasks[k:]...), nil
}

// allTasks returns the given tasks and the generated ones. Each generator
// draws from a stream of its own, named by its framework and prefix, so
// that adding or moving a generator leaves the others' tasks alone.
func allTasks(w Workload, seed uint64) ([]Task, error) {
	tasks := slices.Clone(w.Tasks)
	for i, g := range w.Generators {
		stream := fnv.New64a()
		fmt.Fprintf(stream, "sim generator %s\x00%s", g.Framework, g.prefix(i))
		rng := rand.New(rand.NewPCG(seed, stream.Sum64()))
		gen, err := g.generate(rng, i)
		if err != nil {
			return nil, invalid("generator %d (framework %q): %v", i, g.Framework, err)
		}
		tasks = append(tasks, gen...)
	}
	return tasks, nil
}

func (m *model) addTasks(w Workload, seed uint64) error {
	tasks, err := allTasks(w, seed)
	if err != nil {
		return err
	}
	for _, t := range tasks {
		if err := checkTask(t); err != nil {
			return err
		}
	}
	all := tasks
	if w.Stream != nil {
		var names []Task
		if m.streamed, names, err = scanStream(w.Stream); err != nil {
			return err
		}
		m.stream = w.Stream
		all = append(tasks[:len(tasks):len(tasks)], names...)
	}
	fws, err := resolveFrameworks(w.Frameworks, all)
	if err != nil {
		return err
	}
	for i, f := range fws {
		m.fwIndex[f.ID] = i
	}
	m.frameworks = fws
	if err := m.addRoles(w.Roles); err != nil {
		return err
	}
	seen := make([]map[string]bool, len(fws))
	m.tasks = make([]taskSpec, 0, len(tasks))
	for _, t := range tasks {
		fw := m.fwIndex[t.Framework]
		if seen[fw] == nil {
			seen[fw] = map[string]bool{}
		}
		if seen[fw][t.ID] {
			return invalid("task %q of framework %q submitted twice", t.ID, t.Framework)
		}
		seen[fw][t.ID] = true
		if t.Role == "" {
			t.Role = fws[fw].Roles[0]
		}
		m.tasks = append(m.tasks, m.resolveTask(t, fw))
	}
	slices.SortStableFunc(m.tasks, func(a, b taskSpec) int { return cmp.Compare(a.Submit, b.Submit) })
	return nil
}

func (m *model) resolveTask(t Task, fw int) taskSpec {
	ts := taskSpec{Task: t, fw: fw, role: m.roleIndex[t.Role]}
	ts.place = placement.Task{ID: t.ID, Group: t.Group, Role: t.Role, Resources: t.Resources}
	if t.DifferentMachines {
		ts.place.Constraints = []placement.Filter{placement.UniqueHost()}
	}
	return ts
}

// checkTask checks what a task says of itself.
func checkTask(t Task) error {
	what := fmt.Sprintf("task %q of framework %q", t.ID, t.Framework)
	switch {
	case !validName(t.Framework):
		return invalid("task %q: framework %q: want a non-empty id without control characters", t.ID, t.Framework)
	case !validName(t.ID):
		return invalid("%s: want a non-empty id without control characters", what)
	case t.Submit < 0 || t.Submit > maxTime:
		return invalid("%s: submitted at %s: want 0 to %s", what, t.Submit, maxTime)
	case t.Duration <= 0 || t.Duration > maxTime:
		return invalid("%s: duration %s: want above 0 and at most %s", what, t.Duration, maxTime)
	case t.Resources.IsEmpty():
		return invalid("%s: no resources", what)
	case t.DifferentMachines && t.Group == "":
		return invalid("%s: different machines without a group", what)
	}
	if t.Role != "" {
		if err := reservation.ValidateRole(t.Role); err != nil {
			return invalid("%s: %v", what, err)
		}
	}
	for name, v := range t.Resources.All() {
		if v.Float64() > maxAmount {
			return invalid("%s: %s:%v is more than %v", what, name, v, maxAmount)
		}
	}
	return nil
}

// resolveFrameworks returns the declared frameworks and those the tasks
// name, sorted by ID, each with its roles.
func resolveFrameworks(declared []Framework, tasks []Task) ([]Framework, error) {
	byID := map[string]*Framework{}
	implicit := map[string]map[string]bool{}
	var fws []Framework
	for _, f := range declared {
		if !validName(f.ID) {
			return nil, invalid("framework id %q: want a non-empty id without control characters", f.ID)
		}
		if _, dup := byID[f.ID]; dup {
			return nil, invalid("framework %q declared twice", f.ID)
		}
		if f.Refuse < 0 || f.Refuse > allocator.MaxRefuse {
			return nil, invalid("framework %q: refuse %s: want 0 (the default) to %s", f.ID, f.Refuse, allocator.MaxRefuse)
		}
		for _, r := range f.Roles {
			if err := reservation.ValidateRole(r); err != nil {
				return nil, invalid("framework %q: %v", f.ID, err)
			}
		}
		f.Roles = slices.Clone(f.Roles)
		byID[f.ID] = &f
		if len(f.Roles) == 0 {
			implicit[f.ID] = map[string]bool{}
		}
	}
	for _, t := range tasks {
		f, ok := byID[t.Framework]
		if !ok {
			f = &Framework{ID: t.Framework}
			byID[t.Framework] = f
			implicit[t.Framework] = map[string]bool{}
		}
		if roles, ok := implicit[t.Framework]; ok {
			if t.Role != "" {
				roles[t.Role] = true
			}
		} else if t.Role != "" && !slices.Contains(f.Roles, t.Role) {
			return nil, invalid("task %q: role %q is not among framework %q's roles %q", t.ID, t.Role, f.ID, f.Roles)
		}
	}
	for id, f := range byID {
		if roles, ok := implicit[id]; ok {
			f.Roles = slices.Sorted(maps.Keys(roles))
			if len(f.Roles) == 0 {
				f.Roles = []string{reservation.Any}
			}
		}
		fws = append(fws, *f)
	}
	slices.SortFunc(fws, func(a, b Framework) int { return strings.Compare(a.ID, b.ID) })
	return fws, nil
}

// addRoles resolves the declared roles and those the frameworks name.
func (m *model) addRoles(declared []Role) error {
	byName := map[string]Role{}
	for _, r := range declared {
		if err := reservation.ValidateRole(r.Name); err != nil {
			return invalid("role: %v", err)
		}
		if _, dup := byName[r.Name]; dup {
			return invalid("role %q declared twice", r.Name)
		}
		if r.Weight < 0 || math.IsNaN(r.Weight) || math.IsInf(r.Weight, 0) {
			return invalid("role %q: weight %v: want a finite number above zero (0 means 1)", r.Name, r.Weight)
		}
		if r.Weight == 0 {
			r.Weight = 1
		}
		byName[r.Name] = r
	}
	for _, f := range m.frameworks {
		for _, name := range f.Roles {
			if _, ok := byName[name]; !ok {
				byName[name] = Role{Name: name, Weight: 1}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		m.roleIndex[name] = len(m.roles)
		m.roles = append(m.roles, byName[name])
	}
	return nil
}

func (m *model) addEvents(events []Event) error {
	for i, e := range events {
		what := fmt.Sprintf("event %d (%s of %q at %s)", i, e.Kind, e.Agent, e.At)
		if _, ok := m.agentIndex[e.Agent]; !ok {
			return invalid("%s: unknown agent", what)
		}
		switch {
		case e.Kind != AgentFailure && e.Kind != AgentMaintenance:
			return invalid("%s: unknown kind %d", what, e.Kind)
		case e.At < 0 || e.At > maxTime || e.Notice < 0 || e.Notice > maxTime || e.For < 0 || e.For > maxTime:
			return invalid("%s: times must be 0 to %s", what, maxTime)
		case e.Kind == AgentMaintenance && e.For == 0:
			return invalid("%s: a maintenance window needs a length", what)
		}
	}
	m.events = slices.Clone(events)
	slices.SortStableFunc(m.events, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return nil
}
