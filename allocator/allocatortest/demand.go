package allocatortest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// The handler of UpdateDemand, and what the harness does as the hosts of
// frameworks that state demand: it keeps, by framework and role, the
// tasks the host waits to run (its last statement, less the tasks it
// launched since), launches them on the offers it accepts, and states
// what is left again now and then. After a statement it checks that
// Demand returns it; after a run, that every offer to a framework that
// stated demand in the offer's role holds one of the tasks pending before
// the run (unless the framework held resources on the agent, which are
// offered to it whatever it waits for); after a failed statement, that
// Demand is unchanged (the fingerprint does not cover demand).

// demandBits draws the shapes and counts of a statement from an event's
// arguments: a small linear congruential generator seeded with them, so
// that the same event always states the same tasks.
type demandBits struct{ v uint64 }

func newDemandBits(x [4]uint8) *demandBits {
	return &demandBits{v: uint64(x[1])<<16 | uint64(x[2])<<8 | uint64(x[3]) | 1<<40}
}

// intn returns a number in [0, n).
func (b *demandBits) intn(n int) int {
	b.v = b.v*6364136223846793005 + 1442695040888963407
	return int((b.v >> 33) % uint64(n))
}

// shape returns what one task needs: mostly cpus and mem, now and then
// only one of them, disk or a GPU besides, or (rarely) more cpus than most
// agents have.
func (b *demandBits) shape() resources.Quantities {
	var q resources.Quantities
	cpus := []float64{0.5, 1, 1.5, 2}[b.intn(4)]
	mem := []float64{64, 128, 256, 512, 1024}[b.intn(5)]
	switch b.intn(16) {
	case 0:
		q.Set("cpus", cpus)
	case 1:
		q.Set("mem", mem)
	case 2, 3:
		q.Set("cpus", cpus)
		q.Set("mem", mem)
		q.Set("disk", []float64{100, 500}[b.intn(2)])
	case 4:
		q.Set("cpus", cpus)
		q.Set("mem", mem)
		q.Set("gpus", 1)
	case 5:
		q.Set("cpus", 16)
		q.Set("mem", mem)
	default:
		q.Set("cpus", cpus)
		q.Set("mem", mem)
	}
	return q
}

// The invalid statements of UpdateDemand, by Args[3] modulo 32; the other
// values make valid ones.
const (
	demandZeroCount = iota
	demandNoResources
	demandTooMany
	demandNotSubscribed
	demandUnknownFramework
)

func (h *Harness) onUpdateDemand(ev Event, s Views, eff *effects) {
	x := ev.Args
	id := existingFramework(s, x[0])
	role, ok := pick(h.fwInfo[id].Roles, x[1])
	if !ok {
		role = h.roles[int(x[1])%len(h.roles)]
	}
	bits := newDemandBits(x)
	var list []allocator.Pending
	what := "new"
	switch m := x[2] % 8; {
	case m == 0:
		what = "nothing"
	case m == 7 && h.stated[id][role] != nil:
		what = "again"
		for _, p := range h.stated[id][role] {
			if p.Count > 0 {
				list = append(list, allocator.Pending{Resources: p.Resources.Clone(), Count: p.Count})
			}
		}
	default:
		for range 1 + int(x[2]>>3)%3 {
			list = append(list, allocator.Pending{Resources: bits.shape(), Count: 1 + bits.intn(6)})
		}
	}
	// The errors in the order the allocator checks: the framework, the
	// role, the statement.
	var want error
	switch x[3] % 32 {
	case demandZeroCount:
		if len(list) == 0 {
			list = append(list, allocator.Pending{Resources: bits.shape()})
		} else {
			list[bits.intn(len(list))].Count = 0
		}
		what, want = "bad: a count of zero", allocator.ErrInvalidDemand
	case demandNoResources:
		list = append(list, allocator.Pending{Count: 1 + bits.intn(6)})
		what, want = "bad: no resources", allocator.ErrInvalidDemand
	case demandTooMany:
		p := allocator.Pending{Resources: bits.shape(), Count: 1}
		list = slices.Repeat([]allocator.Pending{p}, allocator.MaxPending+1)
		what, want = "bad: too many shapes", allocator.ErrInvalidDemand
	case demandNotSubscribed:
		role = "zz"
		for _, r := range h.roles {
			if !slices.Contains(h.fwInfo[id].Roles, r) {
				role = r
				break
			}
		}
		what = "bad: a role not subscribed"
	case demandUnknownFramework:
		id, what = unknownFramework, "bad: unknown framework"
	}
	_, known := h.fwInfo[id]
	switch {
	case !known:
		want = allocator.ErrUnknownFramework
	case !slices.Contains(h.fwInfo[id].Roles, role):
		want = allocator.ErrRoleNotSubscribed
	}
	eff.bad, eff.want = want != nil, want
	var before map[string][]allocator.Pending
	if want != nil && known {
		before, _ = h.a.Demand(id)
	}
	err := h.a.UpdateDemand(id, role, list)
	switch {
	case err == nil:
		h.demanded = true
		if h.stated[id] == nil {
			h.stated[id] = map[string][]allocator.Pending{}
		}
		h.stated[id][role] = clonePending(list)
		if got, err := h.a.Demand(id); err != nil || !samePending(got[role], list) {
			eff.fail("Demand(%s) after UpdateDemand in role %s: %v (%v), stated %v", id, role, pendingText(got[role]), err, pendingText(list))
		}
	case known:
		if after, _ := h.a.Demand(id); !sameDemand(before, after) {
			eff.fail("a refused UpdateDemand changed the demand of %s: %v, was %v", id, after, before)
		}
	}
	h.record(eff, err, "UpdateDemand(%s, %s, %s %v)", id, role, what, pendingText(list))
}

// forgetDemand drops what the host of framework id waits to run in the
// roles it no longer subscribes to (all, when roles is nil), as the
// allocator drops its statements there.
func (h *Harness) forgetDemand(id string, roles []string) {
	for role := range h.stated[id] {
		if !slices.Contains(roles, role) {
			delete(h.stated[id], role)
		}
	}
	if len(h.stated[id]) == 0 {
		delete(h.stated, id)
	}
}

// pendingLaunch returns the tasks that the host of o's framework waits to
// run in o's role and o holds: as many of each shape as fit in what is
// left of it, in the statement's order, each cut from the offer's plain
// scalars, and how many of each shape they are. It returns no tasks when
// the framework stated no demand there or none fits.
func (h *Harness) pendingLaunch(o offer.Offer) ([]offer.Task, []int) {
	list := h.stated[o.FrameworkID][o.Role]
	if len(list) == 0 {
		return nil, nil
	}
	left := o.Resources.Filter(isPlainScalar)
	var tasks []offer.Task
	used := make([]int, len(list))
	for i, p := range list {
		for used[i] < p.Count {
			t := left.Shrink(p.Resources, nil)
			if !t.ContainsQuantities(p.Resources) {
				break
			}
			tasks = append(tasks, offer.Task{ID: h.newID("t"), Resources: t})
			left = left.Minus(t)
			used[i]++
		}
	}
	return tasks, used
}

// launched counts the tasks launched (used, by shape) off what the host of
// o's framework waits to run in o's role.
func (h *Harness) launched(o offer.Offer, used []int) {
	list := h.stated[o.FrameworkID][o.Role]
	for i := range min(len(list), len(used)) {
		list[i].Count -= used[i]
	}
}

// demandBeforeRun returns what is left of the statements of demand of the
// frameworks whose hosts stated some, before a run; nil when none did.
func (h *Harness) demandBeforeRun() map[string]map[string][]allocator.Pending {
	if !h.demanded || len(h.stated) == 0 {
		return nil
	}
	out := make(map[string]map[string][]allocator.Pending, len(h.stated))
	for id := range h.stated {
		if d, err := h.a.Demand(id); err == nil && len(d) > 0 {
			out[id] = d
		}
	}
	return out
}

// checkDemandOffers checks a run's offers against the demand before it
// (pending): an offer to a framework that stated demand in the offer's
// role holds one of the tasks pending there, unless the framework held
// resources on the agent before the run (s), which it is offered
// whatever it waits for.
func (h *Harness) checkDemandOffers(pending map[string]map[string][]allocator.Pending, res allocator.Result, s Views, eff *effects) {
	if pending == nil {
		return
	}
	for _, o := range res.Offers {
		list, stated := pending[o.FrameworkID][o.Role]
		if !stated {
			continue
		}
		if v, ok := s.Agent(o.AgentID); ok && !v.Held[o.FrameworkID].IsEmpty() {
			continue
		}
		if !slices.ContainsFunc(list, func(p allocator.Pending) bool { return o.Resources.ContainsQuantities(p.Resources) }) {
			eff.fail("offer %s to %s in role %s on %s: %s holds none of the tasks pending before the run, %v",
				o.ID, o.FrameworkID, o.Role, o.AgentID, o.Resources.Quantities(), pendingText(list))
		}
	}
}

// checkTwinDemand compares what is left of every framework's statements
// of demand in the allocator and in a twin (the fingerprint does not cover
// demand).
func (h *Harness) checkTwinDemand(t *twin) error {
	if err := h.demandDiff(h.a, t.a); err != nil {
		return fmt.Errorf("the %s twin's demand differs from the allocator's: %w", t.name, err)
	}
	return nil
}

// demandDiff compares what is left of the statements of demand of the
// frameworks whose hosts stated some in two allocators (want and got).
func (h *Harness) demandDiff(want, got *allocator.Allocator) error {
	if !h.demanded {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(h.stated)) {
		w, err1 := want.Demand(id)
		g, err2 := got.Demand(id)
		if (err1 == nil) != (err2 == nil) || !sameDemand(w, g) {
			return fmt.Errorf("framework %s: %v (%v), want %v (%v)", id, demandText(g), err2, demandText(w), err1)
		}
	}
	return nil
}

func clonePending(list []allocator.Pending) []allocator.Pending {
	out := make([]allocator.Pending, len(list))
	for i, p := range list {
		out[i] = allocator.Pending{Resources: p.Resources.Clone(), Count: p.Count}
	}
	return out
}

// samePending reports whether got is what is left of stated: its shapes
// with a count, in order.
func samePending(got, stated []allocator.Pending) bool {
	i := 0
	for _, p := range stated {
		if p.Count <= 0 {
			continue
		}
		if i == len(got) || got[i].Count != p.Count || !got[i].Resources.Equal(p.Resources) {
			return false
		}
		i++
	}
	return i == len(got)
}

func sameDemand(a, b map[string][]allocator.Pending) bool {
	if len(a) != len(b) {
		return false
	}
	for role, list := range a {
		other, ok := b[role]
		if !ok || !samePending(other, list) {
			return false
		}
	}
	return true
}

// pendingText renders a statement in call text (the formatting is left to
// the log, which a Fast harness keeps only when asked).
type pendingText []allocator.Pending

func (l pendingText) String() string {
	if len(l) > 8 {
		return fmt.Sprintf("[%d shapes: %s x%d, ...]", len(l), l[0].Resources, l[0].Count)
	}
	parts := make([]string, len(l))
	for i, p := range l {
		parts[i] = fmt.Sprintf("%s x%d", p.Resources, p.Count)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// demandText renders statements by role.
type demandText map[string][]allocator.Pending

func (d demandText) String() string {
	var parts []string
	for _, role := range slices.Sorted(maps.Keys(d)) {
		parts = append(parts, role+": "+pendingText(d[role]).String())
	}
	return "{" + strings.Join(parts, "; ") + "}"
}
