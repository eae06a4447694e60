package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
)

// pingPongTasks is a workload the lab's self-check found: one agent, two
// roles with guarantees, every framework stating its backlog, reclaim for
// guarantees. Reclaim once chose tasks to end for a role's pending task
// while counting, as part of the room, resources free on the agent that it
// could not hold; the next run offered those to another role, the room was
// short when the victims ended, the task did not fit, and reclaim chose
// again: hundreds of tasks ended and the trace never finished.
const pingPongTasks = `time,framework,role,task,resources,duration
0,f2,r2,t0,cpus:3; mem:6144,16.042
0,f1,r1,t1,cpus:4; mem:4096,29.772
0,f2,r2,t2,cpus:6; mem:12288,11.711
33.102,f2,r2,t3,cpus:0.5; mem:512,36.341
24.456,f1,r2,t4,cpus:6; mem:12288,15.185
5.199,f2,r2,t5,cpus:16; mem:32768,0.049
0,f0,r0,t6,cpus:3; mem:6144,3.629
49.803,f1,r2,t7,cpus:3; mem:6144,11.627
0,f1,r2,t8,cpus:16; mem:32768,0.017
0,f1,r1,t9,cpus:3; mem:6144,0.883
59.253,f0,r0,t10,cpus:1; mem:1024,26.124
22.131,f0,r0,t11,cpus:6; mem:12288,9.798
0,f2,r3,t12,cpus:2; mem:2048,28.093
58.361,f1,r1,t13,cpus:2; mem:2048,26.334
18.533,f1,r2,t14,cpus:3; mem:6144,9.551
47.027,f0,r0,t15,cpus:0.5; mem:512,26.527
28.024,f0,r0,t16,cpus:0.5; mem:512,15.266
0,f2,r3,t17,cpus:0.5; mem:512,27.309
0,f0,r0,t18,cpus:2; mem:2048,24.371
0,f2,r3,t19,cpus:0.5; mem:512,27.04
0,f2,r3,t20,cpus:16; mem:32768,12.653
44.88,f0,r0,t21,cpus:0.5; mem:512,29.388
0,f2,r2,t22,cpus:6; mem:12288,3.298
0,f1,r1,t23,cpus:2; mem:2048,34.381
4.13,f1,r1,t24,cpus:2; mem:2048,23.529
0,f2,r3,t25,cpus:0.5; mem:512,10.717
55.336,f1,r1,t26,cpus:6; mem:12288,35.003
2.066,f1,r1,t27,cpus:4; mem:4096,13.261
0,f1,r2,t28,cpus:2; mem:2048,3.87
4.837,f2,r3,t29,cpus:4; mem:4096,0.779
51.103,f0,r0,t30,cpus:3; mem:6144,14.758
44.235,f2,r3,t31,cpus:1; mem:1024,1.751
0,f2,r3,t32,cpus:4; mem:4096,10.69
0,f0,r0,t33,cpus:0.5; mem:512,11.941
0,f0,r0,t34,cpus:6; mem:12288,22.545
0,f1,r1,t35,cpus:1; mem:1024,16.402
0,f1,r1,t36,cpus:0.5; mem:512,36.754
0,f2,r3,t37,cpus:16; mem:32768,29.919
45.083,f0,r0,t38,cpus:3; mem:6144,3.634
0,f2,r3,t39,cpus:16; mem:32768,13.255
0,f0,r0,t40,cpus:1; mem:1024,15.604
0,f1,r2,t41,cpus:1; mem:1024,21.91
0,f0,r0,t42,cpus:2; mem:2048,21.139
0,f1,r2,t43,cpus:4; mem:4096,7.079
0,f1,r2,t44,cpus:2; mem:2048,21.08
40.097,f1,r1,t45,cpus:6; mem:12288,14.864
16.122,f0,r0,t46,cpus:16; mem:32768,22.748
0,f0,r0,t47,cpus:16; mem:32768,1.673
19.292,f0,r0,t48,cpus:3; mem:6144,9.022
`

func TestReclaimDoesNotPingPong(t *testing.T) {
	tasks, err := sim.ReadCSV(strings.NewReader(pingPongTasks))
	require.NoError(t, err)
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "ag0", Count: 1, Resources: "cpus:8;mem:16384"}},
		Frameworks: []sim.Framework{
			{ID: "f0", Roles: []string{"r0"}},
			{ID: "f1", Roles: []string{"r1", "r2"}},
			{ID: "f2", Roles: []string{"r2", "r3"}, Refuse: 10 * time.Second},
		},
		Roles: []sim.Role{
			{Name: "r1", Quota: allocator.Quota{Guarantees: qty("cpus:2;mem:2048")}},
			{Name: "r2", Quota: allocator.Quota{Guarantees: qty("cpus:2;mem:2048")}},
		},
		Tasks: tasks,
	}
	cfg := sim.Config{Name: "reclaim", StateDemand: true, PreemptDelay: 1}
	cfg.Options.Reclaim = allocator.ReclaimGuarantees
	res, err := sim.Run(w, cfg, sim.RunOptions{Seed: 305016471180558015, Interval: time.Second, MaxIntervals: 1500})
	require.NoError(t, err)
	s := res.Summary
	require.Less(t, s.Intervals, 1500, "the run ended before its limit")
	require.LessOrEqual(t, s.Preempted, len(tasks), "tasks ended for guarantees")
	require.Greater(t, s.Finished, len(tasks)/2, "most tasks ran to their end")
}
