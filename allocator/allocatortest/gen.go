package allocatortest

import (
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// Mix weighs the event kinds for GenEvent and GenSequence: a kind is drawn
// with probability proportional to its weight; kinds of weight zero never
// appear. Index it by Kind:
//
//	mix := allocatortest.Mix{allocatortest.AddAgent: 1, allocatortest.Allocate: 3}
type Mix [NumKinds]int

// DefaultMix exercises every kind: offers are answered (declined with
// filters, accepted, operated on) about as often as they are made, the
// cluster changes slowly, bad input appears now and then, and now and
// then a Corner's events come in a row. The kinds added last (EndTask,
// AcceptEach, Overflow, Preempt, SnapshotRestore, Corners, UpdateDemand)
// change what a seed draws; with their weights set to zero, GenSequence
// draws from a seed the sequences it drew before they were added.
func DefaultMix() Mix {
	return Mix{
		AddAgent: 5, RemoveAgent: 2, UpdateAgent: 3, ActivateAgent: 2, DeactivateAgent: 1,
		AddResourceProvider: 1,
		AddFramework:        5, RemoveFramework: 2, ActivateFramework: 2, DeactivateFramework: 1,
		UpdateFramework: 2,
		Allocate:        10, AllocateAll: 6,
		DeclineOffer: 14, AcceptOffer: 10, Operate: 14, OperatorOperate: 5, Recover: 6,
		Suppress: 2, Revive: 3, SetQuota: 4, SetWeights: 2, Advance: 8,
		Maintenance: 1, RespondInverse: 2, Whitelist: 1, PauseResume: 1, BadInput: 4,
		EndTask: 6, AcceptEach: 6, Overflow: 1, Preempt: 3, SnapshotRestore: 1,
		Corners: 3, UpdateDemand: 4,
	}
}

// Only returns a mix of the given kinds, each of weight 1.
func Only(kinds ...Kind) Mix {
	var m Mix
	for _, k := range kinds {
		if k < NumKinds {
			m[k] = 1
		}
	}
	return m
}

func (m Mix) pick(n int) Kind {
	for k, w := range m {
		if w <= 0 {
			continue
		}
		if n < w {
			return Kind(k)
		}
		n -= w
	}
	return Allocate
}

func (m Mix) total() int {
	t := 0
	for _, w := range m {
		if w > 0 {
			t += w
		}
	}
	return t
}

// GenEvent generates events with kinds weighed by mix and random
// arguments. A mix of all zeros generates Allocate events.
func GenEvent(mix Mix) gopter.Gen {
	total := mix.total()
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(randomEvent(p, mix, total), gopter.NoShrinker)
	}
}

func randomEvent(p *gopter.GenParameters, mix Mix, total int) Event {
	e := Event{Kind: Allocate}
	if total > 0 {
		e.Kind = mix.pick(p.Rng.Intn(total))
	}
	for i := range e.Args {
		e.Args[i] = uint8(p.Rng.Intn(256))
	}
	return e
}

// GenSequence generates a Sequence: a 16-bit allocator seed and between
// maxEvents/2 and maxEvents events: one to three AddAgent and AddFramework
// events each first (when the mix has them), then events weighed by mix.
// A failing sequence shrinks by dropping runs of events, halves first,
// then single ones.
func GenSequence(mix Mix, maxEvents int) gopter.Gen {
	maxEvents = max(maxEvents, 1)
	total := mix.total()
	return func(p *gopter.GenParameters) *gopter.GenResult {
		n := (maxEvents+1)/2 + p.Rng.Intn(maxEvents/2+1)
		s := Sequence{Seed: int64(p.Rng.Intn(1 << 16)), Events: make([]Event, 0, n)}
		// Start with a few agents and frameworks, if the mix has them.
		for _, k := range []Kind{AddAgent, AddFramework} {
			if mix[k] <= 0 {
				continue
			}
			for range min(1+p.Rng.Intn(3), n-len(s.Events)) {
				e := randomEvent(p, Only(k), 1)
				s.Events = append(s.Events, e)
			}
		}
		for len(s.Events) < n {
			s.Events = appendEvent(s.Events, randomEvent(p, mix, total))
		}
		return gopter.NewGenResult(s, shrinkSequence)
	}
}

// shrinkSequence offers the sequence with one run of events removed: runs
// of half the length first, down to single events.
func shrinkSequence(v interface{}) gopter.Shrink {
	s := v.(Sequence)
	n := len(s.Events)
	chunk, start := n/2, 0
	if chunk == 0 && n > 0 {
		chunk = 1
	}
	return func() (interface{}, bool) {
		for chunk > 0 {
			if start < n {
				end := min(start+chunk, n)
				events := make([]Event, 0, n-(end-start))
				events = append(events, s.Events[:start]...)
				events = append(events, s.Events[end:]...)
				start += chunk
				return Sequence{Seed: s.Seed, Events: events}, true
			}
			chunk, start = chunk/2, 0
		}
		return nil, false
	}
}

// RunSequence runs s through a new Harness made with opts, its allocator
// seeded with s.Seed, and returns the first violation, if any. A panic of
// the allocator (or of a check) is a violation too, with its stack, so that
// long runs report it, shrink it and go on.
func RunSequence(opts Options, s Sequence) (err error) {
	opts.Allocator.Seed = s.Seed
	h, err := New(opts)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("allocatortest: panic after %d events: %v\n%s", len(s.Events), r, debug.Stack())
		}
	}()
	return h.Run(s.Events)
}

// Shrink returns the shortest sequence it finds, made of events of s in
// their order and s's seed, on which RunSequence(opts, ·) still reports a
// violation; s if it has none. It removes runs of events, halves first,
// down to single events, and starts again while that helps; it runs at
// most maxRuns sequences (zero: no bound). The sequences run with Fast.
func Shrink(opts Options, s Sequence, maxRuns int) Sequence {
	opts.Fast = true
	runs := 0
	fails := func(c Sequence) bool {
		runs++
		return RunSequence(opts, c) != nil
	}
	if !fails(s) {
		return s
	}
	for {
		shrunk := false
		for chunk := len(s.Events) / 2; chunk >= 1; chunk /= 2 {
			for start := 0; start+chunk <= len(s.Events); {
				if maxRuns > 0 && runs >= maxRuns {
					return s
				}
				c := Sequence{Seed: s.Seed, Events: append(slices.Clip(s.Events[:start]), s.Events[start+chunk:]...)}
				if fails(c) {
					s, shrunk = c, true
					continue
				}
				start += chunk
			}
		}
		if !shrunk {
			return s
		}
	}
}

// Property returns a gopter property that runs every generated sequence
// (GenSequence(mix, maxEvents)) through RunSequence. A failure is labelled
// with the violation, the sequence in the text ParseSequence reads and on
// one line, and shrunk; gopter prints the shrunk sequence's label and the
// seed to generate the sequences again.
func Property(opts Options, mix Mix, maxEvents int) gopter.Prop {
	return prop.ForAll(func(s Sequence) string {
		if err := RunSequence(opts, s); err != nil {
			return fmt.Sprintf("%v\nsequence:\n%s\non one line: %s", err, s, s.Line())
		}
		return ""
	}, GenSequence(mix, maxEvents))
}

// Sequences returns n sequences drawn by GenSequence(mix, maxEvents) from a
// generator seeded with seed: the same arguments give the same sequences.
func Sequences(seed int64, n int, mix Mix, maxEvents int) []Sequence {
	p := gopter.DefaultGenParameters().CloneWithSeed(seed)
	g := GenSequence(mix, maxEvents)
	out := make([]Sequence, n)
	for i := range out {
		v, _ := g(p).Retrieve()
		out[i] = v.(Sequence)
	}
	return out
}

// Config is a named harness configuration and event mix for the
// random-event properties.
type Config struct {
	Name    string
	Options Options
	Mix     Mix
}

// Configs returns the configurations the allocator's own random-event
// properties, its event fuzzer and its long run use:
//
//   - "all events": every kind of event: quota on nested roles, shared
//     volumes made, offered and destroyed while other offers hold them,
//     agents whose new totals drop what is in use;
//   - "operations": mostly operations on offers (reservations,
//     refinements, volumes and shared volumes, resizes); before a shared
//     volume is destroyed, the harness rescinds the offers that hold it,
//     as Mesos's master does; offers to frameworks that state demand hold
//     everything left for them (WholeOffers);
//   - "random sorter": the random sorter, fairness exclusions, a region,
//     GPUs offered to all, no minimum allocatable resources and a longer
//     interval; quota on top-level roles only and offers in Mesos's order
//     after declines (MesosOfferOrder), as in Mesos;
//   - "nested roles": DRF with fairness exclusions and one deep family of
//     roles, each with quota now and then;
//   - "default role": frameworks in the default role "*" too, with quota
//     and weights on it, as Mesos allows;
//   - "beyond Mesos": the options beyond Mesos on (ChargeBeyondAllowance,
//     ReservedFirst, OfferShare), with holds and quota changes more often;
//   - "one role, many frameworks": eight frameworks mostly in one role,
//     declining often, so that agents are refused by enough frameworks of
//     a role for the refusal index, and stating demand often, so that
//     agents are handed out task by task among them;
//   - "reclaim": reclaim across roles for guarantees and fair shares
//     (Options.Reclaim), for the pending tasks frameworks state: demand,
//     launches, quota changes and task ends often, chosen tasks among the
//     ends; declines, operations and new agents, which leave room free,
//     seldom.
//
// Each call returns new values.
func Configs() []Config {
	operations := DefaultMix()
	operations[Operate] = 30
	operations[OperatorOperate] = 10
	beyond := DefaultMix()
	beyond[Preempt], beyond[SetQuota], beyond[Corners] = 8, 8, 5
	many := DefaultMix()
	many[AddFramework], many[DeclineOffer], many[AllocateAll], many[Corners], many[UpdateDemand] = 8, 20, 10, 5, 10
	// Reclaim makes room only for stated pending tasks on a cluster with
	// nothing free for them: frameworks state demand often and launch
	// what they are offered, and what is given back, operated on or
	// added is rarer.
	reclaim := DefaultMix()
	reclaim[AcceptOffer], reclaim[AcceptEach], reclaim[EndTask], reclaim[SetQuota], reclaim[AllocateAll], reclaim[UpdateDemand] = 30, 10, 12, 16, 12, 40
	reclaim[DeclineOffer], reclaim[Operate], reclaim[OperatorOperate], reclaim[Recover], reclaim[AddAgent], reclaim[RemoveAgent] = 4, 4, 1, 2, 3, 1
	return []Config{
		{Name: "all events", Options: Options{}, Mix: DefaultMix()},
		{Name: "operations", Options: Options{RescindSharedVolumes: true, Allocator: allocator.Options{WholeOffers: true}}, Mix: operations},
		{
			Name: "random sorter",
			Options: Options{
				QuotaRoles: []string{"a", "b", "c"}, Agents: 4, Frameworks: 3,
				Allocator: allocator.Options{
					RoleSorter:                func(c sorter.Config) sorter.Sorter { return sorter.NewRandom(c) },
					FrameworkSorter:           func(c sorter.Config) sorter.Sorter { return sorter.NewRandom(c) },
					FairnessExcludedResources: []string{"gpus"},
					Region:                    "east",
					AllowGPUsToAll:            true,
					MinAllocatable:            []resources.Quantities{},
					AllocationInterval:        5 * time.Second,
					MesosOfferOrder:           true,
				},
			},
			Mix: DefaultMix(),
		},
		{
			Name: "nested roles",
			Options: Options{
				Roles:     []string{"a", "a/b", "a/b/c", "a/b/c/d", "a/e"},
				Allocator: allocator.Options{FairnessExcludedResources: []string{"gpus", "disk"}},
			},
			Mix: DefaultMix(),
		},
		{
			Name:    "default role",
			Options: Options{Roles: []string{"*", "a", "a/b", "b"}},
			Mix:     DefaultMix(),
		},
		{
			Name: "beyond Mesos",
			Options: Options{Allocator: allocator.Options{
				ChargeBeyondAllowance: true, ReservedFirst: true, OfferShare: 0.5,
			}},
			Mix: beyond,
		},
		{
			Name:    "one role, many frameworks",
			Options: Options{Roles: []string{"a", "b"}, Frameworks: 8, Agents: 4},
			Mix:     many,
		},
		{
			Name: "reclaim",
			Options: Options{QuotaRoles: []string{"a", "b"}, Allocator: allocator.Options{
				Reclaim: allocator.ReclaimFairShare, ReclaimTimeout: 5 * time.Second,
			}},
			Mix: reclaim,
		},
	}
}
