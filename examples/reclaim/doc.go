// Command reclaim shows reclaim across roles (Options.Reclaim) run by run.
// Reclaim makes room for pending tasks: before every run the hosts state
// the tasks their frameworks wait to run (UpdateDemand), and at the end of
// a run with reclaim on, the allocator chooses tasks of other roles to end
// on one agent where a pending task of a role owed resources fits once
// they end, and returns them as Result.Preemptions (which task, on which
// agent, for which role and which pending task, why, the shares before
// and after). Without stated demand it chooses nothing. The host ends
// them (EndTask); what they free of the room is held for the framework
// they were chosen for and offered to it at the next run.
//
//	go run ./examples/reclaim
//	go run ./examples/reclaim -svg shares.svg
//
// Act 1, ReclaimGuarantees. Eight agents of cpus:8;mem:16384 are full of a
// batch role's tasks of 1 and 2 CPUs when a service role, web, gets a
// quota guarantee of cpus:12;mem:12288; its framework waits for six
// replicas of cpus:2;mem:2048. The first run makes room for each replica
// with one batch task of 2 CPUs (the youngest), the host ends them, and
// the second run offers web's framework the rooms, on which it launches
// its replicas: the guarantee is met within two runs. The same runs with
// ReclaimOff offer web nothing: as in Mesos, a role below its guarantee on
// a full cluster waits for other roles' tasks to end by themselves.
//
// Act 2, ReclaimFairShare. Role a fills two agents; role b, of the same
// weight and without a guarantee, arrives and waits for tasks of a's size.
// A task of a is ended for one of b's every other run (the run after an
// end offers b what it freed, and a role offered something has nothing
// chosen for it), as long as b's share stays at or below a's, until the
// two shares are equal.
//
// The story is the same on every run: a manual clock and fixed seeds.
// -svg writes a chart of the roles' shares after each run, for both acts;
// testdata/shares.svg is that chart and testdata/output.txt the output
// (go test ./examples/reclaim -update rewrites both).
package main
