package allocator

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/allot-go/allot/internal/wire"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// snapshotMagic starts every snapshot.
const snapshotMagic = "allot-snapshot"

// SnapshotVersion is the version of the snapshot format Snapshot writes and
// Restore reads.
const SnapshotVersion = 2

// Errors of Snapshot and Restore, wrapped with detail; test with errors.Is.
var (
	// ErrInvalidSnapshot: Restore was given bytes that are not a snapshot
	// of this version: another format or version, cut short, damaged (the
	// checksum says so), or a state that breaks an invariant.
	ErrInvalidSnapshot = errors.New("allocator: invalid snapshot")
	// ErrSnapshotVersion: a snapshot of another version of the format; it
	// also wraps ErrInvalidSnapshot.
	ErrSnapshotVersion = errors.New("allocator: unsupported snapshot version")
	// ErrSnapshotSorter: Snapshot found a sorter that does not implement
	// sorter.Snapshotter, or Restore's sorter factories made a sorter of
	// another type than the one saved.
	ErrSnapshotSorter = errors.New("allocator: sorter cannot be saved or restored")
)

// RestoreOptions are what Restore cannot read from a snapshot: the options
// that are functions. A nil field means what it means in Options.
type RestoreOptions struct {
	// Clock is the restored allocator's clock (Options.Clock).
	Clock func() time.Time
	// RoleSorter and FrameworkSorter make its sorters: they must make
	// sorters of the types the saved allocator used, which implement
	// sorter.Snapshotter.
	RoleSorter, FrameworkSorter sorter.Factory
	// Journal receives the restored allocator's events (Options.Journal).
	Journal func(Entry)
	// CacheFree restores an allocator without the saved caches, which
	// keeps none from then on (Options.CacheFree): a reference for tests
	// to compare the saved allocator's runs with.
	CacheFree bool
}

// Snapshot writes the allocator's whole state; Restore builds an allocator
// from it that behaves exactly as the saved one would have from there on:
// the same offers, inverse offers, ids and views for the same events. What
// is saved:
//
//   - the options that are not functions (seed, fairness exclusions,
//     minimum allocatable resources, interval, GPU and region settings,
//     offer share) and the random source's state;
//   - agents: info, total, available resources (their order of entries
//     included: it decides how offers are cut), offered and allocated
//     resources per framework, outstanding offers, inverse-offer states;
//   - frameworks: info, activity, suppressed and tracked roles, refusal and
//     inverse-offer filters with their expiries, the task ledger;
//   - roles: quota, weights, and the nodes of the role tree;
//   - the run counter, the offer and inverse-offer id counters, the
//     triggers of the next run, the pause, the whitelist, the last run's
//     statistics and skips;
//   - every sorter, through sorter.Snapshotter (allocation counts and
//     random state included);
//   - the caches that let runs skip work (agents' references and versions,
//     the refusal indexes, the (agent, role) pairs known to take nothing,
//     the roles parked as capped): saving them keeps even the RunStats
//     counters of cached skips (Unchanged, Refused, Capped) identical in
//     the runs after a restore;
//   - what Explain reads: the latest run's log, and the passes kept with
//     the (agent, role) pairs known to take nothing.
//
// What is worked out again instead: cluster totals, free headroom, excess,
// role-tree aggregates, agents' flags and over-allocation, frameworks'
// agent lists. Restore then runs CheckInvariants.
//
// The format, version 2 (numbers are unsigned varints unless said
// otherwise, signed ones zig-zag varints; a time is 0 for the zero time or
// 1 and its Unix nanoseconds as a signed varint, read back in UTC;
// resources, quantities and limits are in package resources' binary form,
// one Encoder for the whole snapshot, so each kind of resource and each
// shared value is written once):
//
//	"allot-snapshot" version
//	options     seed(signed) excluded-names min-allocatable interval(ns)
//	            allow-gpus offer-share(float64 bits) region
//	            charge-beyond-allowance reserved-first
//	random      the PCG source's MarshalBinary
//	counters    runs offer-ids inverse-offer-ids totals-version
//	            cap-epoch parked-epoch periodic-runs
//	triggers    paused pending-all pending-agents whitelist
//	last run    the RunStats fields in order, then parked roles
//	holds       count (agent framework resources until){count}
//	roles       weights (path float64-bits), nodes (path epoch capped-run
//	            capped-by guarantees limits)
//	agents      by id: id info active total available reference
//	            reference-generation version offered allocated unclaimed
//	            refusal-indexes nobody-cache inverse-states outstanding-offers
//	frameworks  by id: id info active suppressed tracked filters (refused
//	            expiry covered periodic-runs) inverse-filters (agent
//	            expiry periodic-runs) tasks skips skips-run joined
//	sorters     role sorter (type, totals-version, bytes), then per role
//	            (role salt type totals-version bytes)
//	explain     the latest run's log and the nobody entries' passes (see
//	            snapshot_explain.go)
//	CRC-32C     of everything before, 4 bytes little-endian
//
// Maps are written in key order, so the same state gives the same bytes.
//
// Snapshot changes nothing. It fails with ErrSnapshotSorter when a sorter
// does not implement sorter.Snapshotter.
func (a *Allocator) Snapshot() ([]byte, error) {
	a.ready()
	s := snapshotWriter{enc: resources.NewEncoder()}
	s.w.B = make([]byte, 0, 1024+512*len(a.agents)+128*len(a.frameworks))
	if err := s.write(a); err != nil {
		return nil, err
	}
	s.w.B = binary.LittleEndian.AppendUint32(s.w.B, crc32.Checksum(s.w.B, castagnoli))
	return s.w.B, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type snapshotWriter struct {
	w   wire.Writer
	enc *resources.Encoder
}

func (s *snapshotWriter) res(r resources.Resources) { s.w.B = s.enc.AppendResources(s.w.B, r) }
func (s *snapshotWriter) q(q resources.Quantities)  { s.w.B = s.enc.AppendQuantities(s.w.B, q) }
func (s *snapshotWriter) limits(l resources.Limits) { s.w.B = s.enc.AppendLimits(s.w.B, l) }

func (s *snapshotWriter) time(t time.Time) {
	if t.IsZero() {
		s.w.Byte(0)
		return
	}
	s.w.Byte(1)
	s.w.Varint(t.UnixNano())
}

func (s *snapshotWriter) strings(list []string) {
	s.w.Int(len(list))
	for _, x := range list {
		s.w.String(x)
	}
}

func (s *snapshotWriter) write(a *Allocator) error {
	w := &s.w
	w.B = append(w.B, snapshotMagic...)
	w.Uvarint(SnapshotVersion)

	o := &a.opts
	w.Varint(o.Seed)
	s.strings(o.FairnessExcludedResources)
	w.Bool(o.MinAllocatable == nil)
	w.Int(len(o.MinAllocatable))
	for _, q := range o.MinAllocatable {
		s.q(q)
	}
	w.Varint(int64(o.AllocationInterval))
	w.Bool(o.AllowGPUsToAll)
	w.Float64(o.OfferShare)
	w.String(o.Region)
	w.Bool(o.ChargeBeyondAllowance)
	w.Bool(o.ReservedFirst)

	rng, err := a.pcg.MarshalBinary()
	if err != nil {
		return err
	}
	w.Bytes(rng)

	w.Uvarint(a.runs)
	w.Uvarint(a.offerIDs.Last())
	w.Uvarint(a.inverseOfferIDs.Last())
	w.Uvarint(a.totalsVersion)
	w.Uvarint(a.capEpoch)
	w.Uvarint(a.parkedEpoch)
	w.Uvarint(a.batches)

	w.Bool(a.paused)
	w.Bool(a.pendingAll)
	s.strings(slices.Sorted(maps.Keys(a.pending)))
	w.Bool(a.whitelist != nil)
	s.strings(slices.Sorted(maps.Keys(a.whitelist)))

	st := &a.last
	w.Uvarint(st.Run)
	w.Int(st.Agents)
	w.Int(st.SkippedAgents)
	w.Int(st.Offers)
	w.Int(st.InverseOffers)
	for _, n := range st.Skips {
		w.Int(n)
	}
	w.Int(st.Unchanged)
	w.Int(st.Refused)
	w.Int(st.Capped)
	w.Bool(st.Periodic)
	s.strings(a.parked)

	var holds int
	for _, id := range a.agentIDs {
		holds += len(a.agents[id].holds)
	}
	w.Int(holds)
	for _, id := range a.agentIDs {
		for _, h := range a.agents[id].holds {
			w.String(id)
			w.String(h.framework)
			s.res(h.res)
			s.time(h.until)
		}
	}

	weights := slices.Sorted(maps.Keys(a.roles.weights))
	w.Int(len(weights))
	for _, role := range weights {
		w.String(role)
		w.Float64(a.roles.weights[role])
	}
	paths := slices.Sorted(maps.Keys(a.roles.nodes))
	w.Int(len(paths))
	for _, path := range paths {
		n := a.roles.nodes[path]
		w.String(path)
		w.Uvarint(n.epoch)
		w.Uvarint(n.cappedRun)
		w.Byte(byte(n.cappedBy))
		s.q(n.quota.Guarantees)
		s.limits(n.quota.Limits)
	}

	w.Int(len(a.agentIDs))
	for _, id := range a.agentIDs {
		s.agent(a.agents[id])
	}
	ids := slices.Sorted(maps.Keys(a.frameworks))
	w.Int(len(ids))
	for _, id := range ids {
		s.framework(a.frameworks[id])
	}

	if err := s.sorter(a.roleSorter); err != nil {
		return fmt.Errorf("role sorter: %w", err)
	}
	roles := slices.Sorted(maps.Keys(a.frameworkSorters))
	w.Int(len(roles))
	for _, role := range roles {
		fs := a.frameworkSorters[role]
		w.String(role)
		w.Uvarint(fs.salt)
		if err := s.sorter(fs); err != nil {
			return fmt.Errorf("framework sorter of role %q: %w", role, err)
		}
	}
	s.explainLog(&a.explain)
	s.keptPasses(a)
	return nil
}

func (s *snapshotWriter) sorter(ts *trackedSorter) error {
	sn, ok := ts.Sorter.(sorter.Snapshotter)
	if !ok {
		return fmt.Errorf("%w: %T does not implement sorter.Snapshotter", ErrSnapshotSorter, ts.Sorter)
	}
	data, err := sn.MarshalBinary()
	if err != nil {
		return fmt.Errorf("%w: %T: %w", ErrSnapshotSorter, ts.Sorter, err)
	}
	s.w.String(fmt.Sprintf("%T", ts.Sorter))
	s.w.Uvarint(ts.totalsVersion)
	s.w.Bytes(data)
	return nil
}

func (s *snapshotWriter) agent(ag *agent) {
	w := &s.w
	w.String(ag.id)
	info := &ag.info
	w.String(info.Hostname)
	keys := slices.Sorted(maps.Keys(info.Attributes))
	w.Int(len(keys))
	for _, k := range keys {
		w.String(k)
		w.String(info.Attributes[k])
	}
	w.String(info.Region)
	w.Uvarint(uint64(info.Capabilities))
	w.Bool(info.Unavailability != nil)
	if u := info.Unavailability; u != nil {
		s.time(u.Start)
		w.Varint(int64(u.Duration))
	}
	w.Bool(ag.active)
	s.res(ag.total)
	s.res(ag.available)
	s.res(ag.ref)
	w.Uvarint(ag.refGen)
	w.Uvarint(ag.version)
	for _, held := range []map[string]resources.Resources{ag.offered, ag.allocated, ag.unclaimed} {
		fws := slices.Sorted(maps.Keys(held))
		w.Int(len(fws))
		for _, fw := range fws {
			w.String(fw)
			s.res(held[fw])
		}
	}
	roles := ag.refusals.roles()
	w.Int(len(roles))
	for _, role := range roles {
		idx, _ := ag.refusals.get(role)
		w.String(role)
		w.Uvarint(idx.gen)
		s.time(idx.until)
		w.Int(len(idx.skip))
		for _, word := range idx.skip {
			w.Uvarint(word)
		}
	}
	roles = ag.nobody.roles()
	w.Int(len(roles))
	for _, role := range roles {
		e, _ := ag.nobody.get(role)
		w.String(role)
		w.Uvarint(e.version)
		w.Uvarint(e.epoch)
		s.time(e.until)
	}
	fws := slices.Sorted(maps.Keys(ag.inverse))
	w.Int(len(fws))
	for _, fw := range fws {
		st := ag.inverse[fw]
		w.String(fw)
		w.Bool(st.outstanding)
		w.Byte(byte(st.status))
	}
	w.Int(len(ag.outstanding))
	for _, o := range ag.outstanding {
		w.String(o.id)
		w.String(o.framework)
		w.String(o.role)
		s.res(o.res)
	}
}

func (s *snapshotWriter) framework(fw *framework) {
	w := &s.w
	w.String(fw.id)
	info := &fw.info
	s.strings(info.Roles)
	w.String(info.Principal)
	w.Uvarint(uint64(info.Capabilities))
	s.strings(info.SuppressedRoles)
	roles := slices.Sorted(maps.Keys(info.MinAllocatable))
	w.Int(len(roles))
	for _, role := range roles {
		w.String(role)
		w.Int(len(info.MinAllocatable[role]))
		for _, q := range info.MinAllocatable[role] {
			s.q(q)
		}
	}
	roles = slices.Sorted(maps.Keys(info.Constraints))
	w.Int(len(roles))
	for _, role := range roles {
		w.String(role)
		cs := info.Constraints[role]
		w.Int(len(cs))
		for _, g := range cs {
			w.Int(len(g))
			for _, c := range g {
				w.String(c.Attribute)
				w.Byte(byte(c.Op))
				w.String(c.Value)
			}
		}
	}
	w.Bool(fw.active)
	s.strings(fw.suppressed)
	s.strings(fw.tracked)
	roles = slices.Sorted(maps.Keys(fw.filters))
	w.Int(len(roles))
	for _, role := range roles {
		w.String(role)
		agents := slices.Sorted(maps.Keys(fw.filters[role]))
		w.Int(len(agents))
		for _, agentID := range agents {
			w.String(agentID)
			list := fw.filters[role][agentID]
			w.Int(len(list))
			for _, f := range list {
				s.res(f.refused)
				s.time(f.expires)
				w.Uvarint(f.covered)
				w.Uvarint(f.batch)
			}
		}
	}
	agents := slices.Sorted(maps.Keys(fw.inverseFilters))
	w.Int(len(agents))
	for _, agentID := range agents {
		w.String(agentID)
		s.time(fw.inverseFilters[agentID].expires)
		w.Uvarint(fw.inverseFilters[agentID].batch)
	}
	tasks := slices.Sorted(maps.Keys(fw.tasks))
	w.Int(len(tasks))
	for _, id := range tasks {
		t := fw.tasks[id]
		w.String(id)
		w.String(t.agent)
		w.String(t.role)
		s.res(t.uses)
		s.res(t.owns)
	}
	for _, n := range fw.skips {
		w.Int(n)
	}
	w.Uvarint(fw.skipsRun)
	w.Uvarint(fw.joined)
}

// Restore builds an allocator from a snapshot made by Snapshot, with the
// host's clock, sorter factories and journal hook: it behaves exactly as
// the saved allocator would have from the moment of the snapshot. A
// snapshot of another version (ErrSnapshotVersion), cut short, damaged or
// describing a state that breaks an invariant (ErrInvalidSnapshot), or
// sorters that cannot be restored (ErrSnapshotSorter) give an error that
// names the problem; nothing else is returned.
//
// Times come back in UTC, without monotonic clock readings (the allocator
// keeps its clock's readings so; see Options.Clock).
func Restore(snapshot []byte, with RestoreOptions) (*Allocator, error) {
	if !bytes.HasPrefix(snapshot, []byte(snapshotMagic)) {
		return nil, fmt.Errorf("%w: does not start with %q", ErrInvalidSnapshot, snapshotMagic)
	}
	r := wire.NewReader(snapshot[len(snapshotMagic):])
	if v := r.Uvarint(); r.Err() == nil && v != SnapshotVersion {
		return nil, fmt.Errorf("%w: %w: version %d, this library reads version %d", ErrInvalidSnapshot, ErrSnapshotVersion, v, SnapshotVersion)
	}
	if len(snapshot) < len(snapshotMagic)+1+4 {
		return nil, fmt.Errorf("%w: %w: %d bytes", ErrInvalidSnapshot, wire.ErrTruncated, len(snapshot))
	}
	body, sum := snapshot[:len(snapshot)-4], binary.LittleEndian.Uint32(snapshot[len(snapshot)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch: the snapshot is damaged or cut short", ErrInvalidSnapshot)
	}
	return restoreBody(body, with)
}

// restoreBody reads a snapshot without its checksum.
func restoreBody(body []byte, with RestoreOptions) (*Allocator, error) {
	s := snapshotReader{r: wire.NewReader(body), dec: resources.NewDecoder()}
	a, err := s.read(with)
	if err == nil {
		err = s.r.Err()
	}
	if err == nil {
		err = a.CheckInvariants()
	}
	if err != nil {
		if errors.Is(err, ErrSnapshotSorter) {
			return nil, err
		}
		if errors.Is(err, ErrInvalidSnapshot) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidSnapshot, err)
	}
	return a, nil
}

type snapshotReader struct {
	r   *wire.Reader
	dec *resources.Decoder
}

func (s *snapshotReader) res() resources.Resources {
	rs, n, err := s.dec.ReadResources(s.r.Rest())
	s.r.Skip(n)
	s.r.Fail(err)
	return rs
}

func (s *snapshotReader) q() resources.Quantities {
	q, n, err := s.dec.ReadQuantities(s.r.Rest())
	s.r.Skip(n)
	s.r.Fail(err)
	return q
}

func (s *snapshotReader) limits() resources.Limits {
	l, n, err := s.dec.ReadLimits(s.r.Rest())
	s.r.Skip(n)
	s.r.Fail(err)
	return l
}

func (s *snapshotReader) time() time.Time {
	switch s.r.Byte() {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(0, s.r.Varint()).UTC()
	}
	s.r.Failf("time marker")
	return time.Time{}
}

func (s *snapshotReader) strings(what string) []string {
	n := s.r.Count(what)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, s.r.String())
	}
	return out
}

// keys reads a list of names that must be strictly increasing.
func (s *snapshotReader) keys(what string) []string {
	list := s.strings(what)
	for i := 1; i < len(list); i++ {
		if list[i] <= list[i-1] {
			s.r.Failf("%s: %q out of order", what, list[i])
		}
	}
	return list
}

// key reads the next name of a list that must be strictly increasing.
func (s *snapshotReader) key(what string, prev *string, i int) string {
	k := s.r.String()
	if s.r.Err() == nil && i > 0 && k <= *prev {
		s.r.Failf("%s %q out of order", what, k)
	}
	*prev = k
	return k
}

func (s *snapshotReader) count(what string) int { return s.r.Count(what) }

func (s *snapshotReader) fail(format string, args ...any) { s.r.Failf(format, args...) }

func (s *snapshotReader) read(with RestoreOptions) (*Allocator, error) {
	r := s.r
	r.Skip(len(snapshotMagic))
	r.Uvarint() // the version, checked by Restore

	var o Options
	o.Seed = r.Varint()
	o.FairnessExcludedResources = s.strings("fairness exclusions")
	defaultMin := r.Bool()
	n := s.count("minimum allocatable alternatives")
	if !defaultMin {
		o.MinAllocatable = []resources.Quantities{}
	}
	for range n {
		o.MinAllocatable = append(o.MinAllocatable, s.q())
	}
	o.AllocationInterval = time.Duration(r.Varint())
	o.AllowGPUsToAll = r.Bool()
	o.OfferShare = r.Float64()
	o.Region = r.String()
	o.ChargeBeyondAllowance = r.Bool()
	o.ReservedFirst = r.Bool()
	if err := r.Err(); err != nil {
		return nil, err
	}
	if o.AllocationInterval <= 0 {
		s.fail("allocation interval %v", o.AllocationInterval)
		return nil, r.Err()
	}
	o.Clock, o.RoleSorter, o.FrameworkSorter, o.Journal = with.Clock, with.RoleSorter, with.FrameworkSorter, with.Journal
	o.CacheFree = with.CacheFree
	a, err := New(o)
	if err != nil {
		return nil, err
	}
	if err := a.pcg.UnmarshalBinary(r.Bytes()); r.Err() == nil && err != nil {
		s.fail("random source: %v", err)
	}

	runs := r.Uvarint()
	offerIDs, inverseIDs := r.Uvarint(), r.Uvarint()
	a.offerIDs = offer.IDsFrom(a.offerIDs.Prefix, offerIDs)
	a.inverseOfferIDs = offer.IDsFrom(a.inverseOfferIDs.Prefix, inverseIDs)
	totalsVersion, capEpoch, parkedEpoch := r.Uvarint(), r.Uvarint(), r.Uvarint()
	a.batches = r.Uvarint()

	a.paused = r.Bool()
	a.pendingAll = r.Bool()
	pending := s.keys("pending agents")
	if r.Bool() {
		a.whitelist = map[string]struct{}{}
	}
	for _, h := range s.keys("whitelist") {
		if a.whitelist == nil {
			s.fail("whitelist hostnames without a whitelist")
			break
		}
		a.whitelist[h] = struct{}{}
	}

	st := &a.last
	st.Run = r.Uvarint()
	const most = math.MaxInt32
	st.Agents, st.SkippedAgents = r.Int(most, "count"), r.Int(most, "count")
	st.Offers, st.InverseOffers = r.Int(most, "count"), r.Int(most, "count")
	for i := range st.Skips {
		st.Skips[i] = r.Int(most, "count")
	}
	st.Unchanged, st.Refused, st.Capped = r.Int(most, "count"), r.Int(most, "count"), r.Int(most, "count")
	st.Periodic = r.Bool()
	parked := s.strings("parked roles")
	type savedHold struct {
		agent string
		h     hold
	}
	var holds []savedHold
	for range s.count("holds") {
		agentID, fwID := r.String(), r.String()
		res, until := s.res(), s.time()
		if r.Err() != nil {
			break
		}
		holds = append(holds, savedHold{agentID, hold{framework: fwID, res: res.Frozen(), until: until}})
	}

	prev := ""
	for i := range s.count("weights") {
		role := s.key("weight of role", &prev, i)
		w := r.Float64()
		if r.Err() != nil {
			break
		}
		if err := reservation.ValidateRole(role); err != nil || !(w > 0) || math.IsInf(w, 0) || w == 1 {
			s.fail("weight %v of %q", w, role)
			break
		}
		a.roles.weights[role] = w
		a.roles.ensure(role)
	}
	saved := map[string]bool{}
	for i := range s.count("roles") {
		path := s.key("role", &prev, i)
		epoch, cappedRun, cappedBy := r.Uvarint(), r.Uvarint(), Reason(r.Byte())
		q := Quota{Guarantees: s.q(), Limits: s.limits()}
		if r.Err() != nil {
			break
		}
		if cappedBy >= numReasons {
			s.fail("role %q: capped for reason %d", path, cappedBy)
			break
		}
		if err := validRolePath(path); err != nil {
			s.fail("role %q: %v", path, err)
			break
		}
		n := a.roles.ensure(path)
		n.epoch, n.cappedRun, n.cappedBy, n.quota = epoch, cappedRun, cappedBy, q
		saved[path] = true
	}
	if r.Err() != nil {
		return nil, r.Err()
	}

	for i := range s.count("agents") {
		id := s.key("agent", &prev, i)
		if r.Err() != nil {
			break
		}
		if err := validID("agent", id); err != nil {
			return nil, err
		}
		ag := s.agent(id)
		a.agents[id] = ag
		a.agentIDs = append(a.agentIDs, id)
	}
	for i := range s.count("frameworks") {
		id := s.key("framework", &prev, i)
		if r.Err() != nil {
			break
		}
		if err := validID("framework", id); err != nil {
			return nil, err
		}
		a.frameworks[id] = s.framework(id)
	}
	if r.Err() != nil {
		return nil, r.Err()
	}

	// Sorters.
	if err := s.sorter(a.roleSorter); err != nil {
		return nil, fmt.Errorf("role sorter: %w", err)
	}
	for i := range s.count("framework sorters") {
		role := s.key("framework sorter of role", &prev, i)
		salt := r.Uvarint()
		if r.Err() != nil {
			break
		}
		fs := &trackedSorter{Sorter: a.opts.FrameworkSorter(a.sorterConfig(salt)), salt: salt}
		if err := s.sorter(fs); err != nil {
			return nil, fmt.Errorf("framework sorter of role %q: %w", role, err)
		}
		a.frameworkSorters[role] = fs
	}
	x := newRefs(a)
	s.explainLog(a, x)
	s.keptPasses(a, x)
	if r.Err() == nil && r.Left() > 0 {
		s.fail("%d bytes after the end", r.Left())
	}
	if r.Err() != nil {
		return nil, r.Err()
	}

	// References between the parts.
	for _, id := range pending {
		if _, ok := a.agents[id]; !ok {
			return nil, fmt.Errorf("pending run of unknown agent %q", id)
		}
		a.pending[id] = struct{}{}
	}
	for _, id := range slices.Sorted(maps.Keys(a.frameworks)) {
		fw := a.frameworks[id]
		for _, role := range fw.tracked {
			n := a.roles.get(role)
			if n == nil || a.frameworkSorters[role] == nil || !a.frameworkSorters[role].Contains(id) {
				return nil, fmt.Errorf("framework %q tracked in role %q, which has no node or sorter for it", id, role)
			}
			n.frameworks[id] = struct{}{}
		}
		for _, t := range fw.tasks {
			ag := a.agents[t.agent]
			if ag == nil {
				return nil, fmt.Errorf("framework %q: task %q on unknown agent %q", id, t.id, t.agent)
			}
		}
		for _, agentID := range slices.Sorted(maps.Keys(fw.inverseFilters)) {
			if a.agents[agentID] == nil {
				return nil, fmt.Errorf("framework %q: inverse-offer filter for unknown agent %q", id, agentID)
			}
		}
	}
	for _, id := range a.agentIDs {
		ag := a.agents[id]
		for _, fwID := range slices.Sorted(maps.Keys(ag.inverse)) {
			if a.frameworks[fwID] == nil {
				return nil, fmt.Errorf("agent %q: inverse offer of unknown framework %q", id, fwID)
			}
		}
	}
	for role := range a.frameworkSorters {
		if !a.roleSorter.Contains(role) || a.roles.get(role) == nil {
			return nil, fmt.Errorf("framework sorter of role %q, which the role sorter or the role tree lacks", role)
		}
	}
	for _, role := range parked {
		if !a.roleSorter.Contains(role) {
			return nil, fmt.Errorf("parked role %q is not in the role sorter", role)
		}
	}
	a.parked = parked
	for _, sh := range holds {
		ag, fw := a.agents[sh.agent], a.frameworks[sh.h.framework]
		switch {
		case ag == nil:
			return nil, fmt.Errorf("a hold on unknown agent %q", sh.agent)
		case fw == nil:
			return nil, fmt.Errorf("agent %q: a hold for unknown framework %q", sh.agent, sh.h.framework)
		case sh.h.until.IsZero():
			return nil, fmt.Errorf("agent %q: a hold for %q with no expiry", sh.agent, sh.h.framework)
		}
		if err := checkHold(sh.h.res, time.Second); err != nil {
			return nil, fmt.Errorf("agent %q: a hold for %q: %w", sh.agent, sh.h.framework, err)
		}
		ag.holds = append(ag.holds, sh.h)
	}

	// What is worked out again.
	for _, id := range a.agentIDs {
		ag := a.agents[id]
		totalQ, err := quantitiesWithin(ag.total, false, "a total")
		if err != nil {
			return nil, fmt.Errorf("agent %q: %w", id, err)
		}
		a.totals.Add(totalQ)
		if !a.totals.Within(resources.MaxTotal) {
			return nil, fmt.Errorf("%w: the cluster's totals", ErrOverflow)
		}
		a.setFlags(ag)
		a.trackReservations(ag.total, true)
		for _, fwID := range ag.frameworkIDs() {
			fw := a.frameworks[fwID]
			if fw == nil {
				return nil, fmt.Errorf("agent %q: resources held by unknown framework %q", id, fwID)
			}
			fw.holdsOn(id)
			for _, held := range []resources.Resources{ag.offered[fwID], ag.allocated[fwID], ag.heldFor(fwID)} {
				for _, role := range held.AllocationRoles() {
					if role == "" {
						return nil, fmt.Errorf("agent %q: framework %q holds resources with no allocation role", id, fwID)
					}
					a.trackHeld(role, held.AllocatedTo(role).Unallocate(), true)
				}
			}
		}
		a.measureUse(ag)
		if !ag.ref.Contains(ag.available) {
			return nil, fmt.Errorf("agent %q: available %s beyond its reference %s", id, ag.available, ag.ref)
		}
		a.refreshHeadroom(ag)
	}
	if sum := a.totals.Plus(a.excess); !sum.Within(resources.MaxTotal) {
		return nil, fmt.Errorf("%w: the cluster's totals and what is held beyond them", ErrOverflow)
	}
	for _, path := range slices.Sorted(maps.Keys(a.roles.nodes)) {
		if !saved[path] {
			return nil, fmt.Errorf("role %q holds resources or frameworks but was not saved", path)
		}
	}
	a.runs, a.totalsVersion, a.capEpoch, a.parkedEpoch = runs, totalsVersion, capEpoch, parkedEpoch
	if a.explain.run > a.runs {
		return nil, fmt.Errorf("the explained run %d is later than the last run %d", a.explain.run, a.runs)
	}
	a.resyncAllowances()
	// Epochs handed out from now on must be new to every node and every
	// nobody entry.
	for _, n := range a.roles.nodes {
		a.roles.epochs = max(a.roles.epochs, n.epoch)
	}
	for _, ag := range a.agents {
		for _, role := range ag.nobody.roles() {
			e, _ := ag.nobody.get(role)
			a.roles.epochs = max(a.roles.epochs, e.epoch)
		}
	}
	if a.opts.CacheFree {
		a.dropCaches()
	}
	return a, nil
}

// validRolePath checks a role of the role tree.
func validRolePath(path string) error { return reservation.ValidateRole(path) }

func (s *snapshotReader) sorter(ts *trackedSorter) error {
	r := s.r
	typ := r.String()
	ts.totalsVersion = r.Uvarint()
	data := r.Bytes()
	if r.Err() != nil {
		return r.Err()
	}
	if got := fmt.Sprintf("%T", ts.Sorter); got != typ {
		return fmt.Errorf("%w: saved a %s, the factory made a %s", ErrSnapshotSorter, typ, got)
	}
	sn, ok := ts.Sorter.(sorter.Snapshotter)
	if !ok {
		return fmt.Errorf("%w: %T does not implement sorter.Snapshotter", ErrSnapshotSorter, ts.Sorter)
	}
	if err := sn.UnmarshalBinary(data); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSnapshot, err)
	}
	return nil
}

func (s *snapshotReader) agent(id string) *agent {
	r := s.r
	ag := &agent{id: id, offered: map[string]resources.Resources{}, allocated: map[string]resources.Resources{}}
	info := &ag.info
	info.Hostname = r.String()
	prev := ""
	for i := range s.count("attributes") {
		k := s.key("attribute", &prev, i)
		v := r.String()
		if info.Attributes == nil {
			info.Attributes = map[string]string{}
		}
		info.Attributes[k] = v
	}
	info.Region = r.String()
	info.Capabilities = offer.Capabilities(r.Uvarint())
	if r.Bool() {
		info.Unavailability = &offer.Unavailability{Start: s.time(), Duration: time.Duration(r.Varint())}
	}
	ag.active = r.Bool()
	ag.total = s.res()
	ag.available = s.res()
	ag.ref = s.res()
	ag.refGen, ag.version = r.Uvarint(), r.Uvarint()
	ag.unclaimed = map[string]resources.Resources{}
	for _, held := range []map[string]resources.Resources{ag.offered, ag.allocated, ag.unclaimed} {
		for i := range s.count("holdings") {
			fw := s.key("holding of framework", &prev, i)
			res := s.res()
			if r.Err() == nil && res.IsEmpty() {
				s.fail("agent %q: empty holding of %q", id, fw)
			}
			held[fw] = res
		}
	}
	if len(ag.unclaimed) == 0 {
		ag.unclaimed = nil
	}
	for i := range s.count("refusal indexes") {
		role := s.key("refusal index of role", &prev, i)
		idx := &refusalIndex{gen: r.Uvarint(), until: s.time()}
		words := s.count("bitset words")
		if words > 0 {
			idx.skip = make(sorter.Bitset, 0, words)
		}
		for range words {
			idx.skip = append(idx.skip, r.Uvarint())
		}
		if role == "" {
			s.fail("agent %q: a refusal index with no role", id)
		}
		ag.refusals.set(role, idx)
	}
	for i := range s.count("cache entries") {
		role := s.key("cache entry of role", &prev, i)
		if role == "" {
			s.fail("agent %q: a cache entry with no role", id)
		}
		ag.nobody.set(role, nobodyEntry{version: r.Uvarint(), epoch: r.Uvarint(), until: s.time()})
	}
	for i := range s.count("inverse-offer states") {
		fw := s.key("inverse-offer state of framework", &prev, i)
		st := &inverseState{outstanding: r.Bool(), status: InverseOfferStatus(r.Byte())}
		if st.status > InverseDeclined {
			s.fail("inverse-offer status %d", st.status)
		}
		if ag.inverse == nil {
			ag.inverse = map[string]*inverseState{}
		}
		ag.inverse[fw] = st
	}
	n := s.count("outstanding offers")
	if n > 0 {
		ag.outstanding = make([]outstandingOffer, 0, n)
	}
	for range n {
		o := outstandingOffer{id: r.String(), framework: r.String(), role: r.String()}
		o.res = s.res()
		ag.outstanding = append(ag.outstanding, o)
	}
	return ag
}

func (s *snapshotReader) framework(id string) *framework {
	r := s.r
	fw := &framework{id: id}
	info := &fw.info
	info.Roles = s.strings("roles")
	info.Principal = r.String()
	info.Capabilities = offer.Capabilities(r.Uvarint())
	info.SuppressedRoles = s.strings("suppressed roles")
	prev := ""
	for i := range s.count("minimum allocatable roles") {
		role := s.key("minimum allocatable of role", &prev, i)
		n := s.count("minimum allocatable alternatives")
		list := make([]resources.Quantities, 0, n)
		for range n {
			list = append(list, s.q())
		}
		if info.MinAllocatable == nil {
			info.MinAllocatable = map[string][]resources.Quantities{}
		}
		info.MinAllocatable[role] = list
	}
	for i := range s.count("constraint roles") {
		role := s.key("constraints of role", &prev, i)
		var cs Constraints
		for range s.count("constraint groups") {
			var g ConstraintGroup
			for range s.count("constraints") {
				g = append(g, AttributeConstraint{Attribute: r.String(), Op: ConstraintOp(r.Byte()), Value: r.String()})
			}
			cs = append(cs, g)
		}
		if info.Constraints == nil {
			info.Constraints = map[string]Constraints{}
		}
		info.Constraints[role] = cs
	}
	if r.Err() == nil {
		if err := info.validate(); err != nil {
			s.fail("framework %q: %v", id, err)
		}
	}
	fw.roles = roleSetOf(info.Roles)
	fw.active = r.Bool()
	fw.suppressed = s.keys("suppressed roles")
	fw.tracked = s.keys("tracked roles")
	for i := range s.count("filter roles") {
		role := s.key("filters of role", &prev, i)
		var prevAgent string
		for j := range s.count("filter agents") {
			agentID := s.key("filters on agent", &prevAgent, j)
			n := s.count("filters")
			list := make([]refusal, 0, n)
			for range n {
				list = append(list, refusal{refused: s.res(), expires: s.time(), covered: r.Uvarint(), batch: r.Uvarint()})
			}
			if r.Err() != nil {
				return fw
			}
			if len(list) == 0 {
				s.fail("framework %q: no filter on %q", id, agentID)
			}
			if fw.filters == nil {
				fw.filters = map[string]map[string][]refusal{}
			}
			if fw.filters[role] == nil {
				fw.filters[role] = map[string][]refusal{}
			}
			fw.filters[role][agentID] = list
		}
	}
	for i := range s.count("inverse-offer filters") {
		agentID := s.key("inverse-offer filter on agent", &prev, i)
		if fw.inverseFilters == nil {
			fw.inverseFilters = map[string]inverseFilter{}
		}
		fw.inverseFilters[agentID] = inverseFilter{expires: s.time(), batch: r.Uvarint()}
	}
	for i := range s.count("tasks") {
		tid := s.key("task", &prev, i)
		t := &task{id: tid, agent: r.String(), role: r.String(), uses: s.res(), owns: s.res()}
		if fw.tasks == nil {
			fw.tasks = map[string]*task{}
		}
		fw.tasks[tid] = t
	}
	for i := range fw.skips {
		fw.skips[i] = r.Int(math.MaxInt32, "skips")
	}
	fw.skipsRun = r.Uvarint()
	fw.joined = r.Uvarint()
	return fw
}
