// Package sim is a laboratory for allocation policies: it runs workloads
// and traces through the real allocator on a simulated clock and measures
// fairness and utilisation, so that a sorter of one's own can be compared
// with DRF on the same tasks in a few lines.
//
// A Workload is a cluster (groups of agents of one shape, with attributes
// and zones), roles with weights and quota, frameworks, tasks (given one by
// one, read from a trace, or drawn by Generators: arrivals all at once, as
// a Poisson process or in bursts; sizes and durations from distributions)
// and events (agent failures, maintenance windows). A Config is a name and
// allocator.Options: the sorters (any sorter.Factory), ChargeBeyondAllowance,
// OfferShare and the rest. Run runs a workload with one configuration;
// Compare runs it with several on the same tasks and seed, and writes the
// results as a text table, CSV and an SVG chart.
//
// # Usage
//
// Compare DRF with a usage-history sorter on the demonstration workload:
//
//	cmp, err := sim.Compare(sim.BurstyAndSteady(), []sim.Config{
//		{Name: "drf"},
//		{Name: "usage", RoleSorterWithClock: sim.Usage(5 * time.Minute)},
//		{Name: "mine", Options: allocator.Options{RoleSorter: mySorterFactory}},
//	}, sim.RunOptions{Seed: 1, Intervals: sim.BurstyIntervals})
//	if err != nil {
//		return err
//	}
//	cmp.WriteTable(os.Stdout)  // a column per configuration
//	cmp.WriteSVG(chartFile)    // utilisation, shares, waits
//
// A trace instead: ReadCSV reads the package's CSV format (see WriteCSV),
// ReadGoogle the task-events table of the Google cluster trace (2011);
// put the tasks in Workload.Tasks next to the agents. The command
// examples/lab does all of this from the command line.
//
// # Traces
//
// The CSV trace format has one task submission a line, after a header line
// naming the six columns in this order (WriteCSV writes it, ReadCSV reads it):
//
//	time,framework,role,task,resources,duration
//	0,alice,analytics,etl-1,cpus:2;mem:4096,120
//	12.5,bob,web,api-7,cpus:0.5;mem:512,3600
//
// The columns:
//
//   - time: when the task is submitted, in seconds from the start of the
//     run (digits, with up to nine decimals; read exactly, not as a float).
//   - framework: the framework (or user) that submits it; frameworks are
//     made for the names a trace uses (see Workload).
//   - role: the role it runs in; empty means the framework's first role.
//   - task: its id, unique within the framework.
//   - resources: what it uses, in the quantities text format.
//   - duration: how long it runs once launched, in seconds, above zero.
//
// Lines starting with '#' are comments; fields may be quoted as in any CSV.
// Times and durations are at most a billion seconds.
//
// The Google cluster trace of 2011 (clusterdata-2011-2) has a task-events
// table: CSV files without a header, thirteen fields a line:
//
//	timestamp, missing info, job ID, task index, machine ID, event type,
//	user, scheduling class, priority, CPU request, memory request,
//	disk request, different-machine constraint
//
// Timestamps are microseconds from 600 s before the trace window opens, 0
// standing for before the trace and 2^63-1 for after it; requests are
// normalised so that the largest machine has 1 of each; the missing-info
// field, when set, marks a record made up after the fact. Event types: 0
// SUBMIT, 1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL, 6 LOST, 7 and 8
// UPDATE_PENDING and UPDATE_RUNNING. ReadGoogle turns each run of a task,
// from a SUBMIT to the EVICT, FAIL, FINISH, KILL or LOST that ends it, into a
// Task:
//
//   - Framework and Role: the user, as GoogleOptions.Tenant names it (by
//     default both the user made into a role name, see GoogleUser).
//   - ID: "job-index", and "job-index.n" for the task's n-th run that makes
//     a Task (n from 2), when it is submitted again after an eviction,
//     failure, kill, loss or end; Group: the job ID, with
//     DifferentMachines from the constraint.
//   - Submit: the SUBMIT's timestamp, less the run's time zero (below).
//   - Duration: from the SCHEDULE that started the run to its end (at least
//     a microsecond; from 0 for a task running before the trace); a run that
//     ended before it was scheduled never ran and is left out.
//   - Resources: cpus and mem, the requests of the run's latest record that
//     gives them (its SUBMIT, SCHEDULE, UPDATE_PENDING or UPDATE_RUNNING)
//     times GoogleOptions.CPUs and Memory, rounded to the thousandth, at least
//     a thousandth when the request is not zero. A record with missing info
//     gives a request only where the run has none; an empty field never
//     erases one.
//
// The table repeats records, often with missing info set: a SUBMIT of the
// run under way is the same run, a SCHEDULE of a run already scheduled
// leaves its start as it was, and an end of a task whose run has ended is
// a repeat. They are ignored (but for the requests they give) and counted
// in GoogleStats as duplicates, as are SCHEDULEs and updates of a task
// without a run under way, and records at 2^63-1: a run that ends after the
// trace is unfinished.
//
// The run's time zero is the trace's first event, the earliest timestamp
// read, so that a part from late in the trace runs its tasks from the
// start; GoogleOptions.FixedStart puts it at the instant
// GoogleOptions.Start of the trace instead (0: the trace's own time) and
// leaves out the runs submitted before it. GoogleStats.Start says where it
// was.
//
// The trace is 500 parts over 29 days, and a run may end in a part after
// the one that submits it. ReadGoogleParts and ReadGoogleFiles (a glob
// pattern; files whose names end in .gz are read through gzip) read parts
// in order as one trace, keeping from line to line only the runs under
// way, a few words per task whose last run ended, and the tasks made. What
// is left out is counted in GoogleStats: runs without an end in what was
// read, runs that never ran, runs that request nothing, runs submitted
// before the start, and ends without a SUBMIT before them (the run was
// submitted in an earlier part). A timestamp that goes back for one task
// is an error.
//
// A task whose last run ended is kept for GoogleOptions.Remember of the
// trace's time (a day by default; for ever if negative) after its end,
// measured to the latest timestamp read, and then forgotten: the words
// kept are those of the tasks ended within a day, not of the 25 million
// tasks of the trace. Exactness ends there: a record of a task forgotten
// reads as one of a task never seen, so that a repeated end is counted
// as an orphan, a timestamp that goes back is not noticed, and a SUBMIT
// numbers its run as the task's first. Where the task's IDs then repeat,
// its runs read are numbered anew in the order of their submissions
// (GoogleStats.Renumbered), as they would have been, unless some of
// them were submitted before GoogleOptions.Start.
//
// ReadGoogleFiles still returns every task of the trace, and a run holds
// them all. StreamGoogleFiles gives the same tasks, in the same order, as
// a Workload.Stream instead, which a run reads as its clock goes and whose
// tasks it keeps only while they wait or run: it reads the parts once for
// the stats and the time zero, keeping the tasks of runs under way for
// more than 65,536 lines (a task is given at its submission, and its
// length is known at its end), then once per run, holding the tasks made
// until no task still to come can be submitted before them.
//
// The machine-events table (timestamp, machine ID, event type 0 ADD, 1
// REMOVE or 2 UPDATE, platform ID, CPUs, memory) gives the cluster:
// ReadGoogleMachines makes each machine up at time zero or added later an
// agent of its own, with the capacity it had when it joined the run. A
// Workload's agents are there from the start and keep their resources, so
// the rest is approximated: a removal is an AgentFailure until the machine
// is added again, a machine added later is an AgentFailure from time zero
// to its addition, and a change of capacity after it joined is ignored and
// counted. Give it the task events' GoogleStats.Start, so that both keep
// one time.
//
// # What a run does
//
// Every interval, on a clock that moves only from one interval to the next
// (allocator.ManualClock), in this order: the events due happen; tasks
// whose duration is over end (allocator.EndTask), and so do the tasks
// chosen to end whose delay is over (below); tasks submitted by now join
// their framework's backlog; with Config.StateDemand, each framework states
// what it waits for (Allocator.UpdateDemand): per role, the tasks of its
// backlog grouped by resources, shapes in the order their first task
// comes, at most allocator.MaxPending (the head of the backlog); the
// allocator makes its periodic run (AllocateAll); each framework places
// its backlog on its offers with offer/placement (every task its offers
// hold, in the backlog's order: a task that fits no offer is passed over,
// not waited for, as a Mesos framework places what it can), accepts with
// the launches (Allocator.Accept) and declines the rest with a refusal
// filter (Framework.Refuse, 5 s by default); frameworks answer inverse
// offers with Accept; the host acts on the tasks the run chose to end
// (Result.Preemptions, with Options.Reclaim); frameworks left with nothing
// to run suppress their offers; then the interval's Sample is taken. A
// task submitted between two intervals joins at the next, and runs until
// the first interval at or after its end: launches and ends happen at
// intervals, and a task's wait runs from its submission itself to the
// interval it is launched at.
//
// A run that goes until done (RunOptions.Intervals zero) stalls, and
// stops, when nothing is left to come (no submission, event or running
// task) and nothing has been submitted, launched or ended for as many
// intervals as the longest refusal filter lasts, plus one per framework
// and one more: enough for every filter to lapse and every framework
// that waits to be offered each agent in turn.
//
// A task chosen to end is ended (EndTask) Config.PreemptDelay intervals
// after the run that chose it: with 0, right after that run; with n, at
// the start of the n-th interval after, before its run. It goes back to
// the front of its framework's backlog as a new submission, and is
// counted in Summary.Preempted. A choice the allocator withdraws before
// then (Result.Withdrawn: its need went) is not ended. What an ended task
// frees is held for the framework it was chosen for, which is offered it
// at the next run like any offer. Reclaim makes room only for demand
// stated, so without StateDemand it ends nothing.
//
// Frameworks revive by clearing their suppression with UpdateFramework
// (Mesos's UPDATE_FRAMEWORK), not ReviveOffers: their refusal filters stay
// in force, else every framework that gets a task would be offered every
// agent with free resources. A failed agent takes its tasks with it; a
// maintenance window is announced, offers on the agent are declined from
// then on, and the tasks still there when it starts are killed; lost and
// killed tasks go back to the front of their backlog as new submissions.
//
// # Measures
//
// Each Sample holds the utilisation of each resource (used over the total
// of the agents in the cluster), each role's dominant share and weighted
// share (computed from what its tasks use, the same way whatever the
// sorter), Jain's fairness index over the weighted shares of the roles with
// tasks waiting, the tasks running and finished, the offers made and
// declined, and the allocation run's duration when RunOptions.Stopwatch is
// given. The Summary gives the means, each role's waits (mean, p50, p90,
// p99 and max by nearest rank, from submission to launch) and the counts.
//
// The Summary is made of running sums of every interval and of every
// task's wait, not of the samples kept, so it is the same to the bit
// whatever is kept. The waits of a role are kept one by one up to
// RunOptions.ExactWaits (DefaultExactWaits, 65,536, by default: every run
// of the README and the tests is exact), and past that counted in a
// WaitHistogram, whose percentiles are lower by less than 1/256, so that
// a run's memory does not grow with its tasks. Result.Samples keeps every interval's Sample unless
// RunOptions says otherwise: SampleEvery keeps one interval in n, and
// MaxSamples bounds them, halving them and doubling the stride whenever a
// run would keep more, so that a long run holds at most that many, evenly
// spaced (Result.SampleStride). SamplesCSV writes every interval's Sample
// as a CSV line as it is made, the lines WriteSamplesCSV writes of the
// samples kept, and OnSample is given each, so that a run of millions of
// intervals can be written out in full while it holds a few thousand (a
// Sample of 8 roles costs about 400 bytes held; BenchmarkLongRun measures
// a million intervals).
//
// # Charts
//
// WriteSVG draws three sections, each a legend above a grid of plots on
// the same scales, with axis titles: utilisation over time (a plot per
// resource, a line per configuration), weighted shares over time (a plot
// per configuration, a line per role) and the waits' distribution (a plot
// per role, a line per configuration). The chart is 1000 pixels wide;
// plots are at least 180 wide, four to a row at most, and the chart grows
// down as rows are added. Titles and legends wrap, and names too long for
// their place are cut short with an ellipsis, whole in a tooltip.
// Configurations take the Okabe-Ito palette's eight colours, then colours
// spread around the hue circle, dashed: no two lines of a legend share a
// colour, and every line drawn is in its section's legend. The share plots
// draw a line per role up to nine roles; with ten or more, the eight of the
// largest mean weighted share (the Summary's, over the configurations) and
// a grey dashed line for the mean of the others, so that no plot has more
// lines than colours told apart. Each role keeps its own wait plot. Time
// series are means over at most 400 buckets of the samples kept.
//
// The package reads no clock and draws from no global random source: the
// generators draw from PCG sources seeded from RunOptions.Seed (a stream per
// generator, named by its framework and prefix), the allocator is seeded with it, and durations are
// measured only by the caller's Stopwatch. Results, tables, CSV and charts
// are the same byte for byte for the same workload, configuration and seed.
//
// # Implementation notes
//
// Tasks are indexes into one slice sorted by submission; a framework's
// backlog is a slice of indexes with a moving head, and ends are a heap of
// (time, task, attempt), so that the end of an attempt lost with its agent
// is recognised and skipped. Per-role usage and the cluster's totals are
// kept as tasks start and stop, so a Sample costs the number of roles and
// resources, not of agents or tasks.
//
// A framework hands placement only the tasks of its backlog that its
// offers hold, found as placement places tasks without rankers: in the
// backlog's order, each task on the first offer (by agent id, then offer
// id) made to its role that still holds it, one agent per task of a group
// that wants different machines; the others are passed over. Without
// filters or rankers of its own, that is exactly what placement places;
// with them, a task the window left out can run at the framework's next
// offers. The tasks alike (framework, role, resources, group) form a
// class, whose search resumes at the offer where its last task was
// placed, the offers before having been found too small; the scan stops
// when every offer is spent. A backlog of thousands costs a look per task
// and a visit per class and offer, not a placement of every task.
//
// The cost of a run is the allocator's: offers. With Mesos's coarse-grained
// offers each agent with free resources is offered to some framework every
// interval until every framework with work has refused it, so a cluster with
// much idle capacity and many frameworks with a task or two makes an offer
// per free agent per interval, and each decline is an event. BenchmarkLab
// measures a loaded cluster of 1000 agents.
package sim
