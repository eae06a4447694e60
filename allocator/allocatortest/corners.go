package allocatortest

import (
	"encoding/binary"
	"slices"
	"sync"
)

// kindSlots is how many values of an event's first byte DecodeBiased
// reads as a kind; the values from kindSlots up choose a corner.
const kindSlots = 224

// Corner is a short run of events that reaches a state where the
// allocator's rules meet: DecodeBiased expands the byte values it does not
// read as kinds into one of them, with the event's four arguments.
type Corner uint8

// The corners.
const (
	// FilterAtExpiry declines an offer with a refusal filter, moves the
	// clock to exactly its expiry and runs a batch (the filter is still in
	// force), then one millisecond more and another batch.
	FilterAtExpiry Corner = iota
	// NearCap adds an agent whose cpus are near the largest amount a
	// resource may hold, and runs a batch.
	NearCap
	// QuotaAtLimit sets a role's quota with its limits equal to its
	// guarantees, runs a batch, accepts an offer whole and runs again.
	QuotaAtLimit
	// SharedInUse adds an agent with a shared volume and a framework of
	// its role that takes shared resources, launches a task on the
	// volume, runs a batch (the volume is offered again while in use),
	// and tries to destroy the volume, before and after the task ends.
	SharedInUse
	// DeclinedAgain declines an offer, accepts what it declined (which
	// must fail unless it was offered again), runs a batch and tries
	// again.
	DeclinedAgain
	// EndedTwice runs a batch, launches a task and ends it, then ends it
	// again and ends a task never launched: both must fail and change
	// nothing.
	EndedTwice
	// QuotaOverflow sets a quota guarantee at resources.MaxScalar, the
	// bound of quota values, runs a batch, and goes one milli-unit past it,
	// which must be refused.
	QuotaOverflow
	// QuotaAfterRuns sets a role's limit low and runs a batch, declines an
	// offer for an hour and runs again, then raises the limit, lowers it
	// to nothing and removes the quota, with a batch after each: a filter
	// installed on an offer cut down by a limit, and roles capped by it,
	// must not outlive the limit.
	QuotaAfterRuns
	// RoleRecreated declines an offer for an hour, runs a batch, removes a
	// framework and adds one (often the same id, in the same roles), and
	// runs again: when a role's last framework leaves and a framework
	// joins it again, nothing the role's old frameworks refused may stick.
	RoleRecreated
	// HeldBesideFilter runs a batch, accepts an offer launching a task on
	// part of it with an hour's filter on the rest, preempts a task of a
	// framework and runs the agents: held resources are offered to their
	// framework unless a filter covers them.
	HeldBesideFilter
	// RefusedByMany adds frameworks to one role and has them decline the
	// same agents for an hour, one batch after another, so that agents
	// are refused by enough frameworks of a role for the refusal index.
	RefusedByMany

	// NumCorners is the number of corners.
	NumCorners
)

// corner returns the events of corner c with arguments x.
func corner(c Corner, x [4]uint8) []Event {
	ev := newEvent
	switch c {
	case FilterAtExpiry:
		return filterAtExpiry(x)
	case NearCap:
		return []Event{ev(AddAgent, x[0], x[1]|0x80, x[2], x[3]), ev(AllocateAll, 0, 0, 0, 0)}
	case QuotaAtLimit:
		return []Event{
			ev(SetQuota, x[0], 1+x[1]%3, 1, 1),
			ev(AllocateAll, 0, 0, 0, 0),
			ev(AcceptOffer, x[2], 3, 0, x[3]),
			ev(AllocateAll, 0, 0, 0, 0),
		}
	case SharedInUse:
		return []Event{
			ev(AddAgent, x[0], x[1], x[2]|0x80, x[3]),
			ev(AddFramework, x[3], 0, 1|x[2]&0x1e, 0),
			ev(Allocate, 0, 0, 0, 0),
			ev(AcceptOffer, x[0], x[1], 1, 0),
			ev(AllocateAll, 0, 0, 0, 0),
			ev(Operate, x[0], 4, 0, 4),
			ev(EndTask, x[3], 0, 0, 0),
			ev(Operate, x[0], 4, 0, 4),
		}
	case DeclinedAgain:
		return []Event{
			ev(Allocate, 0, 0, 0, 0),
			ev(DeclineOffer, x[0], 1, x[1], 0),
			ev(AcceptEach, 0, x[2], x[3], 8|x[3]&0xf7),
			ev(AllocateAll, 0, 0, 0, 0),
			ev(AcceptEach, 0, x[2], x[3], 8|x[3]&0xf7),
		}
	case EndedTwice:
		return []Event{
			ev(Allocate, 0, 0, 0, 0),
			ev(AcceptOffer, x[0], x[1], 0, 0),
			ev(EndTask, x[2], 0, 0, 0),
			ev(EndTask, x[2], x[1], 6, 0),
			ev(EndTask, x[2], 0, 7, 0),
		}
	case QuotaAfterRuns:
		return quotaAfterRuns(x)
	case RoleRecreated:
		return []Event{
			ev(AllocateAll, 0, 0, 0, 0),
			ev(DeclineOffer, x[0], 1, 7, 0),
			ev(AllocateAll, 0, 0, 0, 0),
			ev(RemoveFramework, x[1], 0, 0, 0),
			ev(AddFramework, x[1], x[2], x[3], 0),
			ev(AllocateAll, 0, 0, 0, 0),
		}
	case HeldBesideFilter:
		return []Event{
			ev(AllocateAll, 0, 0, 0, 0),
			ev(AcceptOffer, x[0], x[1], 0, 7),
			ev(Preempt, x[2], x[3], 2, 0),
			ev(Allocate, 0, 0, 0, 0),
			ev(AllocateAll, 0, 0, 0, 0),
		}
	case RefusedByMany:
		return refusedByMany(x)
	default:
		return []Event{
			ev(Overflow, 1, x[1], 0, 0),
			ev(AllocateAll, 0, 0, 0, 0),
			ev(Overflow, 0, x[1]+1, 0, 0),
			ev(SetQuota, x[2], x[3], 0, 1),
		}
	}
}

// newEvent is an event of kind k with arguments a, b, c and d.
func newEvent(k Kind, a, b, c, d uint8) Event { return Event{Kind: k, Args: [4]uint8{a, b, c, d}} }

// filterAtExpiry returns FilterAtExpiry's events.
func filterAtExpiry(x [4]uint8) []Event {
	ev := newEvent
	// Refusals (an index of refuse's table) and the Advance that
	// reaches their expiry exactly: 1 s, 5 s, 10 s, the default 5 s,
	// and 1 ms, which lasts one allocation interval (1 s).
	pairs := [][2]uint8{{3, 4}, {5, 8}, {6, 10}, {1, 8}, {2, 4}}
	p := pairs[int(x[2])%len(pairs)]
	return []Event{
		ev(Allocate, 0, 0, 0, 0),
		ev(DeclineOffer, x[0], 1, p[0], 0),
		ev(Advance, p[1], 0, 0, 0),
		ev(AllocateAll, 0, 0, 0, 0),
		ev(Advance, 1, 0, 0, 0),
		ev(AllocateAll, 0, 0, 0, 0),
	}
}

// quotaAfterRuns returns QuotaAfterRuns's events.
func quotaAfterRuns(x [4]uint8) []Event {
	ev := newEvent
	// quota's tables: limits 3 is cpus:1, 5 cpus:8;mem:8192, 4
	// cpus:0; refuse's 7 is an hour; a last argument of 0 removes
	// the quota.
	return []Event{
		ev(SetQuota, x[0], x[1], 3, 1),
		ev(AllocateAll, 0, 0, 0, 0),
		ev(DeclineOffer, x[2], 1, 7, 0),
		ev(AllocateAll, 0, 0, 0, 0),
		ev(SetQuota, x[0], x[1], 5, 1),
		ev(AllocateAll, 0, 0, 0, 0),
		ev(SetQuota, x[0], x[1], 4, 1),
		ev(AllocateAll, 0, 0, 0, 0),
		ev(SetQuota, x[0], 0, 0, 0),
		ev(AllocateAll, 0, 0, 0, 0),
	}
}

// refusedByMany returns RefusedByMany's events.
func refusedByMany(x [4]uint8) []Event {
	ev := newEvent
	events := []Event{}
	for i := range uint8(5) {
		events = append(events, ev(AddFramework, x[0]+i, 1, x[2], 0))
	}
	for range 6 {
		events = append(events, ev(AllocateAll, 0, 0, 0, 0), ev(DeclineOffer, x[1], 1, 7, 0))
	}
	return append(events, ev(AllocateAll, 0, 0, 0, 0))
}

// kindTable maps the first byte of an event (below kindSlots) to a kind:
// each kind gets a share of the values in proportion to its weight in
// DefaultMix, and at least one.
var kindTable = sync.OnceValue(func() [kindSlots]Kind {
	mix := DefaultMix()
	total := mix.total()
	var slots [NumKinds]int
	used := 0
	for k, w := range mix {
		slots[k] = max(1, w*kindSlots/total)
		used += slots[k]
	}
	// Largest remainders first for what rounding left; the heaviest kinds
	// give back what the minimum of one took.
	order := make([]int, NumKinds)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return mix[b]*kindSlots%total - mix[a]*kindSlots%total })
	for i := 0; used < kindSlots; i = (i + 1) % len(order) {
		slots[order[i]]++
		used++
	}
	slices.SortStableFunc(order, func(a, b int) int { return mix[b] - mix[a] })
	for i := 0; used > kindSlots; i = (i + 1) % len(order) {
		if slots[order[i]] > 1 {
			slots[order[i]]--
			used--
		}
	}
	var t [kindSlots]Kind
	i := 0
	for k, n := range slots {
		for range n {
			t[i] = Kind(k)
			i++
		}
	}
	return t
})

// DecodeBiased reads a sequence from bytes as Decode does (two bytes of
// seed, then five bytes an event), but leans towards the states that
// matter: the first byte of an event is read as a kind with the weights of
// DefaultMix (most byte strings then make offers and answer them, as a
// real cluster does), and its top values (from 224) as a Corner, expanded
// into its events. Every byte string decodes to some sequence; the
// sequence, not the bytes, is what a failure prints and replays.
func DecodeBiased(data []byte) Sequence {
	var s Sequence
	if len(data) >= 2 {
		s.Seed = int64(binary.LittleEndian.Uint16(data))
		data = data[2:]
	}
	table := kindTable()
	for len(data) >= eventBytes {
		var x [4]uint8
		copy(x[:], data[1:eventBytes])
		if b := data[0]; b < kindSlots {
			s.Events = appendEvent(s.Events, Event{Kind: table[b], Args: x})
		} else {
			s.Events = append(s.Events, corner(Corner(b-kindSlots)%NumCorners, x)...)
		}
		data = data[eventBytes:]
	}
	return s
}

// EncodeBiased writes a sequence in the byte coding DecodeBiased reads
// (without corners): DecodeBiased(EncodeBiased(s)) is s, but for the seed,
// of which the low 16 bits are kept.
func EncodeBiased(s Sequence) []byte {
	var first [NumKinds]byte
	table := kindTable()
	for i := len(table) - 1; i >= 0; i-- {
		first[table[i]] = byte(i)
	}
	out := make([]byte, 2, 2+eventBytes*len(s.Events))
	binary.LittleEndian.PutUint16(out, uint16(s.Seed))
	for _, e := range s.Events {
		k := e.Kind
		if k >= NumKinds {
			k = Allocate
		}
		out = append(out, first[k])
		out = append(out, e.Args[:]...)
	}
	return out
}
