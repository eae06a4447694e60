package allocator_test

import (
	"testing"

	"github.com/allot-go/allot/allocator/allocatortest"
)

// maxFuzzEvents bounds one fuzz input, so that every input runs quickly.
const maxFuzzEvents = 64

// FuzzAllocatorEvents feeds the allocator byte-coded events through a
// Harness with Fast checks: the first byte picks one of
// allocatortest.Configs, the rest is read by allocatortest.DecodeBiased
// (two bytes of seed, then five bytes an event; the top values of an
// event's first byte expand into a corner: a refusal at its expiry, an
// agent near the largest amount, quota at its limit, a shared volume in
// use, an offer accepted after it was declined, a task ended twice, quota
// guarantees at and past the bound, quota changed right after runs, a role
// left and joined again, held resources beside a filter, an agent refused
// by many frameworks of a role). Every kind of event has values of the
// first byte (statements of demand among them). No input may panic or
// break a property: the checks include the cache-free twin and work
// conservation. The seeds are generated sequences of every configuration,
// every corner, and frameworks that state demand, launch their pending
// tasks and state what is left again; run it longer with
//
//	go test -run XXX -fuzz FuzzAllocatorEvents -fuzztime 5m ./allocator
func FuzzAllocatorEvents(f *testing.F) {
	lessGC(f)
	s, err := allocatortest.ParseSequence(recorded)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte{0}, allocatortest.EncodeBiased(s)...))
	f.Add([]byte{})
	for i, c := range propertyConfigs {
		for _, s := range allocatortest.Sequences(int64(i), 2, c.Mix, 40) {
			f.Add(append([]byte{byte(i)}, allocatortest.EncodeBiased(s)...))
		}
		for corner := range allocatortest.NumCorners {
			setup := allocatortest.EncodeBiased(allocatortest.Sequence{Seed: int64(i), Events: []allocatortest.Event{
				{Kind: allocatortest.AddAgent, Args: [4]uint8{0, byte(corner), 0xff, byte(i)}},
				{Kind: allocatortest.AddFramework, Args: [4]uint8{0, 0xff, 0xff, 0}},
				{Kind: allocatortest.AddFramework, Args: [4]uint8{1, byte(corner), 0, 0}},
			}})
			f.Add(append(append([]byte{byte(i)}, setup...), byte(224+int(corner)), byte(i), byte(corner), 3, 1))
		}
		f.Add(append([]byte{byte(i)}, allocatortest.EncodeBiased(demandSeed(int64(i)))...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := propertyConfigs[0]
		if len(data) > 0 {
			c, data = propertyConfigs[int(data[0])%len(propertyConfigs)], data[1:]
		}
		s := allocatortest.DecodeBiased(data)
		if len(s.Events) > maxFuzzEvents {
			s.Events = s.Events[:maxFuzzEvents]
		}
		opts := c.Options
		opts.Fast = true
		if err := allocatortest.RunSequence(opts, s); err != nil {
			t.Fatalf("%v\nconfiguration %q, sequence:\n%s", err, c.Name, s)
		}
	})
}

// demandSeed is a sequence in which two frameworks state demand (one
// valid statement each, of two shapes), are offered, launch their pending
// tasks, decline and state what is left again.
func demandSeed(seed int64) allocatortest.Sequence {
	ev := func(k allocatortest.Kind, a, b, c, d uint8) allocatortest.Event {
		return allocatortest.Event{Kind: k, Args: [4]uint8{a, b, c, d}}
	}
	return allocatortest.Sequence{Seed: seed, Events: []allocatortest.Event{
		ev(allocatortest.AddAgent, 0, 15, 0, 0),
		ev(allocatortest.AddAgent, 1, 14, 0, 0),
		ev(allocatortest.AddFramework, 0, 0xff, 0xff, 0),
		ev(allocatortest.AddFramework, 1, 0xff, 0x1f, 0),
		ev(allocatortest.UpdateDemand, 0, 0, 9, 5),
		ev(allocatortest.UpdateDemand, 1, 0, 17, 6),
		ev(allocatortest.AllocateAll, 0, 0, 0, 0),
		ev(allocatortest.AcceptOffer, 0, 0, 0, 0),
		ev(allocatortest.DeclineOffer, 0, 1, 0, 0),
		ev(allocatortest.UpdateDemand, 0, 0, 7, 5),
		ev(allocatortest.UpdateDemand, 1, 0, 7, 6),
		ev(allocatortest.AllocateAll, 0, 0, 0, 0),
		ev(allocatortest.AcceptOffer, 0, 0, 0, 0),
		ev(allocatortest.AllocateAll, 0, 0, 0, 0),
	}}
}
