// Package sorter decides who is served first: the allocator asks a Sorter
// for its clients (roles, or the frameworks within a role) in order, and
// offers an agent's resources to the first one that can use them.
//
// Three sorters are provided. DRF orders clients by dominant resource
// fairness, level by level of a tree of client paths, as Apache Mesos's
// DRFSorter does; LazyDRF is the same sorter for hosts that keep many
// sorters of one client each (the allocator's framework sorters, one a
// role): it builds its tree only when a second client joins, and answers
// and saves exactly as DRF does. Random draws a weighted random order. Usage orders
// clients by a time-decayed record of their shares (usage-history
// fairness, in the manner of Kueue's admission fair sharing), so that a
// client that held much recently waits behind one that held little.
// Package
// sortertest checks any Sorter, including one of your own, against the
// behaviours every sorter must have and, for a fairness sorter, against the
// DRF ordering rules.
//
// # Dominant resource fairness
//
// A cluster has several kinds of resources, and clients want them in
// different mixes: one runs tasks of 1 CPU and 4 GB, another tasks of 3
// CPUs and 1 GB. Comparing how much each client holds needs one number per
// client. DRF takes, for each client, the fraction of the pool it holds of
// each resource and keeps the largest: its dominant share. A client holding
// 3 of 9 CPUs and 12 of 18 GB holds a third of the CPUs and two thirds of
// the memory, so its dominant share is 2/3 and memory is its dominant
// resource. The sorter serves the client with the smallest dominant share
// first. Handing out resources this way, one task at a time, equalises
// dominant shares: in the example above (the DRF paper's, 9 CPUs and 18 GB)
// the first client ends with 3 tasks and the second with 2, both at 2/3.
//
// The pool is the sum of the totals given to AddAgent. What a client holds
// is the sum of what Allocated recorded for it, less what Unallocated
// returned; the allocator records offers as soon as they are made, so
// outstanding offers count. Only scalar resources count (ports do not);
// resource names in Config.FairnessExcluded do not count (scarce resources
// such as GPUs, which would otherwise make the holder of the only GPU look
// like it holds everything); a resource no agent contributes does not
// count. A shared persistent volume counts once per client per agent,
// however many copies of it the client holds there.
//
// # Weights
//
// A weight scales a share down: the sorter compares share / weight. A
// client of weight 2 is served as if it held half of what it holds, so in
// the long run it holds twice the dominant share of a client of weight 1.
// Weights are set per path with UpdateWeight, before or after a client
// exists there, and last until changed (set 1 to go back to the default).
// Only ratios between siblings matter: doubling every weight changes
// nothing.
//
// # Hierarchy
//
// Clients are paths: "eng/backend/web" is a client below the internal nodes
// "eng" and "eng/backend". The sorter keeps the tree: an internal node holds
// what its whole subtree holds, and has its own weight (its path's). Sort
// orders the root's children by their shares, then the children of each
// child, and so on, and returns the active clients in that order (a
// pre-order walk), so every subtree's clients come out together. This is
// how a share is delegated: "eng" competes with "ops" with what its whole
// organisation holds, and whatever "eng" is due is shared among its groups
// by the same rule one level down.
//
// A client can have children of its own: with "eng" and "eng/web" both
// clients, the tree holds an internal node "eng" and, below it, a virtual
// leaf "eng/." that stands for the client "eng" and competes with
// "eng/web" with what the client "eng" itself holds. The virtual leaf's
// weight is always 1; UpdateWeight("eng", w) weighs the whole subtree
// against its siblings. The virtual leaf appears when the first child is
// added and disappears when the last one is removed; the client keeps its
// allocation and its active state throughout. The path component "." is
// therefore reserved.
//
// # Ties
//
// Siblings are ordered by, in turn:
//
//  1. weighted share, ascending;
//  2. allocation count, ascending: the number of Allocated calls made for
//     the node or anything below it, never lowered (by Unallocated,
//     Update, Deactivate or anything else), so that of two clients with
//     equal shares the one served less often comes first and equal
//     clients take turns;
//  3. path, in string order, so that the order is always fully
//     determined.
//
// Shares are float64 values computed as Mesos computes them, allocation /
// total / weight, from the integer (thousandths of a unit) amounts that
// resources keep, and compared exactly. Equal amounts therefore give
// bit-identical shares and fall through to the count, however they were
// reached. Shares that are equal as fractions but reached through
// different weights may differ in the last bit: 0.3/1.5 is
// 0.19999999999999998 and sorts before 0.2. The sorter keeps this Mesos
// behaviour, which reproduces Mesos's orders.
//
// A client that is added is inactive. Only active clients are returned by
// Sort, but an inactive client's allocation still counts in its ancestors'
// shares, and Allocated, Unallocated and Update work on it as usual.
//
// # Which fairness properties hold
//
// The DRF paper proves that DRF, handing out infinitely divisible
// resources from one pool to users with fixed per-task demands, gives every
// user at least as much as a 1/n partition of the pool would (sharing
// incentive), lets no user prefer another's allocation (envy-freeness),
// leaves no way to give someone more without taking from another (Pareto
// efficiency), rewards no lie about demands (strategy-proofness), reduces to
// max-min fairness with one resource (single-resource fairness) and on a
// resource everyone needs most (bottleneck fairness), and gives no user less
// when another leaves (population monotonicity). It also shows that adding
// resources can give a user less (resource monotonicity fails), and that
// this cannot be avoided together with the sharing incentive and Pareto
// efficiency.
//
// A sorter hands out indivisible tasks through offers: the allocator offers
// an agent to the first client in order, and a client that cannot use it
// declines and the next one is offered. With one pool and one task per
// offer this is discrete DRF in which a client whose next task does not fit
// is skipped ("DRF-Skip"). There the
// properties hold only up to the size of a task, in these precise forms,
// which the package's tests check through the sorter:
//
//   - every task goes to a client of least weighted share among those whose
//     next task fits (the per-step form of max-min fairness and of
//     envy-freeness);
//   - when nothing more fits, no client below its cap can use what is left
//     (Pareto efficiency as maximality);
//   - every client below its cap ends with a weighted share above
//     (1 − Σ δ) / Σ w, where δ is each client's per-task dominant share
//     and w its weight (the sharing incentive up to task sizes);
//   - with one resource, or one resource everyone needs most, shares are
//     measured on it, and the rules above are max-min fairness on it.
//
// Whole-task versions fail, and the tests show counterexamples: with 115
// units and tasks of 1 and 6, the first client runs 55 tasks although half
// the pool would run 57; a client that overstates its task size can get
// more real work done (strategy-proofness fails); with weights a client can
// envy another even after removing one of the other's tasks; a client can
// lose a task when another leaves (population monotonicity also fails for
// divisible tasks when some demands are zero) or when resources are added.
// On several agents, fragmentation and placement come on top: a client can
// be blocked while plenty is free in total, so none of the one-pool bounds
// hold across agents.
//
// The hierarchy is Mesos's per-level DRF: each level is ordered by the
// share of each subtree. Within a subtree, its share is shared among its
// children by the same rule. This is not hierarchical DRF (H-DRF): a subtree
// whose share is inflated by one child's dominant resource can starve its
// other children when tasks churn, and its children get no guaranteed
// fraction of the subtree's share. The tests show this with the H-DRF
// paper's examples.
//
// # The random sorter
//
// Random ignores allocations and totals and returns the active clients in a
// fresh weighted random order on every Sort: a client's relative weight is
// the product, down its path, of each node's weight over the sum of the
// weights of its active siblings. The order is drawn from a PCG generator
// seeded from Config.Seed, so runs repeat.
//
// # Writing a sorter
//
// A sorter of your own implements Sorter. Most of the interface is
// bookkeeping that does not depend on the policy: clients and their tree,
// active flags, weights, allocations per client per agent, the pool, and
// the argument checks and errors the interface documents. Accounting does
// all of it; a sorter embeds one and writes Sort, reading the figures
// Accounting keeps (AppendActive, Quantity, SubtreeQuantity,
// AllocationCount, Weight, Pool, DominantShare); the example of Accounting
// is a whole sorter in twenty lines. A sorter that keeps its own books checks
// its arguments with ValidatePath and ValidateWeight. Either way,
// sortertest.Run checks it, and sortertest.RunFair too if it is meant to
// order as DRF does.
//
// The allocator looks for optional interfaces on the sorters it is given:
//
//   - Walker: Walk visits the order without building it. A run stops at
//     the first client that takes an agent, so walking can cost far less
//     than Sort. Without it the allocator calls Sort.
//   - Sharer: ShareOf reports the share by which the sorter orders a node
//     of the tree. The allocator shows the role sorter's as
//     allocator.RoleView.Share; without it that field is -1.
//
// DRF implements both, Random only Walker. Accounting implements neither,
// so that the sorter embedding it decides what its shares are (its
// DominantShare is one line away from a ShareOf).
//
// # Usage
//
//	s := sorter.NewDRF(sorter.Config{FairnessExcluded: resources.NewNameSet("gpus")})
//	s.AddAgent("agent1", resources.MustParseQuantities("cpus:24;mem:4096"))
//	_ = s.Add("eng/web")
//	_ = s.Add("ops")
//	_ = s.Activate("eng/web")
//	_ = s.Activate("ops")
//	_ = s.UpdateWeight("eng", 2)
//	for _, client := range s.Sort() {
//		// Offer agent1 to client. If it takes r, record it and stop;
//		// if it declines, go on to the next client.
//		_ = s.Allocated(client, "agent1", r)
//		break
//	}
//	fmt.Print(s.Describe())
//
// Errors wrap the package's sentinel errors; test them with errors.Is. A
// call that returns an error changes nothing.
//
// # Implementation notes
//
// The DRF sorter keeps the tree with, at every internal node, its children
// in a github.com/google/btree ordered by (has an active leaf, weighted
// share, allocation count, name). The key holds four bytes of the name
// (those after the prefix every name in the tree shares), which order two
// names as the names do or leave them equal, so that siblings tied on share
// and count are mostly told apart without reading their names. A node is
// filed under a snapshot of its key, so the btree can always find it.
// Allocated, Unallocated, Update, Activate, Deactivate and UpdateWeight
// update the figures of the client and its ancestors (O(depth) quantity
// additions) and queue those nodes; the next Sort re-files each queued node in its parent's btree (O(log
// siblings) each). When many nodes are queued, or a change of the pool
// (AddAgent, RemoveAgent) has changed every share, Sort re-keys every node
// instead, level by level: in one pass over a level's children where their
// order stands under their new keys (a larger pool often scales shares
// without reordering them), by sorting them and refilling the btree (O(n
// log n)) where it does not; that pass goes down the tree in the new order
// and collects Sort's result on the way. Sort keeps its result: with
// nothing changed it returns it at once; after a change of shares or
// counts it moves the block of clients of each re-filed subtree to its new
// place (a memmove); after a change of structure or activity it walks the
// active part of the tree. Steady-state Allocated, Unallocated, Sort and
// ShareOf allocate nothing. A node keeps the figures a sort reads (key,
// count, weight, active leaves, quantities) together at its start, so that
// re-keying every node after a change of the pool reads few cache lines of
// each.
//
// Both sorters also implement Walker. Walk visits the order without
// building it, for a caller that usually stops at the first client (an
// allocator offering an agent to the first framework that can take it): the
// DRF sorter re-files what changed and goes down the sorted tree only as far
// as the caller goes. WalkExcept, with most clients skipped in a flat tree,
// finds the first of the others in a dense copy of the leaves' keys, by
// number, rather than stepping over the skipped ones.
//
// Shares are never updated incrementally as floats: each is computed from
// the node's integer quantities when it is re-filed (see
// resources.Quantities.DominantShare).
//
// Allocations are kept per agent: each agent has the list of clients
// holding something on it (indexed by client once there are more than a
// few), and each client the list of agents it holds something on. Agents
// are found by name in an open-addressing table whose slots hold the name's
// hash and the agent: with tens of thousands of agents, a lookup misses
// the cache once in the table and once in the agent, where a Go map misses
// up to twice before it reaches the agent. Allocated keeps the caller's
// Resources without copying it; the copy is made only if the holding is
// later changed in place. So the caller must not change a Resources in
// place (Add, Subtract) after handing it to the sorter; Clone it first, as
// the resources package asks of any shared Resources. Shared volumes are
// tracked per node per agent with their copy counts, so that each counts
// once in every subtree that holds it.
//
// Deliberate differences from Mesos's sorters:
//
//   - Bad input is an error, not a crash: unknown clients, invalid paths,
//     non-positive or non-finite weights, and Unallocated or Update of
//     resources the client does not hold on that agent all return errors
//     and change nothing. RemoveAgent of an unknown agent is an error in
//     both sorters.
//   - Update counts shared volumes once per agent, as Allocated and
//     Unallocated do.
//   - Allocation returns a map built on demand and kept until the client's
//     allocation changes.
//   - Subtrees with no active client sort after those with one; Mesos keeps
//     inactive leaves at the end of each list. The output is the same.
//
// Sorters are not safe for concurrent use.
package sorter
