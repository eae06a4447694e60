package entryjson

import (
	"bytes"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/roles"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// full is an entry with every field set, the rarer forms included: a
// constraint operator without a name, an unknown capability bit, a
// status past the named ones, an empty whitelist.
func full() Entry {
	refuse := 5 * time.Second
	total := resources.MustParse("cpus:8;mem:4096", "*")
	return Entry{
		Event: "add-framework", At: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		Framework: "f1", Agent: "a1",
		FrameworkInfo: &cluster.FrameworkInfo{
			Roles: []string{"web", "batch"}, Principal: "p", Capabilities: offer.GPUResources | offer.Capabilities(1<<30),
			SuppressedRoles: []string{"batch"},
			MinAllocatable:  map[string][]resources.Quantities{"web": {resources.MustParseQuantities("cpus:1")}},
			Constraints: map[string]cluster.Constraints{"web": {
				{{Attribute: "zone", Op: cluster.OpExists}, {Attribute: "rack", Op: 9, Value: "r1"}},
				{},
			}},
		},
		AgentInfo: &cluster.AgentInfo{Hostname: "h1", Attributes: map[string]string{"zone": "z"}, Region: "eu",
			Capabilities: offer.RegionAware, Unavailability: &offer.Unavailability{Start: time.Unix(100, 0).UTC(), Duration: time.Hour}},
		Active: true, Resources: resources.MustParse("cpus(allocated: web):4", "*"), Total: &total,
		Used:  map[string]resources.Resources{"f2": resources.MustParse("mem(allocated: web):64", "*")},
		Roles: []string{"web"}, Refuse: &refuse,
		Weights: map[string]float64{"web": 2}, Role: "web",
		Quota:          roles.Quota{Guarantees: resources.MustParseQuantities("cpus:2"), Limits: resources.MustParseLimits("cpus:4")},
		Unavailability: &offer.Unavailability{Start: time.Unix(200, 0).UTC()},
		Status:         7, Hostnames: []string{}, HostnamesListed: true,
		Task: "t1", Offer: "o1", Run: 3, Hold: time.Minute,
		Demand: []cluster.Pending{{Resources: resources.MustParseQuantities("cpus:1;mem:128"), Count: 2}},
	}
}

// Every field comes back as it was written, and writing what was read
// gives the same bytes.
func TestRoundTrip(t *testing.T) {
	in := full()
	data, err := Marshal(in)
	require.NoError(t, err)
	require.NotContains(t, string(data), "\n")
	out, err := Unmarshal(data)
	require.NoError(t, err)
	again, err := Marshal(out)
	require.NoError(t, err)
	require.Equal(t, string(data), string(again))

	require.Equal(t, in.At, out.At)
	require.Equal(t, in.FrameworkInfo.Capabilities, out.FrameworkInfo.Capabilities)
	require.Equal(t, in.FrameworkInfo.Constraints, out.FrameworkInfo.Constraints)
	require.Equal(t, *in.Refuse, *out.Refuse)
	require.Equal(t, uint8(7), out.Status)
	require.Equal(t, []string{}, out.Hostnames, "an empty whitelist stays a list")
	require.True(t, out.Total.Equal(*in.Total))
	require.True(t, out.Quota.Limits.Equal(in.Quota.Limits))
	require.Equal(t, in.Demand[0].Count, out.Demand[0].Count)
	require.Equal(t, "cpus:1", out.FrameworkInfo.MinAllocatable["web"][0].String(), "a framework's minimum comes back")
	require.True(t, out.Used["f2"].Equal(in.Used["f2"]), "what an agent's frameworks use comes back")
	require.Contains(t, string(data), `"op":"EXISTS"`)
	require.Contains(t, string(data), `"op":"9"`)
	require.Contains(t, string(data), `"status":"7"`)

	for status, name := range map[uint8]string{cluster.InverseAccepted: "ACCEPT", cluster.InverseDeclined: "DECLINE"} {
		data, err := Marshal(Entry{Event: "update-inverse-offer", Status: status})
		require.NoError(t, err)
		require.Contains(t, string(data), `"status":"`+name+`"`)
		out, err := Unmarshal(data)
		require.NoError(t, err)
		require.Equal(t, status, out.Status)
	}
}

// A listed whitelist comes back with its names; a constraint operator
// just past the named ones is written by its number.
func TestWhitelistAndOperatorsPastTheNames(t *testing.T) {
	in := Entry{Event: "update-whitelist", Hostnames: []string{"h1", "h2"}, HostnamesListed: true}
	data, err := Marshal(in)
	require.NoError(t, err)
	out, err := Unmarshal(data)
	require.NoError(t, err)
	require.True(t, out.HostnamesListed)
	require.Equal(t, in.Hostnames, out.Hostnames)

	past := uint8(len(constraintOps))
	in = Entry{Event: "add-framework", FrameworkInfo: &cluster.FrameworkInfo{Roles: []string{"r"},
		Constraints: map[string]cluster.Constraints{"r": {{{Attribute: "zone", Op: past}}}}}}
	data, err = Marshal(in)
	require.NoError(t, err)
	require.Contains(t, string(data), `"op":"`+strconv.Itoa(int(past))+`"`)
}

// What an event does not use is left out, and a whitelist is written
// only when listed.
func TestLeavesOutWhatIsUnused(t *testing.T) {
	data, err := Marshal(Entry{Event: "allocate", Run: 1, Hostnames: []string{"h"}})
	require.NoError(t, err)
	require.Equal(t, `{"event":"allocate","run":1}`, string(data))
}

// Bad input is ErrInvalidEntry naming every field at fault, and no entry.
func TestErrorsNameTheFields(t *testing.T) {
	_, err := Unmarshal([]byte(`{"event":"x","resources":"cpus:-","total":"mem:?","status":"MAYBE","framework_info":{"roles":["r"],"capabilities":["NO_SUCH"]}}`))
	require.True(t, errors.Is(err, ErrInvalidEntry), "%v", err)
	for _, field := range []string{"resources", "total", "status", "framework capabilities"} {
		require.Contains(t, err.Error(), field+":")
	}
	_, err = Unmarshal([]byte(`{"event":`))
	require.True(t, errors.Is(err, ErrInvalidEntry), "%v", err)
}

// FuzzUnmarshal reads arbitrary bytes: no input may panic, and an entry
// read writes bytes that read back to the same bytes again.
func FuzzUnmarshal(f *testing.F) {
	data, err := Marshal(full())
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`{"event":"recover-resources","at":"2026-01-01T00:00:05Z","framework":"f1","agent":"a1","resources":"cpus(allocated: web):4","filter":{"refuse_ns":5000000000}}`))
	f.Add([]byte(`{"event":"update-whitelist","hostnames":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Unmarshal(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidEntry) {
				t.Fatalf("error %v does not wrap ErrInvalidEntry", err)
			}
			return
		}
		first, err := Marshal(e)
		if err != nil {
			t.Fatalf("marshal of a read entry: %v", err)
		}
		back, err := Unmarshal(first)
		if err != nil {
			t.Fatalf("reading %s again: %v", first, err)
		}
		second, err := Marshal(back)
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("not stable:\n%s\n%s (%v)", first, second, err)
		}
	})
}
