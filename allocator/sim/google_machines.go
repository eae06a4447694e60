package sim

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GoogleCluster is the cluster that the machine-events table of the Google
// cluster trace describes, as a Workload takes it: put Agents in
// Workload.Agents and Events in Workload.Events.
type GoogleCluster struct {
	// Agents are the machines up at the run's time zero or added after
	// it, a group of one agent each: the group of machine 5 is "m5" and
	// its agent "m5-1". An agent's resources are the machine's CPUs and
	// memory times GoogleOptions.CPUs and Memory, rounded as requests
	// are; its platform is its attribute "platform".
	Agents []AgentGroup
	// Events are AgentFailures, by time: a machine removed fails, with
	// For until it is added again (never, if it is not); a machine added
	// after time zero fails at time zero until then.
	Events []Event
}

// GoogleMachineStats counts what ReadGoogleMachines read and how it
// approximated it.
type GoogleMachineStats struct {
	Lines int
	// Machines are the machines made agents. Gone were removed before
	// the start and not added again, or never added; NoCapacity have no
	// record giving their CPUs or their memory, or give zero for both.
	// Neither is an agent.
	Machines, Gone, NoCapacity int
	// Removals are the removals after the start, each an AgentFailure;
	// Late are the machines added after the start, each failed from time
	// zero to its addition.
	Removals, Late int
	// Resized are the records after a machine joins the run that give it
	// another capacity: an agent keeps its resources, so they are
	// ignored (a machine added again comes back with its first capacity
	// too).
	Resized int
	// Duplicates are ADDs of a machine up and REMOVEs of a machine down or
	// never added; AfterTrace are the records at 2^63-1, after the trace.
	// Both are ignored.
	Duplicates, AfterTrace int
}

// Machine event types of the trace.
const (
	gmAdd = iota
	gmRemove
	gmUpdate
)

// googleMachineRecord is one line of the machine-events table.
type googleMachineRecord struct {
	at             time.Duration
	kind           int
	platform       string
	cpu, mem       float64
	hasCPU, hasMem bool
}

// googleMachine is a machine's records, in order.
type googleMachine struct {
	records []googleMachineRecord
}

// googleWindow is a time a machine is up, in the trace's time: to is
// afterTrace while it is up at the end.
type googleWindow struct{ from, to time.Duration }

// ReadGoogleMachines reads the machine-events table of the Google cluster
// trace (2011 schema: timestamp, machine ID, event type 0 ADD, 1 REMOVE or
// 2 UPDATE, platform ID, CPUs, memory; the last two normalised to the
// largest machine) and makes its machines the agents of a cluster, with
// the run's time zero at GoogleOptions.Start: give it the
// GoogleStats.Start of the task events, with FixedStart, for the two to
// keep one time (without FixedStart, time zero is the table's first
// event). Tenant is not used.
//
// A Workload's agents are there from the start and keep their resources,
// so the table is approximated: a machine added after the start is an
// agent failed from time zero until its addition, a removal is an agent
// failure until the machine is added again, and the agent keeps the
// capacity the machine had when it joined the run (the latest record at
// that time that gives it, else the first after). A line that does not
// read is an error wrapping ErrInvalidTrace that names the line and the
// field.
func ReadGoogleMachines(r io.Reader, opts GoogleOptions) (GoogleCluster, GoogleMachineStats, error) {
	var stats GoogleMachineStats
	opts = opts.resolved()
	if err := opts.check(); err != nil {
		return GoogleCluster{}, stats, err
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 6
	cr.ReuseRecord = true
	machines := map[uint64]*googleMachine{}
	platforms := map[string]string{} // one copy of each platform's name
	first, anyStamp := time.Duration(0), false
	line := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return GoogleCluster{}, stats, googleReadError(err, line)
		}
		line, _ = cr.FieldPos(0)
		stats.Lines++
		id, mr, err := parseGoogleMachine(rec)
		if err == nil && mr.at == afterTrace {
			stats.AfterTrace++
			continue
		}
		m := machines[id]
		if err == nil && m != nil {
			if last := m.records[len(m.records)-1].at; mr.at < last {
				err = fmt.Errorf("timestamp %s goes back: machine %d had an event at %s", googleStamp(mr.at), id, googleStamp(last))
			}
		}
		if err != nil {
			return GoogleCluster{}, stats, fmt.Errorf("%w: line %d: %w", ErrInvalidTrace, line, err)
		}
		if p, ok := platforms[mr.platform]; ok {
			mr.platform = p
		} else {
			mr.platform = strings.Clone(mr.platform) // the CSV reader's strings hold the whole line
			platforms[mr.platform] = mr.platform
		}
		if m == nil {
			m = &googleMachine{}
			machines[id] = m
		}
		m.records = append(m.records, mr)
		if !anyStamp || mr.at < first {
			first, anyStamp = mr.at, true
		}
	}
	start := first
	if opts.FixedStart {
		start = opts.Start
	}
	var c GoogleCluster
	for _, id := range slices.Sorted(maps.Keys(machines)) {
		machines[id].agent(id, start, opts, &c, &stats)
	}
	slices.SortStableFunc(c.Events, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return c, stats, nil
}

// agent makes a machine an agent of the cluster, with its failures, or
// counts why not.
func (m *googleMachine) agent(id uint64, start time.Duration, opts GoogleOptions, c *GoogleCluster, stats *GoogleMachineStats) {
	windows := m.windows(stats)
	for len(windows) > 0 && windows[0].to <= start {
		windows = windows[1:]
	}
	if len(windows) == 0 {
		stats.Gone++
		return
	}
	windows[0].from = max(windows[0].from, start)
	joins := windows[0].from
	cpu, mem, platform, ok := m.capacity(joins)
	res := googleCapacity(cpu, mem, opts)
	if !ok || res == "" {
		stats.NoCapacity++
		return
	}
	for _, r := range m.records {
		if r.at > joins && r.kind != gmRemove && (r.hasCPU && r.cpu != cpu || r.hasMem && r.mem != mem) {
			stats.Resized++
		}
	}
	stats.Machines++
	name := "m" + strconv.FormatUint(id, 10)
	g := AgentGroup{Name: name, Count: 1, Resources: res}
	if platform != "" {
		g.Attributes = map[string]string{"platform": platform}
	}
	c.Agents = append(c.Agents, g)
	agent := name + "-1"
	if joins > start {
		stats.Late++
		c.Events = append(c.Events, Event{At: 0, Kind: AgentFailure, Agent: agent, For: joins - start})
	}
	for i, w := range windows {
		if w.to == afterTrace {
			break
		}
		stats.Removals++
		e := Event{At: w.to - start, Kind: AgentFailure, Agent: agent}
		if i+1 < len(windows) {
			// Removed and added at one instant, it still loses its tasks:
			// a microsecond down, as For 0 would mean for ever.
			e.For = max(windows[i+1].from-w.to, time.Microsecond)
		}
		c.Events = append(c.Events, e)
	}
}

// windows returns the times the machine is up, counting the records that
// repeat its state.
func (m *googleMachine) windows(stats *GoogleMachineStats) []googleWindow {
	var out []googleWindow
	up := false
	for _, r := range m.records {
		switch {
		case r.kind == gmAdd && up, r.kind == gmRemove && !up:
			stats.Duplicates++
		case r.kind == gmAdd:
			out = append(out, googleWindow{from: r.at, to: afterTrace})
			up = true
		case r.kind == gmRemove:
			out[len(out)-1].to = r.at
			up = false
		}
	}
	return out
}

// capacity returns the machine's CPUs, memory and platform when it joins
// the run: the latest records at that time that give them, else the first
// after; ok is false if no record gives the CPUs or the memory.
func (m *googleMachine) capacity(joins time.Duration) (cpu, mem float64, platform string, ok bool) {
	hasCPU, hasMem := false, false
	for _, r := range m.records {
		if r.kind == gmRemove {
			continue
		}
		later := r.at > joins
		if r.hasCPU && (!later || !hasCPU) {
			cpu, hasCPU = r.cpu, true
		}
		if r.hasMem && (!later || !hasMem) {
			mem, hasMem = r.mem, true
		}
		if r.platform != "" && (!later || platform == "") {
			platform = r.platform
		}
	}
	return cpu, mem, platform, hasCPU && hasMem
}

// googleCapacity writes a machine's capacity as resources, or "" if it is
// zero.
func googleCapacity(cpu, mem float64, opts GoogleOptions) string {
	var parts []string
	if v := requestAmount(cpu, opts.CPUs); v > 0 {
		parts = append(parts, "cpus:"+strconv.FormatFloat(v, 'f', -1, 64))
	}
	if v := requestAmount(mem, opts.Memory); v > 0 {
		parts = append(parts, "mem:"+strconv.FormatFloat(v, 'f', -1, 64))
	}
	return strings.Join(parts, ";")
}

// parseGoogleMachine reads one line of the machine-events table.
func parseGoogleMachine(rec []string) (uint64, googleMachineRecord, error) {
	var mr googleMachineRecord
	var err error
	if mr.at, err = parseGoogleStamp(rec[0]); err != nil {
		return 0, mr, err
	}
	id, err := parseCount(rec[1], false, math.MaxUint64)
	if err != nil {
		return 0, mr, fmt.Errorf("machine ID %q: %w", rec[1], err)
	}
	kind, err := parseCount(rec[2], false, gmUpdate)
	if err != nil {
		return 0, mr, fmt.Errorf("event type %q: %w", rec[2], err)
	}
	mr.kind = int(kind)
	mr.platform = rec[3]
	if !validName(mr.platform) && mr.platform != "" {
		return 0, mr, fmt.Errorf("platform ID %q: want no control characters", rec[3])
	}
	if mr.cpu, mr.hasCPU, err = parseRequest(rec[4]); err != nil {
		return 0, mr, fmt.Errorf("CPUs %q: want a normalised capacity from 0 to 1", rec[4])
	}
	if mr.mem, mr.hasMem, err = parseRequest(rec[5]); err != nil {
		return 0, mr, fmt.Errorf("memory %q: want a normalised capacity from 0 to 1", rec[5])
	}
	return id, mr, nil
}
