package allocatortest

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Kind is the kind of an Event.
//
// A new kind takes, besides its documentation with the constants:
//
//   - its constant, after the others and before NumKinds, so that every
//     other kind keeps its number;
//   - its name in kindNames, which event text uses;
//   - its handler in handlers (interpret.go): a method named after the
//     kind (onAddAgent for AddAgent), in the file of the handlers that
//     touch what it touches;
//   - its weight in DefaultMix (gen.go), without which no generator draws
//     it. A new weight changes what every seed draws; the kinds
//     TestSeedsDrawTheSequencesTheyDrew sets to zero are those that came
//     after its sequence was recorded, and the new kind joins them.
//
// TestEveryKindHasAHandler fails while a kind lacks a name or a handler
// (a Harness would step over its events as over an unknown kind), and
// TestMix while it lacks a weight.
type Kind uint8

// The event kinds. Each names the allocator call a Harness makes for it;
// what the arguments choose is documented with each.
const (
	// AddAgent adds an agent of the pool (Args[0]) with a total drawn from
	// Args[1..3]: cpus, mem, disk and ports, and by bits of Args[2] gpus,
	// revocable cpus, static, dynamic (labelled) and refined reservations,
	// a MOUNT disk, a persistent volume and a shared volume, reserved for a
	// role of the pool (Args[3]). Sometimes (Args[3]) a known framework
	// already runs tasks on part of it.
	AddAgent Kind = iota
	// RemoveAgent removes an agent (Args[0]).
	RemoveAgent
	// UpdateAgent changes an agent (Args[0]): its attributes, its
	// capabilities, or its total (a new one, grown, or shrunk, possibly
	// below what is in use), by Args[1].
	UpdateAgent
	// ActivateAgent activates an agent (Args[0]).
	ActivateAgent
	// DeactivateAgent deactivates an agent (Args[0]).
	DeactivateAgent
	// AddResourceProvider grows an agent (Args[0]) by a provider's disk.
	AddResourceProvider
	// AddFramework adds a framework of the pool (Args[0]) subscribed to the
	// roles of the pool chosen by the bits of Args[1], with capabilities
	// from Args[2] and, by bits of Args[3], inactive, with a principal, a
	// suppressed role, a minimum allocatable override, offer constraints,
	// or tasks already running on an agent.
	AddFramework
	// RemoveFramework removes a framework (Args[0]).
	RemoveFramework
	// ActivateFramework activates a framework (Args[0]).
	ActivateFramework
	// DeactivateFramework deactivates a framework (Args[0]).
	DeactivateFramework
	// UpdateFramework changes a framework's (Args[0]) roles (Args[1]),
	// capabilities (Args[2]) and suppressed roles (Args[3]).
	UpdateFramework
	// Allocate runs Allocate; AllocateAll runs AllocateAll.
	Allocate
	AllocateAll
	// DeclineOffer gives back an outstanding offer (Args[0]), whole or in part
	// (Args[1]), with a refusal filter chosen by Args[2]; or, now and then
	// (Args[3]), the master rescinds an outstanding offer (Args[0]) with
	// RescindOffer, as at its offer timeout.
	DeclineOffer
	// AcceptOffer launches a task on part of an outstanding offer (Args[0],
	// amount Args[1], volumes by Args[2]) and gives back the rest with a
	// filter (Args[3]). A framework whose host waits to run tasks it
	// stated in the offer's role (UpdateDemand) launches instead as many
	// of them as the offer holds, in the statement's order.
	AcceptOffer
	// Operate applies a framework's operations to an outstanding offer
	// (Args[0]) with UpdateAllocation: reserve, refine, unreserve, create
	// (shared or not), destroy, grow, shrink, launch, or reserve and create
	// in one call (Args[1]), on an amount (Args[2]); Args[3] picks labels,
	// a wrong principal, shared volumes and reused persistence ids. The
	// rest of the offer stays outstanding.
	Operate
	// OperatorOperate applies operator operations to an agent's (Args[0])
	// unallocated resources with UpdateAvailable, chosen like Operate's,
	// for a role of the pool (Args[3]).
	OperatorOperate
	// Recover gives back part (Args[2]) of what a framework uses on an
	// agent (the pair chosen by Args[0]) with RecoverAllocated, as when
	// tasks end, sometimes with a filter (Args[3]).
	Recover
	// Suppress suppresses offers to a framework (Args[0]) in all its roles
	// or one (Args[1]).
	Suppress
	// Revive revives offers to a framework (Args[0]) in all its roles or one
	// (Args[1]).
	Revive
	// SetQuota sets the quota of a role (Args[0]): guarantees (Args[1]) and
	// limits (Args[2]), or removes it (Args[3]).
	SetQuota
	// SetWeights sets the weights of one or two roles (Args[0], Args[1]).
	SetWeights
	// Advance moves the virtual clock by a duration chosen from a table
	// around the refusal filters' expiry (Args[0]).
	Advance
	// Maintenance sets or clears an agent's (Args[0]) maintenance window.
	Maintenance
	// RespondInverse answers an outstanding inverse offer (Args[0]),
	// accepting or declining (Args[1]) with a filter (Args[2]).
	RespondInverse
	// Whitelist sets the whitelist: none, empty, or some agents' hostnames.
	Whitelist
	// PauseResume pauses (rarely) or resumes allocation.
	PauseResume
	// BadInput sends an event that must fail (Args[0] picks one of the
	// cases: unknown ids, duplicates, invalid roles, weights and quota,
	// resources not held or not available, operators launching tasks): it
	// must return the named error and change nothing.
	BadInput
	// EndTask ends a task of a framework (Args[0]) with EndTask: one it
	// runs (Args[1]), or, by Args[2], one that ended already or an id it
	// never launched, which must fail with ErrUnknownTask and change
	// nothing.
	EndTask
	// AcceptEach accepts an outstanding offer (Args[0]) with AcceptEach:
	// a launch (amount Args[1]) and an operation chosen like Operate's
	// (Args[2]), and by bits of Args[3] a launch of a task id already
	// used or a reservation of resources not offered, both of which must
	// be dropped; the rest is given back with a filter (Args[3]>>4). Now
	// and then (Args[3]&8) it accepts the offer declined last instead,
	// which must fail with ErrNotHeld unless the framework holds it again.
	AcceptEach
	// Overflow sends an event that would take a sum the allocator keeps
	// past resources.MaxTotal, or reach it exactly (Args[0]): quota
	// guarantees on a role (Args[1]) that bring the guarantees of all
	// roles to one unit past the bound, which must fail with ErrOverflow
	// and change nothing, or exactly to it, which must succeed; an
	// agent's total (Args[2]) of more than MaxTotal, which must fail with
	// ErrOverflow.
	Overflow
	// Preempt preempts a task of a framework (Args[0], task Args[1]) with
	// PreemptTask, holding its resources for the framework for a time
	// chosen by Args[2]; by Args[2], an unknown task or a hold of no time,
	// which must fail and change nothing, or (Args[3]) RecoverHeld of part
	// of what the framework uses on an agent.
	Preempt
	// SnapshotRestore saves the allocator with Snapshot and restores the
	// snapshot into a new allocator, whose state must be the saved one's
	// (fingerprint and Describe) and which must save the same bytes.
	SnapshotRestore
	// Corners stands for a Corner (Args[0] picks it, the other arguments
	// and Args[0]>>4 are its arguments): GenSequence, Decode and
	// DecodeBiased expand it into the corner's events, so it never reaches
	// a harness from them; a Harness steps over one as over nothing.
	Corners
	// UpdateDemand states what a framework (Args[0]) waits for in one of
	// its roles (Args[1]) with UpdateDemand: by Args[2], nothing (the
	// framework then waits for nothing in the role), what its host still
	// waits to run of its last statement (the tasks stated less those it
	// launched since, as a host states its demand again after answering
	// its offers), or one to three new shapes of small cpus, mem, disk
	// and gpus with counts from one to six, drawn from Args[1..3]. Now
	// and then (Args[3] modulo 32) the statement is invalid: a count of
	// zero, a shape of no resources, more than allocator.MaxPending
	// shapes, a role the framework does not subscribe to, or an unknown
	// framework, which must fail with the error it names and change
	// nothing. A framework that stated demand launches its pending tasks
	// on the offers it accepts (AcceptOffer).
	UpdateDemand

	// NumKinds is the number of event kinds.
	NumKinds
)

// The kinds' earlier names.
const (
	// Deprecated: use DeclineOffer.
	Decline = DeclineOffer
	// Deprecated: use AcceptOffer; allocator.InverseAccepted answers an
	// inverse offer.
	Accept = AcceptOffer
)

var kindNames = [NumKinds]string{
	AddAgent: "add-agent", RemoveAgent: "remove-agent", UpdateAgent: "update-agent",
	ActivateAgent: "activate-agent", DeactivateAgent: "deactivate-agent",
	AddResourceProvider: "add-resource-provider",
	AddFramework:        "add-framework", RemoveFramework: "remove-framework",
	ActivateFramework: "activate-framework", DeactivateFramework: "deactivate-framework",
	UpdateFramework: "update-framework",
	Allocate:        "allocate", AllocateAll: "allocate-all",
	DeclineOffer: "decline", AcceptOffer: "accept", Operate: "operate", OperatorOperate: "operator-operate",
	Recover: "recover", Suppress: "suppress", Revive: "revive",
	SetQuota: "quota", SetWeights: "weights", Advance: "advance",
	Maintenance: "maintenance", RespondInverse: "respond-inverse",
	Whitelist: "whitelist", PauseResume: "pause-resume", BadInput: "bad-input",
	EndTask: "end-task", AcceptEach: "accept-each", Overflow: "overflow",
	Preempt: "preempt", SnapshotRestore: "snapshot-restore", Corners: "corners",
	UpdateDemand: "update-demand",
}

// String returns the kind's name in event text, such as "add-agent".
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind returns the kind with the given name.
func ParseKind(name string) (Kind, bool) {
	for k, n := range kindNames {
		if n == name {
			return Kind(k), true
		}
	}
	return 0, false
}

// Event is one thing that happens to an allocator, as plain data: a kind
// and four small numbers that a Harness interprets against the state it
// finds ("decline outstanding offer number Args[0] modulo their count").
// The same events on the same state always mean the same calls, so a
// sequence of events can be generated, shrunk, written down and replayed.
type Event struct {
	Kind Kind
	Args [4]uint8
}

// String prints the event as "kind a b c d".
func (e Event) String() string {
	return fmt.Sprintf("%s %d %d %d %d", e.Kind, e.Args[0], e.Args[1], e.Args[2], e.Args[3])
}

// ParseEvent reads what Event.String prints.
func ParseEvent(line string) (Event, error) {
	f := strings.Fields(line)
	if len(f) != 5 {
		return Event{}, fmt.Errorf("allocatortest: event %q: want a kind and four numbers", line)
	}
	k, ok := ParseKind(f[0])
	if !ok {
		return Event{}, fmt.Errorf("allocatortest: event %q: unknown kind %q", line, f[0])
	}
	e := Event{Kind: k}
	for i := range e.Args {
		n, err := strconv.ParseUint(f[i+1], 10, 8)
		if err != nil {
			return Event{}, fmt.Errorf("allocatortest: event %q: argument %d: %w", line, i, err)
		}
		e.Args[i] = uint8(n)
	}
	return e, nil
}

// Sequence is a seed for the allocator (Options.Seed) and the events to
// feed it.
type Sequence struct {
	Seed   int64
	Events []Event
}

// String prints the sequence as text: "seed N" and then one event a line.
// ParseSequence reads it back.
func (s Sequence) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d\n", s.Seed)
	for _, e := range s.Events {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Line prints the sequence on one line, "seed N; kind a b c d; ...", for
// a command line; ParseSequence reads it back.
func (s Sequence) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d", s.Seed)
	for _, e := range s.Events {
		b.WriteString("; ")
		b.WriteString(e.String())
	}
	return b.String()
}

// ParseSequence reads what Sequence.String and Sequence.Line print: a seed
// and events, one a line or separated by ';'. Blank lines and lines
// starting with '#' are skipped.
func ParseSequence(text string) (Sequence, error) {
	var s Sequence
	seenSeed := false
	for line := range strings.Lines(strings.ReplaceAll(text, ";", "\n")) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "seed "); ok && !seenSeed {
			n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			if err != nil {
				return Sequence{}, fmt.Errorf("allocatortest: seed line %q: %w", line, err)
			}
			s.Seed, seenSeed = n, true
			continue
		}
		e, err := ParseEvent(line)
		if err != nil {
			return Sequence{}, err
		}
		s.Events = append(s.Events, e)
	}
	return s, nil
}

// eventBytes is the size of one event in the byte coding.
const eventBytes = 5

// Decode reads a sequence from bytes, as a fuzzer produces them: two bytes
// of seed, then five bytes an event (a kind, taken modulo NumKinds, and the
// four arguments). A trailing partial event is ignored. Every byte string
// decodes to some sequence.
func Decode(data []byte) Sequence {
	var s Sequence
	if len(data) >= 2 {
		s.Seed = int64(binary.LittleEndian.Uint16(data))
		data = data[2:]
	}
	for len(data) >= eventBytes {
		e := Event{Kind: Kind(data[0] % uint8(NumKinds))}
		copy(e.Args[:], data[1:eventBytes])
		s.Events = appendEvent(s.Events, e)
		data = data[eventBytes:]
	}
	return s
}

// appendEvent appends e to events, or the events of the corner it stands
// for.
func appendEvent(events []Event, e Event) []Event {
	if e.Kind != Corners {
		return append(events, e)
	}
	x := e.Args
	c := Corner(x[0]) % NumCorners
	x[0] >>= 4
	return append(events, corner(c, x)...)
}

// Encode writes a sequence in the byte coding Decode reads. Only the low
// 16 bits of the seed are kept.
func Encode(s Sequence) []byte {
	out := make([]byte, 2, 2+eventBytes*len(s.Events))
	binary.LittleEndian.PutUint16(out, uint16(s.Seed))
	for _, e := range s.Events {
		out = append(out, byte(e.Kind))
		out = append(out, e.Args[:]...)
	}
	return out
}
