package allocator_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
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

// Every hash was recorded again, and handBuiltGolden with them, for
// SnapshotVersion 5: reclaim makes room for stated pending tasks, and its
// part of the format has each chosen task's pending task, room and group,
// and the count of groups. The reclaim state states web's demand, without
// which it has no choice to save.
var goldenStates = []goldenState{
	{name: "hand-built", make: handBuiltSnapshot,
		sha256: "8dbf824c8d9fbeec2f747bf06def35f1b801bea5f7826c15e665732dd422ffb7"},
	{name: "recorded", make: func(tb testing.TB) []byte {
		return snapshotOf(tb, allocatortest.Options{}, 7, 200)
	}, sha256: "a1af5ef1e64150f9e4de143299c1f385ffbea82ca951b65e426ed02fb66862e0"},
	{name: "all events seed 1", make: func(tb testing.TB) []byte {
		return snapshotOfSequence(tb, configNamed(tb, "all events"), 1, 400)
	}, sha256: "83417eb746d8c34fa85822ab5e2bd5512a2bf45285c5e2c78476f545a6687566"},
	// Re-recorded when stage one came to lower the required headroom by
	// what a nested role's need falls, not by all it gives (quota on a and
	// a/b in this configuration).
	{name: "beyond Mesos seed 2", make: func(tb testing.TB) []byte {
		return snapshotOfSequence(tb, configNamed(tb, "beyond Mesos"), 2, 400)
	}, sha256: "6ad926a06360b829c45ad494c79ac2686b5b1284fc826ad856f6cad780f63161"},
	// Re-recorded when holds on agents a run leaves out came to expire, and
	// when a LAUNCH came to take the resources of several providers (one
	// of this sequence's launches was refused before).
	{name: "many frameworks seed 3", make: func(tb testing.TB) []byte {
		return snapshotOfSequence(tb, configNamed(tb, "one role, many frameworks"), 3, 400)
	}, sha256: "c69f99612f12483aa1fdb7bb7ff955868c199bd17d1281d91c119fe9aec37070"},
	{name: "reclaim", make: reclaimSnapshot,
		sha256: "9e7ae4c364c1b4e6d50fb07b3f410899c6b9aa763835c8b049800dcd5e3d15ae"},
	{name: "random sorter seed 4", make: func(tb testing.TB) []byte {
		return snapshotOfSequence(tb, configNamed(tb, "random sorter"), 4, 400)
	}, with: allocator.RestoreOptions{RoleSorter: randomSorter, FrameworkSorter: randomSorter},
		sha256: "518782f11a2f42a4695cf8d288ee2a2417c87517789b7c6f848ba99550c612ec"},
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
// end for web's pending task (its room, cpus:1;mem:1024, less than what
// it frees), the group it is in, the run that chose it, and its
// preemption in the run's log.
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
	check(a.UpdateDemand("web", "web", []allocator.Pending{{Resources: resources.MustParseQuantities("cpus:1;mem:1024"), Count: 1}}))
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
		WholeOffers:               true,
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
	// Statements of demand: one with tasks pending, one with nothing.
	check(a.UpdateDemand("m1", "many", []allocator.Pending{
		{Resources: resources.MustParseQuantities("cpus:1;mem:64"), Count: 3},
		{Resources: resources.MustParseQuantities("gpus:1"), Count: 1},
	}))
	check(a.UpdateDemand("m2", "many", nil))
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
	// (Version 3 also kept the state as saved before agents with equal
	// totals shared one storage of it; no writer of version 4 ever saved
	// them apart.)
	for name, data := range map[string][]byte{"now": data} {
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

// handBuiltGolden is the snapshot of handBuiltSnapshot, in base64, as
// version 5 saves it.
const handBuiltGolden = `
YWxsb3Qtc25hcHNob3QFFQEEZ3B1cwACAQAEY3B1c2QBAANtZW2AfYDQrPMOAQAAAAAAAOA/
BGVhc3QBAQAAFHBjZzppuKeP8+Utf6DA3G0BfSPoBhYEBTYuBgIAAQABBAJoMQJoMgJoMwJo
NAYDAQAAAAAGAAAABgEAAAAAAAEBAAEBAQZjYXBwZWQBAmEyA3dlYgECAApjcHVzOjAuMDAx
AQN3ZWL0AwAJbWVtOjAuMDAxAoD0AwGA4NPc7PramDECBG1hbnkAAAAAAADgPwN3ZWIAAAAA
AAAAQAQGY2FwcGVkBQUHAAMBAAIAAARncHVzAARtYW55FAAAAAAFb3RoZXISAAAAAAN3ZWIE
AAABAegHAQHwLgUCYTECaDECBHJhY2sCcjEEem9uZQJ6MQRlYXN0QQEBgOCE/dXI3JgxgICK
l4yjAwEBAwEAwD4CAICA+gEACmdwdXM6MC4wMDEA6AcAAQMBAKAfAgCAgH0DAPQDAwYCAm00
AQMBAQRtYW55oB8CA4CAfQMD9AMDd2ViAQMBAqAfAgKAgH0DAvQDAAABBG1hbnkDAYCA+cj8
x9yYMQEWAQVvdGhlcgYSAAICbTQAAgN3ZWIAAgIIb2ZmZXItMTADd2ViA3dlYgYIb2ZmZXIt
MjACbTQEbWFueQUCYTICaDIBBHJhY2sCcjIAAAEBgOCE/dXI3JgxgICKl4yjAwEBAgEAoB8C
AICAfQECAQD0AwIAgOQyAQIBAMQTAgCApHEFCAECbTUBAgED0A8CA4DAPgABBGxhdGUBAgEC
6AcCAoDoBwACBG1hbnkIEQGA+Pv1ksjcmDEFb3RoZXIIEgACAm01AAIDd2ViAAIBCG9mZmVy
LTIxAm01BG1hbnkKAmEzAmgzAAAAAAEBAgEA0A8CAIDAPgECAQD0AwIAgKwbAQIBAPQDAgCA
rBsDBwEDd2ViAQIBAugHAgKAoB8BA3dlYgECAQL0AwICgPQDAAEEbWFueQMBgPj79ZLI3Jgx
AQsBBW90aGVyBhIAAAEIb2ZmZXItMTEDd2ViA3dlYg8CYTQCaDQAAAAAAQECAQDoBwIAgKAf
ERECAQAAAAAAAAACYTUCaDUAAAAAAREREQIBAAAAAAAAAAcDY2FwAQZjYXBwZWQAAAAAAAEA
AQZjYXBwZWQAAAAAAAAAAAAAAQAAAAAAAAUAAm0xAgRtYW55BW90aGVyAAABBW90aGVyAAAB
AQVvdGhlcgIEbWFueQVvdGhlcgEEbWFueQMCYTEBAQMBAKAfAgCAgH0DAPQDAYCA+cj8x9yY
MQIBAmEyAQECAQD0AwIAgOQyAYDw/qKpyNyYMQMDAmEzAQ4BgPj79ZLI3JgxAwIAAAAAAQAA
AAEAAAAAAAAABgACbTICBG1hbnkFb3RoZXIAAAEFb3RoZXIAAAEBBW90aGVyAgRtYW55BW90
aGVyAQRtYW55AwJhMQEBAwEAoB8CAICAfQMA9AMBgID5yPzH3JgxAwECYTIBAQIBANAPAgCA
wD4BgOiB0L/I3JgxBAQCYTMBDgGA8P6iqcjcmDEDAwAAAAABAAAAAQAAAAAAAAAGAAJtMwIE
bWFueQVvdGhlcgAAAQVvdGhlcgAAAQEFb3RoZXICBG1hbnkFb3RoZXIBBG1hbnkDAmExAQQB
gPD+oqnI3JgxAwMCYTIBAQIBAPQDAgCA5DIBgOiB0L/I3JgxAAQCYTMBAQIBAOgHAgCAoB8B
gID5yPzH3JgxAgEAAAAAAQAAAAEAAAAAAAAABgACbTQCBG1hbnkFb3RoZXIAAAEFb3RoZXIA
AAEBBW90aGVyAgRtYW55BW90aGVyAQRtYW55AgJhMgEBAgEA0A8CAIDAPgGA+Pv1ksjcmDEC
AgJhMwEOAYDogdC/yNyYMQMEAQJhMQGA2Ieq7MjcmDEFAAAAAQAAAAEAAAAAAAAABgACbTUC
BG1hbnkFb3RoZXIAAAEFb3RoZXIAAAEBBW90aGVyAgRtYW55BW90aGVyAQRtYW55AgJhMQEE
AYDogdC/yNyYMQMEAmEyAQECAQD0AwIAgOQyAYD4+/WSyNyYMQACAQJhMgGA2Ieq7MjcmDEF
AAAAAQAAAAEAAAAAAAAABgADd2ViAQN3ZWIFYWxpY2URAAEDd2ViAQIB9AMCgPoBAQN3ZWIC
AQRyYWNrAQABBHpvbmUEAno5AQABA3dlYgEDd2ViAgJhMgEBAgEAxBMCAICkcQGAsNH/lfja
mDECAQJhMwEBAgEA9AMCAICsGwGAsNH/lfjamDEAAQICYTEBgNiHquzI3JgxBQJhMgGA2Ieq
7MjcmDEFAQJ0MgJhMwN3ZWIBAgEC9AMCAoD0AwECAQL0AwICgPQDAgAAAAAAAAABAAAAAAAA
BgALKnNvcnRlci5EUkYEjwFTAUQCBG1hbnkAAAAAAADgPwN3ZWIAAAAAAAAAQAEDd2ViAQAE
Y3B1c+gHAQkoY2x1c3RlcikDAZh1AANtZW2A4NQDAARncHVz6AcEBmNhcHBlZAEAAAAABG1h
bnkCARIDAfAuAoDAuwED9AMABW90aGVyAwEAAAADd2ViAAEEAwHwLgKAiKQBA/QDAAAEAAQG
Y2FwcGVkAgsqc29ydGVyLkRSRgQ3UwFEAAABCShjbHVzdGVyKQMABGNwdXOYdQADbWVtgODU
AwAEZ3B1c+gHAQNjYXAAAQAAAAABAARtYW55Awsqc29ydGVyLkRSRgRoUwFEAAABCShjbHVz
dGVyKQMABGNwdXOYdQADbWVtgODUAwAEZ3B1c+gHBQJtMQABAwAAAm0yAQADAAACbTMCAQMA
AAJtNAMBAwMBoB8CgIB9A/QDAAJtNQQBAwIB0A8CgMA+AAAGAQUFb3RoZXIECypzb3J0ZXIu
RFJGBFdTAUQAAAEJKGNsdXN0ZXIpAwAEY3B1c5h1AANtZW2A4NQDAARncHVz6AcFAm0xAAAA
AAACbTIBAAAAAAJtMwIAAAAAAm00AwAAAAACbTUEAAAAAAAGAQUDd2ViAQsqc29ydGVyLkRS
RgRCUwFEAAABCShjbHVzdGVyKQMABGNwdXOYdQADbWVtgODUAwAEZ3B1c+gHAQN3ZWIAAQQD
AfAuAoCIpAED9AMAAAEABgGAgJnYrffamDEBBQQCYTECYTICYTMCYTUBAmE1AAMCYTIFb3Ro
ZXIBAQABAAAAAmEyA3dlYgABAAACYTIEbWFueQABAAAABwN3ZWIDd2ViAmEyBwEAAgJtMQRt
YW55AmEyBgEAAAJtMgRtYW55AmEyBgEAAAJtMwRtYW55AmEyBgEAAAJtNgRtYW55AmEyBgEA
AAJtNQRtYW55AmEyBgEAAAJtNARtYW55AmEyBgEAAAECAfQDAoDkMgECbTYCBG1hbnkFb3Ro
ZXIGAAAAAAAGAm0xBG1hbnkCYTIGAQAAAm0yBG1hbnkCYTIGAQAAAm0zBG1hbnkCYTIGAQAA
Am02BG1hbnkCYTIGAQAAAm01BG1hbnkCYTIGAQAAAm00BG1hbnkCYTIGAQAAAAAAAAAAAAAA
AAABAQJhMQQCbTECbTICbTMCbTUCAm0xAQRtYW55AgIB6AcCgPQDAwED6AcBAm0yAQRtYW55
APCtbJM=
`
