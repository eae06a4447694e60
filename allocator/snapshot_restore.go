package allocator

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/codec"
	"github.com/allot-go/allot/allocator/internal/machine"
	"github.com/allot-go/allot/allocator/internal/refusals"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// A reader's steps: what Restore does besides the walk (snapshot_fields.go)
// to turn what it read into an allocator. Two run between parts of the
// walk (start, placeRoles); the others after it (restore): what the values
// must mean is checked, the references between the parts are resolved,
// and the state that is not saved is worked out again.

// start checks the saved options and makes the allocator the rest of the
// snapshot is read into, with the host's functions.
func (sn *snapState) start() error {
	o := sn.opts
	if o.AllocationInterval <= 0 {
		return fmt.Errorf("allocation interval %v", o.AllocationInterval)
	}
	with := sn.with
	o.Clock, o.RoleSorter, o.FrameworkSorter, o.Journal = with.Clock, with.RoleSorter, with.FrameworkSorter, with.Journal
	o.CacheFree = with.CacheFree
	a, err := New(o)
	if err != nil {
		return err
	}
	sn.a = a
	return nil
}

// placeRoles checks the saved weights and nodes of the role tree and puts
// them in it, so that the records read after them find their nodes.
func (sn *snapState) placeRoles() error {
	a := sn.a
	for _, role := range slices.Sorted(maps.Keys(a.roles.Weights)) {
		w := a.roles.Weights[role]
		if err := reservation.ValidateRole(role); err != nil || !(w > 0) || math.IsInf(w, 0) || w == 1 {
			return fmt.Errorf("weight %v of %q", w, role)
		}
		a.roles.Ensure(role)
	}
	for _, path := range sn.nodes.Keys() {
		saved := sn.nodes.Get(path)
		if Reason(saved.CappedBy) >= numReasons {
			return fmt.Errorf("role %q: capped for reason %d", path, saved.CappedBy)
		}
		if err := reservation.ValidateRole(path); err != nil {
			return fmt.Errorf("role %q: %v", path, err)
		}
		n := a.roles.Ensure(path)
		n.Epoch, n.CappedRun, n.CappedBy, n.Quota = saved.Epoch, saved.CappedRun, saved.CappedBy, saved.Quota
	}
	return nil
}

// restore makes the allocator a walk with c read whole: it checks what was
// read, resolves the references between the parts, works out again what
// is not saved, and checks that the states read save back to what was
// read (before a cache-free allocator drops its caches, which they hold).
// Restore then checks the invariants.
func (sn *snapState) restore(c *codec.Codec) error {
	steps := []func() error{
		sn.checkAgents,
		sn.checkFrameworks,
		func() error { return sn.explain.Check(&sn.a.explain) },
		sn.resolve,
		sn.attachHolds,
		sn.rebuild,
		sn.finish,
		sn.placeFairness,
		sn.checkRunNumbers,
		sn.checkReclaim,
		c.StatesSaveBack,
		sn.dropCaches,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// checkRunNumbers (after finish, which sets the run counter) checks that
// what names a run (a role found capped in it, a framework's passes
// counted in it) names one already made: a run trusts a role capped in
// its own number without looking again, so a later number would keep the
// role out of the next run whatever it could take.
func (sn *snapState) checkRunNumbers() error {
	a := sn.a
	for _, path := range a.roles.Nodes.Keys() {
		if n := a.roles.Nodes.Get(path); n.CappedRun > a.engine.Runs {
			return fmt.Errorf("role %q: capped in run %d, after the last run %d", path, n.CappedRun, a.engine.Runs)
		}
	}
	for _, id := range a.cs.Frameworks.Keys() {
		if fw := a.cs.Frameworks.Get(id); fw.SkipsRun > a.engine.Runs {
			return fmt.Errorf("framework %q: passed over in run %d, after the last run %d", id, fw.SkipsRun, a.engine.Runs)
		}
	}
	return nil
}

// checkReclaim checks reclaim's state read: the tasks' launch numbers are
// unique and at most the last one handed out, and reclaim's choices
// (reclaim.State.CheckRestored).
func (sn *snapState) checkReclaim() error {
	a := sn.a
	seqs := map[uint64]bool{}
	for _, id := range a.cs.Frameworks.Keys() {
		fw := a.cs.Frameworks.Get(id)
		for _, tid := range slices.Sorted(maps.Keys(fw.Tasks)) {
			seq := fw.Tasks[tid].Seq
			if seq == 0 || seq > a.tasks.TaskSeq || seqs[seq] {
				return fmt.Errorf("framework %q: task %q launched as number %d (last %d, or taken)", id, tid, seq, a.tasks.TaskSeq)
			}
			seqs[seq] = true
		}
	}
	return a.reclaims.CheckRestored(a.engine.Runs)
}

// checkAgents checks the agents read: their ids, holdings and
// inverse-offer states.
func (sn *snapState) checkAgents() error {
	a := sn.a
	for _, ag := range a.cs.AgentList {
		id := ag.ID
		if err := cluster.ValidID("agent", id); err != nil {
			return err
		}
		ag := a.cs.Agents.Get(id)
		if fw, ok := leastKey(ag.Unclaimed(), func(_ string, res resources.Resources) bool { return res.IsEmpty() }); ok {
			return fmt.Errorf("agent %q: empty holding of %q", id, fw)
		}
		if fw, ok := leastKey(ag.Inverse(), func(_ string, st *cluster.InverseState) bool { return InverseOfferStatus(st.Status) > InverseDeclined }); ok {
			return fmt.Errorf("agent %q: inverse-offer status %d", id, ag.Inverse()[fw].Status)
		}
	}
	return nil
}

// checkFrameworks checks the frameworks read: their ids, infos and
// refusal filters.
func (sn *snapState) checkFrameworks() error {
	a := sn.a
	for _, id := range a.cs.Frameworks.Keys() {
		if err := cluster.ValidID("framework", id); err != nil {
			return err
		}
		fw := a.cs.Frameworks.Get(id)
		if err := machine.ValidateInfo(fw.Info); err != nil {
			return fmt.Errorf("framework %q: %v", id, err)
		}
		noFilter := func(_ string, list []refusals.Refusal) bool { return len(list) == 0 }
		role, ok := leastKey(fw.Filters, func(_ string, byAgent map[string][]refusals.Refusal) bool {
			_, empty := leastKey(byAgent, noFilter)
			return len(byAgent) == 0 || empty
		})
		if !ok {
			continue
		}
		if agentID, ok := leastKey(fw.Filters[role], noFilter); ok {
			return fmt.Errorf("framework %q: no filter on %q", id, agentID)
		}
		return fmt.Errorf("framework %q: no filters in role %q", id, role)
	}
	return nil
}

// leastKey returns the least key of m for which bad holds, if there is
// one: the problem a check names, found without sorting every map it
// looks at.
func leastKey[V any](m map[string]V, bad func(k string, v V) bool) (string, bool) {
	least, found := "", false
	for k, v := range m {
		if (!found || k < least) && bad(k, v) {
			least, found = k, true
		}
	}
	return least, found
}

// resolve checks the references between the parts (agents waiting for a
// run, frameworks' roles and tasks, inverse offers and their filters,
// sorters, parked roles), and records the frameworks under their roles'
// nodes.
func (sn *snapState) resolve() error {
	a := sn.a
	for _, id := range sn.pending { // in increasing order
		ag := a.cs.Agents.Get(id)
		if ag == nil {
			return fmt.Errorf("pending run of unknown agent %q", id)
		}
		// As saved: a snapshot of an earlier version may list agents
		// beside pendingAll, which the run ignores.
		a.engine.Pending.Put(ag)
	}
	// Each framework sorter goes in its role's node; one without a node
	// (or out of the role sorter) is refused below, after the frameworks.
	for role, fs := range sn.sorters {
		if n := a.roles.Get(role); n != nil {
			n.FrameworkSorter = fs
			a.books.SorterRoles++
		}
	}
	for _, id := range a.cs.Frameworks.Keys() {
		fw := a.cs.Frameworks.Get(id)
		for role := range fw.Roles.All(tables.Tracked) {
			n := a.roles.Get(role)
			if n == nil || n.FrameworkSorter == nil || !n.FrameworkSorter.Contains(id) {
				return fmt.Errorf("framework %q tracked in role %q, which has no node or sorter for it", id, role)
			}
			n.Frameworks.Add(id)
		}
		if tid, ok := leastKey(fw.Tasks, func(_ string, t *cluster.Task) bool { return a.cs.Agents.Get(t.Agent) == nil }); ok {
			t := fw.Tasks[tid]
			return fmt.Errorf("framework %q: task %q on unknown agent %q", id, t.ID, t.Agent)
		}
		if agentID, ok := leastKey(fw.InverseFilters, func(agentID string, _ refusals.InverseFilter) bool { return a.cs.Agents.Get(agentID) == nil }); ok {
			return fmt.Errorf("framework %q: inverse-offer filter for unknown agent %q", id, agentID)
		}
	}
	for _, ag := range a.cs.AgentList {
		id := ag.ID
		if fwID, ok := leastKey(ag.Inverse(), func(fwID string, _ *cluster.InverseState) bool { return a.cs.Frameworks.Get(fwID) == nil }); ok {
			return fmt.Errorf("agent %q: inverse offer of unknown framework %q", id, fwID)
		}
	}
	if role, ok := leastKey(sn.sorters, func(role string, _ *roles.TrackedSorter) bool {
		return !a.roleSorter.Contains(role) || a.roles.Get(role) == nil
	}); ok {
		return fmt.Errorf("framework sorter of role %q, which the role sorter or the role tree lacks", role)
	}
	for _, role := range a.parking.Parked {
		if !a.roleSorter.Contains(role) {
			return fmt.Errorf("parked role %q is not in the role sorter", role)
		}
	}
	return nil
}

// attachHolds checks the holds read and gives them to their agents.
func (sn *snapState) attachHolds() error {
	a := sn.a
	for _, sh := range sn.holds {
		ag, fw := a.cs.Agents.Get(sh.agent), a.cs.Frameworks.Get(sh.h.Framework)
		switch {
		case ag == nil:
			return fmt.Errorf("a hold on unknown agent %q", sh.agent)
		case fw == nil:
			return fmt.Errorf("agent %q: a hold for unknown framework %q", sh.agent, sh.h.Framework)
		case sh.h.Until.IsZero():
			return fmt.Errorf("agent %q: a hold for %q with no expiry", sh.agent, sh.h.Framework)
		}
		if err := machine.CheckHold(sh.h.Res, time.Second); err != nil {
			return fmt.Errorf("agent %q: a hold for %q: %w", sh.agent, sh.h.Framework, err)
		}
		h := sh.h
		h.Res = h.Res.Frozen()
		rare := ag.More()
		rare.Holds = append(rare.Holds, h)
	}
	return nil
}

// rebuild works out again what is not saved: frameworks' role sets and
// agent lists, cluster totals, reservations and what roles hold, agents'
// flags, use and headroom, and what the explain log's records point to.
func (sn *snapState) rebuild() error {
	a := sn.a
	for fw := range a.cs.Frameworks.All() {
		fw.Roles.MarkOnly(tables.Subscribed, fw.Info.Roles)
	}
	for _, ag := range a.cs.AgentList {
		if err := a.rebuildAgent(ag); err != nil {
			return err
		}
	}
	if sum := a.cs.Totals.Plus(a.cs.Excess); !sum.Within(resources.MaxTotal) {
		return fmt.Errorf("%w: the cluster's totals and what is held beyond them", ErrOverflow)
	}
	for _, path := range a.roles.Nodes.Keys() {
		if sn.nodes.Get(path) == nil {
			return fmt.Errorf("role %q holds resources or frameworks but was not saved", path)
		}
	}
	sn.explain.Derive(&a.explain)
	return nil
}

// rebuildAgent counts a restored agent in the cluster's totals and its
// frameworks' holdings in their roles, and works out its flags, use and
// headroom.
func (a *Allocator) rebuildAgent(ag *cluster.Agent) error {
	id := ag.ID
	totalQ, err := machine.QuantitiesWithin(ag.Total, false, "a total")
	if err != nil {
		return fmt.Errorf("agent %q: %w", id, err)
	}
	a.cs.Totals.Add(totalQ)
	if !a.cs.Totals.Within(resources.MaxTotal) {
		return fmt.Errorf("%w: the cluster's totals", ErrOverflow)
	}
	a.cs.SetFlags(ag)
	a.books.TrackReservations(ag.Total, true)
	for _, fwID := range ag.FrameworkIDs() {
		fw := a.cs.Frameworks.Get(fwID)
		if fw == nil {
			return fmt.Errorf("agent %q: resources held by unknown framework %q", id, fwID)
		}
		for _, held := range []resources.Resources{ag.Offered.Get(fwID), ag.Allocated.Get(fwID), ag.Holds().Of(fwID)} {
			roles := held.AllocationRoles()
			for _, role := range roles {
				if role == "" {
					return fmt.Errorf("agent %q: framework %q holds resources with no allocation role", id, fwID)
				}
				// trackHeld reads amounts and reservations, not allocation
				// roles: a holding of one role is counted as it is.
				part := held
				if len(roles) > 1 {
					part = held.AllocatedTo(role)
				}
				a.books.TrackHeld(role, part, true)
			}
		}
	}
	a.cs.MeasureUse(ag)
	if !ag.Ref.Contains(ag.Available) {
		return fmt.Errorf("agent %q: available %s beyond its reference %s", id, ag.Available, ag.Ref)
	}
	a.cs.RefreshHeadroom(ag)
	return nil
}

// finish sets the numbers that rebuilding moved to their saved values,
// brings the allowances in line, and starts the epochs handed out from
// now on past every saved one.
func (sn *snapState) finish() error {
	a := sn.a
	for _, set := range sn.late {
		set()
	}
	if a.explain.Run > a.engine.Runs {
		return fmt.Errorf("the explained run %d is later than the last run %d", a.explain.Run, a.engine.Runs)
	}
	a.allowances.Resync(a.roles, a.roleSorter.Sorter)
	// Epochs handed out from now on must be new to every node and every
	// nobody entry.
	for n := range a.roles.Nodes.All() {
		a.roles.Epochs = max(a.roles.Epochs, n.Epoch)
	}
	for ag := range a.cs.Agents.All() {
		for _, role := range ag.Nobody.Roles() {
			e, _ := ag.Nobody.Get(role)
			a.roles.Epochs = max(a.roles.Epochs, e.Epoch)
		}
	}
	return nil
}

// dropCaches drops the caches of an allocator restored cache-free.
func (sn *snapState) dropCaches() error {
	if sn.a.opts.CacheFree {
		sn.a.engine.DropCaches()
	}
	return nil
}

// placeFairness attaches the agents' rounds of declines, at the agents'
// versions as rebuilt, and the frameworks' statements of demand, which
// must be of roles they are subscribed to and valid as UpdateDemand takes
// them (a count used up is kept: it is what runs have offered).
func (sn *snapState) placeFairness() error {
	a := sn.a
	// The options of the rotation and of demand are read after the
	// allocator was made with the others: its parts take them now.
	a.dec.MesosOfferOrder = a.opts.MesosOfferOrder
	a.engine.SetOfferOrder(a.opts.MesosOfferOrder, a.opts.WholeOffers)
	for _, agentID := range slices.Sorted(maps.Keys(sn.rounds)) {
		ag := a.cs.Agents.Get(agentID)
		if ag == nil {
			return fmt.Errorf("round of declines of unknown agent %q", agentID)
		}
		if a.opts.MesosOfferOrder {
			return fmt.Errorf("agent %q: a round of declines without the rotation", agentID)
		}
		for _, fwID := range sn.rounds[agentID] {
			fw := a.cs.Frameworks.Get(fwID)
			if fw == nil {
				return fmt.Errorf("agent %q: unknown framework %q in its round of declines", agentID, fwID)
			}
			ag.Filtered.SetDeclined(a.dec.FilterNum(fw))
		}
	}
	for _, fwID := range slices.Sorted(maps.Keys(sn.demand)) {
		fw := a.cs.Frameworks.Get(fwID)
		if fw == nil {
			return fmt.Errorf("demand of unknown framework %q", fwID)
		}
		for role, list := range sn.demand[fwID] {
			if !fw.Roles.Has(role, tables.Subscribed) {
				return fmt.Errorf("framework %q: demand in role %q it is not subscribed to", fwID, role)
			}
			for i, p := range list {
				if p.Count < 0 || p.Resources.IsEmpty() {
					return fmt.Errorf("framework %q, role %q: pending task %d: %s, count %d", fwID, role, i, p.Resources, p.Count)
				}
			}
			if list == nil {
				list = []cluster.Pending{}
			}
			if fw.Demand == nil {
				fw.Demand = map[string][]cluster.Pending{}
			}
			fw.Demand[role] = list
		}
	}
	return nil
}
