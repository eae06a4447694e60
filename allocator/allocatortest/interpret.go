package allocatortest

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/volume"
)

// unknownFramework and unknownAgent are ids no pool ever holds.
const (
	unknownFramework = "no-such-framework"
	unknownAgent     = "no-such-agent"
)

func pick[T any](list []T, b uint8) (T, bool) {
	if len(list) == 0 {
		var zero T
		return zero, false
	}
	return list[int(b)%len(list)], true
}

// res returns the resources a template text describes. Parsed templates
// are kept for the process; each harness gets its own copy.
func (h *Harness) res(text string) resources.Resources {
	if r, ok := h.parsed[text]; ok {
		return r
	}
	var r resources.Resources
	if v, ok := templates.Load(text); ok {
		r = v.(resources.Resources).Clone()
	} else {
		var err error
		if r, err = resources.Parse(text, ""); err != nil {
			panic(fmt.Sprintf("allocatortest: template %q: %v", text, err))
		}
		templates.Store(text, r.Clone())
	}
	h.parsed[text] = r
	return r
}

// templates holds parsed template texts, shared by every harness.
var templates sync.Map

func agentIDs(s Views) []string {
	out := make([]string, len(s.Agents))
	for i, v := range s.Agents {
		out[i] = v.ID
	}
	return out
}

func frameworkIDs(s Views) []string {
	out := make([]string, len(s.Frameworks))
	for i, f := range s.Frameworks {
		out[i] = f.ID
	}
	return out
}

// existingAgent picks a known agent, or returns unknownAgent.
func existingAgent(s Views, b uint8) string {
	if id, ok := pick(agentIDs(s), b); ok {
		return id
	}
	return unknownAgent
}

func existingFramework(s Views, b uint8) string {
	if id, ok := pick(frameworkIDs(s), b); ok {
		return id
	}
	return unknownFramework
}

// freeID picks an id of the pool that is not in use, starting at b; when
// all are in use it returns the one at b (a duplicate).
func freeID(pool, used []string, b uint8) string {
	for i := range pool {
		id := pool[(int(b)+i)%len(pool)]
		if !slices.Contains(used, id) {
			return id
		}
	}
	return pool[int(b)%len(pool)]
}

// refuse returns the filter chosen by b: none, zero, the default, below
// the allocation interval, several around the 5 s default, an hour, and
// more than the one-year cap.
func refuse(b uint8) *allocator.Filter {
	table := []time.Duration{0, -1, time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, time.Hour, allocator.MaxRefuse + time.Hour}
	i := int(b) % (len(table) + 1)
	if i == len(table) {
		return nil
	}
	return &allocator.Filter{Refuse: table[i]}
}

func (h *Harness) newID(prefix string) string {
	h.ids++
	return fmt.Sprintf("%s%d", prefix, h.ids)
}

// part returns a part of rs chosen by k: a quarter, half, three quarters
// or all (k%4) of every entry that keep accepts, or of one of them (k&4,
// which by k>>3). Scalars are cut; indivisible disks and volumes are taken
// whole (from a half up); ranges give their first number; one copy of a
// shared volume is taken.
func part(rs resources.Resources, k uint8, keep func(resources.Resource) bool) resources.Resources {
	num := int64(k%4) + 1
	var cand []resources.Resource
	for r := range rs.All() {
		if keep == nil || keep(r) {
			cand = append(cand, r)
		}
	}
	if k&4 != 0 && len(cand) > 0 {
		cand = []resources.Resource{cand[int(k>>3)%len(cand)]}
	}
	var out resources.Resources
	for _, r := range cand {
		switch r.Type {
		case resources.ScalarType:
			whole := r.IsPersistentVolume() || (r.Disk != nil && !r.Disk.Divisible())
			if whole {
				if num < 2 {
					continue
				}
			} else {
				r.Scalar = resources.Scalar(int64(r.Scalar) * num / 4)
				if r.Name == "gpus" {
					// GPUs come in whole units.
					r.Scalar -= r.Scalar % resources.Units(1)
				}
				if r.Scalar == 0 {
					continue
				}
			}
		case resources.RangesType:
			if len(r.Ranges) == 0 {
				continue
			}
			r.Ranges = resources.Ranges{{Begin: r.Ranges[0].Begin, End: r.Ranges[0].Begin}}
		case resources.SetType:
			if len(r.Set) == 0 {
				continue
			}
			r.Set = resources.Set{r.Set[0]}
		}
		_ = out.AddResource(r)
	}
	return out
}

func isPlainScalar(r resources.Resource) bool {
	return r.Type == resources.ScalarType && !r.IsPersistentVolume() && !r.Shared
}

func (h *Harness) apply(ev Event, s Views, eff *effects) {
	a := h.a
	x := ev.Args
	setf := func(err error, format string, args ...any) {
		eff.err = err
		if h.text {
			eff.call = fmt.Sprintf(format, args...)
		}
	}
	switch ev.Kind {
	case AddAgent:
		id := freeID(h.agentIDs, agentIDs(s), x[0])
		total := h.agentTotal(id, x[1], x[2], x[3])
		info := allocator.AgentInfo{Hostname: "host-" + id, Attributes: map[string]string{"rack": fmt.Sprintf("r%d", x[1]%2)}}
		if h.opts.Allocator.Region != "" {
			info.Region = []string{"", h.opts.Allocator.Region, "elsewhere"}[x[3]%3]
		}
		var used map[string]resources.Resources
		if x[3]&0x80 != 0 {
			if fw, ok := pick(frameworkIDs(s), x[0]); ok {
				role := h.fwInfo[fw].Roles[0]
				used = map[string]resources.Resources{fw: h.res("cpus:1;mem:128").Allocate(role)}
			}
		}
		err := a.AddAgent(id, info, total, used)
		if err == nil {
			h.agentInfo[id] = info
			eff.volumesFree[id] = true
		}
		setf(err, "AddAgent(%s, %s, used %v)", id, total, used)

	case RemoveAgent:
		id := existingAgent(s, x[0])
		eff.volumesFree[id] = true
		err := a.RemoveAgent(id)
		if err == nil {
			delete(h.agentInfo, id)
		}
		setf(err, "RemoveAgent(%s)", id)

	case UpdateAgent:
		id := existingAgent(s, x[0])
		v, _ := s.Agent(id)
		info := cloneAgentInfo(h.agentInfo[id])
		var total *resources.Resources
		what := ""
		switch x[1] % 6 {
		case 0:
			info.Attributes = map[string]string{"rack": fmt.Sprintf("r%d", x[2]%3)}
			what = "attributes"
		case 1:
			t := h.agentTotal(id, x[2], x[3], x[2]>>3)
			total, what = &t, "new total"
		case 2:
			t := v.Total.Plus(h.res("cpus:1;mem:256"))
			total, what = &t, "grown total"
		case 3:
			t := v.Total.Minus(part(v.Total.Unreserved(), x[2], isPlainScalar))
			total, what = &t, "shrunk total"
		case 4:
			info.Capabilities = []offer.Capabilities{0, offer.MultiRole | offer.HierarchicalRole,
				offer.MultiRole | offer.HierarchicalRole | offer.ReservationRefinement | offer.ResizeVolume}[x[2]%3]
			what = "capabilities"
			if h.text {
				what += " " + info.Capabilities.String()
			}
		default:
			what = "nothing"
		}
		if total != nil {
			eff.volumesFree[id] = true
		}
		err := a.UpdateAgent(id, info, total)
		if err == nil {
			h.agentInfo[id] = info
		}
		if total != nil {
			setf(err, "UpdateAgent(%s, %s %s)", id, what, *total)
		} else {
			setf(err, "UpdateAgent(%s, %s)", id, what)
		}

	case ActivateAgent:
		id := existingAgent(s, x[0])
		setf(a.ActivateAgent(id), "ActivateAgent(%s)", id)

	case DeactivateAgent:
		id := existingAgent(s, x[0])
		setf(a.DeactivateAgent(id), "DeactivateAgent(%s)", id)

	case AddResourceProvider:
		id := existingAgent(s, x[0])
		total := h.res(fmt.Sprintf("disk(provider: rp%d):%d", x[1]%2, 100*(1+int(x[2]%8))))
		setf(a.AddResourceProvider(id, total, nil), "AddResourceProvider(%s, %s)", id, total)

	case AddFramework:
		id := freeID(h.fwIDs, frameworkIDs(s), x[0])
		info := allocator.FrameworkInfo{Roles: h.roleSet(x[1], x[0]), Capabilities: capabilities(x[2])}
		if x[3]&4 != 0 {
			info.Principal = "ops"
		}
		first := info.Roles[0]
		if x[3]&8 != 0 {
			info.SuppressedRoles = []string{first}
		}
		if x[3]&16 != 0 {
			info.MinAllocatable = map[string][]resources.Quantities{first: minAllocatable(x[2] >> 5)}
		}
		if x[3]&32 != 0 {
			info.Constraints = map[string]allocator.Constraints{first: constraints(x[1])}
		}
		var used map[string]resources.Resources
		if x[3]&64 != 0 {
			if ag, ok := pick(s.Agents, x[1]); ok {
				u := part(ag.Available.AllocatableTo(first), x[2], isPlainScalar).Allocate(first)
				if !u.IsEmpty() {
					used = map[string]resources.Resources{ag.ID: u}
				}
			}
		}
		active := x[3]&3 != 3
		err := a.AddFramework(id, info, used, allocator.Activation(active))
		if err == nil {
			h.fwInfo[id], h.fwStale = info, true
		}
		setf(err, "AddFramework(%s, roles %q, caps %s, principal %q, suppressed %q, used %v, active %v)", id, info.Roles, info.Capabilities, info.Principal, info.SuppressedRoles, used, active)

	case RemoveFramework:
		id := existingFramework(s, x[0])
		err := a.RemoveFramework(id)
		if err == nil {
			delete(h.fwInfo, id)
			h.fwStale = true
		}
		setf(err, "RemoveFramework(%s)", id)

	case ActivateFramework:
		id := existingFramework(s, x[0])
		setf(a.ActivateFramework(id), "ActivateFramework(%s)", id)

	case DeactivateFramework:
		id := existingFramework(s, x[0])
		setf(a.DeactivateFramework(id), "DeactivateFramework(%s)", id)

	case UpdateFramework:
		id := existingFramework(s, x[0])
		info := cloneFrameworkInfo(h.fwInfo[id])
		if x[1] != 0 || len(info.Roles) == 0 {
			info.Roles = h.roleSet(x[1], x[0])
		}
		info.Capabilities = capabilities(x[2])
		info.SuppressedRoles = nil
		for i, role := range info.Roles {
			if x[3]&(1<<i) != 0 {
				info.SuppressedRoles = append(info.SuppressedRoles, role)
			}
		}
		if x[3]&0x80 == 0 {
			// Drop settings for roles no longer subscribed; otherwise the
			// update is refused.
			for role := range info.MinAllocatable {
				if !slices.Contains(info.Roles, role) {
					delete(info.MinAllocatable, role)
				}
			}
			for role := range info.Constraints {
				if !slices.Contains(info.Roles, role) {
					delete(info.Constraints, role)
				}
			}
		}
		err := a.UpdateFramework(id, info)
		if err == nil {
			h.fwInfo[id] = info
		}
		setf(err, "UpdateFramework(%s, roles %q, caps %s, suppressed %q)", id, info.Roles, info.Capabilities, info.SuppressedRoles)

	case Allocate, AllocateAll:
		var res allocator.Result
		if ev.Kind == Allocate {
			res = a.Allocate()
		} else {
			res = a.AllocateAll()
		}
		eff.run = &res
		name := "Allocate"
		if ev.Kind == AllocateAll {
			name = "AllocateAll"
		}
		setf(nil, "%s() = %d offers, %d inverse offers", name, len(res.Offers), len(res.InverseOffers))

	case DeclineOffer:
		i, o, ok := h.outstanding(s, x[0])
		if !ok {
			setf(nil, "no offer to decline")
			return
		}
		give := o.Resources
		if x[1]%3 == 0 {
			give = part(o.Resources, x[1]>>2, nil)
		}
		filter := refuse(x[2])
		err := a.RecoverResources(o.FrameworkID, o.AgentID, give, filter)
		if err == nil {
			h.replaceOffer(i, o.Resources.Minus(give))
			h.declined = offer.Offer{ID: o.ID, FrameworkID: o.FrameworkID, Role: o.Role, AgentID: o.AgentID, Resources: give}
		}
		setf(err, "RecoverResources(%s, %s, %s, %s) declining %s", o.FrameworkID, o.AgentID, give, filterText{filter}, o.ID)

	case AcceptOffer:
		i, o, ok := h.outstanding(s, x[0])
		if !ok {
			setf(nil, "no offer to accept")
			return
		}
		task := part(o.Resources, x[1], isPlainScalar)
		if x[2]&1 != 0 {
			task.Add(part(o.Resources.PersistentVolumes(), 0x03, nil))
		}
		if x[2]&2 != 0 {
			task.Add(part(o.Resources.Filter(func(r resources.Resource) bool { return r.Type == resources.RangesType }), 0, nil))
		}
		launch := offer.Launch{Tasks: []offer.Task{{ID: h.newID("t"), Resources: task}}}
		if x[2]&4 != 0 {
			launch.Executor = part(o.Resources.Minus(task), 0, func(r resources.Resource) bool { return r.Name == "cpus" && !r.Revocable })
		}
		filter := refuse(x[3])
		err := a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, filter)
		if err == nil {
			h.replaceOffer(i, resources.Resources{})
		}
		setf(err, "Accept(%s, %s, %s, %s, %s)", o.FrameworkID, o.AgentID, o.ID, launch, filterText{filter})

	case Operate:
		i, o, ok := h.outstanding(s, x[0])
		if !ok {
			setf(nil, "no offer to operate on")
			return
		}
		info := h.fwInfo[o.FrameworkID]
		ops, what := h.operations(o.Resources, o.Role, info.Principal, x[1], x[2], x[3], false)
		if ops == nil {
			setf(nil, "nothing to %s in %s", what, o.ID)
			return
		}
		h.noteVolumes(o.AgentID, ops, eff)
		rescinded := h.rescindShared(s, o.AgentID, ops, o.FrameworkID, o.Resources)
		err := a.UpdateAllocation(o.FrameworkID, o.AgentID, o.Resources, ops)
		if err == nil {
			acc, aerr := offer.ApplyAll(o.Resources, ops...)
			if aerr != nil {
				acc.Unused = resources.Resources{}
			}
			h.replaceOffer(i, acc.Unused)
		}
		setf(err, "%sUpdateAllocation(%s, %s, %s, %s)", rescinded, o.FrameworkID, o.AgentID, o.ID, opsText(ops))

	case OperatorOperate:
		id := existingAgent(s, x[0])
		v, _ := s.Agent(id)
		role, _ := pick(h.roles, x[3])
		principal := ""
		if x[3]&0x40 != 0 {
			principal = "ops"
		}
		ops, what := h.operations(v.Available, role, principal, x[1], x[2], x[3], true)
		if ops == nil {
			setf(nil, "nothing to %s on %s", what, id)
			return
		}
		h.noteVolumes(id, ops, eff)
		rescinded := h.rescindShared(s, id, ops, "", resources.Resources{})
		setf(a.UpdateAvailable(id, ops), "%sUpdateAvailable(%s, %s)", rescinded, id, opsText(ops))

	case Recover:
		type pair struct{ agent, fw string }
		var pairs []pair
		for _, v := range s.Agents {
			for _, fw := range slices.Sorted(maps.Keys(v.Allocated)) {
				pairs = append(pairs, pair{v.ID, fw})
			}
		}
		p, ok := pick(pairs, x[0])
		if !ok {
			setf(nil, "nothing allocated to recover")
			return
		}
		v, _ := s.Agent(p.agent)
		give := part(v.Allocated[p.fw], x[2], nil)
		var filter *allocator.Filter
		if x[3]%4 == 0 {
			filter = refuse(x[3] >> 2)
		}
		setf(a.RecoverAllocated(p.fw, p.agent, give, filter), "RecoverAllocated(%s, %s, %s, %s)", p.fw, p.agent, give, filterText{filter})

	case Suppress, Revive:
		id := existingFramework(s, x[0])
		roles := h.someRoles(id, x[1])
		var err error
		name := "SuppressOffers"
		if ev.Kind == Suppress {
			err = a.SuppressOffers(id, roles...)
		} else {
			name = "ReviveOffers"
			err = a.ReviveOffers(id, roles...)
		}
		setf(err, "%s(%s, %q)", name, id, roles)

	case SetQuota:
		role, ok := pick(h.opts.QuotaRoles, x[0])
		if !ok {
			setf(nil, "no role to set quota on")
			return
		}
		q := quota(x[1], x[2])
		if x[3]%8 == 0 {
			q = allocator.Quota{}
		}
		err := a.UpdateQuota(role, q)
		if err == nil && !q.Limits.IsEmpty() {
			h.limits = true
		}
		setf(err, "UpdateQuota(%s, guarantees %s, limits %s)", role, q.Guarantees, q.Limits)

	case SetWeights:
		table := []float64{0.5, 1, 2, 3, 0.25}
		w := map[string]float64{}
		r1, _ := pick(h.roles, x[0])
		w[r1] = table[int(x[1])%len(table)]
		if x[2]&1 != 0 {
			r2, _ := pick(h.roles, x[2]>>1)
			w[r2] = table[int(x[3])%len(table)]
		}
		setf(a.UpdateWeights(w), "UpdateWeights(%v)", w)

	case Advance:
		table := []time.Duration{0, time.Millisecond, 500 * time.Millisecond, 999 * time.Millisecond, time.Second,
			1001 * time.Millisecond, 2 * time.Second, 4999 * time.Millisecond, 5 * time.Second, 5001 * time.Millisecond,
			10 * time.Second, 30 * time.Second, time.Minute, time.Hour, 24 * time.Hour, allocator.MaxRefuse + 24*time.Hour}
		d := table[int(x[0])%len(table)]
		h.now = h.now.Add(d)
		setf(nil, "advance %s to +%s", d, h.now.Sub(h.start))

	case Maintenance:
		id := existingAgent(s, x[0])
		var u *offer.Unavailability
		if x[1]%4 != 0 {
			u = &offer.Unavailability{Start: h.now.Add(time.Duration(x[1]) * time.Second), Duration: time.Duration(x[2]%4) * time.Hour}
		}
		err := a.UpdateUnavailability(id, u)
		if err == nil {
			info := h.agentInfo[id]
			info.Unavailability = u
			h.agentInfo[id] = info
		}
		if u == nil {
			setf(err, "UpdateUnavailability(%s, none)", id)
		} else {
			setf(err, "UpdateUnavailability(%s, from +%s for %s)", id, u.Start.Sub(h.start), u.Duration)
		}

	case RespondInverse:
		if len(h.inverse) == 0 {
			setf(nil, "no inverse offer to answer")
			return
		}
		i := int(x[0]) % len(h.inverse)
		io := h.inverse[i]
		status := allocator.InverseDeclined
		if x[1]&1 != 0 {
			status = allocator.InverseAccepted
		}
		filter := refuse(x[2])
		err := a.UpdateInverseOffer(io.AgentID, io.FrameworkID, status, filter)
		h.inverse = slices.Delete(h.inverse, i, i+1)
		setf(err, "UpdateInverseOffer(%s, %s, %s, %s) answering %s", io.AgentID, io.FrameworkID, status, filterText{filter}, io.ID)

	case Whitelist:
		// A restriction lasts a few steps; then the harness lifts it.
		steps := int(x[2]%16) + 1
		switch m := x[0] % 8; {
		case m < 4:
			a.UpdateWhitelist(nil)
			h.whitelist, h.whitelistLeft = nil, 0
			setf(nil, "UpdateWhitelist(none)")
		case m == 4:
			a.UpdateWhitelist([]string{})
			h.whitelist, h.whitelistLeft = map[string]bool{}, steps
			setf(nil, "UpdateWhitelist([]) for %d steps", steps)
		default:
			hosts := []string{}
			h.whitelist, h.whitelistLeft = map[string]bool{}, steps
			for i, id := range h.agentIDs {
				if x[1]&(1<<(i%8)) != 0 {
					hosts = append(hosts, "host-"+id)
					h.whitelist["host-"+id] = true
				}
			}
			a.UpdateWhitelist(hosts)
			setf(nil, "UpdateWhitelist(%q) for %d steps", hosts, steps)
		}

	case PauseResume:
		// A pause lasts a few steps; then the harness resumes.
		if x[0]%4 == 0 {
			a.Pause()
			h.paused, h.pauseLeft = true, int(x[1]%8)+1
			setf(nil, "Pause() for %d steps", h.pauseLeft)
		} else {
			a.Resume()
			h.paused, h.pauseLeft = false, 0
			setf(nil, "Resume()")
		}

	case BadInput:
		h.badInput(x, s, eff)

	case EndTask:
		id := existingFramework(s, x[0])
		tasks := a.Tasks(id)
		var taskID string
		var want error
		switch ended := h.ended[id]; {
		case x[2]%8 == 6 && len(ended) > 0:
			taskID, want = ended[int(x[1])%len(ended)], allocator.ErrUnknownTask
		case x[2]%8 == 7 || len(tasks) == 0:
			taskID, want = "no-such-task", allocator.ErrUnknownTask
		default:
			taskID = tasks[int(x[1])%len(tasks)].ID
		}
		if id == unknownFramework {
			want = allocator.ErrUnknownFramework
		}
		eff.bad, eff.want = want != nil, want
		err := a.EndTask(id, taskID)
		if err == nil {
			h.ended[id] = append(h.ended[id], taskID)
			if slices.ContainsFunc(a.Tasks(id), func(t allocator.TaskView) bool { return t.ID == taskID }) {
				eff.fail("task %s of %s ended, and is listed still", taskID, id)
			}
		}
		setf(err, "EndTask(%s, %s)", id, taskID)

	case AcceptEach:
		h.acceptEach(x, s, eff)

	case Overflow:
		h.overflow(x, s, eff)

	case Preempt:
		h.preempt(x, s, eff)

	case SnapshotRestore:
		h.snapshotRestore(eff)

	case Corners:
		setf(nil, "corners (the generators expand them)")

	default:
		setf(nil, "unknown event kind")
	}
}

// outstanding drops offers the allocator no longer holds for their
// framework (rescinded by later events) and picks one.
func (h *Harness) outstanding(s Views, b uint8) (int, offer.Offer, bool) {
	kept := h.offers[:0]
	for _, o := range h.offers {
		v, ok := s.Agent(o.AgentID)
		if ok && !o.Resources.IsEmpty() && v.Offered[o.FrameworkID].Contains(o.Resources) {
			kept = append(kept, o)
		}
	}
	clear(h.offers[len(kept):])
	h.offers = kept
	if len(h.offers) == 0 {
		return 0, offer.Offer{}, false
	}
	i := int(b) % len(h.offers)
	return i, h.offers[i], true
}

// replaceOffer keeps what is left of offer i outstanding, or drops it.
func (h *Harness) replaceOffer(i int, rest resources.Resources) {
	if rest.IsEmpty() {
		h.offers = slices.Delete(h.offers, i, i+1)
		return
	}
	h.offers[i].Resources = rest
}

// roleSet returns the roles of the pool whose bits are set in b, or one
// role chosen by alt when none is.
func (h *Harness) roleSet(b, alt uint8) []string {
	var out []string
	for i, r := range h.roles {
		if b&(1<<i) != 0 {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		r, _ := pick(h.roles, alt)
		out = []string{r}
	}
	return out
}

// someRoles returns no roles (meaning all), one of the framework's roles,
// or (b&0x80) a role of the pool it may not subscribe to.
func (h *Harness) someRoles(fw string, b uint8) []string {
	roles := h.fwInfo[fw].Roles
	if b&0x80 != 0 {
		r, _ := pick(h.roles, b)
		return []string{r}
	}
	if b%2 == 0 || len(roles) == 0 {
		return nil
	}
	r, _ := pick(roles, b>>1)
	return []string{r}
}

func capabilities(b uint8) offer.Capabilities {
	caps := offer.MultiRole
	for i, c := range []offer.Capabilities{offer.SharedResources, offer.RevocableResources, offer.ReservationRefinement, offer.GPUResources, offer.RegionAware} {
		if b&(1<<i) != 0 {
			caps |= c
		}
	}
	return caps
}

func minAllocatable(b uint8) []resources.Quantities {
	switch b % 4 {
	case 0:
		return []resources.Quantities{}
	case 1:
		return []resources.Quantities{resources.MustParseQuantities("cpus:2")}
	case 2:
		return []resources.Quantities{resources.MustParseQuantities("mem:1024"), resources.MustParseQuantities("disk:500")}
	}
	return []resources.Quantities{resources.MustParseQuantities("cpus:1;mem:256")}
}

func constraints(b uint8) allocator.Constraints {
	switch b % 3 {
	case 0:
		return allocator.Constraints{{{Attribute: "rack", Op: allocator.OpEquals, Value: "r0"}}}
	case 1:
		return allocator.Constraints{{{Attribute: "rack", Op: allocator.OpNotEquals, Value: "r1"}}, {{Attribute: "gpu", Op: allocator.OpExists}}}
	}
	return allocator.Constraints{{{Attribute: "rack", Op: allocator.OpExists}, {Attribute: "zone", Op: allocator.OpNotExists}}}
}

func quota(g, l uint8) allocator.Quota {
	guarantees := []string{"", "cpus:1", "cpus:2;mem:1024", "cpus:4;mem:2048;disk:1000"}[g%4]
	var q allocator.Quota
	if guarantees != "" {
		q.Guarantees = resources.MustParseQuantities(guarantees)
	}
	switch l % 6 {
	case 1:
		q.Limits = resources.LimitsOf(q.Guarantees)
	case 2:
		q.Limits = resources.LimitsOf(q.Guarantees.Plus(resources.MustParseQuantities("cpus:2;mem:2048")))
	case 3:
		q.Limits = resources.MustParseLimits("cpus:1")
	case 4:
		q.Limits = resources.MustParseLimits("cpus:0")
	case 5:
		q.Limits = resources.MustParseLimits("cpus:8;mem:8192;gpus:0")
	}
	return q
}

// filterText renders a filter in call text.
type filterText struct{ f *allocator.Filter }

func (t filterText) String() string {
	if t.f == nil {
		return "no filter"
	}
	return "refuse " + t.f.Refuse.String()
}

// opsText renders operations in call text.
type opsText []offer.Operation

func (ops opsText) String() string {
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = op.String()
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

func cloneAgentInfo(info allocator.AgentInfo) allocator.AgentInfo {
	if info.Attributes != nil {
		m := make(map[string]string, len(info.Attributes))
		for k, v := range info.Attributes {
			m[k] = v
		}
		info.Attributes = m
	}
	return info
}

func cloneFrameworkInfo(info allocator.FrameworkInfo) allocator.FrameworkInfo {
	info.Roles = slices.Clone(info.Roles)
	info.SuppressedRoles = slices.Clone(info.SuppressedRoles)
	if info.MinAllocatable != nil {
		m := make(map[string][]resources.Quantities, len(info.MinAllocatable))
		for k, v := range info.MinAllocatable {
			m[k] = v
		}
		info.MinAllocatable = m
	}
	if info.Constraints != nil {
		m := make(map[string]allocator.Constraints, len(info.Constraints))
		for k, v := range info.Constraints {
			m[k] = v
		}
		info.Constraints = m
	}
	return info
}

// agentTotal builds an agent's total: cpus, mem, disk and ports sized by
// size, and by the bits of extras gpus, revocable cpus, a static
// reservation, labelled dynamic reservations, a refined reservation, a
// MOUNT disk, a persistent volume and a shared volume, reserved for the
// role of the pool chosen by roleArg ("*" aside).
func (h *Harness) agentTotal(id string, size, extras, roleArg uint8) resources.Resources {
	role, _ := pick(h.reservable, roleArg)
	// The total is the sum of parts, each parsed once: the parts are few,
	// their combinations many.
	var total resources.Resources
	add := func(format string, args ...any) { total.Add(h.res(fmt.Sprintf(format, args...))) }
	cpus := []int64{1, 2, 4, 8}[size%4]
	if size&0x80 != 0 {
		// Near the largest amount a resource may hold: sums over agents
		// and shares must stay exact.
		cpus = int64(resources.MaxScalar/resources.Units(1)) - cpus
	}
	add("cpus:%d;mem:%d;disk:%d;ports:[31000-31009]",
		cpus, []int{512, 1024, 4096, 8192}[(size>>2)%4], []int{1000, 4000}[(size>>4)%2])
	if extras&3 == 3 {
		add("gpus:%d", 1+(size>>5)%2)
	}
	if extras&2 != 0 {
		add("cpus{REV}:2")
	}
	if extras&4 != 0 {
		add("cpus(%s):1;mem(%s):256", role, role)
	}
	if extras&8 != 0 {
		add("cpus(reservations: [(DYNAMIC,%s,ops,{team: x})]):1;disk(reservations: [(DYNAMIC,%s,ops)]):1000", role, role)
	}
	if extras&16 != 0 {
		if parent, child, ok := h.refinable(roleArg); ok {
			first := "(DYNAMIC," + parent + ",ops)"
			if size&0x40 != 0 {
				first = "(STATIC," + parent + ")"
			}
			add("mem(reservations: [%s,(DYNAMIC,%s,ops)]):512;disk(reservations: [%s]):500", first, child, first)
		}
	}
	if extras&32 != 0 {
		add("disk[MOUNT:/mnt/ssd]:2000")
	}
	if extras&64 != 0 {
		add("disk(reservations: [(DYNAMIC,%s,ops)])[id:v-%s,principal:ops,path:data]:500", role, id)
	}
	if extras&128 != 0 && !h.opts.NoSharedVolumes {
		add("disk(reservations: [(DYNAMIC,%s,ops)])[id:s-%s,principal:ops,path:data]<SHARED>:300", role, id)
	}
	return total
}

// refinable returns a role of the pool and a strict sub-role of it.
func (h *Harness) refinable(b uint8) (string, string, bool) {
	var pairs [][2]string
	for _, p := range h.reservable {
		for _, c := range h.reservable {
			if reservation.IsStrictSubrole(c, p) {
				pairs = append(pairs, [2]string{p, c})
			}
		}
	}
	pr, ok := pick(pairs, b)
	return pr[0], pr[1], ok
}

// rescindShared, with Options.RescindSharedVolumes, takes the shared
// volumes that ops destroy out of every offer on the agent, except one copy
// in keep (the offer of framework fw being operated on), as Mesos's master
// rescinds such offers. It returns what it did, for the log.
func (h *Harness) rescindShared(s Views, agentID string, ops []offer.Operation, fw string, keep resources.Resources) string {
	if !h.opts.RescindSharedVolumes {
		return ""
	}
	var doomed resources.Resources
	for _, op := range ops {
		if d, ok := op.(offer.Destroy); ok {
			for r := range d.Volumes.Shared().All() {
				r.AllocationRole = ""
				if !doomed.ContainsResource(r) {
					_ = doomed.AddResource(r)
				}
			}
		}
	}
	if doomed.IsEmpty() {
		return ""
	}
	v, _ := s.Agent(agentID)
	var b strings.Builder
	did := false
	for _, holder := range slices.Sorted(maps.Keys(v.Offered)) {
		var give resources.Resources
		for r := range v.Offered[holder].Shared().All() {
			plain := r
			plain.AllocationRole = ""
			if !doomed.ContainsResource(plain) {
				continue
			}
			copies := v.Offered[holder].Copies(r)
			if holder == fw && keep.ContainsResource(r) {
				copies--
			}
			for range copies {
				_ = give.AddResource(r)
			}
		}
		if give.IsEmpty() {
			continue
		}
		err := h.a.RecoverResources(holder, agentID, give, nil)
		did = true
		if h.text {
			fmt.Fprintf(&b, "rescind RecoverResources(%s, %s, %s) = %v; ", holder, agentID, give, err)
		}
	}
	if did && h.current != nil {
		// The step's main call starts from here.
		h.current.rebased = true
		h.a.Fingerprint(&h.base)
		if !h.fast {
			base := Take(h.a)
			h.current.base = &base
		}
	}
	return b.String()
}

// noteVolumes records the volumes operations name, which may then change.
func (h *Harness) noteVolumes(agentID string, ops []offer.Operation, eff *effects) {
	m := eff.volumeOps[agentID]
	if m == nil {
		m = map[volumeKey]bool{}
		eff.volumeOps[agentID] = m
	}
	note := func(rs resources.Resources) {
		for r := range rs.All() {
			if r.IsPersistentVolume() {
				m[volumeKey{r.Role(), r.Disk.Persistence.ID}] = true
			}
		}
	}
	for _, op := range ops {
		switch o := op.(type) {
		case offer.Create:
			note(o.Volumes)
		case offer.Destroy:
			note(o.Volumes)
		case offer.GrowVolume:
			one, _ := resources.New(o.Volume)
			note(one)
		case offer.ShrinkVolume:
			one, _ := resources.New(o.Volume)
			note(one)
		}
	}
}

// operations builds operations on rs (offered resources allocated to
// role, or, for an operator, unallocated resources and a role to reserve
// for): sel chooses reserve, refine, unreserve, create, destroy, grow,
// shrink, launch, or reserve and create; amt the amount; extra labels, a
// wrong principal, volumes where they are refused, a reused persistence
// id, and shared volumes. It returns nil and the verb when rs has nothing
// to operate on.
func (h *Harness) operations(rs resources.Resources, role, principal string, sel, amt, extra uint8, operator bool) ([]offer.Operation, string) {
	if extra&1 != 0 {
		principal = "eve"
	}
	var labels reservation.Labels
	if extra&2 != 0 {
		labels = reservation.Labels{{Key: "team", Value: "x"}}
	}
	allowVolumes := extra&4 != 0
	dynamic := func(role string) reservation.Reservation {
		return reservation.Reservation{Type: reservation.Dynamic, Role: role, Principal: principal, Labels: labels}
	}
	persistence := func() string {
		if extra&8 != 0 {
			return "p1"
		}
		return h.newID("p")
	}
	makeVolumes := func(disk resources.Resources) resources.Resources {
		var out resources.Resources
		for r := range disk.All() {
			d := &volume.Disk{
				Persistence: &volume.Persistence{ID: persistence(), Principal: principal},
				Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
			}
			if r.Disk != nil && r.Disk.Source != nil {
				src := *r.Disk.Source
				d.Source = &src
			}
			r.Disk = d
			r.Shared = extra&16 != 0 && !h.opts.NoSharedVolumes
			_ = out.AddResource(r)
		}
		return out
	}
	switch sel % 9 {
	case 0:
		x := part(rs, amt, func(r resources.Resource) bool {
			return r.Type == resources.ScalarType && !r.IsReserved() && (!r.Revocable || allowVolumes)
		})
		if x.IsEmpty() {
			return nil, "reserve"
		}
		y, err := x.PushReservation(dynamic(role))
		if err != nil {
			return nil, "reserve"
		}
		return []offer.Operation{offer.Reserve{Resources: y}}, "reserve"
	case 1:
		target := role
		if operator {
			// An operator refines a reservation of some role to a strict
			// sub-role.
			x := part(rs, amt, func(r resources.Resource) bool {
				if !r.IsReserved() || (r.IsPersistentVolume() && !allowVolumes) {
					return false
				}
				for _, c := range h.roles {
					if reservation.IsStrictSubrole(c, r.Role()) {
						return true
					}
				}
				return false
			})
			if x.IsEmpty() {
				return nil, "refine"
			}
			first, _ := pick(x.Slice(), 0)
			for _, c := range h.roles {
				if reservation.IsStrictSubrole(c, first.Role()) {
					target = c
					break
				}
			}
			x = x.Filter(func(r resources.Resource) bool { return r.Role() == first.Role() })
			y, err := x.PushReservation(dynamic(target))
			if err != nil {
				return nil, "refine"
			}
			return []offer.Operation{offer.Reserve{Resources: y}}, "refine"
		}
		x := part(rs, amt, func(r resources.Resource) bool {
			return r.IsReserved() && reservation.IsStrictSubrole(role, r.Role()) && (!r.IsPersistentVolume() || allowVolumes)
		})
		if x.IsEmpty() {
			return nil, "refine"
		}
		y, err := x.PushReservation(dynamic(target))
		if err != nil {
			return nil, "refine"
		}
		return []offer.Operation{offer.Reserve{Resources: y}}, "refine"
	case 2:
		x := part(rs, amt, func(r resources.Resource) bool {
			return r.IsReserved() && (r.IsDynamicallyReserved() || allowVolumes) && (!r.IsPersistentVolume() || allowVolumes)
		})
		if x.IsEmpty() {
			return nil, "unreserve"
		}
		return []offer.Operation{offer.Unreserve{Resources: x}}, "unreserve"
	case 3:
		x := part(rs, amt, func(r resources.Resource) bool {
			return r.Name == "disk" && r.IsReserved() && !r.IsPersistentVolume()
		})
		if x.IsEmpty() {
			return nil, "create"
		}
		return []offer.Operation{offer.Create{Volumes: makeVolumes(x)}}, "create"
	case 4:
		vols := rs.PersistentVolumes().Slice()
		v, ok := pick(vols, amt)
		if !ok {
			return nil, "destroy"
		}
		one, _ := resources.New(v)
		return []offer.Operation{offer.Destroy{Volumes: one}}, "destroy"
	case 5:
		vols := rs.PersistentVolumes().Filter(func(r resources.Resource) bool { return !r.Shared || allowVolumes }).Slice()
		v, ok := pick(vols, amt>>3)
		if !ok {
			return nil, "grow"
		}
		add := part(rs, amt&3, func(r resources.Resource) bool {
			return r.Name == "disk" && !r.IsPersistentVolume() && r.Reservations.Equal(v.Reservations) &&
				r.ProviderID == v.ProviderID && (r.Disk == nil || r.Disk.Source == nil) && v.Disk.Source == nil
		})
		if add.IsEmpty() {
			return nil, "grow"
		}
		return []offer.Operation{offer.GrowVolume{Volume: v, Addition: add}}, "grow"
	case 6:
		vols := rs.PersistentVolumes().Filter(func(r resources.Resource) bool { return !r.Shared || allowVolumes }).Slice()
		v, ok := pick(vols, amt>>3)
		if !ok {
			return nil, "shrink"
		}
		sub := resources.Scalar(int64(v.Scalar) * int64(amt%4) / 3)
		return []offer.Operation{offer.ShrinkVolume{Volume: v, Subtract: sub}}, "shrink"
	case 7:
		task := part(rs, amt, isPlainScalar)
		if allowVolumes {
			task.Add(part(rs.PersistentVolumes(), 3, nil))
		}
		if task.IsEmpty() {
			return nil, "launch"
		}
		return []offer.Operation{offer.Launch{Tasks: []offer.Task{{ID: h.newID("t"), Resources: task}}}}, "launch"
	default:
		x := part(rs, amt, func(r resources.Resource) bool {
			return r.Name == "disk" && !r.IsReserved() && !r.Revocable && (r.Disk == nil || r.Disk.Divisible())
		})
		if x.IsEmpty() {
			return nil, "reserve and create"
		}
		y, err := x.PushReservation(dynamic(role))
		if err != nil {
			return nil, "reserve and create"
		}
		return []offer.Operation{offer.Reserve{Resources: y}, offer.Create{Volumes: makeVolumes(y)}}, "reserve and create"
	}
}

// acceptEach accepts an offer with AcceptEach, mixing operations that
// must be dropped with valid ones (see the AcceptEach kind).
func (h *Harness) acceptEach(x [4]uint8, s Views, eff *effects) {
	setf := func(err error, format string, args ...any) {
		eff.err = err
		if h.text {
			eff.call = fmt.Sprintf(format, args...)
		}
	}
	var (
		i  int
		o  offer.Offer
		ok bool
	)
	again := x[3]&8 != 0 && h.declined.FrameworkID != ""
	if again {
		o = h.declined
		eff.want = allocator.ErrUnknownFramework
		if _, known := h.fwInfo[o.FrameworkID]; known {
			eff.want = allocator.ErrUnknownAgent
			if v, known := s.Agent(o.AgentID); known {
				eff.want = nil
				if !v.Offered[o.FrameworkID].Plus(v.Allocated[o.FrameworkID]).Contains(o.Resources) {
					eff.want = allocator.ErrNotHeld
				}
			}
		}
		eff.bad = eff.want != nil
	} else if i, o, ok = h.outstanding(s, x[0]); !ok {
		setf(nil, "no offer to accept")
		return
	}
	info := h.fwInfo[o.FrameworkID]
	task := part(o.Resources, x[1], isPlainScalar)
	tid := h.newID("t")
	launch := offer.Launch{Tasks: []offer.Task{{ID: tid, Resources: task}}}
	ops := []offer.Operation{launch}
	more, _ := h.operations(o.Resources, o.Role, info.Principal, x[2], x[1]>>2, x[2]>>4, false)
	ops = append(ops, more...)
	dup, notOffered := -1, -1
	if x[3]&1 != 0 {
		dup = len(ops)
		ops = append(ops, launch)
	}
	if x[3]&2 != 0 {
		notOffered = len(ops)
		ops = append(ops, h.notOffered(o.Role, info.Principal))
	}
	filter := refuse(x[3] >> 4)
	h.noteVolumes(o.AgentID, ops, eff)
	rescinded := h.rescindShared(s, o.AgentID, ops, o.FrameworkID, o.Resources)
	results, err := h.a.AcceptEach(o.FrameworkID, o.AgentID, o.Resources, ops, filter)
	switch {
	case err != nil && !again:
		eff.fail("AcceptEach of outstanding %s failed: %v", o.ID, err)
	case err == nil && len(results) != len(ops):
		eff.fail("AcceptEach of %d operations gave %d results", len(ops), len(results))
	case err == nil:
		for j, r := range results {
			if r != nil && !isNamed(r) {
				eff.fail("operation %d (%s): error %q wraps none of the allocator's named errors", j, offer.KindOf(ops[j]), r)
			}
		}
		// A launch of nothing leaves no task in the ledger, so its id may
		// be launched again.
		if dup >= 0 && results[0] == nil && results[dup] == nil && !task.IsEmpty() {
			eff.fail("a second launch of task %s was applied", tid)
		}
		if notOffered >= 0 && results[notOffered] == nil {
			eff.fail("a reservation of resources not offered was applied")
		}
		if results[0] == nil && !task.IsEmpty() && !slices.ContainsFunc(h.a.Tasks(o.FrameworkID), func(t allocator.TaskView) bool { return t.ID == tid }) {
			eff.fail("task %s was launched, and is not listed", tid)
		}
		if !again {
			h.replaceOffer(i, resources.Resources{})
		}
	}
	what := "outstanding " + o.ID
	if again {
		what = "declined " + o.ID
	}
	setf(err, "%sAcceptEach(%s, %s, %s, %s, %s) = %v", rescinded, o.FrameworkID, o.AgentID, what, opsText(ops), filterText{filter}, results)
}

// hugeText is more than any agent of a harness holds: agents near the
// largest amount have that many cpus at most, and little memory.
const hugeText = "cpus:1000000000000;mem:1000000000000"

// notOffered returns an operation on resources no offer holds: a
// reservation of a huge amount of cpus for the role, or, for "*", for which
// nothing is reserved, a launch of them.
func (h *Harness) notOffered(role, principal string) offer.Operation {
	huge := h.res(hugeText).Allocate(role)
	if role == reservation.Any {
		return offer.Launch{Tasks: []offer.Task{{ID: h.newID("t"), Resources: huge}}}
	}
	res, _ := huge.PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: role, Principal: principal})
	return offer.Reserve{Resources: res}
}

// overflow sends an event that takes a sum the allocator keeps past
// resources.MaxTotal, or exactly to it (see the Overflow kind).
func (h *Harness) overflow(x [4]uint8, s Views, eff *effects) {
	a := h.a
	setf := func(err error, format string, args ...any) {
		eff.err = err
		if h.text {
			eff.call = fmt.Sprintf(format, args...)
		}
	}
	switch x[0] % 3 {
	case 0, 1:
		role, ok := pick(h.opts.QuotaRoles, x[1])
		if !ok {
			setf(nil, "no role to set quota on")
			return
		}
		var others resources.Scalar
		for _, r := range a.Roles() {
			if r.Role != role {
				others += r.Quota.Guarantees.Scalar("cpus")
			}
		}
		// A guarantee at the bound of quota values is taken (a harness's
		// few roles cannot sum past resources.MaxTotal with them); one
		// past it is refused.
		g := resources.MaxScalar
		switch {
		case x[0]%3 == 0:
			g++
			eff.bad, eff.want = true, allocator.ErrInvalidQuota
		case others+g > resources.MaxTotal:
			eff.bad, eff.want = true, allocator.ErrOverflow
		}
		var q allocator.Quota
		q.Guarantees.SetScalar("cpus", g)
		err := a.UpdateQuota(role, q)
		setf(err, "UpdateQuota(%s, guarantees %s) with %s cpus guaranteed to other roles", role, q.Guarantees, others)
	default:
		eff.bad, eff.want = true, allocator.ErrOverflow
		total := overflowTotal()
		id := freeID(h.agentIDs, agentIDs(s), x[2])
		if _, exists := s.Agent(id); exists {
			setf(a.UpdateAgent(id, h.agentInfo[id], &total), "UpdateAgent(%s, a total of %d entries of cpus:%s)", id, total.Len(), resources.MaxScalar)
			return
		}
		setf(a.AddAgent(id, allocator.AgentInfo{Hostname: "host-" + id}, total, nil), "AddAgent(%s, a total of %d entries of cpus:%s)", id, total.Len(), resources.MaxScalar)
	}
}

// overflowTotal is an agent's total whose cpus sum past resources.MaxTotal:
// entries of the largest amount, each reserved with labels of its own.
var overflowTotal = sync.OnceValue(func() resources.Resources {
	var out resources.Resources
	n := int(resources.MaxTotal/resources.MaxScalar) + 1
	for i := range n {
		r := resources.ScalarResource("cpus", resources.MaxScalar)
		r.Reservations = reservation.Stack{{Type: reservation.Dynamic, Role: "ops", Principal: "ops", Labels: reservation.Labels{{Key: "n", Value: strconv.Itoa(i)}}}}
		if err := out.AddResource(r); err != nil {
			panic(fmt.Sprintf("allocatortest: overflow total: %v", err))
		}
	}
	return out
})

// badInput makes a call that must fail with a named error; which one
// depends on x[0] and on what exists.
func (h *Harness) badInput(x [4]uint8, s Views, eff *effects) {
	a := h.a
	eff.bad = true
	setf := func(want, err error, format string, args ...any) {
		eff.want, eff.err = want, err
		if h.text {
			eff.call = fmt.Sprintf(format, args...)
		}
	}
	fw, fwOK := pick(frameworkIDs(s), x[1])
	agentID, agentOK := pick(agentIDs(s), x[2])
	role := "a"
	if fwOK {
		role = h.fwInfo[fw].Roles[0]
	}
	huge := h.res(hugeText).Allocate(role)
	switch x[0] % 16 {
	case 0:
		id := unknownFramework
		calls := []struct {
			name string
			f    func() error
		}{
			{"RemoveFramework", func() error { return a.RemoveFramework(id) }},
			{"ActivateFramework", func() error { return a.ActivateFramework(id) }},
			{"DeactivateFramework", func() error { return a.DeactivateFramework(id) }},
			{"UpdateFramework", func() error { return a.UpdateFramework(id, allocator.FrameworkInfo{Roles: []string{"a"}}) }},
			{"SuppressOffers", func() error { return a.SuppressOffers(id) }},
			{"ReviveOffers", func() error { return a.ReviveOffers(id) }},
			{"RecoverResources", func() error { return a.RecoverResources(id, agentID, huge, nil) }},
			{"UpdateAllocation", func() error { return a.UpdateAllocation(id, agentID, huge, nil) }},
			{"Accept", func() error { return a.Accept(id, agentID, huge, nil, nil) }},
			{"UpdateInverseOffer", func() error {
				if !agentOK {
					return a.UpdateInverseOffer(unknownAgent, id, allocator.InverseAccepted, nil)
				}
				return a.UpdateInverseOffer(agentID, id, allocator.InverseAccepted, nil)
			}},
		}
		c, _ := pick(calls, x[1])
		want := allocator.ErrUnknownFramework
		if c.name == "UpdateInverseOffer" && !agentOK {
			want = allocator.ErrUnknownAgent
		}
		setf(want, c.f(), "%s(unknown framework)", c.name)
	case 1:
		id := unknownAgent
		calls := []struct {
			name string
			f    func() error
		}{
			{"RemoveAgent", func() error { return a.RemoveAgent(id) }},
			{"UpdateAgent", func() error { return a.UpdateAgent(id, allocator.AgentInfo{}, nil) }},
			{"ActivateAgent", func() error { return a.ActivateAgent(id) }},
			{"DeactivateAgent", func() error { return a.DeactivateAgent(id) }},
			{"AddResourceProvider", func() error { return a.AddResourceProvider(id, h.res("disk:10"), nil) }},
			{"UpdateAvailable", func() error { return a.UpdateAvailable(id, nil) }},
			{"UpdateUnavailability", func() error { return a.UpdateUnavailability(id, nil) }},
			{"UpdateInverseOffer", func() error { return a.UpdateInverseOffer(id, fw, allocator.InverseAccepted, nil) }},
			{"RecoverResources", func() error { return a.RecoverResources(fw, id, huge, nil) }},
			{"UpdateAllocation", func() error { return a.UpdateAllocation(fw, id, huge, nil) }},
		}
		c, _ := pick(calls, x[1])
		want := allocator.ErrUnknownAgent
		if !fwOK && (c.name == "RecoverResources" || c.name == "UpdateAllocation") {
			want = allocator.ErrUnknownFramework
		}
		setf(want, c.f(), "%s(unknown agent)", c.name)
	case 2:
		if !agentOK {
			setf(allocator.ErrInvalidID, a.AddAgent("", allocator.AgentInfo{}, h.res("cpus:1"), nil), "AddAgent(\"\")")
			return
		}
		setf(allocator.ErrDuplicateAgent, a.AddAgent(agentID, allocator.AgentInfo{}, h.res("cpus:1"), nil), "AddAgent(%s) again", agentID)
	case 3:
		if !fwOK {
			setf(allocator.ErrInvalidID, a.AddFramework("f\x01", allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active), "AddFramework(\"f\\x01\")")
			return
		}
		setf(allocator.ErrDuplicateFramework, a.AddFramework(fw, allocator.FrameworkInfo{Roles: []string{"a"}}, nil, allocator.Active), "AddFramework(%s) again", fw)
	case 4:
		w := []float64{0, -1, math.NaN(), math.Inf(1)}[x[1]%4]
		r, _ := pick(h.roles, x[2])
		setf(allocator.ErrInvalidWeight, a.UpdateWeights(map[string]float64{r: w}), "UpdateWeights(%s: %v)", r, w)
	case 5:
		switch x[1] % 5 {
		case 0:
			setf(allocator.ErrInvalidRole, a.UpdateQuota("a//b", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:1")}), "UpdateQuota(\"a//b\")")
		case 1:
			setf(allocator.ErrInvalidRole, a.UpdateQuota("a/*", allocator.Quota{}), "UpdateQuota(\"a/*\")")
		case 2:
			setf(allocator.ErrInvalidRole, a.UpdateWeights(map[string]float64{"-x": 2}), "UpdateWeights(\"-x\")")
		case 3:
			id := freeID(append(slices.Clone(h.fwIDs), "f-bad"), frameworkIDs(s), 0)
			setf(allocator.ErrInvalidRole, a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{"a/../b"}}, nil, allocator.Active), "AddFramework(%s, roles [\"a/../b\"])", id)
		default:
			if !fwOK {
				setf(allocator.ErrInvalidRole, a.AddFramework("f-bad", allocator.FrameworkInfo{}, nil, allocator.Active), "AddFramework(f-bad, no roles)")
				return
			}
			info := cloneFrameworkInfo(h.fwInfo[fw])
			info.SuppressedRoles = append(info.SuppressedRoles, "zz")
			setf(allocator.ErrInvalidRole, a.UpdateFramework(fw, info), "UpdateFramework(%s, suppressing unsubscribed \"zz\")", fw)
		}
	case 6:
		r, _ := pick(h.roles, x[1])
		q := allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:2"), Limits: resources.MustParseLimits("cpus:1")}
		setf(allocator.ErrInvalidQuota, a.UpdateQuota(r, q), "UpdateQuota(%s, guarantees above limits)", r)
	case 7, 12:
		switch {
		case !fwOK:
			setf(allocator.ErrUnknownFramework, a.RecoverResources(unknownFramework, agentID, huge, nil), "RecoverResources(unknown framework)")
		case !agentOK:
			setf(allocator.ErrUnknownAgent, a.RecoverResources(fw, unknownAgent, huge, nil), "RecoverResources(unknown agent)")
		case x[0]%16 == 7:
			setf(allocator.ErrNotHeld, a.RecoverResources(fw, agentID, huge, nil), "RecoverResources(%s, %s, %s) not held", fw, agentID, huge)
		default:
			setf(allocator.ErrNotHeld, a.UpdateAllocation(fw, agentID, huge, nil), "UpdateAllocation(%s, %s, %s) not held", fw, agentID, huge)
		}
	case 8, 9:
		if !agentOK {
			setf(allocator.ErrUnknownAgent, a.UpdateAvailable(unknownAgent, nil), "UpdateAvailable(unknown agent)")
			return
		}
		if x[0]%16 == 8 {
			r, _ := pick(h.reservable, x[1])
			r = reservation.TopLevel(r)
			res, _ := h.res(hugeText).PushReservation(reservation.Reservation{Type: reservation.Dynamic, Role: r, Principal: "ops"})
			setf(allocator.ErrNotAvailable, a.UpdateAvailable(agentID, []offer.Operation{offer.Reserve{Resources: res}}), "UpdateAvailable(%s, reserve %s)", agentID, res)
			return
		}
		launch := offer.Launch{Tasks: []offer.Task{{ID: "t", Resources: h.res("cpus:1")}}}
		setf(allocator.ErrOperation, a.UpdateAvailable(agentID, []offer.Operation{launch}), "UpdateAvailable(%s, launch)", agentID)
	case 10:
		if !fwOK || !agentOK {
			setf(allocator.ErrUnknownAgent, a.UpdateInverseOffer(unknownAgent, unknownFramework, 0, nil), "UpdateInverseOffer(unknown ids)")
			return
		}
		setf(allocator.ErrInvalidStatus, a.UpdateInverseOffer(agentID, fw, 0, nil), "UpdateInverseOffer(%s, %s, no status)", agentID, fw)
	case 11:
		if !fwOK {
			setf(allocator.ErrUnknownFramework, a.SuppressOffers(unknownFramework), "SuppressOffers(unknown framework)")
			return
		}
		setf(allocator.ErrRoleNotSubscribed, a.SuppressOffers(fw, "zz"), "SuppressOffers(%s, \"zz\")", fw)
	case 13:
		if !fwOK || !agentOK {
			setf(allocator.ErrUnknownFramework, a.UpdateAllocation(unknownFramework, unknownAgent, huge, nil), "UpdateAllocation(unknown ids)")
			return
		}
		two := h.res("cpus(allocated: a):1;mem(allocated: b):1")
		setf(allocator.ErrInvalidResources, a.UpdateAllocation(fw, agentID, two, nil), "UpdateAllocation(%s, %s, %s)", fw, agentID, two)
	case 14:
		if !agentOK {
			setf(allocator.ErrInvalidID, a.AddAgent("", allocator.AgentInfo{}, resources.Resources{}, nil), "AddAgent(a-bad, used by unknown ids)")
			return
		}
		id := freeID(append(slices.Clone(h.fwIDs), "f-bad"), frameworkIDs(s), 0)
		used := map[string]resources.Resources{agentID: h.res("cpus:1")}
		setf(allocator.ErrInvalidResources, a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{"a"}}, used, allocator.Active), "AddFramework(%s, used %v without allocation role)", id, used)
	default:
		_, o, ok := h.outstanding(s, x[1])
		if !ok {
			setf(allocator.ErrUnknownFramework, a.RecoverResources(unknownFramework, unknownAgent, huge, nil), "RecoverResources(unknown framework)")
			return
		}
		op := h.notOffered(o.Role, h.fwInfo[o.FrameworkID].Principal)
		setf(allocator.ErrOperation, a.UpdateAllocation(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{op}), "UpdateAllocation(%s, %s, %s, %s) on resources not offered", o.FrameworkID, o.AgentID, o.ID, op)
	}
}

// preempt holds a task's resources (or part of what a framework uses on an
// agent) for its framework.
func (h *Harness) preempt(x [4]uint8, s Views, eff *effects) {
	a := h.a
	setf := func(err error, format string, args ...any) {
		eff.err = err
		if h.text {
			eff.call = fmt.Sprintf(format, args...)
		}
	}
	hold := []time.Duration{time.Second, 5 * time.Second, time.Minute, 0}[x[2]%4]
	id := existingFramework(s, x[0])
	if x[3]%4 == 3 {
		// RecoverHeld of part of what the framework uses on an agent.
		for _, v := range s.Agents {
			used := v.Allocated[id].NonShared()
			if used.IsEmpty() {
				continue
			}
			part := used.Shrink(used.Quantities(), nil)
			if x[1]%2 == 1 {
				half := used.Quantities()
				for name, amount := range half.All() {
					half.SetScalar(name, amount/2)
				}
				part = used.Shrink(half, nil)
			}
			if part.IsEmpty() {
				continue
			}
			if hold == 0 {
				eff.bad, eff.want = true, allocator.ErrInvalidHold
			}
			setf(a.RecoverHeld(id, v.ID, part, hold), "RecoverHeld(%s, %s, %s, %s)", id, v.ID, part, hold)
			return
		}
	}
	tasks := a.Tasks(id)
	taskID := "no-such-task"
	switch {
	case id == unknownFramework:
		eff.bad, eff.want = true, allocator.ErrUnknownFramework
	case len(tasks) == 0 || x[2]%8 == 7:
		eff.bad, eff.want = true, allocator.ErrUnknownTask
	default:
		taskID = tasks[int(x[1])%len(tasks)].ID
		if hold == 0 {
			eff.bad, eff.want = true, allocator.ErrInvalidHold
		}
	}
	err := a.PreemptTask(id, taskID, hold)
	if err == nil {
		h.ended[id] = append(h.ended[id], taskID)
	}
	setf(err, "PreemptTask(%s, %s, %s)", id, taskID, hold)
}

// snapshotRestore saves the harness's allocator and restores the snapshot
// into a new one, which must hold the same state. The harness carries on
// with its own allocator (others may hold it: a Runner, a test comparing
// it with a copy); that a restored allocator goes on as the saved one is
// the allocator's own property test's concern.
func (h *Harness) snapshotRestore(eff *effects) {
	data, err := h.a.Snapshot()
	if err != nil {
		eff.err = err
		if h.text {
			eff.call = "Snapshot()"
		}
		return
	}
	restored, err := allocator.Restore(data, h.restoreOptions())
	if err != nil {
		eff.err = err
		if h.text {
			eff.call = "Restore(Snapshot())"
		}
		return
	}
	var before, after allocator.Fingerprint
	h.a.Fingerprint(&before)
	restored.Fingerprint(&after)
	if !before.Equal(&after) {
		eff.fail("the restored allocator's fingerprint differs from the saved one's")
	} else if want, got := h.a.Describe(), restored.Describe(); got != want {
		eff.fail("the restored allocator differs from the saved one:\n%s\nwas:\n%s", got, want)
	} else {
		// From now on it takes the same events and must give the same
		// results (twin.go).
		h.addRestoredTwin(restored)
	}
	if h.text {
		eff.call = "Snapshot(), Restore"
	}
}
