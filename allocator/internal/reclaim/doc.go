// Package reclaim chooses the tasks to end so that a pending task of a
// role owed more can run (the allocator's Options.Reclaim). Mesos never
// did this: a guarantee was kept there only with free resources, and a
// role below it waited for other roles' tasks to end by themselves.
//
// Reclaim makes room for what waits, never for an aggregate: a role
// reclaims only for a pending task one of its frameworks stated (the
// allocator's UpdateDemand), and only on one agent, where the task fits
// once the victims end. Without stated demand it does nothing. Freeing
// quantities the taker might not be able to use (the design before this
// one) ended tasks whose resources were then declined, offered back and
// taken again: a storm. Kueue and YuniKorn preempt the same way, for one
// pending workload that must fit once its victims are gone.
//
// # What a run does
//
// At the end of an allocation run (State.Reclaim), in this order:
//
//  1. Earlier choices are kept, dropped or withdrawn. A choice whose task
//     ended or whose time ran out (Run.Timeout) is dropped. A group (the
//     victims chosen together for one pending task) is withdrawn, and
//     returned for the host to cancel, when its need went: the framework
//     left, or no longer states as many such tasks as there are groups
//     for them (a task offered is counted off its statement), the task
//     fits what is free on some agent now (an agent came, resources were
//     given back), or, for a guarantee, the role no longer lacks any
//     resource the task needs (its quota changed, or the groups before it
//     cover it).
//  2. Guarantees: each role below its own guarantee, sub-roles before
//     their parents, makes room for the pending tasks of its subtree's
//     frameworks, in the order its framework sorters would offer them,
//     while its unmet guarantee still lacks a resource the next task
//     needs (at most MaxGroupsPerRole a run). What the pending groups'
//     tasks will take counts against the unmet guarantee of the role
//     they are held in and of each ancestor, so a guarantee on team and
//     one on team/x are met together, not one after the other. A task
//     that fits what is free somewhere is not made room for: it waits
//     for an offer.
//  3. Fair share (Mode FairShare): each role, in path order, that was
//     offered nothing in the run, has no group pending for it and had
//     nothing chosen for it in this run or the one before, makes room for
//     its first pending task that fits nowhere free, taking only from
//     roles whose weighted share is above its own and only if, after the
//     move (the task's quantities added to the taker, the victims' taken
//     from their roles), its share is still at or below each victim
//     role's. No later run can then take the room back by the same rule.
//     Victims are never taken from a role with room pending for it or
//     chosen for it in this run or the one before.
//
// # Which victims
//
// A room is made on one agent the taker's framework could be offered: the
// task's quantities less what is free there (the agent's unreserved,
// non-revocable scalars neither offered nor allocated) is what is
// missing, and the victims' frees (each task's unreserved, non-revocable,
// non-shared scalars) must cover it. Of the sets that do, on any agent:
// the fewest tasks; then the least freed beyond what is missing (each
// resource as a part of the cluster's total); then the more victims on
// revocable resources; then the youngest (compared youngest first); then
// the first agent by id. The search is exhaustive for sets of up to
// ExactVictims tasks (tasks alike in role and frees are tried once); a
// room that needs more is covered greedily and then pruned, so that no
// victim in it can be dropped.
//
// A victim's role is never in the taker's subtree (whose consumption
// counts as the taker's already), and a set is never chosen if its end
// would take a victim's role, or an ancestor of it, below its guarantee
// in a resource the set frees, counting what the pending choices free
// already. An ancestor shared with the role the room is held in loses
// nothing: the room gives back what the victims took away.
//
// # After the choice
//
// The allocator returns the choices as Result.Preemptions and the
// withdrawn ones as Result.Withdrawn. When a chosen task ends, what it
// frees of its room (Choice.Room: the victims of a group split what was
// missing between them, youngest first) is held for the framework in the
// role it was chosen for, within what that role's quota limits leave,
// and offered to it at the next run; the rest goes back to the pool.
//
// The invariants it owns: every choice belongs to a group numbered at
// most State.Groups; a choice's Room is within its Task; no two groups
// stand for more pending tasks of a framework's statement than it states
// at the start of a run; and every choice it makes keeps the guarantees
// above.
package reclaim
