package placement

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// placer holds the state of one call of Place.
type placer struct {
	tasks  []Task
	slots  []slot // one per offer, by agent id then offer id
	agents []agentState

	names    []string // scalar names that tasks ask for or rankers weigh, sorted
	nameIdx  map[string]int32
	ports    []string // ports resources that tasks ask for, sorted
	portIdx  map[string]int32
	tables   map[string]*attrTable
	groups   []*group
	groupIdx map[string]int32
	// counts holds the tasks of a group on an offered agent, running or
	// placed, by groupKey.
	counts map[uint64]int32

	classes   []*class
	taskClass []int32

	// step counts placements; agentChanged is the step of the last
	// placement on each agent; log lists the agent of every placement.
	step         int32
	agentChanged []int32
	log          []int32
	order        []int32 // the slots of the tasks placed, in order
	failed       []int32 // the tasks that fit nowhere, in order
	mark         []int32 // per agent, the sync that last visited it
	markGen      int32

	goodEnough int64 // a quantized score, or math.MaxInt64 when off

	out       Result
	scan      []entry // scratch of scanAll
	pool      []heap  // storage of the heaps of classes done with
	details   map[detailKey]string
	partSizes []int
	kinds     map[string]int32
	templates map[string]resources.Resources
	keyBuf    []byte
	scratch   []pickRec
	volMatch  []int32
}

type agentState struct {
	id          string
	attrs       Attributes
	total       resources.Quantities
	first, last int32 // its slots: [first, last)
	placed      int32
}

// attrTable interns the values of one attribute over the agents.
type attrTable struct {
	name    string
	values  map[string]int32
	byID    []string
	valueOf []int32 // by agent; -1 when the agent lacks the attribute
}

func (t *attrTable) intern(v string) int32 {
	id, ok := t.values[v]
	if !ok {
		id = int32(len(t.byID))
		t.values[v] = id
		t.byID = append(t.byID, v)
	}
	return id
}

type group struct {
	name  string
	idx   uint32
	attrs []*groupAttr
}

// groupAttr counts a group's tasks per value of an attribute; changed is
// the step at which each count last grew.
type groupAttr struct {
	table   *attrTable
	counts  []int32
	changed []int32
}

func (g *group) attr(t *attrTable) *groupAttr {
	for _, ga := range g.attrs {
		if ga.table == t {
			return ga
		}
	}
	ga := &groupAttr{table: t}
	g.attrs = append(g.attrs, ga)
	return ga
}

func groupKey(g uint32, agent int32) uint64 { return uint64(g)<<32 | uint64(uint32(agent)) }

// need is an amount of the scalar name names[k].
type need struct {
	k int32
	v resources.Scalar
}

// class is a set of tasks alike but for their ids; they share one search.
type class struct {
	task    int // the first task of the class
	group   *group
	role    string
	need    []need
	port    int32 // index in placer.ports; -1 without ports
	count   uint64
	numbers []uint64 // sorted
	volumes []resources.Resources
	filters []cfilter
	rankers []cranker
	wsum    float64
	deps    []*groupAttr

	// parts are heaps of the visited slots that admit the class, by
	// part (see pick); part is the group's counts on the partition
	// attribute, partW the weight of the Spread rankers on it and partMax
	// the lowest MaxPerValue limit on it (0 without one).
	parts   []heap
	nparts  int
	part    *groupAttr
	partW   float64
	partMax int32
	scanned int32
	synced  int
	pending int

	reasons []Reason // see explain
}

type cfilter struct {
	src   Filter
	name  string // src.String()
	table *attrTable
	ids   []int32
	ga    *groupAttr
}

type cranker struct {
	src    Ranker
	inPart bool // a Spread ranker on the partition attribute
	ks     []int32
	need   []resources.Scalar // the class's need of each of ks
	ga     *groupAttr
	score  func(Task, Candidate) float64
}

// Place places the tasks of in on its offers and returns the assignments,
// the operations to accept each used offer with, the unused offers, and
// why each task left over fits nowhere. Tasks are placed in order, each on
// the offer that admits it (resources, ports, volumes, role, filters) with
// the best score; later tasks see what earlier ones took. Bad input is an
// error wrapping one of the Err* sentinels, and then nothing is placed.
func Place(in Input) (Result, error) {
	p, err := newPlacer(&in)
	if err != nil {
		return Result{}, err
	}
	p.run()
	return p.result(), nil
}

func newPlacer(in *Input) (*placer, error) {
	if math.IsNaN(in.GoodEnough) || in.GoodEnough < 0 || in.GoodEnough > 1 {
		return nil, fmt.Errorf("%w: GoodEnough %v is not in [0, 1]", ErrInvalidInput, in.GoodEnough)
	}
	for _, f := range in.Filters {
		if err := f.validate(""); err != nil {
			return nil, err
		}
	}
	for _, r := range in.Rankers {
		if err := r.validate(""); err != nil {
			return nil, err
		}
	}
	for i, r := range in.Running {
		if r.AgentID == "" {
			return nil, fmt.Errorf("%w: running task %d of group %q has no agent", ErrInvalidRunning, i, r.Group)
		}
	}
	p := &placer{
		tasks:      in.Tasks,
		nameIdx:    map[string]int32{},
		portIdx:    map[string]int32{},
		tables:     map[string]*attrTable{},
		groupIdx:   map[string]int32{},
		counts:     map[uint64]int32{},
		kinds:      map[string]int32{},
		templates:  map[string]resources.Resources{},
		goodEnough: math.MaxInt64,
	}
	if in.GoodEnough > 0 {
		p.goodEnough = quantize(in.GoodEnough)
	}
	offers, err := sortedOffers(in.Offers)
	if err != nil {
		return nil, err
	}
	if err := p.buildClasses(in); err != nil {
		return nil, err
	}
	if err := p.buildSlots(in, offers); err != nil {
		return nil, err
	}
	p.buildTables(in)
	p.compileClasses(in)
	p.countRunning(in)
	return p, nil
}

// sortedOffers validates the offers and returns them by agent id, then
// offer id.
func sortedOffers(list []offer.Offer) ([]offer.Offer, error) {
	ids := make(map[string]struct{}, len(list))
	for i, o := range list {
		if o.ID == "" {
			return nil, fmt.Errorf("%w: offer %d has no id", ErrInvalidOffer, i)
		}
		if _, dup := ids[o.ID]; dup {
			return nil, fmt.Errorf("%w: %q", ErrDuplicateOffer, o.ID)
		}
		ids[o.ID] = struct{}{}
		if o.AgentID == "" {
			return nil, fmt.Errorf("%w: offer %q has no agent", ErrInvalidOffer, o.ID)
		}
		if o.FrameworkID != list[0].FrameworkID {
			return nil, fmt.Errorf("%w: offer %q is to framework %q, offer %q to %q", ErrInvalidOffer, o.ID, o.FrameworkID, list[0].ID, list[0].FrameworkID)
		}
		if err := reservation.ValidateRole(o.Role); err != nil {
			return nil, fmt.Errorf("%w: offer %q: %w", ErrInvalidOffer, o.ID, err)
		}
		for _, role := range o.Resources.AllocationRoles() {
			if role != "" && role != o.Role {
				return nil, fmt.Errorf("%w: offer %q to role %q holds resources allocated to %q", ErrInvalidOffer, o.ID, o.Role, role)
			}
		}
	}
	out := slices.Clone(list)
	slices.SortFunc(out, func(a, b offer.Offer) int {
		return cmp.Or(cmp.Compare(a.AgentID, b.AgentID), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// buildClasses validates the tasks and groups those alike but for their
// ids into classes.
func (p *placer) buildClasses(in *Input) error {
	ids := make(map[string]struct{}, len(in.Tasks))
	byKey := map[string]int32{}
	preds := map[*predicate]int{}
	scores := map[*scorer]int{}
	p.taskClass = make([]int32, len(in.Tasks))
	var key []byte
	recent := make([]int32, 0, recentClasses)
	for i := range in.Tasks {
		t := &in.Tasks[i]
		if t.ID == "" {
			return fmt.Errorf("%w: task %d has no id", ErrInvalidTask, i)
		}
		if _, dup := ids[t.ID]; dup {
			return fmt.Errorf("%w: %q", ErrDuplicateTask, t.ID)
		}
		ids[t.ID] = struct{}{}
		if c, ok := p.recentClass(t, recent); ok {
			p.taskClass[i] = c
			p.classes[c].pending++
			recent = bump(recent, c)
			continue
		}
		key = taskKey(key[:0], t, preds, scores)
		if c, ok := byKey[string(key)]; ok {
			p.taskClass[i] = c
			p.classes[c].pending++
			recent = bump(recent, c)
			continue
		}
		if err := validateTask(t); err != nil {
			return err
		}
		c := int32(len(p.classes))
		byKey[string(key)] = c
		p.taskClass[i] = c
		p.classes = append(p.classes, &class{task: i, pending: 1, role: t.Role, group: p.group(t.Group), port: -1})
		recent = bump(recent, c)
	}
	for _, r := range in.Running {
		p.group(r.Group)
	}
	// The scalar names that tasks ask for or rankers weigh, and the ports
	// resources, sorted so that reasons name resources in order.
	seen := map[string]bool{}
	ports := map[string]bool{}
	addRankers := func(list []Ranker) {
		for _, r := range list {
			if r.kind == rankBinPack {
				for _, n := range r.names {
					seen[n] = true
				}
			}
		}
	}
	addRankers(in.Rankers)
	for _, c := range p.classes {
		t := &in.Tasks[c.task]
		for name := range t.Resources.All() {
			seen[name] = true
		}
		if !t.Ports.IsEmpty() {
			ports[portsName(t.Ports)] = true
		}
		addRankers(t.Preferences)
	}
	p.names = slices.Sorted(maps.Keys(seen))
	for i, n := range p.names {
		p.nameIdx[n] = int32(i)
	}
	p.ports = slices.Sorted(maps.Keys(ports))
	for i, n := range p.ports {
		p.portIdx[n] = int32(i)
	}
	for _, name := range p.ports {
		if seen[name] {
			return fmt.Errorf("%w: %s is asked for both as a scalar and as ports", ErrInvalidTask, name)
		}
	}
	for _, c := range p.classes {
		t := &in.Tasks[c.task]
		for name, v := range t.Resources.All() {
			c.need = append(c.need, need{p.nameIdx[name], v})
		}
		slices.SortFunc(c.need, func(a, b need) int { return cmp.Compare(a.k, b.k) })
		if !t.Ports.IsEmpty() {
			c.port = p.portIdx[portsName(t.Ports)]
			c.count = uint64(t.Ports.Count)
			c.numbers = slices.Sorted(slices.Values(t.Ports.Numbers))
		}
		for v := range t.Volumes.All() {
			v.AllocationRole = ""
			one, err := resources.New(v)
			if err != nil {
				return fmt.Errorf("%w: task %q: volume %s: %w", ErrInvalidTask, t.ID, v, err)
			}
			c.volumes = append(c.volumes, one)
		}
	}
	return nil
}

func portsName(p Ports) string {
	if p.Resource == "" {
		return "ports"
	}
	return p.Resource
}

func (p *placer) group(name string) *group {
	if i, ok := p.groupIdx[name]; ok {
		return p.groups[i]
	}
	g := &group{name: name, idx: uint32(len(p.groups))}
	p.groupIdx[name] = int32(g.idx)
	p.groups = append(p.groups, g)
	return g
}

// taskKey encodes everything of a task but its id.
func taskKey(b []byte, t *Task, preds map[*predicate]int, scores map[*scorer]int) []byte {
	b = appendString(b, t.Role)
	b = appendString(b, t.Group)
	for name, v := range t.Resources.All() {
		b = appendString(b, name)
		b = strconv.AppendInt(b, int64(v), 10)
	}
	b = append(b, 'P')
	b = appendString(b, t.Ports.Resource)
	b = strconv.AppendInt(b, int64(t.Ports.Count), 10)
	for _, n := range t.Ports.Numbers {
		b = append(b, ',')
		b = strconv.AppendUint(b, n, 10)
	}
	if !t.Volumes.IsEmpty() {
		b = append(b, 'V')
		b = appendString(b, t.Volumes.String())
	}
	for _, f := range t.Constraints {
		b = f.appendKey(b, preds)
	}
	for _, r := range t.Preferences {
		b = r.appendKey(b, scores)
	}
	return b
}

// recentClasses is the number of classes a task is compared with, field
// by field, before its key is built: tasks often come in runs, or
// interleave a few kinds.
const recentClasses = 4

// recentClass returns the class among recent (most recent first) whose
// tasks are alike t.
func (p *placer) recentClass(t *Task, recent []int32) (int32, bool) {
	for _, c := range recent {
		if alike(t, &p.tasks[p.classes[c].task]) {
			return c, true
		}
	}
	return 0, false
}

// bump moves class c to the front of recent, keeping at most
// recentClasses.
func bump(recent []int32, c int32) []int32 {
	i := slices.Index(recent, c)
	switch {
	case i == 0:
		return recent
	case i < 0 && len(recent) < recentClasses:
		recent = append(recent, 0)
		i = len(recent) - 1
	case i < 0:
		i = len(recent) - 1
	}
	copy(recent[1:i+1], recent[:i])
	recent[0] = c
	return recent
}

// alike reports, cheaply, whether two tasks are alike but for their ids;
// false when unsure.
func alike(a, b *Task) bool {
	return a.Role == b.Role && a.Group == b.Group && a.Resources.Equal(b.Resources) &&
		a.Ports.Resource == b.Ports.Resource && a.Ports.Count == b.Ports.Count && slices.Equal(a.Ports.Numbers, b.Ports.Numbers) &&
		a.Volumes.Identical(b.Volumes) &&
		slices.EqualFunc(a.Constraints, b.Constraints, Filter.same) &&
		slices.EqualFunc(a.Preferences, b.Preferences, Ranker.same)
}

func validateTask(t *Task) error {
	if t.Resources.IsEmpty() && t.Ports.IsEmpty() && t.Volumes.IsEmpty() {
		return fmt.Errorf("%w: task %q asks for nothing", ErrInvalidTask, t.ID)
	}
	if t.Role != "" {
		if err := reservation.ValidateRole(t.Role); err != nil {
			return fmt.Errorf("%w: task %q: %w", ErrInvalidTask, t.ID, err)
		}
	}
	if t.Ports.Count < 0 {
		return fmt.Errorf("%w: task %q asks for %d ports", ErrInvalidTask, t.ID, t.Ports.Count)
	}
	if !t.Ports.IsEmpty() {
		if err := resources.RangesResource(portsName(t.Ports), nil).Validate(); err != nil {
			return fmt.Errorf("%w: task %q: ports: %w", ErrInvalidTask, t.ID, err)
		}
	}
	nums := slices.Sorted(slices.Values(t.Ports.Numbers))
	for i := 1; i < len(nums); i++ {
		if nums[i] == nums[i-1] {
			return fmt.Errorf("%w: task %q asks for port %d twice", ErrInvalidTask, t.ID, nums[i])
		}
	}
	for v := range t.Volumes.All() {
		if !v.IsPersistentVolume() {
			return fmt.Errorf("%w: task %q: %s is not a persistent volume", ErrInvalidTask, t.ID, v)
		}
	}
	for _, f := range t.Constraints {
		if err := f.validate(fmt.Sprintf("task %q: ", t.ID)); err != nil {
			return err
		}
	}
	for _, r := range t.Preferences {
		if err := r.validate(fmt.Sprintf("task %q: ", t.ID)); err != nil {
			return err
		}
	}
	return nil
}
