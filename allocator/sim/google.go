package sim

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
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
	// DefaultGoogleCPUs and DefaultGoogleMemory).
	CPUs, Memory float64
	// Tenant names the framework and the role of a user's task, from its
	// SUBMIT; nil means GoogleUser(user) for both.
	Tenant func(user string, schedulingClass, priority int) (framework, role string)
}

// GoogleStats counts what ReadGoogle read and left out.
type GoogleStats struct {
	Lines, Tasks                             int
	Unfinished, NeverRan, NoRequest, Orphans int
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

// ReadGoogle reads the task-events table of the Google cluster trace (2011
// schema) and turns each run of a task into a Task, as the package doc
// says. A line that does not read is an error wrapping ErrInvalidTrace
// that names the line and the field; what is left out is counted in the
// stats.
func ReadGoogle(r io.Reader, opts GoogleOptions) ([]Task, GoogleStats, error) {
	opts = opts.resolved()
	if err := opts.check(); err != nil {
		return nil, GoogleStats{}, err
	}
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = 13
	cr.ReuseRecord = true
	g := googleReader{opts: opts, runs: map[[2]uint64]*googleRun{}}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, g.stats, traceError(err, 0, "")
		}
		line, _ := cr.FieldPos(0)
		g.stats.Lines++
		e, err := parseGoogle(rec)
		if err != nil {
			return nil, g.stats, fmt.Errorf("%w: line %d: %w", ErrInvalidTrace, line, err)
		}
		if err := g.event(e, line); err != nil {
			return nil, g.stats, fmt.Errorf("%w: line %d: %w", ErrInvalidTrace, line, err)
		}
	}
	g.stats.Unfinished += len(g.runs)
	g.stats.Tasks = len(g.tasks)
	return g.sorted(), g.stats, nil
}

func (o GoogleOptions) resolved() GoogleOptions {
	if o.CPUs == 0 {
		o.CPUs = DefaultGoogleCPUs
	}
	if o.Memory == 0 {
		o.Memory = DefaultGoogleMemory
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
	return nil
}

// googleRun is a run of a task under way: from its SUBMIT on.
type googleRun struct {
	line              int // of the SUBMIT
	submit            googleEvent
	scheduled         time.Duration
	ran               bool
	cpu, mem          float64
	last              time.Duration
	framework, role   string
	differentMachines bool
}

// googleReader turns events into tasks.
type googleReader struct {
	opts  GoogleOptions
	runs  map[[2]uint64]*googleRun
	count map[[2]uint64]int // runs seen per task, for the ids
	tasks []Task
	lines []int // of each task's SUBMIT
	stats GoogleStats
}

// event applies the event of a line to the runs under way.
func (g *googleReader) event(e googleEvent, line int) error {
	key := [2]uint64{e.job, e.index}
	run, open := g.runs[key]
	if open && e.at < run.last {
		return fmt.Errorf("timestamp %d goes back: task %d-%d had an event at %d", e.at/time.Microsecond, e.job, e.index, run.last/time.Microsecond)
	}
	switch {
	case e.kind == gSubmit && e.at == afterTrace:
		return errors.New("SUBMIT after the end of the trace")
	case e.kind == gSubmit:
		if open {
			g.stats.Unfinished++ // submitted again without an end
		}
		return g.submit(key, e, line)
	case !open && e.kind >= gEvict && e.kind <= gLost:
		g.stats.Orphans++
	case !open:
		// A SCHEDULE or an update of a task submitted in an earlier file.
	case e.kind == gSchedule:
		run.scheduled, run.ran, run.last = e.at, true, e.at
	case e.kind >= gEvict && e.kind <= gLost:
		delete(g.runs, key)
		g.end(key, run, e)
	default: // the updates
		run.update(e)
		run.last = e.at
	}
	return nil
}

func (g *googleReader) submit(key [2]uint64, e googleEvent, line int) error {
	fw, role := g.opts.Tenant(e.user, e.class, e.priority)
	if !validName(fw) {
		return fmt.Errorf("user %q: framework name %q: want a non-empty name without control characters", e.user, fw)
	}
	if err := reservation.ValidateRole(role); err != nil {
		return fmt.Errorf("user %q: %w", e.user, err)
	}
	run := &googleRun{submit: e, line: line, last: e.at, framework: fw, role: role, differentMachines: e.constraint}
	run.update(e)
	g.runs[key] = run
	return nil
}

// sorted returns the tasks by submission, then by the line of their
// SUBMIT.
func (g *googleReader) sorted() []Task {
	order := make([]int, len(g.tasks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(g.tasks[a].Submit, g.tasks[b].Submit), cmp.Compare(g.lines[a], g.lines[b]))
	})
	out := make([]Task, len(order))
	for i, k := range order {
		out[i] = g.tasks[k]
	}
	return out
}

// update takes the requests an event gives.
func (run *googleRun) update(e googleEvent) {
	if e.hasCPU {
		run.cpu = e.cpu
	}
	if e.hasMem {
		run.mem = e.mem
	}
}

// end turns a run that ended into a task, or counts why not.
func (g *googleReader) end(key [2]uint64, run *googleRun, e googleEvent) {
	switch {
	case e.at == afterTrace:
		g.stats.Unfinished++
		return
	case !run.ran:
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
	if g.count == nil {
		g.count = map[[2]uint64]int{}
	}
	g.count[key]++
	id := fmt.Sprintf("%d-%d", key[0], key[1])
	if n := g.count[key]; n > 1 {
		id += fmt.Sprintf(".%d", n)
	}
	g.lines = append(g.lines, run.line)
	g.tasks = append(g.tasks, Task{
		Framework: run.framework, Role: run.role, ID: id, Submit: run.submit.at,
		Resources: q, Duration: max(e.at-run.scheduled, time.Microsecond),
		Group: strconv.FormatUint(key[0], 10), DifferentMachines: run.differentMachines,
	})
}

// requestAmount scales a normalised request, keeping a request that is
// not zero at least a thousandth.
func requestAmount(request, machine float64) float64 {
	if request == 0 {
		return 0
	}
	return max(math.Round(request*machine*1000)/1000, 0.001)
}

// parseGoogle reads one line of the task-events table.
func parseGoogle(rec []string) (googleEvent, error) {
	e := googleEvent{user: rec[6]}
	ts, err := strconv.ParseUint(rec[0], 10, 64)
	switch {
	case err != nil:
		return e, fmt.Errorf("timestamp %q: want microseconds", rec[0])
	case ts == math.MaxInt64:
		e.at = afterTrace
	case ts > uint64(maxTime/time.Microsecond):
		return e, fmt.Errorf("timestamp %q: more than %d µs", rec[0], maxTime/time.Microsecond)
	default:
		e.at = time.Duration(ts) * time.Microsecond
	}
	if _, err := parseCount(rec[1], true, math.MaxUint64); err != nil {
		return e, fmt.Errorf("missing info %q: %w", rec[1], err)
	}
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
	if e.kind == gSubmit && e.user == "" {
		return errors.New("user: empty on a SUBMIT")
	}
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
