package run_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// Each reason the fair-share stage passes a framework over for is
// recorded with its code, once per agent and role, in the run's Skips,
// the framework's own counts and the explain log (with the capabilities
// an incapable framework lacks).
func TestPassOverReasons(t *testing.T) {
	rack := func(op uint8, v string) map[string]cluster.Constraints {
		return map[string]cluster.Constraints{"r": {{{Attribute: "rack", Op: op, Value: v}}}}
	}
	const opEquals = cluster.OpExists + 2
	cases := []struct {
		name    string
		cfg     run.Config
		agent   string
		info    cluster.AgentInfo
		fw      cluster.FrameworkInfo
		prepare func(w *world)
		reason  uint8
		missing offer.Capabilities
		offers  []string
		// other is a pass in another role, before the offer.
		other string
	}{
		{name: "filtered", agent: "cpus:1;mem:1024", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			prepare: func(w *world) { w.decline(w.run(true).Offers, 10*time.Second) }, reason: explain.Filtered},
		{name: "below the global minimum", agent: "cpus:0.005;mem:16", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			reason: explain.MinAllocatable},
		{name: "below the framework's minimum", agent: "cpus:1;mem:1024",
			fw:     cluster.FrameworkInfo{Roles: []string{"r"}, MinAllocatable: map[string][]resources.Quantities{"r": {qty("cpus:2")}}},
			reason: explain.MinAllocatable},
		{name: "gpus", agent: "cpus:1;mem:1024;gpus:1", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			reason: explain.Incapable, missing: offer.GPUResources},
		{name: "gpus to all", cfg: run.Config{AllowGPUsToAll: true}, agent: "cpus:1;mem:1024;gpus:1", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			offers: []string{"f1 r a1 cpus:1; mem:1024; gpus:1"}},
		{name: "gpus, capable", agent: "cpus:1;mem:1024;gpus:1", fw: cluster.FrameworkInfo{Roles: []string{"r"}, Capabilities: offer.GPUResources},
			offers: []string{"f1 r a1 cpus:1; mem:1024; gpus:1"}},
		{name: "another region", cfg: run.Config{Region: "eu"}, agent: "cpus:1;mem:1024", info: cluster.AgentInfo{Region: "us"},
			fw: cluster.FrameworkInfo{Roles: []string{"r"}}, reason: explain.Incapable, missing: offer.RegionAware},
		{name: "another region, aware", cfg: run.Config{Region: "eu"}, agent: "cpus:1;mem:1024", info: cluster.AgentInfo{Region: "us"},
			fw: cluster.FrameworkInfo{Roles: []string{"r"}, Capabilities: offer.RegionAware}, offers: []string{"f1 r a1 cpus:1; mem:1024"}},
		{name: "the same region", cfg: run.Config{Region: "eu"}, agent: "cpus:1;mem:1024", info: cluster.AgentInfo{Region: "eu"},
			fw: cluster.FrameworkInfo{Roles: []string{"r"}}, offers: []string{"f1 r a1 cpus:1; mem:1024"}},
		{name: "no region", cfg: run.Config{Region: "eu"}, agent: "cpus:1;mem:1024",
			fw: cluster.FrameworkInfo{Roles: []string{"r"}}, offers: []string{"f1 r a1 cpus:1; mem:1024"}},
		{name: "a region, none of the allocator's", agent: "cpus:1;mem:1024", info: cluster.AgentInfo{Region: "us"},
			fw: cluster.FrameworkInfo{Roles: []string{"r"}}, offers: []string{"f1 r a1 cpus:1; mem:1024"}},
		{name: "revocable only", agent: "cpus{REV}:1;mem{REV}:1024", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			reason: explain.Incapable, missing: offer.RevocableResources},
		{name: "revocable, capable", agent: "cpus{REV}:1;mem{REV}:1024", fw: cluster.FrameworkInfo{Roles: []string{"r"}, Capabilities: offer.RevocableResources},
			offers: []string{"f1 r a1 cpus{REV}:1; mem{REV}:1024"}},
		{name: "revocable stripped", agent: "cpus:1;mem:1024;cpus{REV}:1", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			offers: []string{"f1 r a1 cpus:1; mem:1024"}},
		{name: "constraints", agent: "cpus:1;mem:1024", info: cluster.AgentInfo{Attributes: map[string]string{"rack": "2"}},
			fw: cluster.FrameworkInfo{Roles: []string{"r"}, Constraints: rack(opEquals, "1")}, reason: explain.Constraints},
		{name: "constraints met", agent: "cpus:1;mem:1024", info: cluster.AgentInfo{Attributes: map[string]string{"rack": "1"}},
			fw: cluster.FrameworkInfo{Roles: []string{"r"}, Constraints: rack(opEquals, "1")}, offers: []string{"f1 r a1 cpus:1; mem:1024"}},
		{name: "constraints of another role", agent: "cpus:1;mem:1024", info: cluster.AgentInfo{Attributes: map[string]string{"rack": "2"}},
			fw: cluster.FrameworkInfo{Roles: []string{"r", "p"},
				Constraints: map[string]cluster.Constraints{"p": {{{Attribute: "rack", Op: opEquals, Value: "1"}}}}},
			offers: []string{"f1 r a1 cpus:1; mem:1024"}, other: "f1 p a1 fair constraints"},
		{name: "no fit", cfg: run.Config{CacheFree: true}, agent: "cpus:1;mem:1024", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			prepare: func(w *world) { w.demand("f1", "r", pend("cpus:2", 1)) }, reason: explain.NoFit},
		{name: "declined", agent: "cpus:1;mem:1024", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			prepare: func(w *world) { w.decline(w.run(true).Offers, 0) }, reason: explain.Declined,
			offers: []string{"f1 r a1 cpus:1; mem:1024"}},
		{name: "declined, Mesos's order", cfg: run.Config{MesosOfferOrder: true}, agent: "cpus:1;mem:1024", fw: cluster.FrameworkInfo{Roles: []string{"r"}},
			prepare: func(w *world) { w.decline(w.run(true).Offers, 0) }, offers: []string{"f1 r a1 cpus:1; mem:1024"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.cfg)
			w.agentInfo("a1", tc.agent, tc.info)
			fw := w.frameworkInfo("f1", tc.fw)
			if tc.prepare != nil {
				tc.prepare(w)
			}
			r := w.run(true)
			require.Equal(t, tc.offers, offers(r.Offers))
			if tc.other != "" {
				require.Equal(t, []string{tc.other}, w.passes())
				require.Equal(t, "constraints:1", skips(r.Stats))
				return
			}
			if tc.reason == explain.None {
				require.Empty(t, w.passes())
				require.Empty(t, skips(r.Stats))
				return
			}
			require.Equal(t, []string{"f1 r a1 fair " + reasonNames[tc.reason]}, w.passes())
			require.Equal(t, reasonNames[tc.reason]+":1", skips(r.Stats))
			require.Equal(t, uint16(tc.missing), w.log.Passes[0].Missing)
			var want [cluster.NumReasons]int32
			want[tc.reason] = 1
			require.Equal(t, want, fw.Skips)
			require.Equal(t, r.Stats.Run, fw.SkipsRun)
		})
	}
}

// Each suppressed role of an active framework counts as passed over once
// a run; an inactive framework's are not counted.
func TestSuppressedRolesCount(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:1;mem:1024")
	w.frameworkInfo("f1", cluster.FrameworkInfo{Roles: []string{"r", "q", "p"}, SuppressedRoles: []string{"r", "q"}})
	w.frameworkInfo("f2", cluster.FrameworkInfo{Roles: []string{"r"}, SuppressedRoles: []string{"r"}})
	w.ok(w.m.DeactivateFramework("f2"))
	r := w.run(true)
	require.Equal(t, "suppressed:2", skips(r.Stats))
	require.Equal(t, []string{"f1 p a1 cpus:1; mem:1024"}, offers(r.Offers))
}

// A framework's counts are those of the latest run that passed it over:
// every pass of the run, none of an earlier run.
func TestAFrameworksCountsAreOfOneRun(t *testing.T) {
	w := newWorld(t, run.Config{CacheFree: true})
	w.agent("a1", "cpus:1;mem:1024")
	w.agent("a2", "cpus:1;mem:1024")
	fw := w.framework("f1", "r")
	w.decline(w.run(true).Offers, 10*time.Second)
	var want [cluster.NumReasons]int32
	want[explain.Filtered] = 2
	for range 2 {
		r := w.run(true)
		require.Equal(t, "filtered:2", skips(r.Stats))
		require.Equal(t, want, fw.Skips)
		require.Equal(t, r.Stats.Run, fw.SkipsRun)
	}
}

// A shared volume is offered to one framework of its role a run: later
// frameworks of the run do not see it, the next run may offer it to
// another (it stays available while offered). Frameworks that cannot take
// shared resources are offered the rest.
func TestSharedVolumesAreOfferedOnceARun(t *testing.T) {
	const volume = "disk(reservations: [(DYNAMIC,db,ops)])[id:v,principal:ops,path:s]<SHARED>:100"
	w := newWorld(t, run.Config{MinAllocatable: []resources.Quantities{qty("cpus:0.01"), qty("mem:32"), qty("disk:32")}})
	w.agent("a1", "cpus:2;mem:2048;"+volume)
	w.frameworkInfo("f1", cluster.FrameworkInfo{Roles: []string{"db"}, Capabilities: offer.SharedResources})
	w.frameworkInfo("f2", cluster.FrameworkInfo{Roles: []string{"db"}, Capabilities: offer.SharedResources})
	w.frameworkInfo("f3", cluster.FrameworkInfo{Roles: []string{"db"}})
	w.ok(w.m.SuppressOffers("f3"))
	r := w.run(true)
	require.Equal(t, []string{"f1 db a1 cpus:2; mem:2048; " + volume}, offers(r.Offers))
	r = w.run(true)
	require.Equal(t, []string{"f2 db a1 " + volume}, offers(r.Offers))
	require.Empty(t, w.passes())
	// The rest, given back, goes to f3, which cannot take the volume.
	w.ok(w.m.SuppressOffers("f1"))
	w.ok(w.m.SuppressOffers("f2"))
	w.ok(w.m.ReviveOffers("f3"))
	w.giveBack(r.Offers)
	w.ok(w.m.Recover("f1", "a1", alloc("cpus:2;mem:2048", "db"), nil, false))
	r = w.run(true)
	require.Equal(t, []string{"f3 db a1 cpus:2; mem:2048"}, offers(r.Offers))
	r = w.run(true)
	require.Empty(t, r.Offers)
	require.Equal(t, []string{"f3 db a1 fair incapable"}, w.passes())
	require.Equal(t, uint16(offer.SharedResources), w.log.Passes[0].Missing)
	r = w.run(true)
	require.Zero(t, r.Stats.Unchanged, "with shared volumes, what nobody could take is not remembered")
}
