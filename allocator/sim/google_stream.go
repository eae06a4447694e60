package sim

import (
	"cmp"
	"container/heap"
	"errors"
	"iter"
	"slices"
	"strconv"
	"time"
)

// googleStreamWindow is, in lines of the table, how long a run may be
// under way before StreamGoogleFiles's first reading keeps its task for
// the second: the second reading holds the tasks made in about that many
// lines, and the first the tasks of the runs longer than that (a run's
// task is given at its submission, and its length is known only at its
// end, which may come weeks of trace later).
const googleStreamWindow = 1 << 16

// GoogleStream gives the tasks of parts of the Google trace as
// ReadGoogleFiles returns them (the same tasks, in the same order, with
// the same stats), as a stream a run reads as its clock goes
// (Workload.Stream), so that a month of trace is run in the memory of its
// busiest hours, not of its millions of tasks. It reads the parts twice:
// a first reading, made once and kept, counts the stats, finds the time
// zero and the tasks whose IDs are numbered anew, and keeps the tasks of
// the runs under way for more than 65,536 lines, and the submissions that
// come before a submission read earlier (the table is in time order, so
// there are few); each reading of Tasks then reads the parts again and
// gives each task as soon as no task still to be made can come before it.
// The first reading also notes, in about two bytes a task, the tasks
// forgotten (GoogleOptions.Remember), and when some are submitted anew
// reads their tasks once more, to number them as ReadGoogleFiles does.
// A GoogleStream is for one goroutine at a time.
type GoogleStream struct {
	paths  []string
	opts   GoogleOptions
	window int
	plan   *googlePlan
	err    error
	// held is the most tasks a reading of Tasks held at once, made and
	// not yet given, for BenchmarkGoogleMonth.
	held int
}

// StreamGoogleFiles returns a stream of the tasks of the files that
// pattern names, read as ReadGoogleFiles reads them. Nothing is read yet:
// Stats or Tasks make the first reading.
func StreamGoogleFiles(pattern string, opts GoogleOptions) (*GoogleStream, error) {
	if _, err := newGoogleReader(opts); err != nil {
		return nil, err // the options are wrong
	}
	paths, err := googleFiles(pattern)
	if err != nil {
		return nil, err
	}
	return &GoogleStream{paths: paths, opts: opts, window: googleStreamWindow}, nil
}

// Stats returns the stats of the whole trace, as ReadGoogleFiles's, after
// the first reading; an error names the file and the line.
func (s *GoogleStream) Stats() (GoogleStats, error) {
	p, err := s.planned()
	if err != nil {
		return GoogleStats{}, err
	}
	return p.stats, nil
}

// Tasks reads the parts and gives their tasks in order of submission:
// Workload.Stream. An error, which names the file and the line, is given
// once and ends the reading.
func (s *GoogleStream) Tasks() iter.Seq2[Task, error] {
	return func(yield func(Task, error) bool) {
		p, err := s.planned()
		if err != nil {
			yield(Task{}, err)
			return
		}
		g, err := newGoogleReader(s.opts)
		if err != nil {
			yield(Task{}, err)
			return
		}
		e := &googleEmitter{g: g, plan: p, yield: yield, open: map[int]bool{}, premade: map[int]bool{}}
		g.sink = e
		defer func() { s.held = max(s.held, e.held) }()
		for _, path := range s.paths {
			if err := g.readFile(path); err != nil {
				if !errors.Is(err, errStreamStopped) {
					yield(Task{}, err)
				}
				return
			}
		}
		e.flush()
	}
}

// planned makes the first reading, once.
func (s *GoogleStream) planned() (*googlePlan, error) {
	if s.plan == nil && s.err == nil {
		s.plan, s.err = planGoogle(s.paths, s.opts, s.window)
	}
	return s.plan, s.err
}

// errStreamStopped stops a reading whose consumer stopped taking tasks.
var errStreamStopped = errors.New("sim: the stream's reader stopped")

// googleSink is told, by a googleReader that has one, of the runs opened
// and closed, the tasks made (which the reader then does not keep), the
// tasks forgotten that had made tasks, and the end of each line.
type googleSink interface {
	opened(key [2]uint64, run *googleRun)
	closed(run *googleRun)
	made(key [2]uint64, run *googleRun, t Task)
	forgot(key [2]uint64)
	line() error
}

// googlePlan is what the first reading found: the stats; the runs under
// way for more than the window, by the line of their SUBMIT, with the
// task each made (nil for none); the submissions earlier than one read
// before them; and the new IDs of the tasks numbered anew, by the line of
// their SUBMIT.
type googlePlan struct {
	stats      GoogleStats
	long       map[int]*Task
	descents   []googleDescent
	renumbered map[int]string
}

// googleDescent is a SUBMIT, at line seq, earlier than a SUBMIT read
// before it; least is the earliest submission of it and the descents
// after it.
type googleDescent struct {
	seq           int
	submit, least time.Duration
}

// googlePlanner is the first reading's sink.
type googlePlanner struct {
	g      *googleReader
	window int
	plan   *googlePlan
	tasks  int
	latest time.Duration // the latest submission read
	any    bool          // a run was opened: latest is set
	// forgotten holds the tasks forgotten once they had made tasks;
	// resubmitted are those of them (or, rarely, others: see keyFilter)
	// submitted anew, whose IDs may repeat.
	forgotten   keyFilter
	resubmitted map[[2]uint64]bool
}

func (p *googlePlanner) opened(key [2]uint64, run *googleRun) {
	if run.made == 0 && p.forgotten.has(key) {
		p.resubmitted[key] = true
	}
	if p.any && run.submit < p.latest {
		p.plan.descents = append(p.plan.descents, googleDescent{seq: run.seq, submit: run.submit})
	}
	p.latest, p.any = max(p.latest, run.submit), true
}

func (p *googlePlanner) closed(run *googleRun) {
	if p.g.stats.Lines-run.seq > p.window {
		p.plan.long[run.seq] = nil
	}
}

func (p *googlePlanner) made(_ [2]uint64, run *googleRun, t Task) {
	p.tasks++
	if p.g.stats.Lines-run.seq > p.window {
		p.plan.long[run.seq] = &t
	}
}

func (p *googlePlanner) forgot(key [2]uint64) { p.forgotten.add(key) }
func (p *googlePlanner) line() error          { return nil }

// planGoogle makes the first reading of the parts.
func planGoogle(paths []string, opts GoogleOptions, window int) (*googlePlan, error) {
	g, err := newGoogleReader(opts)
	if err != nil {
		return nil, err
	}
	plan := &googlePlan{long: map[int]*Task{}}
	p := &googlePlanner{g: g, window: window, plan: plan, resubmitted: map[[2]uint64]bool{}}
	g.sink = p
	for _, path := range paths {
		if err := g.readFile(path); err != nil {
			return nil, err
		}
	}
	for _, run := range g.runs { // under way at the end: no task
		if g.stats.Lines-run.seq > window {
			plan.long[run.seq] = nil
		}
	}
	g.finish() // the stats of the end
	plan.stats = g.stats
	plan.stats.Tasks = p.tasks
	least := time.Duration(maxTime + 1)
	for i := len(plan.descents) - 1; i >= 0; i-- {
		least = min(least, plan.descents[i].submit)
		plan.descents[i].least = least
	}
	if len(p.resubmitted) > 0 {
		if plan.renumbered, err = renumberGoogle(paths, opts, p.resubmitted); err != nil {
			return nil, err
		}
		plan.stats.Renumbered = len(plan.renumbered)
	}
	return plan, nil
}

// googleCollector collects the tasks of some task keys.
type googleCollector struct {
	keys  map[[2]uint64]bool
	tasks map[[2]uint64][]googleMade
}

// googleMade is a task made, with the line of its SUBMIT.
type googleMade struct {
	seq int
	t   Task
}

func (c *googleCollector) opened([2]uint64, *googleRun) {}
func (c *googleCollector) closed(*googleRun)            {}
func (c *googleCollector) made(key [2]uint64, run *googleRun, t Task) {
	if c.keys[key] {
		c.tasks[key] = append(c.tasks[key], googleMade{run.seq, t})
	}
}
func (c *googleCollector) forgot([2]uint64) {}
func (c *googleCollector) line() error      { return nil }

// renumberGoogle reads the parts once more for the tasks of the keys
// submitted anew after they were forgotten once they had made tasks, the
// only ones whose IDs may repeat, and numbers them anew as googleReader.renumber does: a key's tasks,
// when two have one ID, in order of submission, then of SUBMIT line. It
// returns the new IDs that differ, by the line of the task's SUBMIT.
func renumberGoogle(paths []string, opts GoogleOptions, keys map[[2]uint64]bool) (map[int]string, error) {
	g, err := newGoogleReader(opts)
	if err != nil {
		return nil, err
	}
	c := &googleCollector{keys: keys, tasks: map[[2]uint64][]googleMade{}}
	g.sink = c
	for _, path := range paths {
		if err := g.readFile(path); err != nil {
			return nil, err
		}
	}
	out := map[int]string{}
	for key, made := range c.tasks {
		slices.SortFunc(made, func(a, b googleMade) int { return cmp.Or(cmp.Compare(a.t.Submit, b.t.Submit), a.seq-b.seq) })
		ids := map[string]bool{}
		repeat := false
		for _, m := range made {
			repeat = repeat || ids[m.t.ID]
			ids[m.t.ID] = true
		}
		if !repeat {
			continue
		}
		base := strconv.FormatUint(key[0], 10) + "-" + strconv.FormatUint(key[1], 10)
		for n, m := range made {
			id := base
			if n > 0 {
				id += "." + strconv.Itoa(n+1)
			}
			if id != m.t.ID {
				out[m.seq] = id
			}
		}
	}
	return out, nil
}

// googleEmitter is a reading's sink: it holds the tasks made until none
// still to be made can come before them, then gives them. A task still
// to be made is that of a run under way that the plan does not know
// (blockers: the plan gives those of the longer runs at their SUBMIT),
// or of a SUBMIT still to read: at or after the latest submission read,
// or a descent of the plan.
type googleEmitter struct {
	g        *googleReader
	plan     *googlePlan
	yield    func(Task, error) bool
	out      madeQueue
	blockers runQueue
	open     map[int]bool // the blockers under way, by SUBMIT line
	premade  map[int]bool // the runs under way whose task the plan gave
	latest   time.Duration
	any      bool // a run was opened: latest is set
	descent  int  // the first descent of the plan not yet read
	held     int
}

func (e *googleEmitter) opened(_ [2]uint64, run *googleRun) {
	e.latest, e.any = max(e.latest, run.submit), true
	t, known := e.plan.long[run.seq]
	switch {
	case t != nil:
		heap.Push(&e.out, googleMade{run.seq, *t})
		e.premade[run.seq] = true
	case !known:
		heap.Push(&e.blockers, googleMade{seq: run.seq, t: Task{Submit: run.submit}})
		e.open[run.seq] = true
	}
}

func (e *googleEmitter) closed(run *googleRun) { delete(e.open, run.seq) }

func (e *googleEmitter) made(_ [2]uint64, run *googleRun, t Task) {
	if e.premade[run.seq] {
		delete(e.premade, run.seq)
		return
	}
	heap.Push(&e.out, googleMade{run.seq, t})
	e.held = max(e.held, len(e.out))
}

func (e *googleEmitter) forgot([2]uint64) {}

// line gives the tasks that nothing still to come can precede.
func (e *googleEmitter) line() error {
	d := e.plan.descents
	for e.descent < len(d) && d[e.descent].seq <= e.g.stats.Lines {
		e.descent++
	}
	if !e.any {
		return nil
	}
	bound := e.latest
	if e.descent < len(d) {
		bound = min(bound, d[e.descent].least)
	}
	for len(e.out) > 0 {
		head := e.out[0]
		for len(e.blockers) > 0 && !e.open[e.blockers[0].seq] {
			heap.Pop(&e.blockers)
		}
		if len(e.blockers) > 0 && !madeBefore(head, e.blockers[0]) || head.t.Submit > bound {
			return nil
		}
		heap.Pop(&e.out)
		if !e.give(head) {
			return errStreamStopped
		}
	}
	return nil
}

// flush gives the tasks left at the end of the reading.
func (e *googleEmitter) flush() {
	for len(e.out) > 0 {
		if !e.give(heap.Pop(&e.out).(googleMade)) {
			return
		}
	}
}

// give gives a task, in the run's time and with its new ID if it has one.
func (e *googleEmitter) give(m googleMade) bool {
	t := m.t
	t.Submit -= e.plan.stats.Start
	if id, ok := e.plan.renumbered[m.seq]; ok {
		t.ID = id
	}
	return e.yield(t, nil)
}

// madeBefore orders tasks as ReadGoogle does: by submission, then by the
// line of their SUBMIT.
func madeBefore(a, b googleMade) bool {
	if a.t.Submit != b.t.Submit {
		return a.t.Submit < b.t.Submit
	}
	return a.seq < b.seq
}

// madeQueue and runQueue order tasks, and runs under way, by madeBefore.
type (
	madeQueue []googleMade
	runQueue  = madeQueue
)

func (q madeQueue) Len() int           { return len(q) }
func (q madeQueue) Less(i, j int) bool { return madeBefore(q[i], q[j]) }
func (q madeQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *madeQueue) Push(x any)        { *q = append(*q, x.(googleMade)) }
func (q *madeQueue) Pop() any {
	old := *q
	m := old[len(old)-1]
	old[len(old)-1] = googleMade{}
	*q = old[:len(old)-1]
	return m
}
