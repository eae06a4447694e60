package allocator_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
	"github.com/allot-go/allot/sorter"
)

// goldenState is a deterministic allocator state, the SHA-256 of the
// snapshot it saves to, and what restoring it needs.
type goldenState struct {
	name   string
	make   func(testing.TB) []byte
	with   allocator.RestoreOptions
	sha256 string
}

// snapshotOfSequence runs the first of the sequences a configuration's mix
// draws from seed through a Harness, and saves its allocator.
func snapshotOfSequence(tb testing.TB, c allocatortest.Config, seed int64, events int) []byte {
	tb.Helper()
	s := allocatortest.Sequences(seed, 1, c.Mix, events)[0]
	opts := c.Options
	opts.Fast = true
	opts.Allocator.Seed = s.Seed
	return runAndSave(tb, opts, s.Events)
}

// configNamed returns the allocatortest configuration of that name.
func configNamed(tb testing.TB, name string) allocatortest.Config {
	for _, c := range allocatortest.Configs() {
		if c.Name == name {
			return c
		}
	}
	tb.Fatalf("no configuration %q", name)
	return allocatortest.Config{}
}

var goldenStates = []goldenState{
	{name: "hand-built", make: handBuiltSnapshot,
		sha256: "7b037d6f6b043e93bf86b082839a3fe7308f937c9569e6b6d85c0c3ed999e998"},
	{name: "recorded", make: func(tb testing.TB) []byte {
		return snapshotOf(tb, allocatortest.Options{}, 7, 200)
	}, sha256: "a01c68c4db697d9fda04165c101bf2255f584815d7fbf21a1c9c40d8df22a15e"},
	{name: "all events seed 1", make: func(tb testing.TB) []byte {
		return snapshotOfSequence(tb, configNamed(tb, "all events"), 1, 400)
	}, sha256: "8495f51ee6aa8043d99b2d1d3a2e07e797bcadbfd250f17695c1fef09d49795d"},
	{name: "beyond Mesos seed 2", make: func(tb testing.TB) []byte {
		return snapshotOfSequence(tb, configNamed(tb, "beyond Mesos"), 2, 400)
	}, sha256: "843686d8f417d20765fe0d244dcc22b84f9800a0d28ef8a8e03da4cb92bfbc20"},
	{name: "many frameworks seed 3", make: func(tb testing.TB) []byte {
		return snapshotOfSequence(tb, configNamed(tb, "one role, many frameworks"), 3, 400)
	}, sha256: "5cbcfa76993c1a4fe9149aa9579aaa81c3d024e92793b42f2f431c4eda3935ca"},
	{name: "reclaim", make: reclaimSnapshot,
		sha256: "79726263a94aef8e07b2cf4c5b9833edc22146b855163a0f0e598a6ee38b1252"},
	{name: "random sorter seed 4", make: func(tb testing.TB) []byte {
		return snapshotOfSequence(tb, configNamed(tb, "random sorter"), 4, 400)
	}, with: allocator.RestoreOptions{RoleSorter: randomSorter, FrameworkSorter: randomSorter},
		sha256: "1791b659eab3794045b219d70afd07d47841f0fd281933098a9e97c8dd5b4e85"},
}

// TestSnapshotGolden pins the snapshot format: the states above must save
// to the same bytes as when the hashes were recorded, and restore to
// allocators that save them again. Between them the states put something
// in every part of the format (the hand-built one alone does too).
//
// The hashes depend on what runs and the harness do as well as on the
// format: a change of behaviour that is meant (a run that offers
// otherwise, an event the harness interprets otherwise) changes them, and
// they are then recorded again, from the failure's message, provided
// TestSnapshotGoldenBytes still passes. A change of the format is one of
// SnapshotVersion too.
func TestSnapshotGolden(t *testing.T) {
	for _, g := range goldenStates {
		t.Run(g.name, func(t *testing.T) {
			data := g.make(t)
			sum := sha256.Sum256(data)
			got := hex.EncodeToString(sum[:])
			t.Logf("%d bytes, sha256 %s", len(data), got)
			if got != g.sha256 {
				t.Errorf("snapshot of %d bytes has SHA-256 %s, want %s", len(data), got, g.sha256)
			}
			a, err := allocator.Restore(data, g.with)
			if err != nil {
				t.Fatalf("restore: %v", err)
			}
			again, err := a.Snapshot()
			if err != nil || !bytes.Equal(again, data) {
				t.Fatalf("the restored allocator saves other bytes (%v)", err)
			}
		})
	}
}

func randomSorter(c sorter.Config) sorter.Sorter { return sorter.NewRandom(c) }

// reclaimSnapshot saves a state with reclaim's parts: a task chosen to
// end, the run that chose it, and its preemption in the run's log.
func reclaimSnapshot(tb testing.TB) []byte {
	tb.Helper()
	check := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	clock := allocator.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{Clock: clock.Now, Seed: 3, Reclaim: allocator.ReclaimFairShare, ReclaimTimeout: time.Minute})
	check(err)
	check(a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:4096", "*"), nil))
	check(a.AddFramework("batch", allocator.FrameworkInfo{Roles: []string{"batch"}}, nil, allocator.Active))
	o := a.AllocateAll().Offers[0]
	task := func(id string) offer.Task {
		return offer.Task{ID: id, Resources: resources.MustParse("cpus:2;mem:2048", "*").Allocate("batch")}
	}
	check(a.Accept("batch", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task("t1"), task("t2")}}}, nil))
	check(a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active))
	check(a.UpdateQuota("web", allocator.MustParseQuota("cpus:1")))
	clock.Advance(time.Second)
	if res := a.AllocateAll(); len(res.Preemptions) != 1 {
		tb.Fatalf("preemptions %v, want one", res.Preemptions)
	}
	data, err := a.Snapshot()
	check(err)
	return data
}

// handBuiltSnapshot saves a state built call by call, so that every part
// of the format holds something, whatever random events draw: agents with
// attributes, a region, capabilities and a maintenance window; offered,
// allocated and unclaimed resources; refusal filters (enough of them on
// one agent for a refusal index) and inverse-offer filters; a hold; tasks;
// quota, weights and a whitelist; a role parked by its limits; agents
// waiting for a run; frameworks with minimum allocatable resources and
// constraints; and the log of a run that skipped an agent and passed
// frameworks over (one removed since), with the passes kept by the
// (agent, role) pairs it found taking nothing.
func handBuiltSnapshot(tb testing.TB) []byte {
	tb.Helper()
	check := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	clock := allocator.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	a, err := allocator.New(allocator.Options{
		Clock:                     clock.Now,
		Seed:                      -11,
		FairnessExcludedResources: []string{"gpus"},
		MinAllocatable:            []resources.Quantities{resources.MustParseQuantities("cpus:0.1"), resources.MustParseQuantities("mem:16")},
		AllocationInterval:        2 * time.Second,
		AllowGPUsToAll:            true,
		OfferShare:                0.5,
		Region:                    "east",
		ChargeBeyondAllowance:     true,
		ReservedFirst:             true,
	})
	check(err)
	check(a.UpdateWeights(map[string]float64{"web": 2, "many": 0.5}))
	check(a.UpdateQuota("web", allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:1"), Limits: resources.MustParseLimits("cpus:6")}))
	check(a.UpdateQuota("capped", allocator.Quota{Limits: resources.MustParseLimits("cpus:0;mem:0;gpus:0")}))

	check(a.AddAgent("a1", allocator.AgentInfo{
		Hostname: "h1", Attributes: map[string]string{"rack": "r1", "zone": "z1"}, Region: "east",
		Capabilities: offer.MultiRole | offer.HierarchicalRole,
	}, resources.MustParse("cpus:8;mem:4096;gpus:1", "*"), nil))
	check(a.AddAgent("a2", allocator.AgentInfo{Hostname: "h2", Attributes: map[string]string{"rack": "r2"}},
		resources.MustParse("cpus:4;mem:2048", "*"),
		map[string]resources.Resources{"late": resources.MustParse("cpus:1;mem:128", "*").Allocate("web")}))
	check(a.AddAgent("a3", allocator.AgentInfo{Hostname: "h3"}, resources.MustParse("cpus:2;mem:1024", "*"), nil))

	check(a.AddFramework("web", allocator.FrameworkInfo{
		Roles: []string{"web"}, Principal: "alice", Capabilities: offer.MultiRole | offer.GPUResources,
		MinAllocatable: map[string][]resources.Quantities{"web": {resources.MustParseQuantities("cpus:0.5;mem:32")}},
		Constraints: map[string]allocator.Constraints{"web": {
			{{Attribute: "rack", Op: allocator.OpExists}},
			{{Attribute: "zone", Op: allocator.OpNotEquals, Value: "z9"}},
		}},
	}, nil, allocator.Active))
	check(a.AddFramework("cap", allocator.FrameworkInfo{Roles: []string{"capped"}}, nil, allocator.Active))
	for _, id := range []string{"m1", "m2", "m3", "m4", "m5", "m6"} {
		check(a.AddFramework(id, allocator.FrameworkInfo{Roles: []string{"many", "other"}, SuppressedRoles: []string{"other"}}, nil, allocator.Active))
	}

	// Frameworks of "many" decline everything for an hour; web launches
	// a task on its first offer and keeps the others.
	launched := 0
	for range 4 {
		for _, o := range a.AllocateAll().Offers {
			switch {
			case o.FrameworkID != "web":
				check(a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, &allocator.Filter{Refuse: time.Hour}))
			case launched < 2:
				launched++
				task := resources.MustParse("cpus:0.5;mem:64", "*").Allocate(o.Role)
				launch := offer.Launch{Tasks: []offer.Task{{ID: fmt.Sprintf("t%d", launched), Resources: task}}}
				check(a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, &allocator.Filter{Refuse: 30 * time.Second}))
			}
		}
		clock.Advance(3 * time.Second)
	}

	// A maintenance window on an agent in use makes an inverse offer,
	// which web declines with a filter.
	for _, ag := range []string{"a1", "a2"} {
		check(a.UpdateUnavailability(ag, &offer.Unavailability{Start: clock.Now().Add(time.Hour), Duration: 2 * time.Hour}))
	}
	check(a.AddAgent("a5", allocator.AgentInfo{Hostname: "h5"}, resources.MustParse("cpus:1;mem:512", "*"), nil))
	a.UpdateWhitelist([]string{"h1", "h2", "h3", "h4"})
	clock.Advance(3 * time.Second)
	res := a.AllocateAll()
	for _, io := range res.InverseOffers {
		check(a.UpdateInverseOffer(io.AgentID, io.FrameworkID, allocator.InverseDeclined, &allocator.Filter{Refuse: time.Hour}))
	}
	clock.Advance(time.Second)
	a.AllocateAll()

	// After the last run: a hold, agents waiting for the next run, and a
	// framework the run passed over removed (its log still names it).
	check(a.RemoveFramework("m6"))
	for _, t := range a.Tasks("web") {
		check(a.PreemptTask("web", t.ID, time.Minute))
		break
	}
	check(a.AddAgent("a4", allocator.AgentInfo{Hostname: "h4"}, resources.MustParse("cpus:1;mem:512", "*"), nil))
	data, err := a.Snapshot()
	check(err)
	return data
}

// TestSnapshotGoldenBytes reads the hand-built state's snapshot as it was
// saved when the format was last changed, and saves it again: the same
// bytes must come back. Unlike TestSnapshotGolden, this holds however the
// allocator's runs change, so when both fail the format changed, and when
// only TestSnapshotGolden does, what the runs do changed.
func TestSnapshotGoldenBytes(t *testing.T) {
	decode := func(text string) []byte {
		data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(text, "\n", ""))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	data := decode(handBuiltGolden)
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != goldenStates[0].sha256 {
		t.Fatalf("the stored snapshot is not the hand-built state's")
	}
	// The hand-built state as saved before agents with equal totals shared
	// one storage of it (a5 and a4 have the same total): the format is the
	// same, and a snapshot saves each storage once, so those bytes hold two
	// copies where the new ones hold one. They must restore, and save the
	// same bytes again.
	before, err := os.ReadFile("testdata/handbuilt-before-shapes.snapshot")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"now": data, "before shapes": before} {
		a, err := allocator.Restore(data, allocator.RestoreOptions{})
		if err != nil {
			t.Fatalf("%s: restore: %v", name, err)
		}
		again, err := a.Snapshot()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("%s: the restored allocator saves other bytes (%v)", name, err)
		}
	}
}

// handBuiltGolden is the snapshot of handBuiltSnapshot, in base64.
const handBuiltGolden = `
YWxsb3Qtc25hcHNob3QDFQEEZ3B1cwACAQAEY3B1c2QBAANtZW2AfYDQrPMOAQAAAAAAAOA/
BGVhc3QBAQAAFHBjZzppuKeP8+Utf6DA3G0BfSPoBhcEBTQuBgIAAAICYTICYTQBBAJoMQJo
MgJoMwJoNAYDAQEAAAAGAAAEAQAAAAABAQABAQEGY2FwcGVkAQJhMgN3ZWIBAgAKY3B1czow
LjAwMQEDd2Vi9AMACW1lbTowLjAwMQKA9AMBgODT3Oz62pgxAgRtYW55AAAAAAAA4D8Dd2Vi
AAAAAAAAAEAEBmNhcHBlZAUFBgADAQACAAAEZ3B1cwAEbWFueREAAAAABW90aGVyEgAAAAAD
d2ViBAAAAQHoBwEB8C4FAmExAmgxAgRyYWNrAnIxBHpvbmUCejEEZWFzdEEBAYDghP3VyNyY
MYCAipeMowMBAQMBAMA+AgCAgPoBAApncHVzOjAuMDAxAOgHAAEDAQCgHwIAgIB9AwD0AwMG
AgJtNAEDAQEEbWFueaAfAgOAgH0DA/QDA3dlYgEDAQKgHwICgIB9AwL0AwAAAQRtYW55AwGA
gPnI/MfcmDEBFgEFb3RoZXIGEgACAm00AAIDd2ViAAICCG9mZmVyLTEwA3dlYgN3ZWIGCG9m
ZmVyLTIxAm00BG1hbnkFAmEyAmgyAQRyYWNrAnIyAAABAYDghP3VyNyYMYCAipeMowMBAQIB
AKAfAgCAgH0AAQIBAMQTAgCApHEFCAECbTMBAgEDxBMCA4CkcQABBGxhdGUBAgEC6AcCAoDo
BwABBW90aGVyCBIAAgJtMwACA3dlYgACAghvZmZlci0yMAJtMwRtYW55AQIBA9APAgOAwD4I
b2ZmZXItMjMCbTMEbWFueQECAQP0AwIDgOQyAmEzAmgzAAAAAAEBAgEA0A8CAIDAPgECAQD0
AwIAgKwbAQIBAPQDAgCArBsDBwEDd2ViAQIBAugHAgKAoB8BA3dlYgECAQL0AwICgPQDAAEE
bWFueQMBgPj79ZLI3JgxAQsBBW90aGVyBhIAAAEIb2ZmZXItMTEDd2ViA3dlYhACYTQCaDQA
AAAAAQECAQDoBwIAgKAfEhICAQAAAAAAAAACYTUCaDUAAAAAARISEgIBAAAAAAAAAAcDY2Fw
AQZjYXBwZWQAAAAAAAEAAQZjYXBwZWQAAAAAAAAAAAABAAAAAAAFAAJtMQIEbWFueQVvdGhl
cgAAAQVvdGhlcgAAAQEFb3RoZXICBG1hbnkFb3RoZXIBBG1hbnkDAmExAQEDAQCgHwIAgIB9
AwD0AwGAgPnI/MfcmDECAQJhMgEBAgEA0A8CAIDAPgGA6IHQv8jcmDEEBAJhMwEPAYD4+/WS
yNyYMQMCAAAAAAEAAAEAAAAAAAAGAAJtMgIEbWFueQVvdGhlcgAAAQVvdGhlcgAAAQEFb3Ro
ZXICBG1hbnkFb3RoZXIBBG1hbnkDAmExAQEDAQCgHwIAgIB9AwD0AwGAgPnI/MfcmDEDAQJh
MgEBAgEA9AMCAIDkMgGA6IHQv8jcmDEABAJhMwEPAYDw/qKpyNyYMQMDAAAAAAEAAAEAAAAA
AAAGAAJtMwIEbWFueQVvdGhlcgAAAQVvdGhlcgAAAQEFb3RoZXICBG1hbnkFb3RoZXIBBG1h
bnkCAmExAQQBgPD+oqnI3JgxAwMCYTMBAQIBAOgHAgCAoB8BgID5yPzH3JgxAgEBAmEyAYDY
h6rsyNyYMQUAAAABAAAAAAAAAAAABgACbTQCBG1hbnkFb3RoZXIAAAEFb3RoZXIAAAEBBW90
aGVyAgRtYW55BW90aGVyAQRtYW55AgJhMgEBAgEA0A8CAIDAPgGA+Pv1ksjcmDECAgJhMwEP
AYDogdC/yNyYMQMEAQJhMQGA2Ieq7MjcmDEFAAAAAQAAAAAAAAAAAAYAAm01AgRtYW55BW90
aGVyAAABBW90aGVyAAABAQVvdGhlcgIEbWFueQVvdGhlcgEEbWFueQICYTEBBAGA6IHQv8jc
mDEDBAJhMgIBAgEA9AMCAIDkMgGA+Pv1ksjcmDEAAgECAQDQDwIAgMA+AYDw/qKpyNyYMQMD
AAAAAAEAAAEAAAAAAAAGAAN3ZWIBA3dlYgVhbGljZREAAQN3ZWIBAgH0AwKA+gEBA3dlYgIB
BHJhY2sBAAEEem9uZQQCejkBAAEDd2ViAQN3ZWICAmEyAQECAQDEEwIAgKRxAYCw0f+V+NqY
MQIBAmEzAQECAQD0AwIAgKwbAYCw0f+V+NqYMQABAgJhMQGA2Ieq7MjcmDEFAmEyAYDYh6rs
yNyYMQUBAnQyAmEzA3dlYgECAQL0AwICgPQDAQIBAvQDAgKA9AMCAAAAAAAAAQAAAAAABgAL
KnNvcnRlci5EUkYEjwFTAUQCBG1hbnkAAAAAAADgPwN3ZWIAAAAAAAAAQAEDd2ViAQAEY3B1
c+gHAQkoY2x1c3RlcikDAZh1AANtZW2A4NQDAARncHVz6AcEBmNhcHBlZAEAAAAABG1hbnkC
ARMDAeQyAoCk7gED9AMABW90aGVyAwEAAAADd2ViAAEEAwHwLgKAiKQBA/QDAAAEAAQGY2Fw
cGVkAgsqc29ydGVyLkRSRgQ3UwFEAAABCShjbHVzdGVyKQMABGNwdXOYdQADbWVtgODUAwAE
Z3B1c+gHAQNjYXAAAQAAAAABAARtYW55Awsqc29ydGVyLkRSRgRoUwFEAAABCShjbHVzdGVy
KQMABGNwdXOYdQADbWVtgODUAwAEZ3B1c+gHBQJtMQABAwAAAm0yAQEDAAACbTMCAQQCAcQT
AoCkcQACbTQDAQMDAaAfAoCAfQP0AwACbTUEAQMAAAAGAQUFb3RoZXIECypzb3J0ZXIuRFJG
BFdTAUQAAAEJKGNsdXN0ZXIpAwAEY3B1c5h1AANtZW2A4NQDAARncHVz6AcFAm0xAAAAAAAC
bTIBAAAAAAJtMwIAAAAAAm00AwAAAAACbTUEAAAAAAAGAQUDd2ViAQsqc29ydGVyLkRSRgRC
UwFEAAABCShjbHVzdGVyKQMABGNwdXOYdQADbWVtgODUAwAEZ3B1c+gHAQN3ZWIAAQQDAfAu
AoCIpAED9AMAAAEABgGAgJnYrffamDEBBQQCYTECYTICYTMCYTUBAmE1AQJtMwRtYW55AmEy
DAICYTIFb3RoZXIBAQABAAAAAmEyA3dlYgABAAAABQN3ZWIDd2ViAmEyBgEAAgJtMQRtYW55
AmEyBQEAAAJtMgRtYW55AmEyBQEAAAJtNQRtYW55AmEyBQEAAAJtNgRtYW55AmEyBQEAAAEC
AfQDAoDkMgECbTYCBG1hbnkFb3RoZXIGAAAAAAAAAAAAAAAA/Z2fXQ==
`
