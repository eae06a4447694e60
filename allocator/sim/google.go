package sim

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// Google trace defaults: the largest machine of the trace, to which
// requests are normalised.
const (
	DefaultGoogleCPUs   = 32
	DefaultGoogleMemory = 131072 // MB
)

// GoogleOptions say how to read the Google trace.
type GoogleOptions struct {
	// CPUs and Memory (MB) are the resources of a request of 1 (0 means
	// DefaultGoogleCPUs and DefaultGoogleMemory); they scale the
	// machines' capacities the same way.
	CPUs, Memory float64
	// Tenant names the framework and the role of a user's task, from its
	// SUBMIT; nil means GoogleUser(user) for both. It is called once per
	// user, scheduling class and priority, and its answer kept.
	Tenant func(user string, schedulingClass, priority int) (framework, role string)
	// Start, with FixedStart, is the instant of the trace that becomes
	// the run's time zero, in the trace's own time (that of its
	// timestamps: from 600 s before the trace window opens). Runs
	// submitted before it are left out and counted in
	// GoogleStats.BeforeStart. Without FixedStart the run's time zero is
	// the trace's first event, the earliest timestamp read, so that a
	// part from late in the trace runs its tasks from the run's start.
	Start      time.Duration
	FixedStart bool
	// Remember is how long, in the trace's time, the reader keeps what
	// it knows of a task whose last run ended (0 means
	// DefaultGoogleRemember, a day; a negative value, for ever), so that
	// its memory grows with the tasks that ended within Remember of the
	// latest timestamp read, not with every task of a long trace. A
	// record of a task forgotten is read as one of a task never seen:
	// an end is counted as an orphan, not a duplicate; a timestamp that
	// goes back is not noticed; a SUBMIT opens a run numbered as the
	// task's first, and the runs of a task whose IDs then repeat are
	// numbered anew (GoogleStats.Renumbered).
	Remember time.Duration
}

// GoogleStats counts what ReadGoogle read and left out.
type GoogleStats struct {
	// Parts and Lines count what was read; Tasks are the tasks returned.
	Parts, Lines, Tasks int
	// Start is the instant of the trace taken as the run's time zero
	// (see GoogleOptions.Start), subtracted from every submission; give
	// it to ReadGoogleMachines so that the cluster keeps the same time.
	Start time.Duration
	// Runs left out: Unfinished have no end in what was read, or end
	// after the trace (timestamp 2^63-1); NeverRan ended before they
	// were scheduled; NoRequest request no CPU and no memory;
	// BeforeStart were submitted before GoogleOptions.Start.
	Unfinished, NeverRan, NoRequest, BeforeStart int
	// Records ignored: Orphans end a task that no SUBMIT read opened (it
	// was submitted in an earlier part); Strays are SCHEDULEs and updates
	// of a task without a run under way; DuplicateSubmits and
	// DuplicateSchedules repeat the SUBMIT or the SCHEDULE of the run
	// under way, and DuplicateEnds the end of a run that already ended
	// (the table repeats records, often with the missing-info field set);
	// AfterTrace are the records at 2^63-1, after the trace.
	Orphans, Strays                                     int
	DuplicateSubmits, DuplicateSchedules, DuplicateEnds int
	AfterTrace                                          int
	// Renumbered counts the tasks given another ID because their task,
	// submitted again once forgotten (see GoogleOptions.Remember), would
	// have had two runs of one ID: its runs read are numbered anew in
	// the order of their submissions.
	Renumbered int
}

// GoogleUser makes a user name of the trace (a base64 hash, such as
// "fJYeclskJqPWsAT6TX/r9X5OiIZpSEb2PBGliYAOMxM=") into a role and framework
// name: '+' and '/' become '-' and '_' (base64's URL alphabet), '='
// padding is dropped, and a name that would start with '-' or '.' gets a
// leading '_'.
func GoogleUser(user string) string {
	s := strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(user), "=")
	if s == "" || s[0] == '-' || s[0] == '.' {
		s = "_" + s
	}
	return s
}

// googleEvent is one line of the task-events table.
type googleEvent struct {
	at              time.Duration // afterTrace for 2^63-1
	missing         bool          // the missing-info field is set
	job, index      uint64
	kind            int
	user            string
	class, priority int
	cpu, mem        float64
	hasCPU, hasMem  bool
	constraint      bool
}

// afterTrace stands for the timestamp 2^63-1: after the end of the trace.
const afterTrace = time.Duration(math.MaxInt64)

// Event types of the trace.
const (
	gSubmit = iota
	gSchedule
	gEvict
	gFail
	gFinish
	gKill
	gLost
	gUpdatePending
	gUpdateRunning
)

// googleEnds reports whether an event type ends a run: EVICT, FAIL, FINISH,
// KILL or LOST.
func googleEnds(kind int) bool { return kind >= gEvict && kind <= gLost }

// ReadGoogle reads the task-events table of the Google cluster trace (2011
// schema) and turns each run of a task into a Task, as the package doc
// says. A line that does not read is an error wrapping ErrInvalidTrace
// that names the line and the field; what is left out is counted in the
// stats. ReadGoogleParts and ReadGoogleFiles read several parts as one
// trace.
func ReadGoogle(r io.Reader, opts GoogleOptions) ([]Task, GoogleStats, error) {
	g, err := newGoogleReader(opts)
	if err != nil {
		return nil, GoogleStats{}, err
	}
	if err := g.read(r); err != nil {
		return nil, g.stats, err
	}
	return g.finish(), g.stats, nil
}

func (o GoogleOptions) resolved() GoogleOptions {
	if o.CPUs == 0 {
		o.CPUs = DefaultGoogleCPUs
	}
	if o.Memory == 0 {
		o.Memory = DefaultGoogleMemory
	}
	if o.Remember == 0 {
		o.Remember = DefaultGoogleRemember
	}
	if o.Tenant == nil {
		o.Tenant = func(user string, _, _ int) (string, string) { u := GoogleUser(user); return u, u }
	}
	return o
}

func (o GoogleOptions) check() error {
	for _, v := range []float64{o.CPUs, o.Memory} {
		if !(v > 0) || v > maxAmount {
			return fmt.Errorf("%w: google options: machine of cpus %v, memory %v: want amounts above zero and at most %v", ErrInvalidTrace, o.CPUs, o.Memory, maxAmount)
		}
	}
	if o.FixedStart && (o.Start < 0 || o.Start > maxTime) {
		return fmt.Errorf("%w: google options: start %s: want 0 to %s", ErrInvalidTrace, o.Start, maxTime)
	}
	return nil
}

// googleRun is a run of a task under way: from its SUBMIT on.
type googleRun struct {
	seq               int // the number of its SUBMIT's line among all lines read, for the order of tasks
	submit            time.Duration
	scheduled         time.Duration
	ran               bool
	cpu, mem          float64
	hasCPU, hasMem    bool
	last              time.Duration
	tenant            googleTenant
	differentMachines bool
	made              int // tasks made of the task's earlier runs
}

// googleEnded is what is kept of a task whose last run ended: enough to
// number its next run and to tell a repeated end from an orphan.
type googleEnded struct {
	made int
	last time.Duration
}

// googleTenant is a framework and role that GoogleOptions.Tenant named.
type googleTenant struct{ framework, role string }

type googleTenantKey struct {
	user            string
	class, priority int
}

// googleReader turns events into tasks. Its memory is the open runs, a
// few words per task whose last run ended within GoogleOptions.Remember
// (see google_forget.go), the tasks made and a tenant per user: the lines
// themselves are not kept.
type googleReader struct {
	opts     GoogleOptions
	runs     map[[2]uint64]*googleRun
	ended    map[[2]uint64]googleEnded
	tenants  map[googleTenantKey]googleTenant
	tasks    []Task
	seqs     []int // of each task's SUBMIT
	first    time.Duration
	hasFirst bool          // a timestamp before the trace's end was read: first is set
	latest   time.Duration // the latest timestamp read before the trace's end
	// sweepAt is the size of ended at which the next sweep is made;
	// forgotMade is set once a task forgotten had made a task, whose
	// number a later run may take again.
	sweepAt    int
	forgotMade bool
	stats      GoogleStats
	// sink, when set, is told of the runs and takes the tasks made
	// instead of tasks (see StreamGoogleFiles).
	sink googleSink
}

func newGoogleReader(opts GoogleOptions) (*googleReader, error) {
	opts = opts.resolved()
	if err := opts.check(); err != nil {
		return nil, err
	}
	return &googleReader{
		opts: opts, runs: map[[2]uint64]*googleRun{}, ended: map[[2]uint64]googleEnded{},
		tenants: map[googleTenantKey]googleTenant{}, sweepAt: minSweep,
	}, nil
}

// read reads one part of the table, line by line.
func (g *googleReader) read(r io.Reader) error {
	g.stats.Parts++
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 13
	cr.ReuseRecord = true
	line := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return googleReadError(err, line)
		}
		line, _ = cr.FieldPos(0)
		g.stats.Lines++
		e, err := parseGoogle(rec)
		if err == nil {
			err = g.event(e)
		}
		if err != nil {
			return fmt.Errorf("%w: line %d: %w", ErrInvalidTrace, line, err)
		}
		g.sweep()
		if g.sink != nil {
			if err := g.sink.line(); err != nil {
				return err
			}
		}
	}
}

// googleReadError wraps an error of the CSV reader: a parse error names its
// line; a read error (a gzip stream cut short) comes after the last line
// read.
func googleReadError(err error, last int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%w: line %d: %w", ErrInvalidTrace, pe.Line, pe.Err)
	}
	return fmt.Errorf("%w: after line %d: %w", ErrInvalidTrace, last, err)
}

// event applies the event of a line to the runs under way.
func (g *googleReader) event(e googleEvent) error {
	if e.at != afterTrace {
		g.latest = max(g.latest, e.at)
	}
	key := [2]uint64{e.job, e.index}
	run, open := g.runs[key]
	ended, known := g.recall(key)
	last := ended.last
	if open {
		last = run.last
	}
	if (open || known) && e.at < last {
		return fmt.Errorf("timestamp %s goes back: task %d-%d had an event at %s", googleStamp(e.at), e.job, e.index, googleStamp(last))
	}
	if e.at == afterTrace {
		// After the trace: the run did not end within it.
		g.stats.AfterTrace++
		if open && googleEnds(e.kind) {
			g.stats.Unfinished++
			g.close(key, run, e.at)
		}
		return nil
	}
	if !g.hasFirst || e.at < g.first {
		g.first, g.hasFirst = e.at, true
	}
	switch {
	case e.kind == gSubmit && open:
		// The same run submitted again: keep it, and what it requests.
		g.stats.DuplicateSubmits++
		run.take(e)
		run.last = e.at
	case e.kind == gSubmit:
		return g.submit(key, e, ended.made)
	case !open && googleEnds(e.kind) && known:
		g.stats.DuplicateEnds++
		g.ended[key] = googleEnded{made: ended.made, last: e.at}
	case !open && googleEnds(e.kind):
		g.stats.Orphans++
		g.ended[key] = googleEnded{last: e.at}
	case !open:
		g.stats.Strays++
	case e.kind == gSchedule && run.ran:
		// The run keeps the start it had.
		g.stats.DuplicateSchedules++
		run.take(e)
		run.last = e.at
	case e.kind == gSchedule:
		run.scheduled, run.ran, run.last = e.at, true, e.at
		run.take(e)
	case googleEnds(e.kind):
		g.close(key, run, e.at)
		g.end(key, run, e.at)
	default: // the updates
		run.take(e)
		run.last = e.at
	}
	return nil
}

// submit opens a run of a task, the made-th task of which has been made
// of its earlier runs.
func (g *googleReader) submit(key [2]uint64, e googleEvent, made int) error {
	if e.user == "" {
		return errors.New("user: empty on a SUBMIT")
	}
	t, err := g.tenant(e)
	if err != nil {
		return err
	}
	run := &googleRun{seq: g.stats.Lines, submit: e.at, last: e.at, tenant: t, differentMachines: e.constraint, made: made}
	run.take(e)
	delete(g.ended, key)
	g.runs[key] = run
	if g.sink != nil {
		g.sink.opened(key, run)
	}
	return nil
}

// tenant names the framework and role of a SUBMIT's user.
func (g *googleReader) tenant(e googleEvent) (googleTenant, error) {
	key := googleTenantKey{e.user, e.class, e.priority}
	if t, ok := g.tenants[key]; ok {
		return t, nil
	}
	fw, role := g.opts.Tenant(e.user, e.class, e.priority)
	if !validName(fw) {
		return googleTenant{}, fmt.Errorf("user %q: framework name %q: want a non-empty name without control characters", e.user, fw)
	}
	if err := reservation.ValidateRole(role); err != nil {
		return googleTenant{}, fmt.Errorf("user %q: %w", e.user, err)
	}
	// Clones: the CSV reader's strings hold the whole line.
	key.user = strings.Clone(key.user)
	t := googleTenant{framework: strings.Clone(fw), role: strings.Clone(role)}
	g.tenants[key] = t
	return t, nil
}

// take takes the requests a record of the run gives. A record with the
// missing-info field set was made up after the fact: it gives a request
// only where none is known, and an empty field never erases one.
func (run *googleRun) take(e googleEvent) {
	if e.hasCPU && (!e.missing || !run.hasCPU) {
		run.cpu, run.hasCPU = e.cpu, true
	}
	if e.hasMem && (!e.missing || !run.hasMem) {
		run.mem, run.hasMem = e.mem, true
	}
}

// close takes an ended run off the runs under way.
func (g *googleReader) close(key [2]uint64, run *googleRun, at time.Duration) {
	delete(g.runs, key)
	g.ended[key] = googleEnded{made: run.made, last: at}
	if g.sink != nil {
		g.sink.closed(run)
	}
}

// end turns a run that ended at a time of the trace into a task, or
// counts why not.
func (g *googleReader) end(key [2]uint64, run *googleRun, at time.Duration) {
	if !run.ran {
		g.stats.NeverRan++
		return
	}
	var q resources.Quantities
	q.Set("cpus", requestAmount(run.cpu, g.opts.CPUs))
	q.Set("mem", requestAmount(run.mem, g.opts.Memory))
	if q.IsEmpty() {
		g.stats.NoRequest++
		return
	}
	// Counted whatever the start, so that a run has one ID however the
	// trace is cut.
	made := run.made + 1
	g.ended[key] = googleEnded{made: made, last: at}
	if g.opts.FixedStart && run.submit < g.opts.Start {
		g.stats.BeforeStart++
		return
	}
	id := strconv.FormatUint(key[0], 10) + "-" + strconv.FormatUint(key[1], 10)
	group := id[:strings.IndexByte(id, '-')] // shares the ID's bytes
	if made > 1 {
		id += "." + strconv.Itoa(made)
	}
	t := Task{
		Framework: run.tenant.framework, Role: run.tenant.role, ID: id, Submit: run.submit,
		Resources: q, Duration: max(at-run.scheduled, time.Microsecond),
		Group: group, DifferentMachines: run.differentMachines,
	}
	if g.sink != nil {
		g.sink.made(key, run, t)
		return
	}
	g.seqs = append(g.seqs, run.seq)
	g.tasks = append(g.tasks, t)
}

// finish counts the runs left open, moves the submissions to the run's
// time and returns the tasks by submission, then by the line of their
// SUBMIT.
func (g *googleReader) finish() []Task {
	g.stats.Unfinished += len(g.runs)
	switch {
	case g.opts.FixedStart:
		g.stats.Start = g.opts.Start
	case g.hasFirst:
		g.stats.Start = g.first
	}
	for i := range g.tasks {
		g.tasks[i].Submit -= g.stats.Start // none before it: the earliest timestamp, or left out
	}
	g.stats.Tasks = len(g.tasks)
	sort.Sort(googleTasks{g.tasks, g.seqs}) // in place: a copy of every task would double the memory
	if g.forgotMade {
		g.renumber()
	}
	return g.tasks
}

// googleTasks sorts tasks and the lines of their SUBMITs together.
type googleTasks struct {
	tasks []Task
	seqs  []int
}

func (s googleTasks) Len() int { return len(s.tasks) }
func (s googleTasks) Less(i, j int) bool {
	if s.tasks[i].Submit != s.tasks[j].Submit {
		return s.tasks[i].Submit < s.tasks[j].Submit
	}
	return s.seqs[i] < s.seqs[j]
}
func (s googleTasks) Swap(i, j int) {
	s.tasks[i], s.tasks[j] = s.tasks[j], s.tasks[i]
	s.seqs[i], s.seqs[j] = s.seqs[j], s.seqs[i]
}

// stamp writes a time of the trace as its timestamp, in microseconds.
func googleStamp(at time.Duration) string {
	if at == afterTrace {
		return strconv.FormatInt(math.MaxInt64, 10)
	}
	return strconv.FormatInt(int64(at/time.Microsecond), 10)
}

// requestAmount scales a normalised request, keeping a request that is
// not zero at least a thousandth.
func requestAmount(request, machine float64) float64 {
	if request == 0 {
		return 0
	}
	return max(math.Round(request*machine*1000)/1000, 0.001)
}

// parseGoogleStamp reads a timestamp of the trace: microseconds, or 2^63-1 for
// after the trace.
func parseGoogleStamp(s string) (time.Duration, error) {
	ts, err := strconv.ParseUint(s, 10, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("timestamp %q: want microseconds", s)
	case ts == math.MaxInt64:
		return afterTrace, nil
	case ts > uint64(maxTime/time.Microsecond):
		return 0, fmt.Errorf("timestamp %q: more than %d µs", s, maxTime/time.Microsecond)
	}
	return time.Duration(ts) * time.Microsecond, nil
}

// parseGoogle reads one line of the task-events table.
func parseGoogle(rec []string) (googleEvent, error) {
	e := googleEvent{user: rec[6]}
	var err error
	if e.at, err = parseGoogleStamp(rec[0]); err != nil {
		return e, err
	}
	// 0, 1 and 2: SNAPSHOT_BUT_NO_TRANSITION, NO_SNAPSHOT_OR_TRANSITION
	// and EXISTS_BUT_NO_CREATION; all three mean the record was made up.
	if _, err := parseCount(rec[1], true, 2); err != nil {
		return e, fmt.Errorf("missing info %q: %w", rec[1], err)
	}
	e.missing = rec[1] != ""
	if e.job, err = parseCount(rec[2], false, math.MaxUint64); err != nil {
		return e, fmt.Errorf("job ID %q: %w", rec[2], err)
	}
	if e.index, err = parseCount(rec[3], false, math.MaxUint64); err != nil {
		return e, fmt.Errorf("task index %q: %w", rec[3], err)
	}
	if _, err := parseCount(rec[4], true, math.MaxUint64); err != nil {
		return e, fmt.Errorf("machine ID %q: %w", rec[4], err)
	}
	if err := e.parseRest(rec); err != nil {
		return e, err
	}
	return e, nil
}

// parseRest reads the event type, the user's fields and the requests.
func (e *googleEvent) parseRest(rec []string) error {
	kind, err := parseCount(rec[5], false, gUpdateRunning)
	if err != nil {
		return fmt.Errorf("event type %q: %w", rec[5], err)
	}
	e.kind = int(kind)
	class, err := parseCount(rec[7], true, 3)
	if err != nil {
		return fmt.Errorf("scheduling class %q: %w", rec[7], err)
	}
	priority, err := parseCount(rec[8], true, 11)
	if err != nil {
		return fmt.Errorf("priority %q: %w", rec[8], err)
	}
	e.class, e.priority = int(class), int(priority)
	if e.cpu, e.hasCPU, err = parseRequest(rec[9]); err != nil {
		return fmt.Errorf("CPU request %q: %w", rec[9], err)
	}
	if e.mem, e.hasMem, err = parseRequest(rec[10]); err != nil {
		return fmt.Errorf("memory request %q: %w", rec[10], err)
	}
	if _, _, err = parseRequest(rec[11]); err != nil {
		return fmt.Errorf("disk request %q: %w", rec[11], err)
	}
	constraint, err := parseCount(rec[12], true, 1)
	if err != nil {
		return fmt.Errorf("different-machine constraint %q: %w", rec[12], err)
	}
	e.constraint = constraint == 1
	return nil
}

// parseCount reads a whole number up to limit; an empty field is 0 when
// optional.
func parseCount(s string, optional bool, limit uint64) (uint64, error) {
	if s == "" {
		if optional {
			return 0, nil
		}
		return 0, errors.New("missing")
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > limit {
		return 0, fmt.Errorf("want a whole number up to %d", limit)
	}
	return v, nil
}

// parseRequest reads a normalised request, from 0 to 1; empty is none.
func parseRequest(s string) (float64, bool, error) {
	if s == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, false, errors.New("want a normalised request from 0 to 1")
	}
	return v, true, nil
}
