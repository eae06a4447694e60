package allocatortest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// How an event becomes allocator calls: apply hands it to its kind's
// handler in handlers, which reads the event's four numbers against the
// views taken before the step, makes the calls and records in the step's
// effects what they did. The handlers are methods named after their kinds
// (onAddAgent for AddAgent), kept with the helpers only they use in files
// grouped by what they touch:
//
//   - agents.go: agents added, removed, updated, activated, grown by a
//     resource provider, under maintenance;
//   - frameworks.go: frameworks added, removed, updated, activated,
//     suppressed and revived;
//   - offers.go: allocation runs, and offers and inverse offers answered
//     (declined, accepted, recovered);
//   - operations.go: operations on offers (UpdateAllocation, AcceptEach)
//     and on agents (UpdateAvailable);
//   - tasks.go: tasks ended and preempted;
//   - quota.go: quota, weights, and sums taken past their bound;
//   - control.go: what acts on the allocator as a whole: the virtual
//     clock, the whitelist, pausing, snapshots;
//   - demand.go: statements of demand, and the tasks the frameworks'
//     hosts wait to run;
//   - badinput.go: calls that must fail.
//
// This file keeps what several of them share: how an outcome is recorded,
// how an event's numbers choose ids, amounts and filters, and the
// outstanding offers that events answer.

// handler turns an event of one kind into allocator calls against the
// views s taken before the step, and records in eff what they did.
type handler func(h *Harness, ev Event, s Views, eff *effects)

// handlers are the event kinds' handlers, indexed by Kind. A kind without
// one would be stepped over as unknown; a test makes sure every kind has
// one.
var handlers = [NumKinds]handler{
	AddAgent:            (*Harness).onAddAgent,
	RemoveAgent:         (*Harness).onRemoveAgent,
	UpdateAgent:         (*Harness).onUpdateAgent,
	ActivateAgent:       (*Harness).onActivateAgent,
	DeactivateAgent:     (*Harness).onDeactivateAgent,
	AddResourceProvider: (*Harness).onAddResourceProvider,
	AddFramework:        (*Harness).onAddFramework,
	RemoveFramework:     (*Harness).onRemoveFramework,
	ActivateFramework:   (*Harness).onActivateFramework,
	DeactivateFramework: (*Harness).onDeactivateFramework,
	UpdateFramework:     (*Harness).onUpdateFramework,
	Allocate:            (*Harness).onAllocate,
	AllocateAll:         (*Harness).onAllocateAll,
	DeclineOffer:        (*Harness).onDeclineOffer,
	AcceptOffer:         (*Harness).onAcceptOffer,
	Operate:             (*Harness).onOperate,
	OperatorOperate:     (*Harness).onOperatorOperate,
	Recover:             (*Harness).onRecover,
	Suppress:            (*Harness).onSuppress,
	Revive:              (*Harness).onRevive,
	SetQuota:            (*Harness).onSetQuota,
	SetWeights:          (*Harness).onSetWeights,
	Advance:             (*Harness).onAdvance,
	Maintenance:         (*Harness).onMaintenance,
	RespondInverse:      (*Harness).onRespondInverse,
	Whitelist:           (*Harness).onWhitelist,
	PauseResume:         (*Harness).onPauseResume,
	BadInput:            (*Harness).onBadInput,
	EndTask:             (*Harness).onEndTask,
	AcceptEach:          (*Harness).onAcceptEach,
	Overflow:            (*Harness).onOverflow,
	Preempt:             (*Harness).onPreempt,
	SnapshotRestore:     (*Harness).onSnapshotRestore,
	Corners:             (*Harness).onCorners,
	UpdateDemand:        (*Harness).onUpdateDemand,
}

// apply makes the calls ev stands for, through its kind's handler. A host
// may step an Event of a kind past NumKinds: it changes nothing.
func (h *Harness) apply(ev Event, s Views, eff *effects) {
	if ev.Kind < NumKinds && handlers[ev.Kind] != nil {
		handlers[ev.Kind](h, ev, s, eff)
		return
	}
	h.record(eff, nil, "unknown event kind")
}

// record sets the outcome of the step's main call: its error, and its
// text for the log. The text is formatted only when the harness keeps a
// log: a Fast harness keeps none unless Options.Log says, and spares
// the formatting.
func (h *Harness) record(eff *effects, err error, format string, args ...any) {
	eff.err = err
	if h.text {
		eff.call = fmt.Sprintf(format, args...)
	}
}

// recordBad is record for a call that must fail with want.
func (h *Harness) recordBad(eff *effects, want, err error, format string, args ...any) {
	eff.want = want
	h.record(eff, err, format, args...)
}

// unknownFramework and unknownAgent are ids no pool ever holds.
const (
	unknownFramework = "no-such-framework"
	unknownAgent     = "no-such-agent"
)

// pick returns the element of list that b chooses, b modulo the length,
// or false for an empty list.
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
