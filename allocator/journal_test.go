package allocator_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

func TestJournalBadInput(t *testing.T) {
	for _, line := range []string{
		`{"event":"add-agent","agent":"a1","resources":"cpus:-1"}`,
		`{"event":"accept","operations":[{"type":"EXPLODE"}]}`,
		`{"event":"update-quota","role":"r","limits":"cpus:1;cpus:2"}`,
		`{"event":"add-framework","framework_info":{"roles":["r"],"capabilities":["FLYING"]}}`,
		`{"event":"update-inverse-offer","status":"MAYBE"}`,
	} {
		var e allocator.Entry
		if err := json.Unmarshal([]byte(line), &e); !errors.Is(err, allocator.ErrInvalidEntry) {
			t.Errorf("%s: %v", line, err)
		}
	}
	a, _ := allocator.New(allocator.Options{})
	if _, err := a.Apply(allocator.Entry{Event: "explode"}); !errors.Is(err, allocator.ErrInvalidEntry) {
		t.Errorf("unknown event: %v", err)
	}
	if _, err := a.Apply(allocator.Entry{Event: allocator.EventRemoveAgent, Agent: "nobody"}); !errors.Is(err, allocator.ErrReplay) || !errors.Is(err, allocator.ErrUnknownAgent) {
		t.Errorf("an event that fails: %v", err)
	}
	if _, err := a.Apply(allocator.Entry{Event: allocator.EventAllocateAll, Run: 7}); !errors.Is(err, allocator.ErrReplay) {
		t.Errorf("a run of another number: %v", err)
	}
	if err := allocator.Replay(a, strings.NewReader(`{"event":`)); !errors.Is(err, allocator.ErrInvalidEntry) {
		t.Errorf("a cut entry: %v", err)
	}
	journal := `{"event":"pause"}
{"event":"add-agent","agent":"a1","resources":"cpus:4"}
{"event":"remove-framework","framework":"f"}
`
	b, _ := allocator.New(allocator.Options{})
	if err := allocator.Replay(b, strings.NewReader(journal)); !errors.Is(err, allocator.ErrReplay) || !strings.Contains(err.Error(), "entry 3") {
		t.Errorf("replay: %v", err)
	}
	if !b.Paused() {
		t.Errorf("the entries before the bad one were not applied")
	}
}

// TestJournalRoundTrip writes an entry of every event, with every kind of
// argument, to JSON and back: the same entry, and the same JSON again.
func TestJournalRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC)
	res := resources.MustParse("cpus(allocated: r):2; disk(allocated: r)(reservations: [(DYNAMIC,r,ops,{k:v})])[id:v1,principal:ops,path:data]<SHARED>:100", "*")
	vol := resources.MustParse("disk(reservations: [(DYNAMIC,r,ops)])[id:v2,path:d]:64", "*").Slice()[0]
	total := resources.MustParse("cpus:8;ports:[31000-31010];zones:{a,b}", "*")
	entries := []allocator.Entry{
		{Event: allocator.EventAddFramework, At: at, Framework: "f", Active: true, FrameworkInfo: &allocator.FrameworkInfo{
			Roles: []string{"r", "s"}, Principal: "ops", Capabilities: offer.SharedResources | offer.GPUResources | 1<<20,
			SuppressedRoles: []string{"s"},
			MinAllocatable:  map[string][]resources.Quantities{"r": {resources.MustParseQuantities("cpus:1")}, "s": {}},
			Constraints:     map[string]allocator.Constraints{"r": {{{Attribute: "zone", Op: allocator.OpEquals, Value: "a"}, {Attribute: "x", Op: allocator.OpExists}}}},
		}, Used: map[string]resources.Resources{"a1": res}},
		{Event: allocator.EventAddAgent, Agent: "a1", Resources: total, AgentInfo: &allocator.AgentInfo{
			Hostname: "h", Attributes: map[string]string{"zone": "a"}, Region: "east", Capabilities: offer.MultiRole,
			Unavailability: &offer.Unavailability{Start: at, Duration: time.Hour},
		}},
		{Event: allocator.EventUpdateAgent, Agent: "a1", AgentInfo: &allocator.AgentInfo{}, Total: &total},
		{Event: allocator.EventUpdateWhitelist, Hostnames: []string{}},
		{Event: allocator.EventUpdateWhitelist, Hostnames: []string{"h"}},
		{Event: allocator.EventUpdateWhitelist},
		{Event: allocator.EventUpdateQuota, Role: "r", Quota: allocator.Quota{Guarantees: resources.MustParseQuantities("cpus:1"), Limits: resources.MustParseLimits("cpus:2;mem:0")}},
		{Event: allocator.EventUpdateWeights, Weights: map[string]float64{"r": 2.5}},
		{Event: allocator.EventUpdateInverseOffer, Agent: "a1", Framework: "f", Status: allocator.InverseDeclined, Filter: &allocator.Filter{Refuse: -1}},
		{Event: allocator.EventAccept, At: at, Framework: "f", Agent: "a1", Resources: res, Filter: &allocator.Filter{}, Operations: []offer.Operation{
			offer.Launch{Tasks: []offer.Task{{ID: "t", Resources: res}}, Executor: res},
			&offer.Reserve{Resources: res, Source: res}, offer.Unreserve{Resources: res},
			offer.Create{Volumes: res}, offer.Destroy{Volumes: res},
			offer.GrowVolume{Volume: vol, Addition: res}, offer.ShrinkVolume{Volume: vol, Subtract: resources.MustScalar(1.5)},
		}},
		{Event: allocator.EventEndTask, Framework: "f", Task: "t"},
		{Event: allocator.EventRescindOffer, Offer: "offer-1"},
		{Event: allocator.EventAllocateAll, At: at, Run: 3},
	}
	for _, e := range entries {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back allocator.Entry
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(data) {
			t.Errorf("round trip changed\n%s\ninto\n%s", data, again)
		}
		if e.Event == allocator.EventUpdateWhitelist && (e.Hostnames == nil) != (back.Hostnames == nil) {
			t.Errorf("whitelist %v came back as %v", e.Hostnames, back.Hostnames)
		}
		if !back.Resources.Equal(e.Resources) || back.Resources.String() != e.Resources.String() {
			t.Errorf("resources %s came back as %s", e.Resources, back.Resources)
		}
	}
}
