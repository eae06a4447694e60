// Command reclaim shows reclaim across roles (Options.Reclaim) run by run.
// At the end of a run with reclaim on, the allocator chooses tasks of
// other roles to end for a role that is owed resources and returns them
// as Result.Preemptions (which task, on which agent, for which role, why,
// the shares before and after). The host ends them (EndTask); what they
// free is held for the framework they were chosen for and offered to it
// at the next run.
//
//	go run ./examples/reclaim
//	go run ./examples/reclaim -svg shares.svg
//
// Act 1, ReclaimGuarantees. Eight agents of cpus:8;mem:16384 are full of a
// batch role's tasks of 1 and 2 CPUs when a service role, web, gets a
// quota guarantee of cpus:12;mem:12288. The first run chooses the fewest
// batch tasks whose ends meet the guarantee (the youngest of 2 CPUs), the
// host ends them, and the second run offers what they freed to web's
// framework, which launches its replicas on it: the guarantee is met
// within two runs. The same runs with ReclaimOff offer web nothing: as in
// Mesos, a role below its guarantee on a full cluster waits for other
// roles' tasks to end by themselves.
//
// Act 2, ReclaimFairShare. Role a fills two agents; role b, of the same
// weight and without a guarantee, arrives. A task of a is ended for b
// every other run (the run after an end offers b what it freed, and a role
// offered something has nothing chosen for it), as long as b's share stays
// at or below a's, until the two shares are equal.
//
// The story is the same on every run: a manual clock and fixed seeds.
// -svg writes a chart of the roles' shares after each run, for both acts;
// testdata/shares.svg is that chart and testdata/output.txt the output
// (go test ./examples/reclaim -update rewrites both).
package main
