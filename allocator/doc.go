// Package allocator is a hierarchical DRF allocator in the manner of Apache
// Mesos's: a host program tells it what happens in the cluster, and it
// decides which framework is offered which resources of which agent.
//
// The Allocator is a pure state machine. It does no I/O, starts no
// goroutine and no global random source (Options.Seed drives every
// shuffle); it reads time only through Options.Clock, which is the system
// clock unless the host passes another (ManualClock for simulations and
// tests). The same events with the same options and clock readings give the
// same offers, byte for byte. It is not safe for concurrent use;
// package allocator/runner wraps it behind a mutex, runs it every
// allocation interval and after events that call for a run (Pending),
// hands the offers to a callback, tells when each run is over, and stops
// with a context.
//
// # Usage
//
// This is the host loop; the README and the package examples show the
// same. Every allocation interval the host calls AllocateAll, the periodic
// run over every agent, sends the offers to the frameworks and reports what
// they do with them; between runs it reports the cluster's events:
//
//	a, _ := allocator.New(allocator.Options{Seed: 1}) // nil Clock: the system clock
//	a.AddAgent("agent-1", allocator.AgentInfo{Hostname: "h1"}, resources.MustParse("cpus:8;mem:16384", "*"), nil)
//	a.AddFramework("spark", allocator.FrameworkInfo{Roles: []string{"analytics"}}, nil, allocator.Active)
//	for range time.Tick(allocator.DefaultAllocationInterval) {
//		for _, o := range a.AllocateAll().Offers {
//			// The framework launches tasks and declines the rest for 5 s.
//			launch := offer.Launch{Tasks: []offer.Task{{ID: "t1", Resources: picked}}}
//			a.Accept(o.FrameworkID, o.AgentID, o.Resources, []offer.Operation{launch}, &allocator.Filter{Refuse: 5 * time.Second})
//		}
//	}
//	// Between runs, when a status update says task t1 finished:
//	a.EndTask("spark", "t1")
//
// AllocateAll every interval is what keeps the cluster busy: it offers what
// expired refusal filters and ended tasks gave back. Allocate runs only what
// events have triggered (below); calling it after such events gives a
// quicker answer, but it does not replace the periodic run. A
// runner.Runner does both.
//
// EndTask ends a task launched through Accept or UpdateAllocation by id
// (the allocator keeps a ledger of them); an id that is unknown or already
// ended is ErrUnknownTask and changes nothing, so a status update delivered
// twice is harmless. Hosts that account for tasks themselves give the
// resources back with RecoverAllocated instead.
//
// The ways to give resources back, and where they go:
//
//	event             gives back                               taken from          filter    goes to
//	RecoverResources  an offer declined, or the unused rest    offered, then used  optional  the pool
//	RescindOffer      an outstanding offer, by its id          offered             none      the pool
//	EndTask           a task of the ledger, by its id          the task's use      none      the pool
//	RecoverAllocated  what ended tasks or executors used       used, then offered  optional  the pool
//	                  (hosts that keep their own task accounts)
//	RecoverHeld       part of what a framework uses            used                none      held for it, then the pool
//	PreemptTask       a task of the ledger, by its id          the task's use      none      held for it, then the pool
//	RemoveFramework   everything the framework holds           everything          none      the pool
//
// Events and what they trigger:
//
//   - AddFramework (active), ActivateFramework, ReviveOffers: an allocation
//     over all agents. AddAgent, UpdateAgent (when something changed),
//     UpdateUnavailability: an allocation of that agent. Allocate runs them
//     as one batch; AllocateAll is the periodic run over every agent.
//   - Everything else (RecoverResources, RecoverAllocated, EndTask, declines, SuppressOffers,
//     deactivations, removals, UpdateAllocation, UpdateAvailable,
//     UpdateQuota, UpdateWeights, UpdateFramework, UpdateWhitelist,
//     ActivateAgent) triggers nothing: its effect shows at the next run.
//
// Every event validates its input first and returns an error wrapping one
// of the Err values of this package (and, for operations, the rule from
// package offer) without changing any state.
//
// # Snapshots, the journal and replication
//
// Because the allocator is deterministic, its state can outlive its
// process. Snapshot writes the whole state (agents, frameworks, offers
// outstanding, allocations, reservations and volumes, refusal filters with
// their expiries, quota, weights, suppression, inverse-offer states, the
// task ledger, counters, triggers, pause, whitelist, the random source and
// the sorters) in a versioned binary format; Restore builds from it an
// allocator that goes on exactly as the saved one would have: the same
// offers, ids and views for the same events. Options that are functions
// (the clock, the sorter factories, the journal hook) are given to Restore
// by the host (RestoreOptions); sorters must implement
// sorter.Snapshotter, as the library's do. A snapshot of another version,
// cut short, damaged or describing a broken state is an error that names
// the problem (ErrInvalidSnapshot, ErrSnapshotVersion), and nothing is
// half-restored.
//
// The journal is the allocator's input written down: with Options.Journal
// set, every event that succeeds is handed to the host as an Entry (the
// method, its arguments, and the clock reading it used), which encodes to
// one line of JSON. Replay (or Apply, entry by entry) feeds a journal to a
// fresh allocator made with the same options, or to one restored from a
// snapshot the journal goes on from, and gives the same state; allocation
// runs are entries too, their offers made again. A host that replicates
// the journal on a consensus log (examples/replicated does, on etcd's
// raft) keeps followers that hold the leader's state, so a failover loses
// no offer, allocation, filter or quota; one leader still allocates, at
// one process's speed.
//
// The allocator reads its clock once per event, as wall-clock time in UTC
// without a monotonic reading, so that a journal or a snapshot carries the
// very instants it used.
//
// # The allocation algorithm
//
// A run visits the candidate agents that exist, are active, are on the
// whitelist and are not over-allocated, in an order shuffled from the seed.
// It has two stages, as Mesos's:
//
//  1. Guarantees. For each agent, roles in DRF order; only roles with unmet
//     quota guarantees (their own or an ancestor's) take part. A framework
//     is offered the unreserved, non-revocable scalars its role still needs
//     for its guarantee, the role's own reservations, non-scalar resources
//     (ports) and revocable resources, and may burst above its guarantee up
//     to its limits while the headroom others need is kept.
//  2. Fair share. Agents are shuffled again. For each agent, roles in DRF
//     order, and within a role its frameworks in DRF order: the first
//     framework that can take anything is offered everything on the agent
//     allocatable to its role (unreserved resources, and reservations of the
//     role and its ancestors), cut down by quota limits and by the headroom
//     held back for unmet guarantees; later frameworks get the remainder.
//
// Offers are coarse-grained: a framework takes what it needs and gives the
// rest back, usually with a refusal filter. The sorters re-sort after every
// offer, so fairness is re-evaluated between agents.
//
// A framework is passed over for an agent (and the reason counted, see
// Skips and RunStats) when a refusal filter covers the offer, when it
// suppressed the role, when its role is at its quota limit or the rest is
// headroom for others, when the offer would be below the minimum
// allocatable resources, when it lacks a capability the agent needs (GPUs,
// another region) or every resource needs (shared, revocable, refined
// reservations), or when its offer constraints exclude the agent.
//
// Inverse offers: after the two stages, every active framework holding
// resources on a candidate agent with a maintenance window is sent an
// inverse offer, unless one is outstanding or an inverse-offer filter is in
// force.
//
// # Accounting
//
// For every agent, available + offered + allocated == total, where
// "offered" is what offers hold and "allocated" what tasks use (launches in
// UpdateAllocation or Accept move resources from offered to allocated);
// resources held for a framework (RecoverHeld) and what the agent reported
// in use by frameworks not added yet (AgentView.Unclaimed, claimed by
// AddFramework) count with "allocated".
// Shared volumes stay available while in use and are offered at most once
// per run. Quota consumption of a role is every reservation in its subtree,
// offered or not, plus the unreserved non-revocable scalars offered or
// allocated in its subtree. The headroom held back is the sum over top-level
// roles of their subtrees' unmet guarantees; reservations are never held
// back.
//
// # Tie rules
//
//   - Roles and frameworks: by weighted dominant share, then by allocation
//     count (how many offers a client has been charged with, never
//     decreasing), then by path, as the DRF sorter documents.
//   - Agents: shuffled from the seed before each stage; candidates come from
//     a sorted list, so the same seed gives the same order. With the DRF
//     role sorter (any sorter.Stable one), agents with nothing available
//     are left out before the shuffles: they could be offered nothing, and
//     a busy cluster's run costs what changed, not the cluster's size.
//   - Resources shrunk to a quota or headroom target are cut in an order
//     drawn from the same seeded source.
//   - Offers of one run are returned sorted by framework, role and agent.
//   - Refusal filters: a filter made at time D for a refusal of R lasts
//     until T = D + min(max(R, AllocationInterval), a year) (a negative R
//     means the 5 s default, zero means no filter), as Mesos's
//     (MESOS-4302), so that it outlives at least one periodic batch. It is
//     in force for every run whose clock reads before T; at T itself, only
//     for a periodic run (AllocateAll) that is the first since the filter
//     was made. That is the order of Mesos's timers at the instant: the
//     batch timer runs first when it was armed first, that is when no
//     batch ran since the filter was made. So a 2 s filter with a 1 s
//     interval keeps the agent from the framework in the batch at D + 1 s
//     and not in the one at D + 2 s (Mesos's OfferFilter), and a 1 s filter
//     made right after a batch with a 60 s interval still applies in the
//     batch at D + 60 s (SmallOfferFilterTimeout). Inverse-offer filters
//     follow the same rule.
//   - Reclaim (Options.Reclaim): roles below their own guarantees are
//     served sub-roles first (reverse path order), then roles owed a fair
//     share in path order; each for its frameworks' pending tasks in the
//     order their framework sorters offer them. A room's victims are on
//     one agent: the fewest tasks, then the least freed beyond what the
//     agent lacks (each resource by the cluster's total), then the more
//     on revocable resources, then the youngest (the latest launched),
//     then the first agent by id.
//
// # Why no offer, and metrics
//
// Explain answers "why did my framework get nothing?" for the latest run:
// for each of the framework's roles, on how many of the run's agents it
// was offered something and, for the others, every reason it was passed
// over, with the agents (the first ExplainAgents of each) and the figures
// behind it; ExplainRole does the same for a role. The reasons, in order
// of precedence (the most actionable first): the framework is inactive,
// removed or joined after the run; it suppressed the role; it lacks a
// capability (which); its offer constraints exclude the agent; none of
// the pending tasks it stated fits (which shapes fit on no agent), or
// nothing is pending; a refusal
// filter covered the agent (until when); the role is at a quota limit
// (the limit, the consumption, what the offer would have added); what was
// left was held back as headroom (for which roles' unmet guarantees, how
// much); what was left was below the minimum allocatable (how much); it
// lost to fairness (to which framework or role, with both shares); it
// declined what the agent has and the others are offered it first (the
// rotation after declines); nothing was left on the agent; the agent was left out of the run. An
// explanation renders as a sentence: "web got nothing on 37 agents: 30 held
// back as headroom for analytics's unmet guarantee (cpus:12), 7 refused
// until 12:00:05".
//
// Options.Observer is told, at the end of every run and of every event
// that changes them, the run's statistics and duration (by
// Options.Stopwatch, the host's), the cluster's totals and holdings, and
// per role and framework its share, what it is offered and uses, its
// quota, its filters in force and its suppression. Package
// allocator/metrics names them as Mesos's allocator metrics do
// (allocator/mesos/allocation_run_ms,
// allocator/mesos/roles/<role>/shares/dominant, ...); neither imports a
// metrics library. Package allocator/httpview serves the views and Explain
// as JSON for a runner.Runner (or behind any lock a host holds);
// examples/metrics exports the figures to Prometheus.
//
// # Where this package differs from Mesos
//
//   - Quota may be set on nested roles. A child's consumption counts against
//     every ancestor's guarantee and limit, a child's guarantee may not
//     exceed an ancestor's limit, and a role may receive guaranteed
//     resources up to the largest unmet guarantee among itself and its
//     ancestors (an ancestor's guarantee covers its whole subtree). The
//     headroom needed by a subtree is the larger of its own unmet guarantee
//     and the sum of its children's.
//   - Sorters see the cluster as one pool: every sorter is told the cluster
//     totals under one pseudo-agent, "(cluster)", so a new role's sorter
//     does not have to learn every agent. Shares are the same as Mesos's,
//     which divide by the sum of agent totals.
//   - Agents that declare no capabilities are taken to have those of a
//     current Mesos agent (MULTI_ROLE, HIERARCHICAL_ROLE,
//     RESERVATION_REFINEMENT, RESIZE_VOLUME); Mesos's implicit filters for
//     agents without MULTI_ROLE or HIERARCHICAL_ROLE are not applied.
//   - Operations are validated here (package offer), since the allocator
//     holds the agent's checkpointed resources; Mesos's master does that.
//   - RecoverResources (for offers) and RecoverAllocated (for ended tasks)
//     stand for Mesos's one recoverResources call with its isAllocated flag.
//   - A run skipped while paused keeps its triggers for the next run.
//   - Framework sorters are unweighted, as in Mesos; weights apply to roles.
//   - The rotation after declines, on by default: a framework that
//     declined (RecoverResources) an agent's resources, unchanged since,
//     is offered them again only after every other framework that may be
//     offered them has been offered them since. In Mesos a decliner that
//     comes first in DRF order is offered the agent again as soon as its
//     filter expires, so with refuse/interval decliners (or one decliner
//     without a filter) a framework further down that could use the agent
//     is never offered it (offer starvation; see package declines). A framework
//     that can use an agent's leftover is offered it within as many runs
//     as there are frameworks eligible for the agent. The round applies in
//     the fair-share stage, counts a framework once across its roles, and
//     is forgotten when the agent's resources change otherwise, or the
//     framework revives, is deactivated or removed. Options.MesosOfferOrder
//     gives Mesos's exact order; the tests that check Mesos's order after
//     declines set it.
//   - Demand (UpdateDemand): a framework may state the tasks it waits for
//     in a role, as shapes with counts, which is Mesos's requestResources
//     (REQUEST) with a count per request and no agent; Mesos's
//     hierarchical allocator only logs those. A framework that states
//     demand is offered an agent only where one of its pending tasks fits,
//     each offer holds one task at a time and the agent is handed out task
//     by task in DRF order, the DRF paper's progressive filling
//     (Options.WholeOffers offers the whole leftover instead), and each
//     task offered is counted off its statement, which the host states
//     again after answering its offers. A statement with nothing pending
//     keeps the framework out of the role's sorter, as suppression does. A
//     framework that never states demand is offered as in Mesos. See
//     demand.go.
//
// # Beyond Mesos (options, off by default)
//
// Changes to Mesos's resource management, each behind an option or an
// event of its own so that Mesos's behaviour stays the default:
//
//   - Pool reservations as quota guarantees, and a role's maximum share as
//     its quota limit: UpdateQuota, always on.
//   - Share charged only beyond a role's allowance
//     (Options.ChargeBeyondAllowance): a role's dominant share counts only
//     what it holds beyond the larger of its quota guarantee and its
//     reservations, name by name (reservations count as consumed quota, so
//     a pool reservation is the guarantee it meets), so a role that uses
//     exactly its pool reservation sorts as if it held nothing. With roles "pool" (cpus(pool):4 reserved, in use) and
//     "other" (cpus:1 of a 6-cpu cluster), the next agent goes to "pool"
//     (share 0 against 1/6); without the option to "other" (4/6 against
//     1/6). Frameworks within a role are charged for all they hold. The role
//     sorter must implement sorter.Allowances (DRF does), which a researcher
//     can use without the allocator.
//   - Reserved resources used first (Options.ReservedFirst): a task
//     launched on unreserved resources while the role's reservations of
//     the same names sit unused in the same offer is moved onto them, the
//     role's own first, then its ancestors' (offer.Pick's order);
//     AcceptApplied returns the operations as applied and Tasks the
//     resources each task was given. Four tasks of cpus:1 on an agent of
//     cpus:8 plus cpus(r):4 leave the shared pool at cpus:4 without the
//     option, at cpus:8 with it.
//   - Freed resources held for preemption (RecoverHeld, PreemptTask): a
//     task preempted by its framework frees resources that are offered to
//     that framework alone at the next run, until it takes them, declines
//     them, or the hold runs out; while held they count in its share and
//     quota, and they never count twice.
//   - Reclaim across roles (Options.Reclaim): for a pending task a
//     framework stated (UpdateDemand) in a role below its quota guarantee,
//     or, with ReclaimFairShare, in a role that got nothing and whose
//     weighted share stays at or below the victims', a run on a cluster
//     with no room for it chooses other roles' tasks to end on one agent
//     where the task fits once they end: the fewest, then those that free
//     the least beyond what is missing, then the youngest, never taking a
//     role or an ancestor below its own guarantee (guarantees on a role
//     and its sub-roles are met together), never for a room the taker's
//     quota limits keep it from using. Without stated demand nothing
//     is chosen. The choices come back as Result.Preemptions (which task,
//     for which role and pending task, why, the shares before and after),
//     and a choice whose need went (the task was offered, fits on an agent
//     that came, is no longer stated, the guarantee changed) as
//     Result.Withdrawn. The part of the task already free on the agent is
//     held for it when the choice is made (within the headroom the run
//     can spare); the host ends the chosen tasks (EndTask), what they
//     free of the room is held too, within the role's quota limits, and
//     the room is offered once its last victim ended. Only unreserved,
//     non-revocable scalars are reclaimed. allocator/internal/reclaim's
//     doc gives the rules.
//   - Splitting agents among frameworks (Options.OfferShare): no offer
//     holds more than a part of an agent, so frameworks that fill one
//     resource each share an agent (workload W2 in BENCHMARKS.md: 20.8
//     tasks per agent with 0.5, 16 without).
//
// examples/pool shows the first three end to end with the numbers.
//
// # What the checks prove
//
// After every event of the tests, the event fuzzer and the long run of
// eventcheck, the bookkeeping is recomputed from scratch (CheckInvariants),
// every run is compared with the same run of a cache-free copy, quota's
// promises are checked by a referee of its own, and every agent left with
// resources free after a periodic run must be kept from each framework by
// a rule Explain names and the views bear out. The README's "What the
// checks prove" says more, with the fairness properties proved.
//
// # What lives here, and what around it
//
// This package is the state machine and the vocabulary it fills in: its
// events and their journal, the views, Explain, the Observer's reports.
// What is built on its public API lives beside it: allocator/runner (the
// allocator behind a lock, run every interval), allocator/metrics (the
// reports named as Mesos's metrics), allocator/httpview (views and Explain
// as JSON), allocator/allocatortest (invariants and random events for
// tests) and allocator/sim (workloads and traces, policies compared).
//
// Parts of the state machine that own one invariant each live under
// allocator/internal/, importing only downward (each package's doc says
// its invariant): tables (the keyed tables and per-framework and per-role
// entries the records are made of), roles (the role tree, its subtree sums
// and the quota arithmetic over them), refusals (the forms of refusal
// filters and the agents' indexes of refusers), codec (the snapshot's wire
// form), cluster (the records of agents, frameworks and tasks, in a
// vocabulary of their own that this package converts its public types from
// and to; State, the tables and the sums kept over them; Ledger, the tasks
// in launch order; their snapshot walks), observe (the Observer's ledgers),
// declines (the refusal filters and the rotation after declines: when a
// filter is made, what it covers, when it goes), quota (roles capped,
// parked across runs, and the allowances the role sorter charges beyond),
// reclaim (which tasks to end for a pending task, and when a choice is
// withdrawn), books (what frameworks hold, in the agents' records, the
// sorters, the role tree and the cluster's sums at once), explain (the
// run's log and why a framework got nothing on an agent), audit (the
// invariants recomputed from first principles, CheckInvariants),
// fingerprint (hashes of the state) and operations (frameworks' and
// operators' operations validated and applied, all or nothing), run (the
// allocation run: its stages, the offers and what it passed over, holds,
// demand, the caches that make runs cheap) and machine (every other
// event applied to the parts). The snapshot's walk over the parts is
// still in this package. Where to look:
//
//   - why did this role get no offer: allocator/internal/run (every
//     pass-over is decided in offerto.go and recorded in the run's log),
//     allocator/internal/explain (the reasons found from that log);
//     Explain (explain.go) adds the figures; quota caps in
//     allocator/internal/quota;
//   - what does an event do: allocator/internal/machine, one handler per
//     event;
//   - how are filters kept: allocator/internal/declines (its doc says
//     when a filter applies and how the compact ones are kept) over the
//     forms of allocator/internal/refusals;
//   - which tasks does reclaim end, and why: allocator/internal/reclaim;
//   - what does a snapshot hold: snapshot_fields.go (the walk, in the
//     order of the format, over the parts' own walks: cluster's agents and
//     frameworks, reclaim's choices, explain's log), allocator/internal/codec
//     (how each value is written and read back), snapshot_restore.go (what
//     is checked after reading).
//
// Every event takes one path (events.go): the public method makes an
// Entry, and step validates, applies, journals and observes it. An event
// is added in four places: its EventKind and row in the table of
// events.go, its handler in allocator/internal/machine, the public method
// that makes its Entry, and a handler in allocatortest, whose tests fail
// while a kind of the table is never reached.
//
// # Implementation notes
//
// A run does not build the sorters' orders: it walks them (sorter.Walker)
// and stops at the first framework that takes the agent, so a run costs
// what it offers, not agents x frameworks. What keeps it from visiting
// frameworks that cannot take anything is a handful of answers kept from
// earlier runs and events (allocator/internal/run/cachefree.go lists
// them): an (agent, role) pair where nobody could take anything, skipped
// until something behind it
// changes (RunStats.Unchanged); the refusal index that steps over
// frameworks known to refuse an agent (allocator/internal/declines,
// RunStats.Refused); roles that can take nothing more kept out of the role
// sorter across runs (allocator/internal/quota, RunStats.Capped); demand
// floors. Each is a claim about what a run would find, checked by the
// tests against a run without it (Options.CacheFree): a role capped or a
// pair skipped is one the cache-free run would not offer either. An
// offer's cuts are ordered by a random source seeded from the offer itself,
// so that a run draws the same numbers whatever it skips.
//
// Resources are small flat entries whose metadata is shared (see package
// resources). An offer's resources are made once, frozen, and shared by the
// host, the agent's records and the outstanding offers; the sorters are
// charged with quantities (allocator/internal/books), so they keep no
// per-agent records but for shared volumes. A frozen value copies itself
// before any change in place, so the host may keep or change what it
// receives. What a run keeps for Explain is allocator/internal/explain's
// log; what an Observer is told, allocator/internal/observe's ledgers,
// kept only with an Observer.
package allocator
